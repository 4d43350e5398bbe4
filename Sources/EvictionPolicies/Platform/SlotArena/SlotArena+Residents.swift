extension SlotArena {
    /// Calls `body` with the key, value and cost of every resident entry (ghosts and free slots
    /// are skipped), in slot order: how a cache over a policy lists what it holds without keeping
    /// a list of its own.
    ///
    /// - Complexity: O(``slotCapacity``).
    @inlinable
    public func forEachResident(_ body: (_ key: Key, _ value: Value, _ cost: Int) throws -> Void) rethrows {
        // Where values are marks, a free slot keeps its mark (see `release`): skip the free list.
        let isFree = Self._valuesAreMarks ? _freeSlots() : []
        for i in values.indices {
            guard let value = values[i], isFree.isEmpty || !isFree[i] else { continue }
            try body(keys[i], value, slots[i].cost)
        }
    }

    /// The resident entries (ghosts and free slots left out) and their total cost, counted slot by
    /// slot: what a policy's own ``EvictionPolicy/count`` and ``EvictionPolicy/totalCost`` must
    /// equal, for a check of a policy that keeps them itself.
    ///
    /// - Complexity: O(``slotCapacity``).
    @inlinable
    public func residentTotals() -> (count: Int, cost: Int) {
        var count = 0, cost = 0
        forEachResident { _, _, entryCost in
            count += 1
            cost &+= entryCost
        }
        return (count, cost)
    }

    /// The cost of `key`'s entry, or `nil` when it has no resident entry. O(1) expected.
    @inlinable
    public func cost(ofKey key: Key) -> Int? {
        let slot = find(key)
        guard slot >= 0, isResident(slot) else { return nil }
        return cost(slot)
    }
}
