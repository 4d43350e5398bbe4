/// A binary max-heap of slots keyed by a `Double` priority that moves entries exactly as
/// libCacheSim's `dataStructure/pqueue.c` does: 1-based, strict comparisons in `bubble_up` and
/// `percolate_down`, the right child taken only when strictly greater. Between equal
/// priorities the order is therefore the heap's own history, not insertion order, and a policy
/// that must evict the same object as libCacheSim among equals (Size in object mode, where
/// every priority is 1) needs these exact moves. For a total order use ``IndexedMinHeap``.
///
/// - Complexity: ``maximum`` is O(1); ``insert(_:priority:)``, ``update(_:priority:)``,
///   ``remove(_:)`` and ``popMaximum()`` are O(log n).
@frozen
public struct PQueueMaxHeap {
    @usableFromInline
    struct _Entry: _SlotHeapEntry {
        @usableFromInline var priority: Double
        @usableFromInline var slot: Int32
        @inlinable init(priority: Double, slot: Int32) {
            self.priority = priority
            self.slot = slot
        }

        /// `pqueue.c` is 1-based: `d[0]` is unused.
        @inlinable static var root: Int { 1 }

        /// `pqueue.c`'s `cmppri(next, curr)`, `next < curr`, as the entry `curr` going above `next`.
        @inlinable @inline(__always)
        func precedes(_ other: _Entry) -> Bool { other.priority < priority }
    }

    /// `entries[0]` is unused, as `pqueue.c`'s `d[0]`; a slot's position is 0 when absent.
    @usableFromInline var heap = _SlotHeap<_Entry>(entries: [_Entry(priority: 0, slot: -1)], absent: 0)

    /// An empty heap.
    @inlinable public init() {}

    /// The number of slots held. O(1).
    @inlinable public var count: Int { heap.entries.count - 1 }

    /// The slot on top (the highest priority), or -1 when empty. O(1).
    @inlinable public var maximum: Int32 { heap.entries.count > 1 ? heap.entries[1].slot : -1 }

    /// Whether `slot` is held. O(1).
    @inlinable public func contains(_ slot: Int32) -> Bool { heap.position(of: slot) > 0 }

    /// The priority of `slot`, which must be held. O(1).
    @inlinable public func priority(of slot: Int32) -> Double { heap.entries[heap.position(of: slot)].priority }

    /// Adds `slot`, which must not be held (`pqueue_insert`).
    @inlinable
    public mutating func insert(_ slot: Int32, priority: Double) {
        heap.insert(_Entry(priority: priority, slot: slot))
    }

    /// Gives held `slot` a new priority (`pqueue_change_priority`): up if it grew, else down
    /// (which moves nothing when it is unchanged).
    @inlinable
    public mutating func update(_ slot: Int32, priority: Double) {
        heap.replace(at: heap.position(of: slot), with: _Entry(priority: priority, slot: slot))
    }

    /// Removes `slot` if held (`pqueue_remove`): the last entry takes its place and moves up if
    /// it is greater than the removed one, else down.
    @inlinable
    public mutating func remove(_ slot: Int32) {
        let i = heap.position(of: slot)
        guard i > 0 else { return }
        heap.positions[slot] = 0
        let removed = heap.entries[i]
        let last = heap.entries.removeLast()
        guard i < heap.entries.count else { return }
        heap.entries[i] = last
        if last.precedes(removed) { heap.siftUp(i) } else { heap.siftDown(i) }
    }

    /// Renumbers the slots held after the arena compacted (``SlotRelocatingPolicy``); the order,
    /// ties included, depends on the priorities and the heap's shape, not on slot numbers, so it
    /// stays. O(n).
    @inlinable
    public mutating func relocate(_ relocation: SlotRelocation) { heap.relocate(relocation) }

    /// Removes and returns the top slot (`pqueue_pop`). The heap must not be empty.
    @inlinable
    @discardableResult
    public mutating func popMaximum() -> Int32 {
        let top = heap.entries[1].slot
        heap.positions[top] = 0
        let last = heap.entries.removeLast()
        if heap.entries.count > 1 {
            heap.entries[1] = last
            heap.siftDown(1)
        }
        return top
    }
}
