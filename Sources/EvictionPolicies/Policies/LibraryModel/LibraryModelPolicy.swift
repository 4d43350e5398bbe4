// The flow of an app library's cache, once for every library model. Libraries store first and
// trim after (NSCache, Nuke, YYCache, PINCache, SDWebImage, AFNetworking), where libCacheSim's
// flow evicts first; some refuse a get for an entry that is still stored (a TTL), some run work
// queued by an earlier call at the start of the next one, and some charge a cost other than the
// one given (allocated disk blocks). Each is a hook here, so a model writes only its own rule.

/// A ``SlotPolicy`` that models an app library's cache: a set stores the entry first and then
/// trims, rather than making room first.
///
/// The flow, on top of ``SlotPolicy``'s rule hooks:
/// - Every call (``EvictionPolicy/lookup(_:observer:)``, ``EvictionPolicy/insert(_:forKey:cost:observer:)``,
///   ``EvictionPolicy/remove(_:observer:)``) first runs ``willOperate(observer:)``: work an earlier call queued.
///   A cache-aside ``EvictionPolicy/access(_:cost:orInsert:observer:)`` that misses is a get and a set, two calls.
/// - **Get**: a resident entry is a hit unless ``refusesHit(_:observer:)`` (a TTL) says otherwise;
///   a hit runs ``ArenaPolicy/didHit(_:)``.
/// - **Set**: the cost is clamped at 0 and charged as ``chargedCost(_:)``; ``SlotPolicy/admits(_:cost:)``
///   may ignore the set (a new key or a resident one); a new entry takes a slot and
///   ``SlotPolicy/didInsert(_:)`` places it, a resident one gets its value and cost and
///   ``didReplace(_:formerCost:)``; then ``trimAfterSet(observer:)``. Nothing refuses an entry
///   larger than the limit: it is stored, and the trim removes what the library would.
///
/// The default trim is ``evictVictims(toCost:toCount:as:observer:)`` to the limits, as one caller
/// pass: ``SlotPolicy/victim()`` goes while over the cost limit or the count limit.
///
/// Storage: each call starts with ``ArenaPolicy/shrinkStorageIfSparse()``, after the queued work,
/// and a removal ends with it, so what the trims, timers and events of earlier calls freed is
/// given back (compacted, for a model that is a ``SlotRelocatingPolicy``) at a moment when the
/// model holds no slot number of its own outside its lists and side tables. A model that wraps
/// another and keeps slot numbers of the inner model's arena must keep the inner one from
/// compacting and compact it itself, moving its own numbers too (Kingfisher's expiry times over
/// its NSCache).
public protocol LibraryModelPolicy: SlotPolicy {
    /// Work queued by an earlier call that runs before this one (a deferred purge). Default: none.
    mutating func willOperate(observer: inout some EvictionObserver<Key, Value>)
    /// Whether work is queued that ``willOperate(observer:)`` will run. Default: never.
    var hasDeferredWork: Bool { get }
    /// Whether a get of resident `slot` is a miss (an expired entry); the model may remove the
    /// entry, reporting it to `observer`. Default: never.
    mutating func refusesHit(_ slot: Int32, observer: inout some EvictionObserver<Key, Value>) -> Bool
    /// The update rule: resident `slot` has just got a new value and cost (it had `formerCost`).
    /// Default: ``ArenaPolicy/didHit(_:)``.
    mutating func didReplace(_ slot: Int32, formerCost: Int)
    /// The cost the library charges for a set of `cost` (≥ 0). Default: `cost`.
    func chargedCost(_ cost: Int) -> Int
    /// The trim every set ends with. Default: evict victims until within both limits, one caller pass.
    mutating func trimAfterSet(observer: inout some EvictionObserver<Key, Value>)
}

extension LibraryModelPolicy {
    /// No count limit, unless the model has one.
    @inlinable public var countLimit: Int { .max }

    @inlinable @inline(__always)
    public mutating func willOperate(observer: inout some EvictionObserver<Key, Value>) {}

    @inlinable public var hasDeferredWork: Bool { false }

    /// Runs the queued work as the calls that would have run it do, one after another, until
    /// none is left.
    @inlinable
    public mutating func finishDeferredWork(observer: inout some EvictionObserver<Key, Value>) {
        while hasDeferredWork { willOperate(observer: &observer) }
    }

