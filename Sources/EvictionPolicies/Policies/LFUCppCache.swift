// LFU with ties to the least recently used, as libCacheSim 0.3.5's cpp/LFU.cpp (`lfucpp`; PyPI
// `libcachesim` 0.3.5, src/libCacheSim/cache/eviction/cpp/LFU.cpp). Exact on every golden row.

/// Least frequently used, ties broken by least recent use (libCacheSim's `LFUCpp`).
///
/// **Rule.** Each object has a frequency: 1 on insertion, +1 per hit. A miss evicts the lowest
/// (frequency, time of last request) until the object fits, then inserts it. This differs from
/// `lfu` (libCacheSim `LFU.c`), whose ties go to the oldest *insertion into the frequency bucket*.
///
/// - Complexity: a hit, an insertion, a removal and each eviction are O(log n).
public struct LFUCppCache<Key: Hashable, Value>: BudgetedPolicy {
    public static var descriptor: PolicyDescriptor {
        PolicyDescriptor(
            name: "lfucpp", reproduces: "LFU, least recent first among equals (libCacheSim 0.3.5 cpp/LFU.cpp)",
            rule: "evict the lowest request count; among equal counts, the least recently requested",
            family: .research, supportsCountLimit: true)
    }

    public var store = SlotArena<Key, Value>()
    @usableFromInline var heap = IndexedMinHeap()
    /// The request counter that orders equal frequencies (libCacheSim's `n_req`).
    @usableFromInline var requests: Int64 = 0
    /// The limits and the residents' total cost.
    public var budget: PolicyBudget

    public init(limits: CacheLimits, options: PolicyOptions) throws(PolicyConfigurationError) {
        budget = try PolicyBudget(for: Self.descriptor, limits: limits, options: options)
    }

    @inlinable public var count: Int { heap.count }

    /// The frequency lives in the slot's aux word.
    @inlinable public mutating func didHit(_ slot: Int32) {
        requests += 1
        let frequency = store.aux(slot) &+ 1
        store.setAux(slot, frequency)
        heap.update(slot, priority: Double(frequency), tie: requests)
    }

    @inlinable public mutating func didInsert(_ slot: Int32) {
        requests += 1
        store.setAux(slot, 1)
        budget.cost += store.cost(slot)
        heap.insert(slot, priority: 1, tie: requests)
    }

    @inlinable public mutating func victim() -> Int32 { heap.minimum }

    @inlinable public mutating func unlink(_ slot: Int32) {
        heap.remove(slot)
        budget.cost -= store.cost(slot)
    }
}

extension LFUCppCache: SlotRelocatingPolicy {
    /// Renumbers the heap's slots after a compaction.
    @inlinable public mutating func relocateSlots(_ relocation: SlotRelocation) { heap.relocate(relocation) }
}
