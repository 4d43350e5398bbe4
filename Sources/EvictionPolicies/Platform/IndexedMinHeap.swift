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
    struct _Entry: _SlotHeapEntry {
        @usableFromInline var priority: Double
        @usableFromInline var tie: Int64
        @usableFromInline var slot: Int32

        @inlinable init(priority: Double, tie: Int64, slot: Int32) {
            self.priority = priority
            self.tie = tie
            self.slot = slot
        }

        @inlinable static var root: Int { 0 }

        @inlinable @inline(__always)
        func precedes(_ other: _Entry) -> Bool {
            priority == other.priority ? tie < other.tie : priority < other.priority
        }
    }

    /// 0-based; a slot's position is -1 when absent.
    @usableFromInline var heap = _SlotHeap<_Entry>(entries: [], absent: -1)

    /// An empty heap.
    @inlinable public init() {}

    /// The number of slots held.
    @inlinable public var count: Int { heap.entries.count }

    /// Whether no slot is held.
    @inlinable public var isEmpty: Bool { heap.entries.isEmpty }

    /// The slot that goes first, or -1 when empty.
    @inlinable public var minimum: Int32 { heap.entries.first?.slot ?? -1 }

    /// The priority of `slot`, which must be held.
    @inlinable
    public func priority(of slot: Int32) -> Double { heap.entries[heap.position(of: slot)].priority }

    /// The tie value of `slot`, which must be held: what ``update(_:priority:tie:)`` takes again
    /// when a policy keeps a slot's tie (its insertion time, say) across a re-keying. O(1).
    @inlinable
    public func tie(of slot: Int32) -> Int64 { heap.entries[heap.position(of: slot)].tie }

    /// Whether `slot` is held.
    @inlinable
    public func contains(_ slot: Int32) -> Bool { heap.position(of: slot) >= 0 }

    /// Adds `slot`, which must not be held.
    @inlinable
    public mutating func insert(_ slot: Int32, priority: Double, tie: Int64) {
        heap.insert(_Entry(priority: priority, tie: tie, slot: slot))
    }

    /// Gives `slot`, which must be held, a new priority and tie.
    @inlinable
    public mutating func update(_ slot: Int32, priority: Double, tie: Int64) {
        heap.replace(at: heap.position(of: slot), with: _Entry(priority: priority, tie: tie, slot: slot))
    }

    /// Removes `slot` if it is held.
    @inlinable
    public mutating func remove(_ slot: Int32) {
        let i = heap.position(of: slot)
        guard i >= 0 else { return }
        heap.positions[slot] = -1
        let last = heap.entries.removeLast()
        guard i < heap.entries.count else { return }
        heap.entries[i] = last
        heap.positions[last.slot] = Int32(truncatingIfNeeded: i)
        if i > 0 && last.precedes(heap.entries[(i - 1) / 2]) { heap.siftUp(i) } else { heap.siftDown(i) }
    }

    /// Removes and returns the slot that goes first with its priority. The heap must not be empty.
    @inlinable
    @discardableResult
    public mutating func popMinimum() -> (slot: Int32, priority: Double) {
        let first = heap.entries[0]
        remove(first.slot)
        return (first.slot, first.priority)
    }

    /// Renumbers the slots held after the arena compacted (``SlotRelocatingPolicy``); the order
    /// does not depend on slot numbers, so it stays. O(n).
    @inlinable
    public mutating func relocate(_ relocation: SlotRelocation) { heap.relocate(relocation) }
}
