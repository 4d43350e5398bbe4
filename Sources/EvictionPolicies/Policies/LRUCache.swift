// LRU: least recently used, as libCacheSim's LRU.c (1a1a11a/libCacheSim @ aa0fc40).
//
// Rule: one list ordered by recency. A hit moves the entry to the head. A miss evicts from the
// tail until the new object fits (cost and count), then inserts it at the head. An object larger
// than the capacity is never inserted and leaves the cache untouched (libCacheSim's
// `can_insert`). Re-inserting a resident key replaces its cost and counts as a use.

/// A least-recently-used cache with cost and count limits.
///
/// - Complexity: lookup, insert and remove are O(1) expected; each eviction is O(1).
public struct LRUCache<Key: Hashable, Value>: EvictionPolicy {
    public static var descriptor: PolicyDescriptor {
        PolicyDescriptor(
            name: "lru", reproduces: "LRU (libCacheSim LRU.c)",
            rule: "evict the least recently used entry; a hit moves the entry to the head",
            family: .research, supportsCountLimit: true)
    }

    @usableFromInline var store = _SlotStore<Key, Value>()
    @usableFromInline var list = _List()
    @usableFromInline let capacity: Int
    @usableFromInline let countLimit: Int

    public init(limits: CacheLimits, options: PolicyOptions) throws(PolicyConfigurationError) {
        try options.validate(against: Self.descriptor)
        try limits.validate(for: Self.descriptor)
        capacity = limits.capacity ?? .max
        countLimit = limits.countLimit ?? .max
    }

    @inlinable public var count: Int { list.count }
    @inlinable public var totalCost: Int { list.cost }

    @inlinable @inline(__always)
    public func prefetch(_ key: Key, _ stage: PrefetchStage) { store.prefetch(key, stage) }

    @inlinable
    public func contains(_ key: Key) -> Bool { store.find(key) >= 0 }

    @inlinable
    public mutating func lookup(_ key: Key, observer: inout some EvictionObserver<Key, Value>) -> Value? {
        let slot = store.find(key)
        guard slot >= 0 else { return nil }
        store.moveToHead(slot, &list)
        return store.values[Int(slot)]
    }

    @inlinable
    public mutating func access(_ key: Key, cost: Int, orInsert value: @autoclosure () -> Value,
                                observer: inout some EvictionObserver<Key, Value>) -> Bool {
        let hash = store.hash(key)
        let slot = store.find(key, hash: hash)
        if slot >= 0 {
            store.moveToHead(slot, &list)
            return true
        }
        insertNew(value(), forKey: key, hash: hash, cost: cost, observer: &observer)
        return false
    }

    @inlinable
    public mutating func insert(_ value: Value, forKey key: Key, cost: Int,
                                observer: inout some EvictionObserver<Key, Value>) {
        let cost = max(cost, 0)
        let hash = store.hash(key)
        let slot = store.find(key, hash: hash)
        if slot >= 0 {
            // A replacement that can no longer fit drops the stale entry rather than keep it.
            guard cost <= capacity else { remove(key, observer: &observer); return }
            store.values[Int(slot)] = value
            store.setCost(slot, cost, in: &list)
            store.moveToHead(slot, &list)
            makeRoom(forCost: 0, count: 0, observer: &observer)
        } else {
            insertNew(value, forKey: key, hash: hash, cost: cost, observer: &observer)
        }
    }

    @inlinable
    @discardableResult
    public mutating func remove(_ key: Key, observer: inout some EvictionObserver<Key, Value>) -> Value? {
        return store.remove(key, from: &list)
    }

    @inlinable
    mutating func insertNew(_ value: Value, forKey key: Key, hash: UInt64, cost: Int,
                            observer: inout some EvictionObserver<Key, Value>) {
        guard cost <= capacity else { return }
        makeRoom(forCost: cost, count: 1, observer: &observer)
        store.pushHead(store.allocate(key: key, hash: hash, value: value, cost: cost), &list)
    }

    /// Evicts from the tail until `cost` more and `count` more entries fit.
    @inlinable
    mutating func makeRoom(forCost cost: Int, count extra: Int, observer: inout some EvictionObserver<Key, Value>) {
        guard list.cost > capacity - cost || list.count > countLimit - extra else { return }
        observer.trimWillBegin(.caller)
        while !list.isEmpty && (list.cost > capacity - cost || list.count > countLimit - extra) {
            store.evict(list.tail, from: &list, observer: &observer)
        }
        observer.trimDidEnd(.caller)
    }
}
