// LIFO: last in, first out (a stack), the textbook policy named in Wikipedia's taxonomy; neither
// libCacheSim nor Caffeine ships it, so it follows their conventions for research policies.
//
// Rule: one list ordered by insertion. Hits change nothing. To make room for a new object, evict
// the most recently inserted *resident* entry, repeatedly, until the new object fits; then insert
// it. The newcomer is never its own victim, so a full cache keeps its oldest entries and cycles
// the newest position. An object larger than the capacity is never inserted. Re-inserting a
// resident key replaces its cost in place.

/// A last-in, first-out cache with cost and count limits.
///
/// - Complexity: lookup, insert and remove are O(1) expected; each eviction is O(1).
public struct LIFOCache<Key: Hashable, Value>: EvictionPolicy {
    public static var descriptor: PolicyDescriptor {
        PolicyDescriptor(
            name: "lifo", reproduces: "LIFO (stack order; libCacheSim conventions)",
            rule: "evict the most recently inserted resident entry, then insert the new one",
            family: .research, supportsCountLimit: true)
    }

    @usableFromInline var store = SlotArena<Key, Value>()
    @usableFromInline var stack = SlotList()
    @usableFromInline let capacity: Int
    @usableFromInline let countLimit: Int

    public init(limits: CacheLimits, options: PolicyOptions) throws(PolicyConfigurationError) {
        try options.validate(against: Self.descriptor)
        try limits.validate(for: Self.descriptor)
        capacity = limits.capacity ?? .max
        countLimit = limits.countLimit ?? .max
    }

    @inlinable public var count: Int { stack.count }
    @inlinable public var totalCost: Int { stack.cost }

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
            store.setCost(slot, cost, in: &stack)
            makeRoom(forCost: 0, count: 0, observer: &observer)
        } else {
            insertNew(value, forKey: key, hash: hash, cost: cost, observer: &observer)
        }
    }

    @inlinable
    @discardableResult
    public mutating func remove(_ key: Key, observer: inout some EvictionObserver<Key, Value>) -> Value? {
        return store.remove(key, from: &stack)
    }

    @inlinable
    mutating func insertNew(_ value: Value, forKey key: Key, hash: UInt64, cost: Int,
                            observer: inout some EvictionObserver<Key, Value>) {
        guard cost <= capacity else { return }
        makeRoom(forCost: cost, count: 1, observer: &observer)
        store.pushHead(store.allocate(key: key, hash: hash, value: value, cost: cost), &stack)
    }

    /// Evicts the newest insertions until `cost` more and `count` more entries fit.
    @inlinable
    mutating func makeRoom(forCost cost: Int, count extra: Int, observer: inout some EvictionObserver<Key, Value>) {
        guard stack.cost > capacity - cost || stack.count > countLimit - extra else { return }
        observer.trimWillBegin(.caller)
        while !stack.isEmpty && (stack.cost > capacity - cost || stack.count > countLimit - extra) {
            store.evict(stack.head, from: &stack, observer: &observer)
        }
        observer.trimDidEnd(.caller)
    }
}
