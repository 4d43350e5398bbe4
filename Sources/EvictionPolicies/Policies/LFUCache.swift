// LFU: least frequently used, as libCacheSim's LFU.c (1a1a11a/libCacheSim @ aa0fc40, `LFU_find`,
// `LFU_insert`, `LFU_evict`; the O(1) frequency-bucket design of Shah, Mitra & Matani, "An O(1)
// algorithm for implementing the LFU cache eviction scheme", 2010).
//
// Layout: one bucket per count in use, in a doubly linked chain ordered by count; each bucket is
// an intrusive list over the shared slot store (head: newest arrival, tail: oldest = the victim),
// and a slot's `aux` is its bucket's index. A hit moves the slot to the next bucket up, creating
// it when the next count is not in use, so every operation is O(1); libCacheSim's hash of buckets
// with a lazily rescanned minimum gives the same victims.

/// One count's entries: an intrusive list over the slot store, linked to its neighbouring counts.
@usableFromInline
internal struct _FrequencyBucket {
    @usableFromInline var frequency: Int
    @usableFromInline var list = SlotList()
    /// The bucket with the next lower count, or -1.
    @usableFromInline var lower: Int32 = -1
    /// The bucket with the next higher count, or -1. Free buckets chain through it.
    @usableFromInline var higher: Int32 = -1

    @inlinable init(frequency: Int) { self.frequency = frequency }
}

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
    @usableFromInline var buckets: ContiguousArray<_FrequencyBucket> = []
    /// The bucket with the lowest count, or -1 when the cache is empty.
    @usableFromInline var lowest: Int32 = -1
    /// Head of the free bucket list, chained through `higher`.
    @usableFromInline var freeBucket: Int32 = -1
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
        return slot >= 0 ? buckets[Int(store.aux(slot))].frequency : nil
    }

    // MARK: The rule

    @inlinable public mutating func didHit(_ slot: Int32) { promote(slot) }

    /// A new object enters the count-1 bucket at its newest end.
    @inlinable public mutating func didInsert(_ slot: Int32) {
        let bucket = lowest >= 0 && buckets[Int(lowest)].frequency == 1
            ? lowest : makeBucket(frequency: 1, lower: -1, higher: lowest)
        store.pushHead(slot, &buckets[Int(bucket)].list)
        store.setAux(slot, UInt32(bitPattern: bucket))
        residentCount += 1
        budget.cost += store.cost(slot)
    }

    /// The oldest arrival at the lowest count.
    @inlinable public mutating func victim() -> Int32 { buckets[Int(lowest)].list.tail }

    @inlinable public mutating func unlink(_ slot: Int32) {
        let bucket = Int32(bitPattern: store.aux(slot))
        residentCount -= 1
        budget.cost -= store.cost(slot)
        store.unlink(slot, &buckets[Int(bucket)].list)
        if buckets[Int(bucket)].list.isEmpty { releaseBucket(bucket) }
    }

    @inlinable public mutating func setCost(_ slot: Int32, _ cost: Int) {
        budget.cost += cost - store.cost(slot)
        store.setCost(slot, cost, in: &buckets[Int(store.aux(slot))].list)
    }

    // MARK: Buckets

    /// A hit: moves `slot` to the newest end of the bucket one count up.
    @inlinable
    mutating func promote(_ slot: Int32) {
        let from = Int32(bitPattern: store.aux(slot))
        let frequency = buckets[Int(from)].frequency + 1
        let higher = buckets[Int(from)].higher
        let to = higher >= 0 && buckets[Int(higher)].frequency == frequency
            ? higher : makeBucket(frequency: frequency, lower: from, higher: higher)
        store.unlink(slot, &buckets[Int(from)].list)
        store.pushHead(slot, &buckets[Int(to)].list)
        store.setAux(slot, UInt32(bitPattern: to))
        if buckets[Int(from)].list.isEmpty { releaseBucket(from) }
    }

    /// Creates an empty bucket for `frequency` between `lower` and `higher` (either may be -1).
    @inlinable
    mutating func makeBucket(frequency: Int, lower: Int32, higher: Int32) -> Int32 {
        var bucket = _FrequencyBucket(frequency: frequency)
        bucket.lower = lower
        bucket.higher = higher
        let index: Int32
        if freeBucket >= 0 {
            index = freeBucket
            freeBucket = buckets[Int(index)].higher
            buckets[Int(index)] = bucket
        } else {
            index = Int32(truncatingIfNeeded: buckets.count)
            buckets.append(bucket)
        }
        if lower >= 0 { buckets[Int(lower)].higher = index } else { lowest = index }
        if higher >= 0 { buckets[Int(higher)].lower = index }
        return index
    }

    /// Unlinks an empty bucket from the chain and puts it on the free list.
    @inlinable
    mutating func releaseBucket(_ index: Int32) {
        let lower = buckets[Int(index)].lower, higher = buckets[Int(index)].higher
        if lower >= 0 { buckets[Int(lower)].higher = higher } else { lowest = higher }
        if higher >= 0 { buckets[Int(higher)].lower = lower }
        buckets[Int(index)].lower = -1
        buckets[Int(index)].higher = freeBucket
        freeBucket = index
    }
}

extension LFUCache: SlotRelocatingPolicy {
    /// Renumbers every frequency bucket's list ends after a compaction.
    @inlinable public mutating func relocateSlots(_ relocation: SlotRelocation) {
        for bucket in buckets.indices { relocation.relocate(&buckets[bucket].list) }
    }
}
