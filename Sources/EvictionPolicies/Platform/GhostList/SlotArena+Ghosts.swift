// Ghost lists: keys a policy remembers after their objects left the cache (2Q's A1out, ARC's B1
// and B2, S3-FIFO's ghost FIFO). A ghost is a slot with a key and a cost but no value, in a
// ``SlotList`` of its own, so a miss on a remembered key finds it with the same index probe that
// looks for residents.

extension SlotArena {
    /// Demotes `slot`, resident and already unlinked from its list, to a ghost at the head of
    /// `ghosts`: reports its object to `observer` as evicted (opening `pass`), drops the value,
    /// keeps the key and sets the slot's aux to `tag`; then drops the oldest ghosts until the
    /// list's cost is within `limit`. A key costlier than `limit`, or any key when `limit` is 0,
    /// is not remembered: its slot is released.
    ///
    /// - Returns: whether the key is remembered.
    /// - Complexity: O(1) plus O(1) per ghost dropped.
    @inlinable
    @discardableResult
    public mutating func demote(_ slot: Int32, to ghosts: inout SlotList, limit: Int, tag: UInt32,
                                pass: inout TrimPass, observer: inout some EvictionObserver<Key, Value>) -> Bool {
        pass.willRemove(&observer)
        let cost = cost(slot)
        if let value = value(slot) { observer.didEvict(key(slot), value: value, cost: cost) }
        guard limit > 0 && cost <= limit else {
            release(slot)
            return false
        }
        setValue(slot, nil)
        setAux(slot, tag)
        pushHead(slot, &ghosts)
        trimGhosts(&ghosts, toCost: limit)
        return true
    }

    /// Forgets the oldest ghosts of `ghosts` until its cost is at most `cost` and its length at
    /// most `count`. Forgetting a ghost is not an eviction: it holds no object.
    ///
    /// - Complexity: O(1) per ghost forgotten.
    @inlinable
    public mutating func trimGhosts(_ ghosts: inout SlotList, toCost cost: Int, count: Int = .max) {
        while !ghosts.isEmpty && (ghosts.cost > cost || ghosts.count > count) {
            forgetGhost(ghosts.tail, from: &ghosts)
        }
    }

    /// Takes ghost `slot` out of `ghosts` and releases its key. O(1) expected.
    @inlinable
    public mutating func forgetGhost(_ slot: Int32, from ghosts: inout SlotList) {
        unlink(slot, &ghosts)
        release(slot)
    }

    /// Takes ghost `slot` out of `ghosts`; it keeps its key and its index entry, in no list, to
    /// be revived (``revive(_:value:cost:)``) or released. O(1).
    @inlinable
    public mutating func unlinkGhost(_ slot: Int32, from ghosts: inout SlotList) {
        unlink(slot, &ghosts)
    }

    /// A miss consumes the key's ghost, `slot` (-1 for none): it leaves `ghosts`, kept in no
    /// list to be revived when `keeping`, released otherwise (the object is refused). O(1) expected.
    @inlinable
    public mutating func consumeGhost(_ slot: Int32, from ghosts: inout SlotList, keeping: Bool) {
        guard slot >= 0 else { return }
        unlink(slot, &ghosts)
        if !keeping { release(slot) }
    }

    /// Makes `slot`, a ghost in no list, resident again with `value` and `cost`; the caller
    /// places it in a list. Reusing the ghost's slot saves an index removal and insertion. O(1).
    @inlinable
    public mutating func revive(_ slot: Int32, value: Value, cost: Int) {
        setCost(slot, cost)
        setValue(slot, value)
    }
}
