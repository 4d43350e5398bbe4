import _CSupport

/// Index-based storage for a cache's entries: an arena of slots with `Int32` links and a free
/// list, the values beside them, and an open-addressing index from key to slot.
///
/// A policy keeps its order in ``SlotList``s threaded through the slots and its per-entry state
/// in a slot's ``aux(_:)`` word or a ``SideTable``; the arena owns keys, values and costs. A slot
/// holds either a *resident* entry (with a value) or a *ghost* (a remembered key, no value:
/// allocate one with a `nil` value).
///
/// Removing an entry (``release(_:)``) drops its value and its key at once. When the arena holds
/// nothing at all, its storage is given back, so a cache emptied by a memory warning shrinks;
/// after a large partial purge, ``compactIfSparse()`` moves the slots in use together and gives
/// the rest back (the policy renumbers what it keeps: ``SlotRelocatingPolicy``), and where slots
/// may not move, ``shrinkIfSparse()`` gives back the free slots above the highest in use.
///
/// - Complexity: ``find(_:hash:)``, ``allocate(key:hash:value:cost:)`` and ``release(_:)`` are
///   O(1) expected; every accessor and list operation is O(1). Nothing allocates except when
///   the arena or the index grows (amortised O(1), doubling).
@frozen
public struct SlotArena<Key: Hashable, Value> {
    @usableFromInline var slots: ContiguousArray<_Slot> = []
    /// Each slot's key, in an array of its own: a lookup compares keys, and keys kept apart stay
    /// in the processor's cache where whole slots do not (see ``_Slot``). A freed slot keeps its
    /// key where keys are plain data, and ``placeholderKey`` otherwise.
    @usableFromInline var keys: ContiguousArray<Key> = []
    /// `nil` for ghosts, which remember only a key, and for free slots, except where
    /// ``_valuesAreMarks``: there a free slot keeps the mark it had.
    @usableFromInline var values: ContiguousArray<Value?> = []
    /// Head of the free list, chained through `next`.
    @usableFromInline var freeHead: Int32 = -1
    /// Slots in use (resident or ghost).
    @usableFromInline var liveCount = 0
    /// A key written over the key of a freed slot so the freed key is released; the first key
    /// ever stored (one retained key, never one per removal). Unused for trivial keys.
    @usableFromInline var placeholderKey: Key?
    @usableFromInline var index = SlotIndex()
    /// ``shrinkIfSparse()`` looks again only once the slots in use fall below this: after a
    /// look, the next waits for half as many, or for the arena to be half full again, so its
    /// O(n) scans cost O(1) amortised per release.
    @usableFromInline var nextShrinkCheck = Int.max
    /// Where ``_valuesAreMarks``: whether any slot may hold a ghost's mark (`nil`). Until one is
    /// written, every mark is a resident's, so an allocation of a resident reads none: reading
    /// the freed victim's mark was a cache miss on every insert of a policy without ghosts.
    @usableFromInline var marksMayBeGhosts = false
    /// Whether ``compactIfSparse()`` may renumber slots. Off only in tests, which replay a
    /// policy with and without compaction and expect the same decisions.
    @usableFromInline var compacts = true

    /// An empty arena.
    @inlinable public init() {}

    /// Whether a value has no size (`Void`, as replay stores), so that `values` holds only
    /// resident-or-ghost marks and nothing to release. Then a freed slot keeps its mark, which
    /// nothing reads (a free slot is in no index, list or heap; ``forEachResident(_:)`` skips
    /// the free list), and an allocation writes the mark only when it changes: two array
    /// writes, each a uniqueness check, fewer per eviction and insert.
    @inlinable
    static var _valuesAreMarks: Bool { MemoryLayout<Value>.size == 0 }

    /// The hash the index files `key` under. Compute it once per request and pass it to
    /// ``find(_:hash:)`` and ``allocate(key:hash:value:cost:)``. O(length of key).
    @inlinable @inline(__always)
    public func hash(_ key: Key) -> UInt64 { _hash(key, seed: index.seed) }

    /// The slot holding `key` (resident or ghost), or `-1`. O(1) expected.
    @inlinable @inline(__always)
    public func find(_ key: Key) -> Int32 { find(key, hash: hash(key)) }

