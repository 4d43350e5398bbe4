// MRU: most recently used (Chou & DeWitt, "An Evaluation of Buffer Management Strategies for
// Relational Database Systems", VLDB'85), as libCacheSim's MRU.c (1a1a11a/libCacheSim @ aa0fc40,
// `MRU_find`, `MRU_insert`, `MRU_evict`).
//
// Rule: one list ordered by recency. A hit moves the entry to the head; a new object is inserted
// at the head. To make room, evict the head (the most recently used or inserted object) until the
// new object fits (cost and count), then insert it at the head. The newcomer is never its own
// victim. An object larger than the capacity is never inserted and leaves the cache untouched.
// Re-inserting a resident key counts as a use: the entry is taken out, room is made for its new
// cost among the others (most recent first), and it goes back at the head — otherwise the entry
// being replaced would always be the first victim of its own growth.

/// A most-recently-used cache with cost and count limits.
///
/// - Complexity: lookup, insert and remove are O(1) expected; each eviction is O(1).
public struct MRUCache<Key: Hashable, Value>: EvictionPolicy {
    public static var descriptor: PolicyDescriptor {
        PolicyDescriptor(
            name: "mru", reproduces: "MRU (libCacheSim MRU.c)",
            rule: "evict the most recently used or inserted entry; a hit moves the entry to the head",
            family: .research, supportsCountLimit: true)
    }

    @usableFromInline var store = SlotArena<Key, Value>()
    /// Head: most recently used or inserted; the victim end.
    @usableFromInline var list = SlotList()
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
            guard cost <= capacity else { remove(key, observer: &observer); return }
            store.values[Int(slot)] = value
            store.unlink(slot, &list)
            store.slots[Int(slot)].cost = cost
            makeRoom(forCost: cost, count: 1, observer: &observer)
            store.pushHead(slot, &list)
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

    /// Evicts from the head until `cost` more and `count` more entries fit.
    @inlinable
    mutating func makeRoom(forCost cost: Int, count extra: Int, observer: inout some EvictionObserver<Key, Value>) {
        guard list.cost > capacity - cost || list.count > countLimit - extra else { return }
        observer.trimWillBegin(.caller)
        while !list.isEmpty && (list.cost > capacity - cost || list.count > countLimit - extra) {
            store.evict(list.head, from: &list, observer: &observer)
        }
        observer.trimDidEnd(.caller)
    }
}
