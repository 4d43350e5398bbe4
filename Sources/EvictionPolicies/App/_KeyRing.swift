/// The cache's side table for a policy that cannot list its own entries: one slot per stored
/// entry with its key, set serial, expiry and cost.
///
/// The policy protocol has no enumeration, and a limit change, a partial trim or an expiry sweep
/// needs one. A ``SlotPolicy`` offers one (its arena lists its residents, its rule drains them in
/// eviction order), so a cache over one keeps no ring and its sets write nothing beside the
/// policy; the others (S3-FIFO, 2Q, ARC, LIRS, W-TinyLFU, the library models) keep their entries'
/// bookkeeping here, not in the policy's value array, so that the entry a get touches stays
/// 16 bytes.
///
/// A set takes a slot; an eviction or removal frees the slot its entry names, if the stamps still
/// agree. A set that replaces a resident key leaves the old slot behind (the policy does not
/// return the replaced entry); ``compact(isResident:)`` drops such stale slots when they
/// outnumber the live ones.
///
/// - Complexity: ``add(_:serial:expires:cost:)`` and ``release(_:stamp:)`` are O(1) amortised;
///   compaction is O(n) and runs at most once per n replacements.
@usableFromInline
internal struct _KeyRing<Key: Hashable> {
    /// One entry's bookkeeping; `key` is `nil` when the slot is free.
    @usableFromInline
    struct Slot {
        @usableFromInline var key: Key?
        @usableFromInline var serial: UInt64
        @usableFromInline var expires: Double
        @usableFromInline var cost: Int

        @inlinable
        init(key: Key?, serial: UInt64, expires: Double, cost: Int) {
            self.key = key
            self.serial = serial
            self.expires = expires
            self.cost = cost
        }
    }

    @usableFromInline var slots: ContiguousArray<Slot> = []
    @usableFromInline var free: ContiguousArray<Int32> = []

    @inlinable init() {}

    /// Slots in use, stale ones included.
    @inlinable var liveCount: Int { slots.count - free.count }

    /// Whether fewer than a quarter of the (more than 64) slots are in use: after a large purge.
    @inlinable var isSparse: Bool { slots.count > 64 && liveCount < slots.count / 4 }

    @inlinable
    mutating func add(_ key: Key, serial: UInt64, expires: Double, cost: Int) -> Int32 {
        let slot = Slot(key: key, serial: serial, expires: expires, cost: cost)
        if let index = free.popLast() {
            slots[Int(index)] = slot
            return index
        }
        slots.append(slot)
        return Int32(truncatingIfNeeded: slots.count - 1)
    }

    /// Whether `index` is a slot in use by the set whose serial's low bits are `stamp`.
    @inlinable
    func owns(_ index: Int32, stamp: UInt32) -> Bool {
        let i = Int(index)
        return i >= 0 && i < slots.count && UInt32(truncatingIfNeeded: slots[i].serial) == stamp && slots[i].key != nil
    }

    /// The bookkeeping of the slot an entry names (which the caller checked with ``owns(_:stamp:)``).
    @inlinable
    subscript(index: Int32) -> Slot { slots[Int(index)] }

    /// Frees `index` if it still belongs to the set stamped `stamp`.
    @inlinable
    mutating func release(_ index: Int32, stamp: UInt32) {
        guard owns(index, stamp: stamp) else { return }
        slots[Int(index)].key = nil
        free.append(index)
    }

    @inlinable
    mutating func removeAll() {
        slots.removeAll()
        free.removeAll()
    }

    // The sweeps below are inlinable, as every cold path of ``Cache`` is, so that they run
    // specialised for the app's key type: generic, each key's dictionary update cost about a
    // microsecond (a memory warning on a million entries took seconds).

    /// The keys of every slot in use (a key may appear more than once).
    @inlinable
    func liveKeys() -> [Key] {
        var result: [Key] = []
        result.reserveCapacity(liveCount)
        for slot in slots { if let key = slot.key { result.append(key) } }
        return result
    }

    /// Every key once, in the order of its newest set, the oldest first.
    ///
    /// - Complexity: O(n log n) in the slots.
    @inlinable
    func keysOldestSetFirst() -> [Key] {
        var newest: [Key: UInt64] = [:]
        for slot in slots {
            guard let key = slot.key else { continue }
            newest[key] = max(newest[key] ?? 0, slot.serial)
        }
        return newest.sorted { $0.value < $1.value }.map(\.key)
    }

    /// The keys whose newest set cost more than `cost`. O(n) in the slots.
    @inlinable
    func keys(costingMoreThan cost: Int) -> [Key] {
        _newestSlots().compactMap { $0.value.cost > cost ? $0.key : nil }
    }

    /// The keys whose newest slot's entry has expired at `time` (see `_hasExpired(_:at:)`). A replaced entry's slot
    /// that was left behind is not its key's newest, so a key whose current entry is still valid
    /// is never listed, however early its old entry expired.
    ///
    /// - Complexity: O(n) in the slots.
    @inlinable
    func keys(expiringBy time: Double) -> [Key] {
        _newestSlots().compactMap { _hasExpired($0.value.expires, at: time) ? $0.key : nil }
    }

    /// Each key's newest slot: a replaced entry's slot left behind is not its key's current one.
    @inlinable
    func _newestSlots() -> [Key: Slot] {
        var newest: [Key: Slot] = [:]
        for slot in slots {
            guard let key = slot.key else { continue }
            if let other = newest[key], other.serial > slot.serial { continue }
            newest[key] = slot
        }
        return newest
    }

    /// Frees the slots of keys that are not resident and, for a key with several slots, every slot
    /// but the newest (the resident entry came from the newest set of its key).
    @inlinable
    mutating func compact(isResident: (Key) -> Bool) {
        var newest: [Key: Int] = [:]
        for index in slots.indices {
            guard let key = slots[index].key else { continue }
            if !isResident(key) {
                slots[index].key = nil
                free.append(Int32(truncatingIfNeeded: index))
            } else if let other = newest[key] {
                let stale = slots[other].serial < slots[index].serial ? other : index
                slots[stale].key = nil
                free.append(Int32(truncatingIfNeeded: stale))
                newest[key] = stale == other ? index : other
            } else {
                newest[key] = index
            }
        }
    }

    /// Gives back the storage of the free slots: the slots in use close up in their order (see
    /// ``SlotRelocation``), and the ring shrinks to fit. The entries that
    /// name a moved slot must be renumbered (the returned moves say from where to where; the
    /// stamps do not change).
    ///
    /// - Complexity: O(n) in the slots.
    @inlinable
    mutating func compactSlots() -> [(key: Key, from: Int32, to: Int32, stamp: UInt32)] {
        let kept = liveCount
        let relocation = SlotRelocation(compacting: slots.count, keeping: kept) { slots[$0].key == nil }
        var moves: [(key: Key, from: Int32, to: Int32, stamp: UInt32)] = []
        relocation.forEachMove { from, to in
            slots.swapAt(Int(from), Int(to))
            guard let key = slots[Int(to)].key else { return }
            moves.append((key, from, to, UInt32(truncatingIfNeeded: slots[Int(to)].serial)))
        }
        slots = ContiguousArray(slots[..<kept])
        free = []
        return moves
    }
}
