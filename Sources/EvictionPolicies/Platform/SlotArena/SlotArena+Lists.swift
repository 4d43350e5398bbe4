import _CSupport

// Intrusive doubly linked lists threaded through the arena's slots. Every operation is O(1)
// except the sweeps and `evictAll`, which are linear in what they visit.
extension SlotArena {
    // MARK: Lists
    //
    // Each operation works on the slots through one unsafe buffer access: a plain `slots[i].next = x`
    // would check the array's uniqueness (a runtime call) and bounds on every write, several times
    // per operation. Slot numbers come only from this store, so they are always in bounds.

    /// Puts `slot` at the head (newest end) of `list`. O(1).
    @inlinable
    public mutating func pushHead(_ slot: Int32, _ list: inout SlotList) {
        slots.withUnsafeMutableBufferPointer { Self._pushHead($0, slot, &list) }
    }

    /// Puts `slot` at the head of `list` and sets its aux to `tag` (the queue it is in, for a
    /// policy with several queues). O(1).
    @inlinable
    public mutating func pushHead(_ slot: Int32, _ list: inout SlotList, tag: UInt32) {
        setAux(slot, tag)
        pushHead(slot, &list)
    }

    /// Puts `slot` at the tail (oldest end) of `list`. O(1).
    @inlinable
    public mutating func pushTail(_ slot: Int32, _ list: inout SlotList) {
        slots.withUnsafeMutableBufferPointer { Self._link($0, slot, after: list.tail, before: -1, &list) }
    }

    /// Inserts `slot` just before `successor` (on the head side of it). O(1).
    @inlinable
    public mutating func insert(_ slot: Int32, before successor: Int32, _ list: inout SlotList) {
        slots.withUnsafeMutableBufferPointer { s in
            Self._link(s, slot, after: s[Int(successor)].prev, before: successor, &list)
        }
    }

    /// Takes `slot` out of `list`. O(1).
    @inlinable
    public mutating func unlink(_ slot: Int32, _ list: inout SlotList) {
        slots.withUnsafeMutableBufferPointer { Self._unlink($0, slot, &list) }
    }

    /// Moves `slot`, already in `list`, to its head. O(1).
    @inlinable @inline(__always)
    public mutating func moveToHead(_ slot: Int32, _ list: inout SlotList) {
        guard list.head != slot else { return }
        slots.withUnsafeMutableBufferPointer { s in
            Self._unlink(s, slot, &list)
            Self._pushHead(s, slot, &list)
        }
    }

    @inlinable @inline(__always)
    static func _pushHead(_ s: UnsafeMutableBufferPointer<_Slot>, _ slot: Int32, _ list: inout SlotList) {
        _link(s, slot, after: -1, before: list.head, &list)
    }

    /// Links `slot` between `previous` (toward the head, -1 at the head) and `next` (toward the
    /// tail, -1 at the tail), adjacent slots of `list`, and counts it in.
    @inlinable @inline(__always)
    static func _link(_ s: UnsafeMutableBufferPointer<_Slot>, _ slot: Int32,
                      after previous: Int32, before next: Int32, _ list: inout SlotList) {
        let i = Int(slot)
        s[i].prev = previous
        s[i].next = next
        if previous >= 0 { s[Int(previous)].next = slot } else { list.head = slot }
        if next >= 0 { s[Int(next)].prev = slot } else { list.tail = slot }
        list.count += 1
        list.cost += s[i].cost
    }

    @inlinable @inline(__always)
    static func _unlink(_ s: UnsafeMutableBufferPointer<_Slot>, _ slot: Int32, _ list: inout SlotList) {
        let i = Int(slot)
        let p = s[i].prev, n = s[i].next
        if p >= 0 { s[Int(p)].next = n } else { list.head = n }
        if n >= 0 { s[Int(n)].prev = p } else { list.tail = p }
        s[i].prev = -1
        s[i].next = -1
        list.count -= 1
        list.cost -= s[i].cost
    }

    /// Removes `key` from `list` and frees its slot; an explicit removal, not an eviction.
    /// O(1) expected (one index probe).
    /// - Returns: the value, or `nil` if `key` was not resident.
    @inlinable
    @discardableResult
    public mutating func remove(_ key: Key, from list: inout SlotList) -> Value? {
        let slot = find(key)
        guard slot >= 0 else { return nil }
        unlink(slot, &list)
        defer { shrinkIfSparse() }
        return release(slot)
    }

    /// Evicts every entry of `list` as one trim pass of `kind` (the libraries' "remove all" on a
    /// memory warning or entering the background), oldest first unless `newestFirst`.
    /// O(n) in the list's entries.
    @inlinable
    public mutating func evictAll(from list: inout SlotList, as kind: TrimKind, newestFirst: Bool = false,
                           observer: inout some EvictionObserver<Key, Value>) {
        guard !list.isEmpty else { return }
        observer.trimWillBegin(kind)
        while !list.isEmpty { evict(newestFirst ? list.head : list.tail, from: &list, observer: &observer) }
        observer.trimDidEnd(kind)
        shrinkIfSparse()
    }

