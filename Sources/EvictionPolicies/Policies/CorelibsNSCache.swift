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

/// NSCache as swift-corelibs-foundation implements it (@ 761b621): cheapest entry first, newest
/// first among equal costs, purged only on set.
///
/// **Rule.** One list sorted by ascending cost. A new entry, or one whose cost changed, goes
/// before the first entry whose cost is at least its own (so among equal costs the newest goes
/// first); re-setting a key with an unchanged cost keeps its place. After every set the cheapest
/// entry is evicted while the total cost is above ``totalCostLimit``, then while the count is
/// above ``countLimit`` (0: no limit); a new entry that is the cheapest evicts itself. Reads never
/// reorder; events change nothing; changing a limit purges nothing until the next set.
///
/// - Complexity: lookup and remove are O(1) expected; insert is O(n) for the sorted position
///   (O(1) when the new cost is at most the cheapest resident cost); each eviction is O(1).
public struct CorelibsNSCache<Key: Hashable, Value>: LibraryModelPolicy {
    public static var descriptor: PolicyDescriptor {
        PolicyDescriptor(
            name: "nscache",
            reproduces: "NSCache, swift-corelibs-foundation @ 761b621",
            rule: "on set, evict the cheapest entry (newest first among equal costs) until within the cost limit, then the count limit; reads never reorder",
            family: .library, supportsCountLimit: true, defaultCapacity: .workingSetFraction,
            slowByDesign: "inserts at its cost-ordered position with a linear scan, as swift-corelibs-foundation does: O(n) per set")
    }

    public var store = SlotArena<Key, Value>()
    /// Sorted by ascending cost; the head is corelibs' `_head`, the first to go.
    @usableFromInline var byCost = SlotList()
    /// The cost limit, 0 for none. Changing it purges nothing until the next set, as in corelibs.
    public var totalCostLimit: Int
    @usableFromInline var countLimitSetting: Int

    public init(limits: CacheLimits, options: PolicyOptions) throws(PolicyConfigurationError) {
        try options.validate(against: Self.descriptor)
        try limits.validate(for: Self.descriptor)
        totalCostLimit = limits.capacity ?? 0
        countLimitSetting = limits.countLimit ?? 0
    }

    /// The count limit; set 0 for none (read back as `Int.max`). Changing it purges nothing
    /// until the next set, as in corelibs.
    public var countLimit: Int {
        get { countLimitSetting > 0 ? countLimitSetting : .max }
        set { countLimitSetting = newValue }
    }

    /// Takes the other's limits as corelibs' setters do, keeping the cost order (and its ties).
    @inlinable public mutating func adoptLimits(of other: Self) -> Bool {
        (totalCostLimit, countLimitSetting) = (other.totalCostLimit, other.countLimitSetting)
        return true
    }

    /// ``totalCostLimit``, `Int.max` for none.
    @inlinable public var capacity: Int { totalCostLimit > 0 ? totalCostLimit : .max }
    @inlinable public var count: Int { byCost.count }
    @inlinable public var totalCost: Int { byCost.cost }

    @inlinable @inline(__always)
    public func prefetch(_ key: Key, _ stage: PrefetchStage) { store.prefetch(key, stage) }

    @inlinable public mutating func didHit(_ slot: Int32) {}
    @inlinable public mutating func victim() -> Int32 { byCost.head }
    @inlinable public mutating func unlink(_ slot: Int32) { store.unlink(slot, &byCost) }
    @inlinable public mutating func setCost(_ slot: Int32, _ cost: Int) { store.setCost(slot, cost, in: &byCost) }

    /// A changed cost takes the entry out and sorts it in again.
    @inlinable
    public mutating func didReplace(_ slot: Int32, formerCost: Int) {
        guard store.cost(slot) != formerCost else { return }
        store.unlink(slot, &byCost)
        didInsert(slot)
    }

    /// Links `slot` before the first entry whose cost is at least its own (corelibs' `insert`).
    @inlinable
    public mutating func didInsert(_ slot: Int32) {
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
}

extension CorelibsNSCache: SlotRelocatingPolicy {
    /// Renumbers the cost-ordered list's ends after a compaction.
    @inlinable public mutating func relocateSlots(_ relocation: SlotRelocation) { relocation.relocate(&byCost) }
}
