// GDSF: Greedy-Dual-Size-Frequency (Cherkasova, "Improving WWW Proxies Performance with
// Greedy-Dual-Size-Frequency Caching Policy", HP Labs 1998), as libCacheSim 0.3.5's cpp/GDSF.cpp.

/// A Greedy-Dual-Size-Frequency cache: small, often requested objects stay; the priority floor
/// rises with every eviction, so objects not requested for long age out.
///
/// **Rule.** Each object has a frequency (1 on insertion, +1 per hit) and a priority
/// `L + frequency × 10⁶ ÷ size`, set on insertion and on every hit, where `L` is the priority of
/// the last evicted object (0 at first). A miss inserts the object first, then evicts the lowest
/// priority, repeatedly, while the cache is over its cost or count limit, so the newcomer may be
/// its own victim; between equal priorities the object requested longest ago goes first. An
/// object larger than the capacity is never inserted. Re-inserting a resident key replaces its
/// cost and counts as a hit.
///
/// - Complexity: a hit, an insertion, a removal and each eviction are O(log n).
public struct GDSFCache<Key: Hashable, Value>: _HeapPolicy {
    public static var descriptor: PolicyDescriptor {
        PolicyDescriptor(
            name: "gdsf", reproduces: "GDSF (Cherkasova 1998; libCacheSim 0.3.5 GDSF.cpp)",
            rule: "evict the lowest priority L + frequency × 10^6 / size, where L is the last evicted priority; "
                + "the newcomer is inserted first and may be its own victim",
            family: .research, supportsCountLimit: true)
    }

    public var store = SlotArena<Key, Value>()
    public var heap = IndexedMinHeap()
    /// `L`: the priority of the last evicted object.
    @usableFromInline var lastEvictedPriority = 0.0
    /// The request counter that orders equal priorities (libCacheSim's `n_req`).
    @usableFromInline var requests: Int64 = 0
    public var budget: PolicyBudget

    public init(budget: PolicyBudget) { self.budget = budget }

    @inlinable @inline(__always)
    public func prefetch(_ key: Key, _ stage: PrefetchStage) { store.prefetch(key, stage) }

    /// The frequency lives in the slot's aux word.
    @inlinable public mutating func didHit(_ slot: Int32) {
        requests += 1
        let frequency = store.aux(slot) &+ 1
        store.setAux(slot, frequency)
        heap.update(slot, priority: priority(slot, frequency: frequency), tie: requests)
    }

    @inlinable public mutating func didInsert(_ slot: Int32) {
        requests += 1
        store.setAux(slot, 1)
        budget.cost += store.cost(slot)
        heap.insert(slot, priority: priority(slot, frequency: 1), tie: requests)
    }

    @inlinable public mutating func victim() -> Int32 {
        let slot = heap.minimum
        lastEvictedPriority = heap.priority(of: slot)
        return slot
    }

    /// GDSF_get is GDSF's own, without `cache_get_base`'s update of the admissioner: an
    /// admission rule never sees GDSF's requests (AdaptSize keeps its initial parameter).
    @inlinable public static var showsRequestsToAdmission: Bool { false }

    /// The miss step, changed as libCacheSim's `GDSF_get`: insert first, then evict.
    @inlinable
    public mutating func insertNew(_ value: Value, forKey key: Key, hash: UInt64, cost: Int,
                                   observer: inout some EvictionObserver<Key, Value>) {
        // GDSF_get asks cache_can_insert_default (the admissioner; GDSF_can_insert is unused), then
        // inserts and evicts.
        guard observer.admits(key, cost: cost), cost <= capacity else { return }   // libCacheSim's order: admissioner, then size
        didInsert(store.allocate(key: key, hash: hash, value: value, cost: cost))
        makeRoom(forCost: 0, count: 0, observer: &observer)
    }

    @inlinable
    func priority(_ slot: Int32, frequency: UInt32) -> Double {
        lastEvictedPriority + Double(frequency) * 1.0e6 / Double(store.cost(slot))
    }
}

extension GDSFCache: SlotRelocatingPolicy {
    /// Renumbers the heap's slots after a compaction.
    @inlinable public mutating func relocateSlots(_ relocation: SlotRelocation) { heap.relocate(relocation) }
}