    @inlinable @inline(__always)
    public mutating func refusesHit(_ slot: Int32, observer: inout some EvictionObserver<Key, Value>) -> Bool { false }

    @inlinable
    public mutating func didReplace(_ slot: Int32, formerCost: Int) { didHit(slot) }

    @inlinable @inline(__always)
    public func chargedCost(_ cost: Int) -> Int { cost }

    @inlinable
    public mutating func trimAfterSet(observer: inout some EvictionObserver<Key, Value>) {
        evictVictims(toCost: capacity, toCount: countLimit, as: .caller, observer: &observer)
    }

    /// Evicts ``SlotPolicy/victim()`` while the total cost is above `costTarget` or the count
    /// above `countTarget`, as one pass of `kind` (none when nothing goes). O(k) for k victims,
    /// as the rule's `victim()` costs.
    @inlinable
    public mutating func evictVictims(toCost costTarget: Int, toCount countTarget: Int, as kind: TrimKind,
                                      observer: inout some EvictionObserver<Key, Value>) {
        var pass = TrimPass(kind)
        while count > 0 && (totalCost > costTarget || count > countTarget) {
            pass.willRemove(&observer)
            evict(victim(), observer: &observer)
        }
        pass.end(&observer)
    }

    // MARK: The flow

    @inlinable
    public mutating func lookup(_ key: Key, observer: inout some EvictionObserver<Key, Value>) -> Value? {
        willOperate(observer: &observer)
        shrinkStorageIfSparse()
        let slot = store.find(key)
        guard slot >= 0, !refusesHit(slot, observer: &observer) else { return nil }
        didHit(slot)
        return store.value(slot)
    }

    @inlinable
    public mutating func access(_ key: Key, cost: Int, orInsert value: @autoclosure () -> Value,
                                observer: inout some EvictionObserver<Key, Value>) -> Bool {
        willOperate(observer: &observer)
        shrinkStorageIfSparse()
        let hash = store.hash(key)
        let slot = store.find(key, hash: hash)
        if slot >= 0 && !refusesHit(slot, observer: &observer) {
            didHit(slot)
            return true
        }
        // The app's set after its missed get: a call of its own.
        willOperate(observer: &observer)
        set(value(), forKey: key, hash: hash, cost: cost, observer: &observer)
        return false
    }

    @inlinable
    public mutating func insert(_ value: Value, forKey key: Key, cost: Int,
                                observer: inout some EvictionObserver<Key, Value>) {
        willOperate(observer: &observer)
        shrinkStorageIfSparse()
        set(value, forKey: key, hash: store.hash(key), cost: cost, observer: &observer)
    }

    @inlinable
    @discardableResult
    public mutating func remove(_ key: Key, observer: inout some EvictionObserver<Key, Value>) -> Value? {
        willOperate(observer: &observer)
        let slot = store.find(key)
        guard slot >= 0 else { return nil }
        unlink(slot)
        defer { shrinkStorageIfSparse() }
        return store.release(slot)
    }

    /// The set: a new entry or an update of a resident one, then the trim.
    @inlinable
    mutating func set(_ value: Value, forKey key: Key, hash: UInt64, cost: Int,
                      observer: inout some EvictionObserver<Key, Value>) {
        let cost = chargedCost(max(cost, 0))
        let slot = store.find(key, hash: hash)
        if slot >= 0 {
            replace(slot, with: value, cost: cost, observer: &observer)
        } else {
            insertNew(value, forKey: key, hash: hash, cost: cost, observer: &observer)
        }
    }

    @inlinable
    public mutating func insertNew(_ value: Value, forKey key: Key, hash: UInt64, cost: Int,
                                   observer: inout some EvictionObserver<Key, Value>) {
        guard admits(key, cost: cost) else { return }
        didInsert(store.allocate(key: key, hash: hash, value: value, cost: cost))
        trimAfterSet(observer: &observer)
    }

    @inlinable
    public mutating func replace(_ slot: Int32, with value: Value, cost: Int,
                                 observer: inout some EvictionObserver<Key, Value>) {
        guard admits(store.key(slot), cost: cost) else { return }
        let formerCost = store.cost(slot)
        // The replaced value goes to the observer (a `Cache` releases it after its lock).
        if let old = store.value(slot) { observer.willReplace(store.key(slot), value: old) }
        store.setValue(slot, value)
        setCost(slot, cost)
        didReplace(slot, formerCost: formerCost)
        trimAfterSet(observer: &observer)
    }
}
