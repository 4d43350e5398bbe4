/// A binary min-heap of slots keyed by a priority, with each slot's position indexed so that any
/// slot can be re-keyed or removed.
///
/// Order is libCacheSim's for its priority queues (`abstractRank.hpp`'s `pq_node_type`): the
/// lower priority first and, between equal priorities, the lower `tie` first. libCacheSim passes
/// the request counter as `tie`, so equal priorities leave oldest first (FIFO).
///
/// - Complexity: ``minimum`` is O(1); ``insert(_:priority:tie:)``, ``update(_:priority:tie:)``,
///   ``remove(_:)`` and ``popMinimum()`` are O(log n).
@frozen
public struct IndexedMinHeap {
    @usableFromInline
    struct _Entry {
        @usableFromInline var priority: Double
        @usableFromInline var tie: Int64
        @usableFromInline var slot: Int32

        @inlinable init(priority: Double, tie: Int64, slot: Int32) {
            self.priority = priority
            self.tie = tie
            self.slot = slot
        }

        @inlinable @inline(__always)
        func precedes(_ other: _Entry) -> Bool {
            priority == other.priority ? tie < other.tie : priority < other.priority
        }
    }

    @usableFromInline var entries: ContiguousArray<_Entry> = []
    /// Each slot's index in `entries`, -1 when absent.
    @usableFromInline var positions = SideTable<Int32>(filling: -1)

    /// An empty heap.
    @inlinable public init() {}

    /// The number of slots held.
    @inlinable public var count: Int { entries.count }

    /// Whether no slot is held.
    @inlinable public var isEmpty: Bool { entries.isEmpty }

    /// The slot that goes first, or -1 when empty.
    @inlinable public var minimum: Int32 { entries.first?.slot ?? -1 }

    /// The priority of `slot`, which must be held.
    @inlinable
    public func priority(of slot: Int32) -> Double { entries[Int(positions[slot])].priority }

    /// Whether `slot` is held.
    @inlinable
    public func contains(_ slot: Int32) -> Bool { positions[slot] >= 0 }

    /// Adds `slot`, which must not be held.
    @inlinable
    public mutating func insert(_ slot: Int32, priority: Double, tie: Int64) {
        entries.append(_Entry(priority: priority, tie: tie, slot: slot))
        siftUp(entries.count - 1)
    }

    /// Gives `slot`, which must be held, a new priority and tie.
    @inlinable
    public mutating func update(_ slot: Int32, priority: Double, tie: Int64) {
        let i = Int(positions[slot])
        let old = entries[i]
        entries[i].priority = priority
        entries[i].tie = tie
        if entries[i].precedes(old) { siftUp(i) } else { siftDown(i) }
    }

    /// Removes `slot` if it is held.
    @inlinable
    public mutating func remove(_ slot: Int32) {
        let i = Int(positions[slot])
        guard i >= 0 else { return }
        positions[slot] = -1
        let last = entries.removeLast()
        guard i < entries.count else { return }
        entries[i] = last
        positions[last.slot] = Int32(truncatingIfNeeded: i)
        if i > 0 && last.precedes(entries[(i - 1) / 2]) { siftUp(i) } else { siftDown(i) }
    }

    /// Removes and returns the slot that goes first with its priority. The heap must not be empty.
    @inlinable
    @discardableResult
    public mutating func popMinimum() -> (slot: Int32, priority: Double) {
        let first = entries[0]
        remove(first.slot)
        return (first.slot, first.priority)
    }

    @inlinable
    mutating func siftUp(_ start: Int) {
        var i = start
        let moving = entries[i]
        while i > 0 {
            let parent = (i - 1) / 2
            guard moving.precedes(entries[parent]) else { break }
            entries[i] = entries[parent]
            positions[entries[i].slot] = Int32(truncatingIfNeeded: i)
            i = parent
        }
        entries[i] = moving
        positions[moving.slot] = Int32(truncatingIfNeeded: i)
    }

    @inlinable
    mutating func siftDown(_ start: Int) {
        var i = start
        let moving = entries[i]
        let count = entries.count
        while true {
            var child = 2 * i + 1
            guard child < count else { break }
            if child + 1 < count && entries[child + 1].precedes(entries[child]) { child += 1 }
            guard entries[child].precedes(moving) else { break }
            entries[i] = entries[child]
            positions[entries[i].slot] = Int32(truncatingIfNeeded: i)
            i = child
        }
        entries[i] = moving
        positions[moving.slot] = Int32(truncatingIfNeeded: i)
    }
}
