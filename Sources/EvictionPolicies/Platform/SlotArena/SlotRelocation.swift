/// How ``SlotArena/compactIfSparse()`` renumbered the slots in use: they keep their order and
/// close up, so the slots below the first free one kept their numbers and each one after it moved
/// down to its rank among the slots in use. A policy that keeps slot numbers outside the arena's
/// own links (list ends, a hand, a queue of hits, a side table) renumbers them with it, as
/// ``SlotRelocatingPolicy/relocateSlots(_:)`` does.
///
/// Why in order: any order among the slots a policy holds survives the renumbering, so a
/// structure that breaks ties by slot number (a heap or a sorted run of a policy of one's own)
/// stays valid with its numbers simply replaced, without sorting again.
///
/// - Complexity: ``subscript(_:)`` is O(1); ``forEachMove(_:)`` is O(moves).
@frozen
public struct SlotRelocation: Sendable {
    /// The arena's slot count after the compaction: every slot below it is in use.
    public let slotCount: Int
    /// The lowest old slot number that moved: every slot below it kept its number.
    public let firstMoved: Int
    /// The new number of each old slot at or above ``firstMoved`` (at `old - firstMoved`), -1
    /// for one that was free.
    @usableFromInline let _moved: ContiguousArray<Int32>

    @inlinable
    init(slotCount: Int, firstMoved: Int, moved: ContiguousArray<Int32>) {
        self.slotCount = slotCount
        self.firstMoved = firstMoved
        self._moved = moved
    }

    /// The renumbering that compacts `count` slots of which `kept` are in use, keeping their
    /// order: each slot in use takes as its number how many slots in use are below it.
    /// `isFree(i)` tells whether slot `i` is free. O(count).
    @inlinable
    init(compacting count: Int, keeping kept: Int, isFree: (Int) -> Bool) {
        var first = 0
        while first < count && !isFree(first) { first += 1 }
        var moved = ContiguousArray<Int32>(repeating: -1, count: count - first)
        var next = first
        for old in first..<count where !isFree(old) {
            moved[old - first] = Int32(truncatingIfNeeded: next)
            next += 1
        }
        assert(next == kept, "\(kept) slots in use were expected, \(next) found")
        self.init(slotCount: kept, firstMoved: first, moved: moved)
    }

    /// The new number of `slot`, a slot in use before the compaction (or -1, which stays -1). O(1).
    @inlinable @inline(__always)
    public subscript(_ slot: Int32) -> Int32 {
        Int(slot) < firstMoved ? slot : _moved[Int(slot) - firstMoved]
    }

    /// Renumbers the ends of `list`. O(1).
    @inlinable
    public func relocate(_ list: inout SlotList) {
        list.head = self[list.head]
        list.tail = self[list.tail]
    }

    /// Calls `body` with each slot that moved: its old number, then its new one, in increasing
    /// order. Each new number is lower than the old one and is, at that point, free or a slot
    /// whose move was already reported, so copying each element from `from` to `to` in this
    /// order compacts an array in place. O(moves).
    @inlinable
    public func forEachMove(_ body: (_ from: Int32, _ to: Int32) -> Void) {
        for (offset, to) in _moved.enumerated() where to >= 0 {
            body(Int32(truncatingIfNeeded: firstMoved + offset), to)
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
