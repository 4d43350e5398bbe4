/// How ``SlotArena/compactIfSparse()`` renumbered the slots in use: every slot below
/// ``slotCount`` kept its number; each one at or above it moved to a slot below that a released
/// entry had left free. A policy that keeps slot numbers outside the arena's own links (list
/// ends, a hand, a queue of hits, a side table) renumbers them with it, as
/// ``SlotRelocatingPolicy/relocateSlots(_:)`` does.
///
/// - Complexity: ``subscript(_:)`` is O(1); ``forEachMove(_:)`` is O(moves).
@frozen
public struct SlotRelocation: Sendable {
    /// The arena's slot count after the compaction: every slot below it is in use.
    public let slotCount: Int
    /// The new number of each old slot at or above ``slotCount`` (at `old - slotCount`), -1 for
    /// one that was free.
    @usableFromInline let _moved: ContiguousArray<Int32>

    @inlinable
    init(slotCount: Int, moved: ContiguousArray<Int32>) {
        self.slotCount = slotCount
        self._moved = moved
    }

    /// The renumbering that compacts `count` slots of which `kept` are in use: each slot in use
    /// at or above `kept` takes the lowest free slot below it (there are exactly as many of those
    /// as slots in use above). `isFree(i)` tells whether slot `i` is free. O(count).
    @inlinable
    init(compacting count: Int, keeping kept: Int, isFree: (Int) -> Bool) {
        var moved = ContiguousArray<Int32>(repeating: -1, count: count - kept)
        var hole = 0
        for old in kept..<count where !isFree(old) {
            while !isFree(hole) { hole += 1 }
            moved[old - kept] = Int32(truncatingIfNeeded: hole)
            hole += 1
        }
        self.init(slotCount: kept, moved: moved)
    }

    /// The new number of `slot`, a slot in use before the compaction (or -1, which stays -1). O(1).
    @inlinable @inline(__always)
    public subscript(_ slot: Int32) -> Int32 {
        Int(slot) < slotCount ? slot : _moved[Int(slot) - slotCount]
    }

    /// Renumbers the ends of `list`. O(1).
    @inlinable
    public func relocate(_ list: inout SlotList) {
        list.head = self[list.head]
        list.tail = self[list.tail]
    }

    /// Calls `body` with each slot that moved: its old number, then its new one. O(moves).
    @inlinable
    public func forEachMove(_ body: (_ from: Int32, _ to: Int32) -> Void) {
        for (offset, to) in _moved.enumerated() where to >= 0 {
            body(Int32(truncatingIfNeeded: slotCount + offset), to)
        }
    }
}

extension SideTable {
    /// Moves each moved slot's element to its new number and drops the elements above the
    /// arena's new slot count, giving their memory back. O(n) in the table's length.
    @inlinable
    public mutating func relocate(_ relocation: SlotRelocation) {
        relocation.forEachMove { from, to in
            // A slot past the table's end reads as `fill`; so does one moved from there.
            guard Int(to) < storage.count else { return }
            storage[Int(to)] = Int(from) < storage.count ? storage[Int(from)] : fill
        }
        guard storage.count > relocation.slotCount else { return }
        storage = ContiguousArray(storage[..<relocation.slotCount])
    }
}

extension PendingHits {
    /// Renumbers the queued hits. O(1) (at most 32 of them).
    @inlinable
    public mutating func relocate(_ relocation: SlotRelocation) {
        _withHits { hits in
            for i in hits.indices { hits[i] = relocation[hits[i]] }
        }
    }
}