    /// The slot holding `key`, whose hash is `hash` (from ``hash(_:)``), or `-1`. O(1) expected.
    @inlinable @inline(__always)
    public func find(_ key: Key, hash: UInt64) -> Int32 {
        index.find(hash: hash) { keys[Int($0)] == key }
    }

    /// Starts loading memory that a request for `key` will touch; see ``EvictionPolicy/prefetch(_:_:)``.
    ///
    /// `.index` loads the index bucket where the lookup starts; `.entry` reads that bucket
    /// (loaded by an earlier `.index` hint) and loads the slot it points to. O(1).
    ///
    /// - Returns: at `.entry`, the slot asked for (-1 if none), so that a policy keeping the
    ///   slot's data in a side table can ask for it too; -1 at `.index`.
    @inlinable @inline(__always) @discardableResult
    public func prefetch(_ key: Key, _ stage: PrefetchStage) -> Int32 { prefetch(hash: hash(key), stage) }

    /// ``prefetch(_:_:)`` for the key whose hash is `hash`. Every arena hashes with the same seed,
    /// so one hash serves all of a policy's arenas (its ghosts' too). O(1).
    @inlinable @inline(__always) @discardableResult
    public func prefetch(hash: UInt64, _ stage: PrefetchStage) -> Int32 {
        switch stage {
        case .index:
            index.prefetch(hash: hash)
            return -1
        case .entry:
            let slot = index.candidate(hash: hash)
            prefetchSlot(slot)
            return slot
        }
    }

    /// Takes a free slot for `key` and records it in the index. `key` must not be present.
    /// A `nil` value makes a ghost. O(1) amortised.
    @inlinable
    public mutating func allocate(key: Key, value: Value?, cost: Int) -> Int32 {
        allocate(key: key, hash: hash(key), value: value, cost: cost)
    }

    /// Takes a free slot for `key`, whose hash is `hash` (from ``hash(_:)``), and records it in
    /// the index. `key` must not be present. A `nil` value makes a ghost. O(1) amortised.
    @inlinable
    public mutating func allocate(key: Key, hash: UInt64, value: Value?, cost: Int) -> Int32 {
        let slot: Int32
        if freeHead >= 0 {
            slot = freeHead
            freeHead = slots.withUnsafeMutableBufferPointer { slots in
                let next = slots[Int(slot)].next
                slots[Int(slot)] = _Slot(cost: cost)
                return next
            }
            keys.withUnsafeMutableBufferPointer { $0[Int(slot)] = key }
            // A value of no size is only a resident mark, which a freed slot keeps (see
            // `release`): most slots come back as residents, and the write is then skipped.
            if !Self._valuesAreMarks {
                values[Int(slot)] = value
            } else if value == nil || marksMayBeGhosts {
                marksMayBeGhosts = true
                if (values[Int(slot)] == nil) != (value == nil) { values[Int(slot)] = value }
            }
        } else {
            slot = _appendSlot(key: key, value: value, cost: cost)
        }
        liveCount += 1
        if liveCount > slots.count >> 1 { nextShrinkCheck = .max }
        index.insert(hash: hash, slot: slot)
        return slot
    }

    /// A new slot at the end of the arena, for an allocation with no free slot.
    // Out of line: it runs only while the arena grows, and inlined its appends made
    // `allocate` too large to inline into a replay loop.
    @inlinable @inline(never)
    mutating func _appendSlot(key: Key, value: Value?, cost: Int) -> Int32 {
        if !_isPOD(Key.self) && placeholderKey == nil { placeholderKey = key }
        let slot = Int32(truncatingIfNeeded: slots.count)
        slots.append(_Slot(cost: cost))
        keys.append(key)
        if Self._valuesAreMarks && value == nil { marksMayBeGhosts = true }
        values.append(value)
        return slot
    }

    /// Returns `slot` to the free list, forgets its key and releases its key and value. The
    /// slot must not be in a list. When this was the last slot in use (and the arena had grown
    /// past 16 slots), the arena gives its storage back. O(1) expected (O(n) for the final
    /// release that shrinks). For a key type that is not plain data, the arena keeps one key
    /// alive for its whole life (the first it stored, written into freed slots in place of their
    /// keys), so a key of many megabytes or with a `deinit` that matters is held once more.
    /// - Returns: the value it held (`nil` for a ghost).
    @inlinable
    @discardableResult
    public mutating func release(_ slot: Int32) -> Value? { _release(slot, isResident: false) }

