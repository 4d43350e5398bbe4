import _CSupport

/// One entry's storage: its key, cost, list links and a small policy-defined field.
///
/// Links are `Int32` slot numbers (`-1` for none), so a node is 24–32 bytes and a list is a
/// pair of integers rather than a chain of objects.
@usableFromInline
internal struct _Slot<Key> {
    @usableFromInline var key: Key
    @usableFromInline var cost: Int
    /// Toward the head (the newer end) of whichever list holds the slot.
    @usableFromInline var prev: Int32
    /// Toward the tail (the older end) of whichever list holds the slot.
    @usableFromInline var next: Int32
    /// Free for the policy: a reference bit, a frequency, a queue tag (the low 32 bits, through
    /// ``_SlotStore/aux(_:)``), or a time stamp (all 64, through ``_SlotStore/stamp(_:)``).
    /// 64 bits cost nothing: they fill what would be padding in the slot's 32-byte stride.
    @usableFromInline var aux: UInt64

    @inlinable
    init(key: Key, cost: Int) {
        self.key = key
        self.cost = cost
        self.prev = -1
        self.next = -1
        self.aux = 0
    }
}

/// The ends, length and total cost of one intrusive doubly linked list over a ``_SlotStore``.
///
/// The head is the newest end, the tail the oldest. Several lists (ARC's T1, T2, B1, B2) share
/// one store; a slot is in at most one of them at a time.
@usableFromInline
internal struct _List {
    @usableFromInline var head: Int32 = -1
    @usableFromInline var tail: Int32 = -1
    @usableFromInline var count: Int = 0
    @usableFromInline var cost: Int = 0

    @inlinable init() {}

    @inlinable var isEmpty: Bool { head < 0 }
}

/// Index-based storage shared by every policy: an arena of slots with a free list, the values
/// beside them, and an open-addressing index from key to slot.
///
/// - Complexity: ``find(_:)``, ``allocate(key:value:cost:)`` and ``release(_:)`` are O(1)
///   expected; list operations are O(1). No operation allocates except when the arena or the
///   index grows (amortised O(1), doubling).
@usableFromInline
internal struct _SlotStore<Key: Hashable, Value> {
    @usableFromInline var slots: ContiguousArray<_Slot<Key>> = []
    /// `nil` for free slots and for ghost entries that remember only a key.
    @usableFromInline var values: ContiguousArray<Value?> = []
    /// Head of the free list, chained through `next`.
    @usableFromInline var freeHead: Int32 = -1
    @usableFromInline var index = _KeyIndex()

    @inlinable init() {}

    /// The slot holding `key`, or `-1`.
    @inlinable @inline(__always)
    func find(_ key: Key) -> Int32 { find(key, hash: hash(key)) }

    /// The slot holding `key`, whose hash is `hash` (from ``hash(_:)``), or `-1`.
    ///
    /// A miss that goes on to ``allocate(key:hash:value:cost:)`` passes the same hash to both,
    /// so a `String` key is hashed once per insert rather than twice.
    @inlinable @inline(__always)
    func find(_ key: Key, hash: UInt64) -> Int32 {
        index.find(hash: hash) { slots[Int($0)].key == key }
    }

    /// The hash the index files `key` under.
    @inlinable @inline(__always)
    func hash(_ key: Key) -> UInt64 { _hash(key, seed: index.seed) }

    /// Starts loading memory that a request for `key` will touch; see ``EvictionPolicy/prefetch(_:_:)``.
    ///
    /// `.index` loads the index bucket where the lookup starts; `.entry` reads that bucket
    /// (loaded by an earlier `.index` hint) and loads the slot it points to.
    @inlinable @inline(__always)
    func prefetch(_ key: Key, _ stage: PrefetchStage) {
        let hash = hash(key)
        switch stage {
        case .index:
            index.prefetch(hash: hash)
        case .entry:
            let slot = index.candidate(hash: hash)
            guard slot >= 0 else { return }
            slots.withUnsafeBufferPointer { slots in
                if let base = slots.baseAddress { _cs_prefetch(base + Int(slot)) }
            }
        }
    }

    /// Takes a free slot for `key` and records it in the index. `key` must not be present.
    @inlinable
    mutating func allocate(key: Key, value: Value?, cost: Int) -> Int32 {
        allocate(key: key, hash: hash(key), value: value, cost: cost)
    }

