/// A policy whose entries, and any ghosts, live in a ``SlotArena``: the cache surface
/// (`contains`, `lookup`, `access`, `insert`, `remove`) is written once here, over the steps a
/// ``SlotPolicy`` or a ``GhostListPolicy`` supplies.
///
/// - **Hit** (the key's slot is resident): ``didHit(_:observer:)``.
/// - **Miss** (no slot, or a ghost): ``miss(_:hash:ghost:cost:value:observer:)``.
/// - **Insert of a resident key**: ``replace(_:with:cost:observer:)``.
/// - **Remove** (resident or ghost): ``unlink(_:)``, then the slot is released, and the arena
///   gives storage back if it became sparse.
///
/// Costs count as ``CacheLimits/clampedCost(_:)`` gives them: below 0 as 0, above
/// ``CacheLimits/maximumCost`` as that. Every request hashes its key once and probes the index once.
///
/// - Complexity: the surface adds O(1) expected to the policy's own steps.
public protocol ArenaPolicy: EvictionPolicy {
    /// The storage of the entries (and ghosts).
    var store: SlotArena<Key, Value> { get set }
    /// Whether `slot`, found in the index, holds a resident entry rather than a ghost. The
    /// default, for a policy that keeps no ghosts, is `true`.
    func isResident(_ slot: Int32) -> Bool
    /// The hit rule: resident `slot` was requested.
    mutating func didHit(_ slot: Int32)
    /// The hit rule as the surface calls it, with the request's observer for a rule that may
    /// evict on a hit (``HitEvictingPolicy``). The default calls ``didHit(_:)``.
    mutating func didHit(_ slot: Int32, observer: inout some EvictionObserver<Key, Value>)
    /// The hit rule for an access that carries the request's size, `cost` (≥ 0): the research
    /// convention keeps the object's cost, but a rule may read the request's (libCacheSim's Size
    /// re-keys its heap with it). The default calls ``ArenaPolicy/didHit(_:observer:)``.
    mutating func didHit(_ slot: Int32, cost: Int, observer: inout some EvictionObserver<Key, Value>)
    /// The miss step for `key`, whose hash is `hash`, with `cost` (≥ 0): `ghost` is the key's
    /// ghost slot, still in its ghost list, or -1. `value` is called only if the object is stored.
    mutating func miss(_ key: Key, hash: UInt64, ghost: Int32, cost: Int, value: () -> Value,
                       observer: inout some EvictionObserver<Key, Value>)
    /// Takes `slot`, resident or ghost, out of the policy's structures, before it is evicted or removed.
    mutating func unlink(_ slot: Int32)
    /// The update step: resident `slot` gets `value` and `cost` (≥ 0).
    mutating func replace(_ slot: Int32, with value: Value, cost: Int, observer: inout some EvictionObserver<Key, Value>)
    /// Gives storage back once a purge or removal has left the arena sparse; the flow calls it
    /// at the end of every trim and removal. The default cuts only the free slots above the
    /// highest slot in use (``SlotArena/shrinkIfSparse()``), which renumbers nothing; a
    /// ``SlotRelocatingPolicy`` gives back everything (``SlotArena/compactIfSparse()``).
    mutating func shrinkStorageIfSparse()
}

extension ArenaPolicy {
    @inlinable @inline(__always)
    public func isResident(_ slot: Int32) -> Bool { true }

    @inlinable @inline(__always)
    public mutating func didHit(_ slot: Int32, observer: inout some EvictionObserver<Key, Value>) {
        didHit(slot)
    }

    @inlinable @inline(__always)
    public mutating func didHit(_ slot: Int32, cost: Int, observer: inout some EvictionObserver<Key, Value>) {
        didHit(slot, observer: &observer)
    }

    @inlinable
    public func contains(_ key: Key) -> Bool {
        let slot = store.find(key)
        return slot >= 0 && isResident(slot)
    }

    @inlinable @inline(__always)
    public mutating func shrinkStorageIfSparse() { _inPlace { $0.shrinkIfSparse() } }

    /// Runs `body` on the arena in place.
    ///
    /// Why: in this generic extension, a plain read of `store` goes through the requirement's
    /// getter, which returns a copy of the arena: four reference counts taken and dropped per
    /// request (its arrays and its placeholder key), atomic operations that profiled at
    /// about a third of a cache hit. Borrowing it `inout` goes through the modify accessor,
    /// which for a stored `store` is its address.
    @inlinable @inline(__always)
    mutating func _inPlace<Result>(_ body: (inout SlotArena<Key, Value>) -> Result) -> Result {
        body(&store)
    }

