extension SlotArena {
    /// Gives back all the storage a large purge freed, renumbering slots: when fewer than a
    /// quarter of the slots are in use, the slots in use close up in their order (each takes as
    /// its number how many are below it; see ``SlotRelocation``), the arena and its index shrink
    /// to fit, and the free list is empty. The arena's own links (``next(_:)``, ``prev(_:)``)
    /// follow; every other slot number the caller keeps must be renumbered with the returned
    /// ``SlotRelocation`` before it is used again (``SlotRelocatingPolicy`` does this for a policy).
    ///
    /// Call it where the caller holds no slot number it cannot renumber: at the end of a trim
    /// or a removal. Where nothing may move, ``shrinkIfSparse()`` gives back only the free
    /// slots above the highest slot in use.
    ///
    /// - Returns: the renumbering, or `nil` when the arena was not sparse (nothing moved).
    /// - Complexity: O(1) unless the arena is sparse; then O(n) in the slot count, amortised
    ///   O(1) over the releases that made it sparse (after it the arena is full, so the next
    ///   compaction waits until three quarters of it have been released again).
    @inlinable @inline(__always)
    public mutating func compactIfSparse() -> SlotRelocation? {
        guard slots.count > 64 && liveCount < slots.count / 4, compacts else { return nil }
        return _compact()
    }

    @inlinable @inline(never)
    mutating func _compact() -> SlotRelocation {
        let oldCount = slots.count
        let newCount = liveCount
        let isFree = _freeSlots()
        let relocation = SlotRelocation(compacting: oldCount, keeping: newCount) { isFree[$0] }
        slots.withUnsafeMutableBufferPointer { slots in
            relocation.forEachMove { from, to in slots.swapAt(Int(from), Int(to)) }
            // Every link still names old numbers, moved or not: renumber them all.
            for i in 0..<newCount {
                slots[i].prev = relocation[slots[i].prev]
                slots[i].next = relocation[slots[i].next]
            }
        }
        keys.withUnsafeMutableBufferPointer { keys in
            relocation.forEachMove { from, to in keys.swapAt(Int(from), Int(to)) }
        }
        values.withUnsafeMutableBufferPointer { values in
            relocation.forEachMove { from, to in values.swapAt(Int(from), Int(to)) }
        }
        // New arrays, not `removeLast`, which would keep the capacity.
        slots = ContiguousArray(slots[..<newCount])
        keys = ContiguousArray(keys[..<newCount])
        values = ContiguousArray(values[..<newCount])
        freeHead = -1
        nextShrinkCheck = .max
        index.relocate(relocation)
        index.shrinkToFit()
        return relocation
    }
}

extension SlotIndex {
    /// Renumbers the slot of every key as `relocation` says; the hashes stay. O(n) in the buckets.
    @inlinable
    mutating func relocate(_ relocation: SlotRelocation) {
        buckets.withUnsafeMutableBufferPointer { buckets in
            for i in buckets.indices where buckets[i] != 0 {
                let slot = Int32(truncatingIfNeeded: buckets[i] & 0xffff_ffff) - 1
                guard Int(slot) >= relocation.firstMoved else { continue }
                buckets[i] = buckets[i] & 0xffff_ffff_0000_0000 | UInt64(UInt32(relocation[slot]) + 1)
            }
        }
    }
}