    /// Takes a free slot for `key`, whose hash is `hash` (from ``hash(_:)``), and records it in
    /// the index. `key` must not be present.
    @inlinable
    mutating func allocate(key: Key, hash: UInt64, value: Value?, cost: Int) -> Int32 {
        let slot: Int32
        if freeHead >= 0 {
            slot = freeHead
            freeHead = slots.withUnsafeMutableBufferPointer { slots in
                let next = slots[Int(slot)].next
                slots[Int(slot)] = _Slot(key: key, cost: cost)
                return next
            }
            values[Int(slot)] = value
        } else {
            slot = Int32(truncatingIfNeeded: slots.count)
            slots.append(_Slot(key: key, cost: cost))
            values.append(value)
        }
        index.insert(hash: hash, slot: slot)
        return slot
    }

    /// Returns `slot` to the free list and forgets its key. The slot must not be in a list.
    /// - Returns: the value it held.
    @inlinable
    @discardableResult
    mutating func release(_ slot: Int32) -> Value? {
        let i = Int(slot)
        let freeHead = self.freeHead
        let key = slots.withUnsafeMutableBufferPointer { slots in
            slots[i].next = freeHead
            slots[i].prev = -1
            return slots[i].key
        }
        index.remove(hash: hash(key), slot: slot)
        self.freeHead = slot
        return values.withUnsafeMutableBufferPointer { values in
            let value = values[i]
            values[i] = nil
            return value
        }
    }

    /// The number of slots ever allocated (resident, ghost and free): the bound for parallel arrays.
    @inlinable var slotCapacity: Int { slots.count }

    @inlinable @inline(__always)
    func key(_ slot: Int32) -> Key { slots[Int(slot)].key }

    @inlinable @inline(__always)
    func cost(_ slot: Int32) -> Int { slots[Int(slot)].cost }

    @inlinable @inline(__always)
    func next(_ slot: Int32) -> Int32 { slots[Int(slot)].next }

    @inlinable @inline(__always)
    func prev(_ slot: Int32) -> Int32 { slots[Int(slot)].prev }

    @inlinable @inline(__always)
    func aux(_ slot: Int32) -> UInt32 { UInt32(truncatingIfNeeded: slots[Int(slot)].aux) }

    @inlinable @inline(__always)
    mutating func setAux(_ slot: Int32, _ value: UInt32) { slots[Int(slot)].aux = UInt64(value) }

    /// The slot's time stamp, kept in the slot itself so that stamping an entry on a hit touches
    /// no other cache line. A policy uses either ``aux(_:)`` or the stamp, never both.
    @inlinable @inline(__always)
    func stamp(_ slot: Int32) -> Double { Double(bitPattern: slots[Int(slot)].aux) }

    @inlinable @inline(__always)
    mutating func setStamp(_ slot: Int32, _ time: Double) { slots[Int(slot)].aux = time.bitPattern }

    // MARK: Lists
    //
    // Each operation works on the slots through one unsafe buffer access: a plain `slots[i].next = x`
    // would check the array's uniqueness (a runtime call) and bounds on every write, several times
    // per operation. Slot numbers come only from this store, so they are always in bounds.

    /// Puts `slot` at the head (newest end) of `list`.
    @inlinable
    mutating func pushHead(_ slot: Int32, _ list: inout _List) {
        slots.withUnsafeMutableBufferPointer { Self._pushHead($0, slot, &list) }
    }

    /// Puts `slot` at the tail (oldest end) of `list`.
    @inlinable
    mutating func pushTail(_ slot: Int32, _ list: inout _List) {
        slots.withUnsafeMutableBufferPointer { s in
            let i = Int(slot)
            s[i].next = -1
            s[i].prev = list.tail
            if list.tail >= 0 { s[Int(list.tail)].next = slot } else { list.head = slot }
            list.tail = slot
            list.count += 1
            list.cost += s[i].cost
        }
    }

    /// Inserts `slot` just before `successor` (on the head side of it).
    @inlinable
    mutating func insert(_ slot: Int32, before successor: Int32, _ list: inout _List) {
        slots.withUnsafeMutableBufferPointer { s in
            let previous = s[Int(successor)].prev
            guard previous >= 0 else { Self._pushHead(s, slot, &list); return }
            let i = Int(slot)
            s[i].prev = previous
            s[i].next = successor
            s[Int(previous)].next = slot
            s[Int(successor)].prev = slot
            list.count += 1
            list.cost += s[i].cost
        }
    }

