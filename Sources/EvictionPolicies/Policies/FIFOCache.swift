// FIFO: first in, first out, as libCacheSim's FIFO.c (1a1a11a/libCacheSim @ aa0fc40).
//
// Rule: one list ordered by insertion. Hits change nothing. A miss evicts the oldest insertion
// until the new object fits (cost and count), then inserts it at the head. An object larger than
// the capacity is never inserted. Re-inserting a resident key replaces its cost in place and
// keeps its position, as a FIFO queue would.

/// A first-in, first-out cache with cost and count limits.
///
/// - Complexity: lookup, insert and remove are O(1) expected; each eviction is O(1).
public struct FIFOCache<Key: Hashable, Value>: EvictionPolicy {
    public static var descriptor: PolicyDescriptor {
        PolicyDescriptor(
            name: "fifo", reproduces: "FIFO (libCacheSim FIFO.c)",
            rule: "evict the oldest insertion; hits change nothing",
            family: .research, supportsCountLimit: true)
    }

    @usableFromInline var store = _SlotStore<Key, Value>()
    @usableFromInline var queue = _List()
    @usableFromInline let capacity: Int
    @usableFromInline let countLimit: Int

    public init(limits: CacheLimits, options: PolicyOptions) throws(PolicyConfigurationError) {
        try options.validate(against: Self.descriptor)
        try limits.validate(for: Self.descriptor)
        capacity = limits.capacity ?? .max
        countLimit = limits.countLimit ?? .max
    }

    @inlinable public var count: Int { queue.count }
    @inlinable public var totalCost: Int { queue.cost }

    @inlinable @inline(__always)
    public func prefetch(_ key: Key, _ stage: PrefetchStage) { store.prefetch(key, stage) }

    @inlinable
    public func contains(_ key: Key) -> Bool { store.find(key) >= 0 }

    @inlinable
    public mutating func lookup(_ key: Key, observer: inout some EvictionObserver<Key, Value>) -> Value? {
        let slot = store.find(key)
        return slot >= 0 ? store.values[Int(slot)] : nil
    }

    @inlinable
    public mutating func access(_ key: Key, cost: Int, orInsert value: @autoclosure () -> Value,
                                observer: inout some EvictionObserver<Key, Value>) -> Bool {
        let hash = store.hash(key)
        if store.find(key, hash: hash) >= 0 { return true }
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
            store.setCost(slot, cost, in: &queue)
            makeRoom(forCost: 0, count: 0, observer: &observer)
        } else {
            insertNew(value, forKey: key, hash: hash, cost: cost, observer: &observer)
        }
    }

    @inlinable
    @discardableResult
    public mutating func remove(_ key: Key, observer: inout some EvictionObserver<Key, Value>) -> Value? {
        return store.remove(key, from: &queue)
    }

    @inlinable
    mutating func insertNew(_ value: Value, forKey key: Key, hash: UInt64, cost: Int,
                            observer: inout some EvictionObserver<Key, Value>) {
        guard cost <= capacity else { return }
        makeRoom(forCost: cost, count: 1, observer: &observer)
        store.pushHead(store.allocate(key: key, hash: hash, value: value, cost: cost), &queue)
    }

    /// Evicts the oldest insertions until `cost` more and `count` more entries fit.
    @inlinable
    mutating func makeRoom(forCost cost: Int, count extra: Int, observer: inout some EvictionObserver<Key, Value>) {
        guard queue.cost > capacity - cost || queue.count > countLimit - extra else { return }
        observer.trimWillBegin(.caller)
        while !queue.isEmpty && (queue.cost > capacity - cost || queue.count > countLimit - extra) {
            store.evict(queue.tail, from: &queue, observer: &observer)
        }
        observer.trimDidEnd(.caller)
    }
}
