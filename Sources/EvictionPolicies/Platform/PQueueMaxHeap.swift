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
    struct _Entry {
        @usableFromInline var priority: Double
        @usableFromInline var slot: Int32
        @inlinable init(priority: Double, slot: Int32) {
            self.priority = priority
            self.slot = slot
        }
    }

    /// `entries[0]` is unused, as `pqueue.c`'s `d[0]`.
    @usableFromInline var entries: ContiguousArray<_Entry> = [_Entry(priority: 0, slot: -1)]
    /// Each slot's index in `entries`, 0 when absent.
    @usableFromInline var positions = SideTable<Int32>(filling: 0)

    /// An empty heap.
    @inlinable public init() {}

    /// The number of slots held. O(1).
    @inlinable public var count: Int { entries.count - 1 }

    /// The slot on top (the highest priority), or -1 when empty. O(1).
    @inlinable public var maximum: Int32 { entries.count > 1 ? entries[1].slot : -1 }

    /// Whether `slot` is held. O(1).
    @inlinable public func contains(_ slot: Int32) -> Bool { positions[slot] > 0 }

    /// The priority of `slot`, which must be held. O(1).
    @inlinable public func priority(of slot: Int32) -> Double { entries[Int(positions[slot])].priority }

    /// Adds `slot`, which must not be held (`pqueue_insert`).
    @inlinable
    public mutating func insert(_ slot: Int32, priority: Double) {
        entries.append(_Entry(priority: priority, slot: slot))
        bubbleUp(entries.count - 1)
    }

    /// Gives held `slot` a new priority (`pqueue_change_priority`): up if it grew, else down.
    @inlinable
    public mutating func update(_ slot: Int32, priority: Double) {
        let i = Int(positions[slot])
        let old = entries[i].priority
        entries[i].priority = priority
        if old < priority { bubbleUp(i) } else { percolateDown(i) }
    }

    /// Removes `slot` if held (`pqueue_remove`): the last entry takes its place and moves up if
    /// it is greater than the removed one, else down.
    @inlinable
    public mutating func remove(_ slot: Int32) {
        let i = Int(positions[slot])
        guard i > 0 else { return }
        positions[slot] = 0
        let removed = entries[i]
        let last = entries.removeLast()
        guard i < entries.count else { return }
        entries[i] = last
        if removed.priority < last.priority { bubbleUp(i) } else { percolateDown(i) }
    }

    /// Removes and returns the top slot (`pqueue_pop`). The heap must not be empty.
    @inlinable
    @discardableResult
    public mutating func popMaximum() -> Int32 {
        let top = entries[1].slot
        positions[top] = 0
        let last = entries.removeLast()
        if entries.count > 1 {
            entries[1] = last
            percolateDown(1)
        }
        return top
    }

    @inlinable
    mutating func bubbleUp(_ start: Int) {
        var i = start
        let moving = entries[i]
        while i > 1 && entries[i >> 1].priority < moving.priority {
            entries[i] = entries[i >> 1]
            positions[entries[i].slot] = Int32(truncatingIfNeeded: i)
            i >>= 1
        }
        entries[i] = moving
        positions[moving.slot] = Int32(truncatingIfNeeded: i)
    }

    @inlinable
    mutating func percolateDown(_ start: Int) {
        var i = start
        let moving = entries[i]
        let size = entries.count
        while true {
            var child = i << 1
            guard child < size else { break }
            if child + 1 < size && entries[child].priority < entries[child + 1].priority { child += 1 }
            guard moving.priority < entries[child].priority else { break }
            entries[i] = entries[child]
            positions[entries[i].slot] = Int32(truncatingIfNeeded: i)
            i = child
        }
        entries[i] = moving
        positions[moving.slot] = Int32(truncatingIfNeeded: i)
    }
}
