// LFU: least frequently used, as libCacheSim's LFU.c (1a1a11a/libCacheSim @ aa0fc40, `LFU_find`,
// `LFU_insert`, `LFU_evict`; the O(1) frequency-bucket design of Shah, Mitra & Matani, "An O(1)
// algorithm for implementing the LFU cache eviction scheme", 2010).
//
// Layout: one bucket per count in use, in a chain ordered by count (a _FrequencyChain); each bucket
// is an intrusive list over the shared slot store (head: newest arrival, tail: oldest = the
// victim), and a slot's `aux` is its bucket's record. A hit moves the slot to the next bucket up, creating
// it when the next count is not in use, so every operation is O(1); libCacheSim's hash of buckets
// with a lazily rescanned minimum gives the same victims.

/// A least-frequently-used cache with O(1) frequency buckets and first-come tie-breaking.
///
/// **Rule.** Each resident object has a count: 1 when inserted, +1 per hit. Counts live only while the
/// object is cached: eviction (and removal) forgets them, and there is no ageing. To make room,
/// evict the object with the lowest count; on a tie, the object that reached that count first
/// goes (libCacheSim appends to the tail of the count's list on insert and on every hit, and
/// evicts the list's first object). Repeat until the new object fits (cost and count), then
/// insert it with count 1. An object larger than the capacity is never inserted. Re-inserting a
/// resident key replaces its cost and counts as a hit.
///
/// - Complexity: lookup, insert, remove and each eviction are O(1) expected.
public struct LFUCache<Key: Hashable, Value>: BudgetedPolicy {
    public static var descriptor: PolicyDescriptor {
        PolicyDescriptor(
            name: "lfu", reproduces: "LFU (libCacheSim LFU.c)",
            rule: "evict the lowest access count (1 on insert, +1 per hit, forgotten on eviction, no ageing); "
                + "tie-break: the object that reached that count first is evicted first",
            family: .research, supportsCountLimit: true)
    }

    public var store = SlotArena<Key, Value>()
    /// One bucket per count in use, its arrivals in a list over the store (head: the newest); a
    /// slot's aux is its bucket's record.
    @usableFromInline var buckets = _FrequencyChain<SlotList>()
    @usableFromInline var residentCount = 0
    /// The limits and the residents' total cost.
    public var budget: PolicyBudget

    public init(limits: CacheLimits, options: PolicyOptions) throws(PolicyConfigurationError) {
        budget = try PolicyBudget(for: Self.descriptor, limits: limits, options: options)
    }

    @inlinable public var count: Int { residentCount }

    @inlinable @inline(__always)
    public func prefetch(_ key: Key, _ stage: PrefetchStage) { store.prefetch(key, stage) }

    /// The access count of `key` while it is resident (for tests and inspection).
    public func frequency(of key: Key) -> Int? {
        let slot = store.find(key)
        return slot >= 0 ? buckets.frequency(Int32(bitPattern: store.aux(slot))) : nil
    }

    // MARK: The rule

    @inlinable public mutating func didHit(_ slot: Int32) { promote(slot) }

    /// A new object enters the count-1 bucket at its newest end.
    @inlinable public mutating func didInsert(_ slot: Int32) {
        let bucket = buckets.record(for: 1, above: -1, making: SlotList())
        store.pushHead(slot, &buckets[bucket])
        store.setAux(slot, UInt32(bitPattern: bucket))
        residentCount += 1
        budget.cost += store.cost(slot)
    }

    /// The oldest arrival at the lowest count.
    @inlinable public mutating func victim() -> Int32 { buckets[buckets.lowest].tail }

    @inlinable public mutating func unlink(_ slot: Int32) {
        let bucket = Int32(bitPattern: store.aux(slot))
        residentCount -= 1
        budget.cost -= store.cost(slot)
        store.unlink(slot, &buckets[bucket])
        if buckets[bucket].isEmpty { buckets.release(bucket) }
    }

    @inlinable public mutating func setCost(_ slot: Int32, _ cost: Int) {
        budget.cost += cost - store.cost(slot)
        store.setCost(slot, cost, in: &buckets[Int32(bitPattern: store.aux(slot))])
    }

    // MARK: Buckets

    /// A hit: moves `slot` to the newest end of the bucket one count up.
    @inlinable
    mutating func promote(_ slot: Int32) {
        let from = Int32(bitPattern: store.aux(slot))
        let to = buckets.record(for: buckets.frequency(from) + 1, above: from, making: SlotList())
        store.unlink(slot, &buckets[from])
        store.pushHead(slot, &buckets[to])
        store.setAux(slot, UInt32(bitPattern: to))
        if buckets[from].isEmpty { buckets.release(from) }
    }
}

extension LFUCache: SlotRelocatingPolicy {
    /// Renumbers every frequency bucket's list ends after a compaction.
    @inlinable public mutating func relocateSlots(_ relocation: SlotRelocation) {
        for record in buckets.records.indices { relocation.relocate(&buckets.records[record].group) }
    }
}
