// The cache-aside flow, once for every SlotPolicy: ArenaPolicy's surface calls these steps.
// Each request hashes its key once and probes the index once; the rule's hooks are called on the
// concrete policy, so nothing here is dynamic.

extension SlotPolicy {
    /// A slot policy keeps no ghosts: a miss is always a new object.
    @inlinable @inline(__always)
    public mutating func miss(_ key: Key, hash: UInt64, ghost: Int32, cost: Int, value: () -> Value,
                              observer: inout some EvictionObserver<Key, Value>) {
        insertNew(value(), forKey: key, hash: hash, cost: cost, observer: &observer)
    }

    @inlinable
    public mutating func admits(_ key: Key, cost: Int) -> Bool { true }

    @inlinable @inline(__always)
    public func knownHash(ofVictim slot: Int32) -> UInt64? { nil }

    @inlinable
    public mutating func insertNew(_ value: Value, forKey key: Key, hash: UInt64, cost: Int,
                                   observer: inout some EvictionObserver<Key, Value>) {
        // As libCacheSim's cache_can_insert_default: the admissioner first (it may draw or
        // remember the key even for an object too large to keep), then the size; then the
        // policy's own test, as its can_insert overrides (SLRU, ClockPro) add theirs.
        guard observer.admits(key, cost: cost), cost <= capacity, admits(key, cost: cost) else { return }
        makeRoom(forCost: cost, count: 1, observer: &observer)
        didInsert(store.allocate(key: key, hash: hash, value: value, cost: cost))
    }

    @inlinable
    public mutating func replace(_ slot: Int32, with value: Value, cost: Int,
                                 observer: inout some EvictionObserver<Key, Value>) {
        // A replacement that can no longer fit drops the stale entry rather than keep it.
        guard cost <= capacity else {
            unlink(slot)
            store.release(slot)
            return
        }
        store.setValue(slot, value)
        setCost(slot, cost)
        didHit(slot, observer: &observer)
        makeRoom(forCost: 0, count: 0, observer: &observer)
    }

    @inlinable
    public mutating func makeRoom(forCost cost: Int, count extra: Int,
                                  observer: inout some EvictionObserver<Key, Value>) {
        _evictVictims(downToCount: countLimit - extra, cost: capacity - cost, observer: &observer)
    }

    /// Evicts ``SlotPolicy/victim()`` after victim, in one trim pass, until at most `count`
    /// entries costing at most `cost` remain. O(k) expected for k victims.
    @inlinable
    public mutating func evictVictims(downToCount count: Int, cost: Int,
                                      observer: inout some EvictionObserver<Key, Value>) -> Bool {
        _evictVictims(downToCount: count, cost: cost, observer: &observer)
        return true
    }

    /// The loop of ``evictVictims(downToCount:cost:observer:)`` and of the default
    /// ``makeRoom(forCost:count:observer:)``, written once and called directly, so that a policy
    /// overriding one of the two does not change the other.
    @inlinable
    mutating func _evictVictims(downToCount count: Int, cost: Int, observer: inout some EvictionObserver<Key, Value>) {
        var pass = TrimPass(.caller)
        while self.count > 0 && (self.count > count || totalCost > cost) {
            // A rule with no victim to give (-1) ends the pass: an entry goes in over the limits
            // rather than the process trapping on slot -1, and a replay names the policy as one
            // that did not evict as its limits require. So does a victim that is no resident
            // (a released slot, a made-up number: a plug-in rule's mistake), which would
            // otherwise corrupt the free list or read out of range.
            let slot = victim()
            let victimHash = knownHash(ofVictim: slot)
            guard _inPlace({ $0._unindexResident(slot, knownHash: victimHash) }) else { break }
            pass.willRemove(&observer)
            _evict(slot, observer: &observer, indexed: false)
        }
        pass.end(&observer)
        shrinkStorageIfSparse()
    }

    /// Evicts `slot`: unlinks it, releases it and reports it to `observer`. The caller brackets
    /// the pass. O(1) expected.
    @inlinable
    public mutating func evict(_ slot: Int32, observer: inout some EvictionObserver<Key, Value>) {
        _evict(slot, observer: &observer, indexed: true)
    }

    /// ``evict(_:observer:)``, of a slot still `indexed` or one the eviction loop took out of
    /// the index as it checked it.
    @inlinable @inline(__always)
    mutating func _evict(_ slot: Int32, observer: inout some EvictionObserver<Key, Value>, indexed: Bool) {
        // The victim after this one is usually the newer neighbour (LRU's and FIFO's new tail,
        // SIEVE's hand): start loading it and its index bucket now.
        // The arena is read in place: a plain read of `store` here copied the arena (an
        // outlined copy of the whole policy, profiled at about 8 % of FIFO's replay).
        let newer = _inPlace { $0.prev(slot) }
        unlink(slot)
        // A victim is resident (see `victim()`): where values are only marks (replay's), its mark
        // need not be read back.
        let (key, cost, value) = _inPlace { store in (store.key(slot), store.cost(slot), indexed ? store._releaseResident(slot) : store._releaseUnindexedResident(slot)) }
        if let value { observer.didEvict(key, value: value, cost: cost) }
        _inPlace { $0.prefetchEviction(of: newer) }
    }
}