    /// ``release(_:)`` of a slot that holds a resident entry (an eviction's victim). Where values
    /// are only marks, the resident's mark is made rather than read: reading it was a cache miss
    /// on every eviction (the marks' array is touched by nothing else in a replay's loop).
    @inlinable
    mutating func _releaseResident(_ slot: Int32) -> Value? {
        assert(values[Int(slot)] != nil, "a ghost or free slot released as a resident")
        return _release(slot, isResident: true)
    }

    /// Takes `slot` out of the index if it holds a resident entry, and says whether it did,
    /// changing nothing otherwise: the first step of evicting a slot that came from outside the
    /// arena's lists (a rule's victim), which may be released or out of range. The eviction
    /// then ends with ``_releaseUnindexedResident(_:)``. O(1) expected: the probe the release
    /// would make anyway, and where values are marks and no slot is a ghost, no read of the
    /// mark (a cache miss per eviction).
    ///
    /// `knownHash`, where the caller holds the slot's hash (at least its high 32 bits, all the
    /// index keeps), spares the key's load and hash: on a victim drawn at random, the key is a
    /// cache miss the index's bucket would otherwise wait for. A wrong hash finds nothing and
    /// says no, as an unknown slot does.
    @inlinable @inline(__always)
    mutating func _unindexResident(_ slot: Int32, knownHash: UInt64? = nil) -> Bool {
        guard slot >= 0, Int(slot) < slots.count else { return false }
        // Where no mark may be a ghost's, every slot in use is resident, and one not in use is
        // not in the index: the removal below says which.
        if !(Self._valuesAreMarks && !marksMayBeGhosts) && values[Int(slot)] == nil { return false }
        return index.remove(hash: knownHash ?? hash(keys[Int(slot)]), slot: slot)
    }

    /// ``_releaseResident(_:)`` of a slot ``_unindexResident(_:)`` took out of the index.
    @inlinable
    mutating func _releaseUnindexedResident(_ slot: Int32) -> Value? {
        _release(slot, isResident: true, indexed: false)
    }

    @inlinable @inline(__always)
    mutating func _release(_ slot: Int32, isResident: Bool, indexed: Bool = true) -> Value? {
        let i = Int(slot)
        let freeHead = self.freeHead
        let placeholder = placeholderKey
        slots.withUnsafeMutableBufferPointer { slots in
            slots[i].next = freeHead
            slots[i].prev = -1
        }
        let key = keys[i]
        if !_isPOD(Key.self), let placeholder { keys.withUnsafeMutableBufferPointer { $0[i] = placeholder } }
        if indexed { index.remove(hash: hash(key), slot: slot) }
        self.freeHead = slot
        liveCount -= 1
        // A value of no size (replay's `Void`) holds nothing to release: the slot keeps its
        // mark, and a write (an array uniqueness check, a runtime call) is saved per eviction.
        let value = Self._valuesAreMarks
            ? (isResident ? unsafeBitCast((), to: Value.self) : values[i])
            : values.withUnsafeMutableBufferPointer { values in
            let value = values[i]
            values[i] = nil
            return value
        }
        // Not below 16 slots, where a cache that keeps emptying (one large object at a time)
        // would allocate on every insert; a shrunken arena may be below 64 by now.
        if liveCount == 0 && slots.count > 16 { self = SlotArena() }
        return value
    }

    /// Gives storage back after a large purge: when fewer than a quarter of the slots are in
    /// use, the free slots above the highest one in use are cut off (their memory returned) and
    /// the index is rebuilt to fit. Slots in use keep their numbers, so a policy's lists, heaps
    /// and side tables stay valid; freed slots below are reused lowest first. Call it where no
    /// freed slot number is held, e.g. at the end of a trim or a removal.
    ///
    /// - Complexity: O(1) unless the arena is sparse; then O(n) in the slot count, amortised
    ///   O(1) over the releases that made it sparse.
    @inlinable @inline(__always)
    public mutating func shrinkIfSparse() {
        if slots.count > 64 && liveCount < slots.count / 4 && liveCount < nextShrinkCheck { _shrink() }
    }

