// The cache-aside flow, once for every SlotPolicy. Each request hashes its key once and probes the
// index once; the rule's hooks are called on the concrete policy, so nothing here is dynamic.

extension SlotPolicy {
    @inlinable
    public func contains(_ key: Key) -> Bool { store.find(key) >= 0 }

    @inlinable
    public mutating func lookup(_ key: Key, observer: inout some EvictionObserver<Key, Value>) -> Value? {
        let slot = store.find(key)
        guard slot >= 0 else { return nil }
        didHit(slot)
        return store.value(slot)
    }

    @inlinable
    public mutating func access(_ key: Key, cost: Int, orInsert value: @autoclosure () -> Value,
                                observer: inout some EvictionObserver<Key, Value>) -> Bool {
        let hash = store.hash(key)
        let slot = store.find(key, hash: hash)
        if slot >= 0 {
            didHit(slot)
            return true
        }
        insertNew(value(), forKey: key, hash: hash, cost: max(cost, 0), observer: &observer)
        return false
    }

    @inlinable
    public mutating func insert(_ value: Value, forKey key: Key, cost: Int,
                                observer: inout some EvictionObserver<Key, Value>) {
        let hash = store.hash(key)
        let slot = store.find(key, hash: hash)
        if slot >= 0 {
            replace(slot, with: value, cost: max(cost, 0), observer: &observer)
        } else {
            insertNew(value, forKey: key, hash: hash, cost: max(cost, 0), observer: &observer)
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
    public mutating func admits(_ key: Key, cost: Int) -> Bool { true }

    @inlinable
    public mutating func insertNew(_ value: Value, forKey key: Key, hash: UInt64, cost: Int,
                                   observer: inout some EvictionObserver<Key, Value>) {
        guard cost <= capacity, admits(key, cost: cost) else { return }
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
        didHit(slot)
        makeRoom(forCost: 0, count: 0, observer: &observer)
    }

    @inlinable
    public mutating func makeRoom(forCost cost: Int, count extra: Int,
                                  observer: inout some EvictionObserver<Key, Value>) {
        var pass = TrimPass(.caller)
        while count > 0 && (totalCost > capacity - cost || count > countLimit - extra) {
            pass.willRemove(&observer)
            evict(victim(), observer: &observer)
        }
        pass.end(&observer)
    }

    /// Evicts `slot`: unlinks it, releases it and reports it to `observer`. The caller brackets
    /// the pass. O(1) expected.
    @inlinable
    public mutating func evict(_ slot: Int32, observer: inout some EvictionObserver<Key, Value>) {
        // The victim after this one is usually the newer neighbour (LRU's and FIFO's new tail,
        // SIEVE's hand): start loading it and its index bucket now.
        let newer = store.prev(slot)
        unlink(slot)
        let key = store.key(slot)
        let cost = store.cost(slot)
        if let value = store.release(slot) { observer.didEvict(key, value: value, cost: cost) }
        store.prefetchEviction(of: newer)
    }
}
