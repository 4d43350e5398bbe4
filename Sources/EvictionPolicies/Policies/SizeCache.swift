// Size: evict the largest object (Williams et al., "Removal policies in network caches for
// World-Wide Web documents", SIGCOMM'96), as libCacheSim 0.3.5's Size.c (PyPI `libcachesim`
// 0.3.5, src/libCacheSim/cache/eviction/Size.c). Exact on every golden row.

/// A cache that evicts its largest object.
///
/// **Rule** (libCacheSim 0.3.5 `Size.c`). Every object sits in a max-heap keyed by its size. A
/// hit re-keys it with the *request's* size (`Size_find`): the same size leaves it in place; a
/// request of another size moves it to that key, while the object keeps its cost (a hit does
/// not change an object's size). A new cost (an update) re-keys it at once. A miss evicts the top of the heap until the object fits, then
/// inserts it. Among equal sizes (every object in object mode)
/// the victim is whichever the heap's moves leave on top, so the heap is libCacheSim's
/// `pqueue.c` move for move (``PQueueMaxHeap``).
///
/// - Complexity: a hit is O(1); an insertion, a removal, a cost change and each eviction are
///   O(log n).
public struct SizeCache<Key: Hashable, Value>: BudgetedPolicy {
    public static var descriptor: PolicyDescriptor {
        PolicyDescriptor(
            name: "size", reproduces: "Size (Williams et al., SIGCOMM'96) as libCacheSim 0.3.5 Size.c",
            rule: "evict the largest object; ties as libCacheSim's binary heap leaves them",
            family: .research, supportsCountLimit: true)
    }

    public var store = SlotArena<Key, Value>()
    @usableFromInline var heap = PQueueMaxHeap()
    /// The limits and the residents' total cost.
    public var budget: PolicyBudget

    public init(limits: CacheLimits, options: PolicyOptions) throws(PolicyConfigurationError) {
        budget = try PolicyBudget(for: Self.descriptor, limits: limits, options: options)
    }

    @inlinable public var count: Int { heap.count }

    /// A hit without the request's size (a lookup): `pqueue_change_priority` with the key the
    /// object has moves nothing.
    @inlinable public mutating func didHit(_ slot: Int32) {}

    /// `Size_find`: the heap key becomes the request's size. With the key it has, nothing moves
    /// (and the heap is not touched).
    @inlinable
    public mutating func didHit(_ slot: Int32, cost: Int, observer: inout some EvictionObserver<Key, Value>) {
        if heap.priority(of: slot) != Double(cost) { heap.update(slot, priority: Double(cost)) }
    }

    @inlinable public mutating func didInsert(_ slot: Int32) {
        budget.cost += store.cost(slot)
        heap.insert(slot, priority: Double(store.cost(slot)))
    }

    @inlinable public mutating func victim() -> Int32 { heap.maximum }

    @inlinable public mutating func unlink(_ slot: Int32) {
        heap.remove(slot)
        budget.cost -= store.cost(slot)
    }

    /// The re-keying that libCacheSim does on the hit that follows an update, done here instead,
    /// so that a hit need not look at the heap.
    @inlinable public mutating func setCost(_ slot: Int32, _ cost: Int) {
        budget.cost += cost - store.cost(slot)
        store.setCost(slot, cost)
        heap.update(slot, priority: Double(cost))
    }

    /// Loads the entry's memory ahead of its request; a hit touches nothing else.
    @inlinable @inline(__always)
    public func prefetch(_ key: Key, _ stage: PrefetchStage) { store.prefetch(key, stage) }
}

extension SizeCache: SlotRelocatingPolicy {
    /// Renumbers the heap's slots after a compaction.
    @inlinable public mutating func relocateSlots(_ relocation: SlotRelocation) { heap.relocate(relocation) }
}