    @inlinable @inline(never)
    mutating func _shrink() {
        nextShrinkCheck = liveCount / 2
        let isFree = _freeSlots()
        var length = slots.count
        while length > 0 && isFree[length - 1] { length -= 1 }
        if length < slots.count {
            slots = ContiguousArray(slots[..<length])
            keys = ContiguousArray(keys[..<length])
            values = ContiguousArray(values[..<length])
        }
        // Rechain the free slots that remain, lowest first.
        var head: Int32 = -1
        slots.withUnsafeMutableBufferPointer { slots in
            for i in stride(from: length - 1, through: 0, by: -1) where isFree[i] {
                slots[i].next = head
                head = Int32(truncatingIfNeeded: i)
            }
        }
        freeHead = head
        index.shrinkToFit()
    }

    /// Per slot, whether it is on the free list. O(n) in the slot count.
    @inlinable
    func _freeSlots() -> [Bool] {
        var isFree = [Bool](repeating: false, count: slots.count)
        var free = freeHead
        while free >= 0 {
            isFree[Int(free)] = true
            free = slots[Int(free)].next
        }
        return isFree
    }

    /// The number of slots ever allocated and not given back (resident, ghost and free): the
    /// bound for parallel arrays. O(1).
    @inlinable public var slotCapacity: Int { slots.count }

    /// The number of slots in use, resident or ghost. O(1).
    @inlinable public var occupiedSlots: Int { liveCount }

    /// The key in `slot`. O(1).
    @inlinable @inline(__always)
    public func key(_ slot: Int32) -> Key { keys[Int(slot)] }

    /// The cost of `slot`. O(1).
    @inlinable @inline(__always)
    public func cost(_ slot: Int32) -> Int { slots[Int(slot)].cost }

    /// The value in `slot`, `nil` for a ghost. O(1).
    @inlinable @inline(__always)
    public func value(_ slot: Int32) -> Value? { values[Int(slot)] }

    /// Replaces the value in `slot`; `nil` makes it a ghost. O(1).
    @inlinable @inline(__always)
    public mutating func setValue(_ slot: Int32, _ value: Value?) {
        if Self._valuesAreMarks && value == nil { marksMayBeGhosts = true }
        values[Int(slot)] = value
    }

    /// Whether `slot`, which is in use, holds a resident entry rather than a ghost. O(1).
    ///
    /// Ask only of a slot in use (one that ``find(_:)``, a list or the policy's own records
    /// name): where the values are `Void`, a released slot keeps the mark of its last entry and
    /// reads as resident. To visit the residents, use ``forEachResident(_:)``.
    @inlinable @inline(__always)
    public func isResident(_ slot: Int32) -> Bool { values[Int(slot)] != nil }

    /// The slot toward the tail (older end) of the list holding `slot`, or -1. O(1).
    @inlinable @inline(__always)
    public func next(_ slot: Int32) -> Int32 { slots[Int(slot)].next }

    /// The slot toward the head (newer end) of the list holding `slot`, or -1. O(1).
    @inlinable @inline(__always)
    public func prev(_ slot: Int32) -> Int32 { slots[Int(slot)].prev }

    /// The low 32 bits of the slot's policy word: a reference bit, a frequency, a queue tag. O(1).
    @inlinable @inline(__always)
    public func aux(_ slot: Int32) -> UInt32 { UInt32(truncatingIfNeeded: slots[Int(slot)].aux) }

    /// Sets the slot's policy word. O(1).
    @inlinable @inline(__always)
    public mutating func setAux(_ slot: Int32, _ value: UInt32) { slots[Int(slot)].aux = UInt64(value) }

    /// The slot's time stamp, kept in the slot itself so that stamping an entry on a hit touches
    /// no cache line beyond the slot's. A policy uses either ``aux(_:)`` or the stamp, never both. O(1).
    @inlinable @inline(__always)
    public func stamp(_ slot: Int32) -> Double { Double(bitPattern: slots[Int(slot)].aux) }

    /// Sets the slot's time stamp. O(1).
    @inlinable @inline(__always)
    public mutating func setStamp(_ slot: Int32, _ time: Double) { slots[Int(slot)].aux = time.bitPattern }
}
