/// An entry of a ``_SlotHeap``: a slot and what orders it.
@usableFromInline
protocol _SlotHeapEntry {
    /// The index of the root in the heap's array: 0, or 1 for a heap laid out as libCacheSim's
    /// `pqueue.c`, which leaves element 0 unused. It decides the parent and child arithmetic,
    /// and so which entries a sift moves.
    static var root: Int { get }
    /// The slot this entry stands for.
    var slot: Int32 { get set }
    /// Whether this entry must sit nearer the root than `other`; false between equals, so a sift
    /// never moves an entry past an equal one.
    func precedes(_ other: Self) -> Bool
}

/// The array, the position index and the two sift loops of a binary heap of slots, written once
/// for ``IndexedMinHeap`` and ``PQueueMaxHeap``, which differ in their order, their root index
/// and their removal rule.
///
/// Every slot held has its index in `entries` in `positions`; a sift writes the position of each
/// entry it moves. The loops work on the two arrays through unsafe buffers: a plain subscript
/// write checks the array's uniqueness and bounds at every level of the sift. Indices come from
/// the heap's own arithmetic and positions only from slots held, so they are in bounds.
///
/// - Complexity: ``siftUp(_:)`` and ``siftDown(_:)`` are O(log n).
@usableFromInline
struct _SlotHeap<Entry: _SlotHeapEntry> {
    @usableFromInline var entries: ContiguousArray<Entry>
    /// Each slot's index in `entries`; `positions.fill` when absent.
    @usableFromInline var positions: SideTable<Int32>

    /// A heap whose array starts as `entries` (the unused element 0 of a 1-based heap, or
    /// nothing) and whose absent slots read as `absent`.
    @inlinable
    init(entries: ContiguousArray<Entry>, absent: Int32) {
        self.entries = entries
        positions = SideTable(filling: absent)
    }

    /// The index of `slot` in `entries`, or the fill value when absent. O(1).
    @inlinable @inline(__always)
    func position(of slot: Int32) -> Int { Int(positions[slot]) }

    /// Appends `entry`, whose slot must not be held, and sifts it up. O(log n).
    @inlinable
    mutating func insert(_ entry: Entry) {
        entries.append(entry)
        // Through the growing setter: the sift's unsafe writes need the slot's position to exist.
        positions[entry.slot] = Int32(truncatingIfNeeded: entries.count - 1)
        siftUp(entries.count - 1)
    }

    /// Replaces the entry at `index` with `entry` for the same slot and moves it up if it now
    /// precedes the old one, down if the old one precedes it; between equals nothing moves (a
    /// sift down would not, as no child precedes its parent). O(log n).
    @inlinable
    mutating func replace(at index: Int, with entry: Entry) {
        let old = entries[index]
        entries[index] = entry
        if entry.precedes(old) { siftUp(index) } else if old.precedes(entry) { siftDown(index) }
    }

    /// Moves the entry at `start` toward the root while it precedes its parent.
    @inlinable
    mutating func siftUp(_ start: Int) { Self._siftUp(start, &entries, &positions.storage) }

    /// Moves the entry at `start` away from the root while a child precedes it, taking the
    /// right child only when it precedes the left one.
    @inlinable
    mutating func siftDown(_ start: Int) { Self._siftDown(start, &entries, &positions.storage) }

    // The loops take the two arrays as separate arguments: a closure over `self` inside an
    // access to `self.entries` would overlap that access.

    @inlinable
    static func _siftUp(_ start: Int, _ entries: inout ContiguousArray<Entry>, _ positions: inout ContiguousArray<Int32>) {
        entries.withUnsafeMutableBufferPointer { entries in
            positions.withUnsafeMutableBufferPointer { positions in
                let root = Entry.root
                var i = start
                let moving = entries[i]
                while i > root {
                    let parent = (i - 1 + root) >> 1
                    guard moving.precedes(entries[parent]) else { break }
                    entries[i] = entries[parent]
                    positions[Int(entries[i].slot)] = Int32(truncatingIfNeeded: i)
                    i = parent
                }
                entries[i] = moving
                positions[Int(moving.slot)] = Int32(truncatingIfNeeded: i)
            }
        }
    }

    @inlinable
    static func _siftDown(_ start: Int, _ entries: inout ContiguousArray<Entry>, _ positions: inout ContiguousArray<Int32>) {
        entries.withUnsafeMutableBufferPointer { entries in
            positions.withUnsafeMutableBufferPointer { positions in
                let root = Entry.root
                let count = entries.count
                var i = start
                let moving = entries[i]
                while true {
                    var child = 2 * i + 1 - root
                    guard child < count else { break }
                    if child + 1 < count && entries[child + 1].precedes(entries[child]) { child += 1 }
                    guard entries[child].precedes(moving) else { break }
                    entries[i] = entries[child]
                    positions[Int(entries[i].slot)] = Int32(truncatingIfNeeded: i)
                    i = child
                }
                entries[i] = moving
                positions[Int(moving.slot)] = Int32(truncatingIfNeeded: i)
            }
        }
    }

    /// Renumbers the slots held after the arena compacted; the order does not depend on slot
    /// numbers, so it stays. Gives back the entries' spare room too: a compaction follows a
    /// purge, and an array keeps its peak capacity. O(n).
    @inlinable
    mutating func relocate(_ relocation: SlotRelocation) {
        for i in entries.indices { entries[i].slot = relocation[entries[i].slot] }
        entries._giveBackSpareRoom()
        positions.relocate(relocation)
    }
}
