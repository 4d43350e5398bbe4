// nscache: NSCache as swift-corelibs-foundation implements it.
// Source: swiftlang/swift-corelibs-foundation @ 761b621da93a, Sources/Foundation/NSCache.swift
// (insert lines 105–137, setObject 139–198). Spec: ``<doc:NSCache>``; test vectors N1–N5.
//
// Rule: one list sorted by ascending cost, cheapest at the head. An entry that is new, or whose
// cost changed, goes before the first entry whose cost is equal to or greater than its own, so
// among equal costs the newest is nearest the head and is evicted first. Re-setting a key with
// an unchanged cost keeps its position. After every set, two purge loops run from the head:
// while `totalCost − totalCostLimit` (the amount still to purge) is positive, evict the head and
// subtract its cost; then while `count − countLimit` is positive, evict the head. A limit of 0
// means none. Reads never reorder: there is no recency at all. Costs are clamped at 0.
//
// Consequences kept on purpose: a new entry that is the cheapest evicts itself (N1, N5);
// zero-cost entries are purged for free by any cost purge (N4); cost 0 with a count limit
// freezes the cache on its first N keys. Corelibs observes no notification, so memory warnings
// and entering the background change nothing, and there is no timer. Setting a limit purges
// nothing until the next set, as in corelibs. Insertion is O(n), a linear walk for the sorted
// position, exactly like the original.

/// NSCache as swift-corelibs-foundation implements it: cheapest entry first, newest first
/// among equal costs, purged only on set.
///
/// - Complexity: lookup and remove are O(1) expected; insert is O(n) for the sorted position
///   (O(1) when the new cost is at most the cheapest resident cost); each eviction is O(1).
public struct CorelibsNSCache<Key: Hashable, Value>: EvictionPolicy {
    public static var descriptor: PolicyDescriptor {
        PolicyDescriptor(
            name: "nscache",
            reproduces: "NSCache, swift-corelibs-foundation @ 761b621",
            rule: "on set, evict the cheapest entry (newest first among equal costs) until within the cost limit, then the count limit; reads never reorder",
            family: .library, supportsCountLimit: true, defaultCapacity: .workingSetFraction)
    }

    @usableFromInline var store = SlotArena<Key, Value>()
    /// Sorted by ascending cost; the head is corelibs' `_head`, the first to go.
    @usableFromInline var byCost = SlotList()
    /// The cost limit, 0 for none. Changing it purges nothing until the next set, as in corelibs.
    public var totalCostLimit: Int
    /// The count limit, 0 for none. Changing it purges nothing until the next set, as in corelibs.
    public var countLimit: Int

    public init(limits: CacheLimits, options: PolicyOptions) throws(PolicyConfigurationError) {
        try options.validate(against: Self.descriptor)
        try limits.validate(for: Self.descriptor)
        totalCostLimit = limits.capacity ?? 0
        countLimit = limits.countLimit ?? 0
    }

    @inlinable public var count: Int { byCost.count }
    @inlinable public var totalCost: Int { byCost.cost }

    @inlinable @inline(__always)
    public func prefetch(_ key: Key, _ stage: PrefetchStage) { store.prefetch(key, stage) }

    @inlinable
    public func contains(_ key: Key) -> Bool { store.find(key) >= 0 }

    /// `object(forKey:)`: a dictionary lookup that records nothing.
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
        insertSorted(store.allocate(key: key, hash: hash, value: value(), cost: max(cost, 0)))
        purge(observer: &observer)
        return false
    }

    /// `setObject(_:forKey:cost:)`.
    @inlinable
    public mutating func insert(_ value: Value, forKey key: Key, cost: Int,
                                observer: inout some EvictionObserver<Key, Value>) {
        let cost = max(cost, 0)
        let hash = store.hash(key)
        let slot = store.find(key, hash: hash)
        if slot >= 0 {
            store.values[Int(slot)] = value
            if store.cost(slot) != cost {
                store.unlink(slot, &byCost)
                store.slots[Int(slot)].cost = cost
                insertSorted(slot)
            }
        } else {
            insertSorted(store.allocate(key: key, hash: hash, value: value, cost: cost))
        }
        purge(observer: &observer)
    }

    /// `removeObject(forKey:)`: not an eviction (corelibs does not call the delegate either).
    @inlinable
    @discardableResult
    public mutating func remove(_ key: Key, observer: inout some EvictionObserver<Key, Value>) -> Value? {
        return store.remove(key, from: &byCost)
    }

    /// Links `slot` before the first entry whose cost is at least its own (corelibs' `insert`).
    @inlinable
    mutating func insertSorted(_ slot: Int32) {
        let cost = store.cost(slot)
        var current = byCost.head
        guard current >= 0, cost > store.cost(current) else {
            store.pushHead(slot, &byCost)
            return
        }
        var next = store.next(current)
        while next >= 0 && store.cost(next) < cost {
            current = next
            next = store.next(next)
        }
        if next >= 0 { store.insert(slot, before: next, &byCost) } else { store.pushTail(slot, &byCost) }
    }

    /// The two purge loops at the end of `setObject`, both from the cheapest end.
    @inlinable
    mutating func purge(observer: inout some EvictionObserver<Key, Value>) {
        var purgeAmount = totalCostLimit > 0 ? byCost.cost - totalCostLimit : 0
        let countExcess = countLimit > 0 ? byCost.count - countLimit : 0
        // Either excess being positive guarantees an eviction: the cache is not empty after a set.
        guard purgeAmount > 0 || countExcess > 0 else { return }
        observer.trimWillBegin(.caller)
        while purgeAmount > 0 && byCost.head >= 0 {
            purgeAmount -= store.cost(byCost.head)
            store.evict(byCost.head, from: &byCost, observer: &observer)
        }
        var purgeCount = countLimit > 0 ? byCost.count - countLimit : 0
        while purgeCount > 0 && byCost.head >= 0 {
            purgeCount -= 1
            store.evict(byCost.head, from: &byCost, observer: &observer)
        }
        observer.trimDidEnd(.caller)
    }
}