    /// Takes `slot` out of `list`.
    @inlinable
    mutating func unlink(_ slot: Int32, _ list: inout _List) {
        slots.withUnsafeMutableBufferPointer { Self._unlink($0, slot, &list) }
    }

    /// Moves `slot`, already in `list`, to its head.
    @inlinable @inline(__always)
    mutating func moveToHead(_ slot: Int32, _ list: inout _List) {
        guard list.head != slot else { return }
        slots.withUnsafeMutableBufferPointer { s in
            Self._unlink(s, slot, &list)
            Self._pushHead(s, slot, &list)
        }
    }

    @inlinable @inline(__always)
    static func _pushHead(_ s: UnsafeMutableBufferPointer<_Slot<Key>>, _ slot: Int32, _ list: inout _List) {
        let i = Int(slot)
        s[i].prev = -1
        s[i].next = list.head
        if list.head >= 0 { s[Int(list.head)].prev = slot } else { list.tail = slot }
        list.head = slot
        list.count += 1
        list.cost += s[i].cost
    }

    @inlinable @inline(__always)
    static func _unlink(_ s: UnsafeMutableBufferPointer<_Slot<Key>>, _ slot: Int32, _ list: inout _List) {
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
    /// - Returns: the value, or `nil` if `key` was not resident.
    @inlinable
    @discardableResult
    mutating func remove(_ key: Key, from list: inout _List) -> Value? {
        let slot = find(key)
        guard slot >= 0 else { return nil }
        unlink(slot, &list)
        return release(slot)
    }

    /// Evicts every entry of `list` as one trim pass of `kind` (the libraries' "remove all" on a
    /// memory warning or entering the background), oldest first unless `newestFirst`.
    @inlinable
    mutating func evictAll(from list: inout _List, as kind: TrimKind, newestFirst: Bool = false,
                           observer: inout some EvictionObserver<Key, Value>) {
        guard !list.isEmpty else { return }
        observer.trimWillBegin(kind)
        while !list.isEmpty { evict(newestFirst ? list.head : list.tail, from: &list, observer: &observer) }
        observer.trimDidEnd(kind)
    }

    /// Unlinks `slot` from `list`, frees it and reports it to `observer` as evicted.
    @inlinable
    ///
    /// Most policies evict next the slot just newer than this one (LRU's and FIFO's new tail,
    /// SIEVE's hand), so its index bucket and its own newer neighbour start loading now.
    mutating func evict(_ slot: Int32, from list: inout _List, observer: inout some EvictionObserver<Key, Value>) {
        let newer = slots[Int(slot)].prev
        unlink(slot, &list)
        let key = slots[Int(slot)].key
        let cost = slots[Int(slot)].cost
        if let value = release(slot) { observer.didEvict(key, value: value, cost: cost) }
        prefetchEviction(of: newer)
    }

    /// Starts loading what evicting `slot` will touch besides the slot itself: its index bucket
    /// and its newer neighbour. `slot` should be in cache already; -1 is ignored.
    @inlinable @inline(__always)
    func prefetchEviction(of slot: Int32) {
        guard slot >= 0 else { return }
        slots.withUnsafeBufferPointer { slots in
            guard let base = slots.baseAddress else { return }
            let entry = base[Int(slot)]
            index.prefetch(hash: hash(entry.key))
            if entry.prev >= 0 { _cs_prefetch(base + Int(entry.prev)) }
        }
    }

    /// The second-chance sweep: walks from `start` toward the head of `list`, wrapping from the
    /// head to the tail, clearing each slot's aux until it reaches one whose aux is already 0,
    /// which it returns. `list` must hold a slot with aux 0 or the sweep clears one lap first.
    ///
    /// One buffer access for the whole walk: clearing through ``setAux(_:_:)`` would check the
    /// array's uniqueness on every step.
    @inlinable
    mutating func sweepClearingAux(from start: Int32, in list: _List) -> Int32 {
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

    /// Changes the cost of `slot`, which is in `list`, keeping the list's total right.
    @inlinable
    mutating func setCost(_ slot: Int32, _ cost: Int, in list: inout _List) {
        list.cost += cost - slots[Int(slot)].cost
        slots[Int(slot)].cost = cost
    }
}

/// An open-addressing hash index from a key's hash to a slot, with linear probing and
/// backward-shift deletion (no tombstones).
///
/// Each bucket packs the low 32 bits of the hash with `slot + 1` in one `UInt64` (0 is empty), so
/// a probe compares hashes without touching the slot; the caller confirms the key.
/// The table doubles when it is half full.
@usableFromInline
internal struct _KeyIndex {
    @usableFromInline var buckets: ContiguousArray<UInt64>
    @usableFromInline var mask: Int
    @usableFromInline var count: Int = 0
    /// The seed for hashing `String` keys; see ``_hashString(_:seed:)``.
    @usableFromInline let seed: UInt64

    @inlinable
    init(minimumCapacity: Int = 16) {
        seed = _stringHashSeed
        var size = 16
        while size < minimumCapacity * 2 { size <<= 1 }
        buckets = ContiguousArray(repeating: 0, count: size)
        mask = size - 1
    }

    @inlinable @inline(__always)
    func find(hash: UInt64, matches: (Int32) -> Bool) -> Int32 {
        let tag = hash & 0xffff_ffff
        var i = Int(truncatingIfNeeded: hash) & mask
        while true {
            let bucket = buckets[i]
            if bucket == 0 { return -1 }
            if bucket >> 32 == tag {
                let slot = Int32(truncatingIfNeeded: bucket & 0xffff_ffff) - 1
                if matches(slot) { return slot }
            }
            i = (i + 1) & mask
        }
    }

    /// Starts loading the bucket where a probe for `hash` begins.
    @inlinable @inline(__always)
    func prefetch(hash: UInt64) {
        buckets.withUnsafeBufferPointer { buckets in
            if let base = buckets.baseAddress { _cs_prefetch(base + (Int(truncatingIfNeeded: hash) & mask)) }
        }
    }

    /// The slot of the first bucket whose stored hash matches `hash`, or -1: a guess for
    /// prefetching, not confirmed against the key.
    @inlinable @inline(__always)
    func candidate(hash: UInt64) -> Int32 {
        let tag = hash & 0xffff_ffff
        var i = Int(truncatingIfNeeded: hash) & mask
        while true {
            let bucket = buckets[i]
            if bucket == 0 { return -1 }
            if bucket >> 32 == tag { return Int32(truncatingIfNeeded: bucket & 0xffff_ffff) - 1 }
            i = (i + 1) & mask
        }
    }

    // Insert and remove work on the buckets through one unsafe buffer access: subscripting the
    // array would check its uniqueness (a runtime call) and bounds on every write. Positions are
    // masked, so they are always in bounds.

    @inlinable
    mutating func insert(hash: UInt64, slot: Int32) {
        if (count + 1) * 2 > buckets.count { grow() }
        let entry = (hash & 0xffff_ffff) << 32 | UInt64(UInt32(slot) + 1)
        let mask = self.mask
        buckets.withUnsafeMutableBufferPointer { buckets in
            var i = Int(truncatingIfNeeded: hash) & mask
            while buckets[i] != 0 { i = (i + 1) & mask }
            buckets[i] = entry
        }
        count += 1
    }

    @inlinable
    mutating func remove(hash: UInt64, slot: Int32) {
        let entry = (hash & 0xffff_ffff) << 32 | UInt64(UInt32(slot) + 1)
        let mask = self.mask
        let removed = buckets.withUnsafeMutableBufferPointer { buckets -> Bool in
            var i = Int(truncatingIfNeeded: hash) & mask
            while buckets[i] != entry {
                if buckets[i] == 0 { return false }
                i = (i + 1) & mask
            }
            // Backward-shift: pull later entries of the run into the hole when their home allows.
            var hole = i
            var j = (i + 1) & mask
            while buckets[j] != 0 {
                let home = Int(truncatingIfNeeded: buckets[j] >> 32) & mask
                // Move j into the hole unless its home lies cyclically in (hole, j].
                let distanceToJ = (j - home) & mask
                let distanceToHole = (hole - home) & mask
                if distanceToHole < distanceToJ {
                    buckets[hole] = buckets[j]
                    hole = j
                }
                j = (j + 1) & mask
            }
            buckets[hole] = 0
            return true
        }
        if removed { count -= 1 }
    }

    @inlinable
    mutating func grow() {
        let old = buckets
        let size = old.count * 2
        buckets = ContiguousArray(repeating: 0, count: size)
        mask = size - 1
        for entry in old where entry != 0 {
            var i = Int(truncatingIfNeeded: entry >> 32) & mask
            while buckets[i] != 0 { i = (i + 1) & mask }
            buckets[i] = entry
        }
    }
}
