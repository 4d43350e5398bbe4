// Belady's MIN (L. A. Belady, "A study of replacement algorithms for a virtual-storage computer",
// IBM Systems Journal 5(2), 1966): the offline optimum for unit-size objects; as libCacheSim's
// Belady.c (1a1a11a/libCacheSim @ aa0fc40, `Belady_find`, `Belady_insert`, `Belady_evict`, with the
// binary heap of dataStructure/pqueue.c).
//
// Rule (demand MIN): every miss is inserted. To make room, evict the resident object whose next
// request is farthest in the future — objects never requested again first — until the new object
// fits (cost and count). A hit moves the object's key in the heap to its new next-request time.
// An object larger than the capacity is never inserted. Sizes are only used to decide how much to
// evict, so with variable sizes this is not the byte-optimal policy (that problem is NP-hard).
//
// The future comes from ``noteNextAccess(_:)``, which the replay engine calls before every request
// (descriptor `needsFuture`): the 1-based index of the key's next request, `Int64.max` for none.
// Without it (an app calling `lookup`/`insert` directly) every entry counts as never requested
// again.
//
// Ties: in objects mode only never-again objects can tie, and which of them goes does not change
// the miss count. In bytes mode it does (their sizes differ), so the heap is ``PQueueMaxHeap``,
// libCacheSim's pqueue step for step: fed the same sequence of operations, it makes the same
// choices among ties. Next-request indices below 2^53 are exact as its `Double` priorities.

/// The offline optimal cache (Belady's MIN), keyed on each entry's next request.
///
/// **Rule.** Every miss is inserted; to make room, evict the object whose next request is
/// farthest in the future (never-again first) until the new object fits (cost and count). A hit
/// moves the object to its new next-request time. The time told by ``noteNextAccess(_:)`` is
/// used by the next hit or insertion; without one an entry counts as never requested again.
///
/// - Complexity: lookup, insert, remove and each eviction are O(log n).
public struct BeladyCache<Key: Hashable, Value>: _HeapPolicy {
    public static var descriptor: PolicyDescriptor {
        PolicyDescriptor(
            name: "belady", reproduces: "Belady MIN, offline optimum (libCacheSim Belady.c)",
            rule: "evict the object whose next request is farthest in the future (never-again first); "
                + "every miss is inserted; needs next-access times (oracleGeneral field or a first pass over the trace)",
            family: .research, supportsCountLimit: true, needsFuture: true)
    }

    public var store = SlotArena<Key, Value>()
    /// Slots by the 1-based index of their next request (`Int64.max`: never), largest on top.
    public var heap = PQueueMaxHeap()
    /// What ``noteNextAccess(_:)`` said about the request being handled.
    @usableFromInline var pendingNext: Int64 = .max
    public var budget: PolicyBudget

    public init(budget: PolicyBudget) { self.budget = budget }

    @inlinable @inline(__always)
    public func prefetch(_ key: Key, _ stage: PrefetchStage) { store.prefetch(key, stage) }

    @inlinable
    public mutating func noteNextAccess(_ index: Int64) { pendingNext = index }

    /// The next-request time for this request; later ones count as "never" until told again.
    @inlinable @inline(__always)
    mutating func takePendingNext() -> Double {
        defer { pendingNext = .max }
        return Double(pendingNext)
    }

    @inlinable public mutating func didHit(_ slot: Int32) { heap.update(slot, priority: takePendingNext()) }

    @inlinable public mutating func didInsert(_ slot: Int32) {
        budget.cost += store.cost(slot)
        heap.insert(slot, priority: takePendingNext())
    }

    @inlinable public mutating func victim() -> Int32 { heap.maximum }
}

extension BeladyCache: SlotRelocatingPolicy {
    /// Renumbers the heap's slots after a compaction.
    @inlinable public mutating func relocateSlots(_ relocation: SlotRelocation) { heap.relocate(relocation) }
}
