// Size: evict the largest object (Williams et al., "Removal policies in network caches for
// World-Wide Web documents", SIGCOMM'96), as libCacheSim 0.3.5's Size.c (PyPI `libcachesim`
// 0.3.5, src/libCacheSim/cache/eviction/Size.c). Exact on every golden row.

/// A cache that evicts its largest object.
///
/// **Rule** (libCacheSim 0.3.5 `Size.c`). Every object sits in a max-heap keyed by its size. A
/// hit re-keys it with the same size, which leaves it in place, so a hit does nothing here; a
/// new cost re-keys it at once. A miss evicts the top of the heap until the object fits, then
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

    /// `pqueue_change_priority` with the size the object already has moves nothing.
    @inlinable public mutating func didHit(_ slot: Int32) {}

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