    /// Starts loading the index bucket (`.index`) or the entry (`.entry`) a request for `key`
    /// will touch, through the arena in place.
    @inlinable @inline(__always)
    public mutating func prefetch(_ key: Key, _ stage: PrefetchStage) {
        _ = _inPlace { $0.prefetch(key, stage) }
    }

    @inlinable
    public mutating func lookup(_ key: Key, observer: inout some EvictionObserver<Key, Value>) -> Value? {
        _lookup(key, hash: _inPlace { $0.hash(key) }, observer: &observer)
    }

    /// ``lookup(_:observer:)`` for a key whose hash was computed already, by
    /// ``SlotArena/hash(_:)`` or, equally, by `_hash(key, seed: _stringHashSeed)`, the seed every
    /// arena's index uses: how ``Cache`` hashes a key before it takes its lock.
    // Always inlined: ``Cache`` calls it from a switch over the ten policies it names, where the
    // compiler otherwise outlines it (one call per get, and nothing scheduled across it). Inlined,
    // Cache's get went from 0.77–0.79 to 0.88–0.94 of the bare LRU's in three alternated pairs on
    // a 1 MiB-L2 machine (`library-benchmark --only LRU`).
    @inlinable @inline(__always)
    public mutating func _lookup(_ key: Key, hash: UInt64, observer: inout some EvictionObserver<Key, Value>) -> Value? {
        assert(hash == _inPlace { $0.hash(key) }, "the key's hash was computed with another seed")
        let slot = _inPlace { $0.find(key, hash: hash) }
        // The value is read before the hit rule runs: a rule that evicts on a hit may evict it.
        guard slot >= 0, isResident(slot), let value = _inPlace({ $0.value(slot) }) else { return nil }
        didHit(slot, observer: &observer)
        return value
    }

    @inlinable
    public mutating func access(_ key: Key, cost: Int, orInsert value: @autoclosure () -> Value,
                                observer: inout some EvictionObserver<Key, Value>) -> Bool {
        let (hash, slot) = _inPlace { store in
            let hash = store.hash(key)
            return (hash, store.find(key, hash: hash))
        }
        if slot >= 0 && isResident(slot) {
            didHit(slot, cost: CacheLimits.clampedCost(cost), observer: &observer)
            return true
        }
        miss(key, hash: hash, ghost: slot, cost: CacheLimits.clampedCost(cost), value: value, observer: &observer)
        return false
    }

    @inlinable
    public mutating func insert(_ value: Value, forKey key: Key, cost: Int,
                                observer: inout some EvictionObserver<Key, Value>) {
        _insert(value, forKey: key, hash: _inPlace { $0.hash(key) }, cost: cost, observer: &observer)
    }

    /// ``insert(_:forKey:cost:observer:)`` for a key whose hash was computed already, as
    /// ``_lookup(_:hash:observer:)`` takes it: how ``Cache`` stores a key it hashed before taking
    /// its lock.
    @inlinable @inline(__always)
    public mutating func _insert(_ value: Value, forKey key: Key, hash: UInt64, cost: Int,
                                 observer: inout some EvictionObserver<Key, Value>) {
        assert(hash == _inPlace { $0.hash(key) }, "the key's hash was computed with another seed")
        let slot = _inPlace { $0.find(key, hash: hash) }
        if slot >= 0 && isResident(slot) {
            if let old = _inPlace({ $0.value(slot) }) { observer.willReplace(key, value: old) }
            replace(slot, with: value, cost: CacheLimits.clampedCost(cost), observer: &observer)
        } else {
            miss(key, hash: hash, ghost: slot, cost: CacheLimits.clampedCost(cost), value: { value }, observer: &observer)
        }
    }

    @inlinable
    @discardableResult
    public mutating func remove(_ key: Key, observer: inout some EvictionObserver<Key, Value>) -> Value? {
        let slot = _inPlace { $0.find(key) }
        guard slot >= 0 else { return nil }
        unlink(slot)
        defer { shrinkStorageIfSparse() }
        return store.release(slot)
    }
}