    /// Unlinks `slot` from `list`, frees it and reports it to `observer` as evicted. O(1) expected.
    ///
    /// Most policies evict next the slot just newer than this one (LRU's and FIFO's new tail,
    /// SIEVE's hand), so its index bucket and its own newer neighbour start loading now.
    @inlinable
    public mutating func evict(_ slot: Int32, from list: inout SlotList, observer: inout some EvictionObserver<Key, Value>) {
        let newer = slots[Int(slot)].prev
        unlink(slot, &list)
        let key = keys[Int(slot)]
        let cost = slots[Int(slot)].cost
        if let value = release(slot) { observer.didEvict(key, value: value, cost: cost) }
        prefetchEviction(of: newer)
    }

    /// Starts loading what evicting `slot` will touch besides the slot itself: its index bucket
    /// and its newer neighbour (slot and key). `slot` and its key should be in cache already (an
    /// earlier call loaded them); -1 is ignored.
    ///
    /// `mutating` though it writes nothing: called on a policy's `store` from a generic flow, a
    /// non-mutating method made the optimizer copy the whole arena (retaining and releasing each
    /// of its buffers) on every eviction; a mutating call works on the arena in place.
    @inlinable @inline(__always)
    public mutating func prefetchEviction(of slot: Int32) {
        guard slot >= 0 else { return }
        // No closure captures the index: capturing it retained and released both buffers.
        let newer = slots[Int(slot)].prev
        index.prefetch(hash: hash(keys[Int(slot)]))
        guard newer >= 0 else { return }
        // Not through `prefetchSlot(_:)`, which loads the same two lines: called here it made
        // FIFO's and LRU's replays 30-40 % slower (0.40 s against 0.53-0.57 at 256 MiB).
        slots.withUnsafeBufferPointer { slots in
            if let base = slots.baseAddress { _cs_prefetch(base + Int(newer)) }
        }
        keys.withUnsafeBufferPointer { keys in
            if let base = keys.baseAddress { _cs_prefetch(base + Int(newer)) }
        }
    }

    /// The second-chance sweep: walks from `start` toward the head of `list`, wrapping from the
    /// head to the tail, clearing each slot's aux until it reaches one whose aux is already 0,
    /// which it returns. `list` must hold a slot with aux 0 or the sweep clears one lap first.
    /// O(k) for the k slots it clears: at most one lap, O(n).
    ///
    /// One buffer access for the whole walk: clearing through ``setAux(_:_:)`` would check the
    /// array's uniqueness on every step.
    @inlinable
    public mutating func sweepClearingAux(from start: Int32, in list: SlotList) -> Int32 {
        slots.withUnsafeMutableBufferPointer { s in
            var slot = start
            while s[Int(slot)].aux != 0 {
                s[Int(slot)].aux = 0
                let newer = s[Int(slot)].prev
                slot = newer >= 0 ? newer : list.tail
            }
            return slot
        }
    }

    /// The CLOCK sweep of a multi-queue policy's main queue: while `renewing` gives the tail's
    /// aux a new value (a counter ≥ 1 decremented, a reference bit cleared), the tail takes it
    /// and goes back to the head; the first tail `renewing` answers `nil` for is returned, still
    /// in `list`. `list` must not be empty and must eventually hold such a slot.
    ///
    /// - Complexity: O(1) per slot moved.
    @inlinable
    public mutating func clockVictim(in list: inout SlotList, renewing: (UInt32) -> UInt32?) -> Int32 {
        while true {
            let slot = list.tail
            guard let renewed = renewing(aux(slot)) else { return slot }
            setAux(slot, renewed)
            moveToHead(slot, &list)
        }
    }

    /// Changes the cost of `slot`, which is in no list. O(1).
    @inlinable
    public mutating func setCost(_ slot: Int32, _ cost: Int) {
        slots[Int(slot)].cost = cost
    }

    /// Changes the cost of `slot`, which is in no list, keeping `total` (a policy's own sum of
    /// costs, when it keeps its entries in no list) right. O(1).
    @inlinable
    public mutating func setCost(_ slot: Int32, _ cost: Int, adjusting total: inout Int) {
        total += cost - slots[Int(slot)].cost
        slots[Int(slot)].cost = cost
    }

    /// Changes the cost of `slot`, which is in `list`, keeping the list's total right.
    @inlinable
    public mutating func setCost(_ slot: Int32, _ cost: Int, in list: inout SlotList) {
        list.cost += cost - slots[Int(slot)].cost
        slots[Int(slot)].cost = cost
    }
}

