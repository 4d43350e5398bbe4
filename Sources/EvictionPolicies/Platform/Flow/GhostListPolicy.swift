/// A policy made of several queues over one ``SlotArena``, some holding resident entries and
/// some holding ghosts (keys whose objects left; see ``SlotArena/demote(_:to:limit:tag:pass:observer:)``):
/// 2Q, ARC, S3-FIFO, QD-LP, CLOCK-2Q+. The cache surface around the rule is written once here.
///
/// The flow:
/// - **Hit** (the key is resident): ``didHit(_:)``.
/// - **Miss** (the key is unknown or a ghost): ``miss(_:hash:ghost:cost:value:observer:)`` with
///   the ghost's slot, still in its ghost list, or -1. The rule decides everything else: what it
///   refuses, what it evicts or demotes, where the object goes.
/// - **Insert of a resident key**: ``replace(_:with:cost:observer:)``; by default, the same
///   cost keeps the entry and counts as a hit, a new cost is a new object: the old one goes
///   (not an eviction) and the new one misses.
/// - **Remove** (resident or ghost): ``unlink(_:)``, then the slot is released.
///
/// Costs below 0 count as 0. Every request hashes its key once and probes the index once.
///
/// A policy should implement ``EvictionPolicy/prefetch(_:_:)`` as `store.prefetch(key, stage)`
/// (see ``SlotPolicy`` for why).
///
/// - Complexity: the surface adds O(1) expected to the rule's own steps.
public protocol GhostListPolicy: EvictionPolicy {
    /// The storage of the entries and ghosts.
    var store: SlotArena<Key, Value> { get set }
    /// Whether `slot`, found in the index, holds a resident entry rather than a ghost.
    func isResident(_ slot: Int32) -> Bool
    /// The hit rule: resident `slot` was requested.
    mutating func didHit(_ slot: Int32)
    /// The miss rule for `key`, whose hash is `hash`, with `cost` (≥ 0): `ghost` is the key's
    /// ghost slot, still in its ghost list, or -1 for a key the cache does not remember.
    /// `value` is called only if the object is stored.
    mutating func miss(_ key: Key, hash: UInt64, ghost: Int32, cost: Int, value: () -> Value,
                       observer: inout some EvictionObserver<Key, Value>)
    /// Takes `slot`, resident or ghost, out of the queue that holds it.
    mutating func unlink(_ slot: Int32)
    /// The update step: resident `slot` gets `value` and `cost` (≥ 0).
    mutating func replace(_ slot: Int32, with value: Value, cost: Int, observer: inout some EvictionObserver<Key, Value>)
}

extension GhostListPolicy {
    @inlinable
    public func contains(_ key: Key) -> Bool {
        let slot = store.find(key)
        return slot >= 0 && isResident(slot)
    }

    @inlinable
    public mutating func lookup(_ key: Key, observer: inout some EvictionObserver<Key, Value>) -> Value? {
        let slot = store.find(key)
        guard slot >= 0, isResident(slot) else { return nil }
        didHit(slot)
        return store.value(slot)
    }

    @inlinable
    public mutating func access(_ key: Key, cost: Int, orInsert value: @autoclosure () -> Value,
                                observer: inout some EvictionObserver<Key, Value>) -> Bool {
        let hash = store.hash(key)
        let slot = store.find(key, hash: hash)
        if slot >= 0 && isResident(slot) {
            didHit(slot)
            return true
        }
        miss(key, hash: hash, ghost: slot, cost: max(cost, 0), value: value, observer: &observer)
        return false
    }

    @inlinable
    public mutating func insert(_ value: Value, forKey key: Key, cost: Int,
                                observer: inout some EvictionObserver<Key, Value>) {
        let hash = store.hash(key)
        let slot = store.find(key, hash: hash)
        if slot >= 0 && isResident(slot) {
            replace(slot, with: value, cost: max(cost, 0), observer: &observer)
        } else {
            miss(key, hash: hash, ghost: slot, cost: max(cost, 0), value: { value }, observer: &observer)
        }
    }

    @inlinable
    @discardableResult
    public mutating func remove(_ key: Key, observer: inout some EvictionObserver<Key, Value>) -> Value? {
        let slot = store.find(key)
        guard slot >= 0 else { return nil }
        unlink(slot)
        return store.release(slot)
    }

    @inlinable
    public mutating func replace(_ slot: Int32, with value: Value, cost: Int,
                                 observer: inout some EvictionObserver<Key, Value>) {
        guard store.cost(slot) != cost else {
            store.setValue(slot, value)
            didHit(slot)
            return
        }
        let key = store.key(slot)
        let hash = store.hash(key)
        unlink(slot)
        store.release(slot)
        miss(key, hash: hash, ghost: -1, cost: cost, value: { value }, observer: &observer)
    }
}
