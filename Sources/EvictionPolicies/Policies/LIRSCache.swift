// LIRS: Jiang & Zhang, "LIRS: An Efficient Low Inter-reference Recency Set Replacement Policy to
// Improve Buffer Cache Performance", SIGMETRICS'02, exactly as libCacheSim's LIRS.c at commit
// aa0fc40 (2024-10-07), the version of the golden table in Traces/.
//
// libCacheSim's LIRS is not the authors' lirs.c (bundled with Caffeine), and differs from it by
// up to about 4 points of hit ratio (multi3 @ 500: 40.6 % here against 44.6 %). We follow
// libCacheSim, because the golden table is libCacheSim's; the differences are listed at the end.

/// LIRS, low inter-reference recency set (Jiang & Zhang, SIGMETRICS'02), as libCacheSim LIRS.c at aa0fc40.
///
/// **State.** Stack S (recency order; LIR blocks, resident HIR blocks and non-resident HIR keys),
/// queue Q (resident HIR blocks, LRU order), and NH (S's non-resident keys, oldest first). The
/// HIR part is hl = max(1, floor(hir-ratio × capacity)), the LIR part ll = capacity - hl; `lir`,
/// `hir` and `occupied` are libCacheSim's lirs_count, hirs_count and occupied_byte.
/// A request first moves its key to the head of S and of Q, wherever it is in them, then:
/// - LIR in S: hit; prune S (drop HIR entries from S's bottom until an LIR block is there).
/// - resident HIR in S: hit; leave Q; demote S's bottom block to Q (evictLIR) while
///   lir + cost > ll; become LIR.
/// - resident HIR in Q only: hit; evictLIR while lir + cost > ll; push onto S as resident HIR,
///   staying in Q. (The paper demotes nothing here.)
/// - non-resident HIR in S: miss; evictLIR while lir + cost > ll; leave NH; then, while
///   occupied + cost > capacity, evictHIR while hir >= hl and evictLIR once; become LIR.
/// - unknown key: miss; refused if cost > ll or cost > hl. If lir + cost > ll and hir + cost > hl,
///   evictHIR until hir + cost <= hl. Then LIR if lir + cost <= ll, else resident HIR in S and Q.
/// - evictLIR: S's bottom block leaves S (lir -= cost) and, if cost <= hl, enters Q's head as
///   resident HIR after evictHIR makes room; then prune. evictHIR: Q's LRU block leaves the cache;
///   if its key is in S it stays there as non-resident and enters NH.
/// - After every request, while S's total cost > 2 × capacity, NH's oldest key leaves S and NH.
///
/// Quirk kept because the golden counts depend on it: in the "resident HIR in Q only" case, with
/// hl = 1 (caches under 200 objects) evictLIR's evictHIR can push the requested block itself out
/// of Q, and libCacheSim then pushes it onto S marked resident anyway. That block keeps being
/// served as a hit ("phantom") until it becomes LIR again or is pruned; libCacheSim's own
/// occupancy does not count it. Here it counts in `count` and `totalCost`, which can therefore
/// exceed the capacity by a few phantom blocks (at most 5 on the golden traces).
/// Where we depart from libCacheSim, only on inputs it cannot handle:
/// - A request for a key the stack remembers, at the cost it remembers, readmits it as LIR; at
///   another cost it is a new object (the remembered key is forgotten, unless the new object is
///   refused, which leaves everything as it was), as a resident key stored again at a new cost is. libCacheSim evicts room for the request's size and then inserts the
///   remembered one, which corrupts its unsigned LIR count when a key's size changes; keeping the
///   remembered cost instead let an app's cost limit be overrun by the difference.
/// - The LIR part must hold at least twice the HIR part (ll >= 2·hl: capacity >= 3 by default and
///   hir-ratio <= 1/3); below that libCacheSim's stack loses its LIR bottom and duplicates keys.
/// - Objects larger than the capacity leave everything untouched (the project's convention).
///
/// Differences from the authors' lirs.c (not followed): lirs.c demotes no LIR block on a hit to
/// a resident HIR block outside S; lirs.c bounds S by a count (MAX_S_LEN), not 2 × capacity; and
/// lirs.c skips consecutive duplicate references in the algorithm while counting them as hits.
///
/// - Complexity: lookup is O(1) expected plus the stack pruning it triggers (amortized O(1));
///   each eviction is amortized O(1).
public struct LIRSCache<Key: Hashable, Value>: ArenaPolicy {
    public static var descriptor: PolicyDescriptor {
        PolicyDescriptor(
            name: "lirs",
            reproduces: "LIRS (Jiang & Zhang, SIGMETRICS'02) as libCacheSim LIRS.c @ aa0fc40, not the authors' lirs.c",
            rule: "blocks with a small inter-reference recency (LIR) stay; new and infrequent blocks (HIR) get 1 % of the cache and are evicted first; a stack of recent keys decides promotions",
            family: .research,
            parameters: [
                PolicyParameter("hir-ratio", default: "0.01", "resident HIR share of the capacity, truncated, at least 1 unit; at most 1/3"),
            ])
    }

    // aux flags.
    @usableFromInline static var inStack: UInt32 { 1 }
    @usableFromInline static var isLIR: UInt32 { 2 }
    /// libCacheSim's `in_cache` of the stack entry.
    @usableFromInline static var stackResident: UInt32 { 4 }
    @usableFromInline static var inQueue: UInt32 { 8 }
    @usableFromInline static var inNonResident: UInt32 { 16 }

    public var store = SlotArena<Key, Value>()
    /// S, over the store's own links.
    @usableFromInline var stack = SlotList()
    /// Q, over a second pair of links.
    @usableFromInline var queue = _ParallelList()
    /// NH, over a third pair of links.
    @usableFromInline var nonResident = _ParallelList()
    @usableFromInline let capacity: Int
    @usableFromInline let hirLimit: Int
    @usableFromInline let lirLimit: Int
    @usableFromInline var lirCost = 0
    @usableFromInline var hirCost = 0
    /// libCacheSim's occupied_byte, which drives eviction (phantom blocks are not in it).
    @usableFromInline var occupied = 0
    @usableFromInline var residentCount = 0
    @usableFromInline var residentCost = 0
    /// The requested key's slot while its request runs: not freed or reported in between.
    @usableFromInline var pinned: Int32 = -1

    public init(limits: CacheLimits, options: PolicyOptions) throws(PolicyConfigurationError) {
        let capacity = try limits._requiredCapacity(for: Self.descriptor, options: options)
        let ratio = try options.double("hir-ratio", default: 0.01, in: 0...(1.0 / 3.0))
        guard ratio > 0 else { throw PolicyConfigurationError.invalidOption("hir-ratio", value: "\(ratio)", expected: "a ratio greater than 0") }
        hirLimit = max(1, _proportion(of: capacity, ratio))
        lirLimit = capacity - hirLimit
        guard lirLimit >= 2 * hirLimit else {
            throw PolicyConfigurationError.invalidLimit(
                .capacity, value: capacity,
                expected: "at least 3, so that the LIR part (\(lirLimit)) is at least twice the HIR part (\(hirLimit))")
        }
        self.capacity = capacity
    }

    @inlinable public var count: Int { residentCount }
    @inlinable public var totalCost: Int { residentCost }

    @inlinable @inline(__always)
    public func prefetch(_ key: Key, _ stage: PrefetchStage) { store.prefetch(key, stage) }

    /// libCacheSim's hit test: LIR, or resident HIR in S, or (not in S) resident in Q.
    @inlinable @inline(__always)
    public func isResident(_ slot: Int32) -> Bool { Self.isResident(flags: store.aux(slot)) }

    @inlinable @inline(__always)
    static func isResident(flags: UInt32) -> Bool {
        flags & inStack != 0
            ? flags & (isLIR | stackResident) != 0
            : flags & inQueue != 0
    }

    @inlinable
    public mutating func didHit(_ slot: Int32) {
        var ignoring = IgnoringObserver<Key, Value>()
        didHit(slot, observer: &ignoring)
    }

    /// A hit: `LIRS_find` on a resident block, then S's bound; what they push out is one trim pass.
    @inlinable
    public mutating func didHit(_ slot: Int32, observer: inout some EvictionObserver<Key, Value>) {
        var passOpen = false
        recordHit(slot, passOpen: &passOpen, observer: &observer)
        limitStack(passOpen: &passOpen, observer: &observer)
        if passOpen { observer.trimDidEnd(.caller) }
    }

    /// A miss: `slot` is the key's slot when S remembers it as non-resident, else -1.
    @inlinable
    public mutating func miss(_ key: Key, hash: UInt64, ghost slot: Int32, cost: Int, value: () -> Value,
                              observer: inout some EvictionObserver<Key, Value>) {
        var passOpen = false
        // LIRS_can_insert consults the admissioner before anything else. A refused key still had
        // LIRS_find's stack lookup (a non-resident HIR key moves to the top of S), and LIRS_get
        // limits the stack after every request.
        if observer.admits(key, cost: cost) {
            guard admit(key, hash: hash, slot: slot, cost: cost, value: value, passOpen: &passOpen, observer: &observer)
            else { return }
        } else if slot >= 0 && store.aux(slot) & Self.inStack != 0 {
            store.moveToHead(slot, &stack)
        }
        limitStack(passOpen: &passOpen, observer: &observer)
        if passOpen { observer.trimDidEnd(.caller) }
    }

    /// A re-insert at the same cost is a hit; at a new cost, a new object (the old one goes, not
    /// an eviction, and the new one misses).
    @inlinable
    public mutating func replace(_ slot: Int32, with value: Value, cost: Int,
                                 observer: inout some EvictionObserver<Key, Value>) {
        // A new cost goes through `remove`, which prunes S after an LIR block leaves.
        guard store.cost(slot) == cost else {
            let key = store.key(slot)
            remove(key, observer: &observer)
            miss(key, hash: store.hash(key), ghost: -1, cost: cost, value: { value }, observer: &observer)
            return
        }
        _updateAsHitOrNewObject(slot, with: value, cost: cost, observer: &observer)
    }

    /// Takes `slot` out of S, Q and NH, keeping the counts right.
    @inlinable
    public mutating func unlink(_ slot: Int32) {
        let flags = store.aux(slot)
        let cost = store.cost(slot)
        if Self.isResident(flags: flags) && store.value(slot) != nil {
            residentCount -= 1
            residentCost -= cost
        }
        if flags & Self.inStack != 0 {
            if flags & Self.isLIR != 0 {
                lirCost -= cost
                occupied -= cost
            }
            store.unlink(slot, &stack)
        }
        if flags & Self.inQueue != 0 {
            hirCost -= cost
            occupied -= cost
            queue.unlink(slot, cost: cost)
        }
        if flags & Self.inNonResident != 0 { nonResident.unlink(slot, cost: cost) }
    }

    /// Removes `key`, resident or remembered; as libCacheSim, removing an LIR block then prunes
    /// S, whose bottom may now be HIR entries.
    @inlinable
    @discardableResult
    public mutating func remove(_ key: Key, observer: inout some EvictionObserver<Key, Value>) -> Value? {
        let slot = store.find(key)
        guard slot >= 0 else { return nil }
        let flags = store.aux(slot)
        unlink(slot)
        let value = store.release(slot)
        if flags & (Self.inStack | Self.isLIR) == Self.inStack | Self.isLIR {
            var passOpen = false
            prune(passOpen: &passOpen, observer: &observer)
            if passOpen { observer.trimDidEnd(.caller) }
        }
        shrinkStorageIfSparse()
        return value
    }

    // MARK: Hits

    /// `LIRS_find` on a resident block.
    @inlinable
    mutating func recordHit(_ slot: Int32, passOpen: inout Bool, observer: inout some EvictionObserver<Key, Value>) {
        let flags = store.aux(slot)
        if flags & Self.inStack != 0 { store.moveToHead(slot, &stack) }
        if flags & Self.inQueue != 0 { queue.moveToHead(slot) }
        pinned = slot
        defer { pinned = -1 }
        let cost = store.cost(slot)
        if flags & Self.inStack != 0 {
            if flags & Self.isLIR != 0 {
                prune(passOpen: &passOpen, observer: &observer)
                return
            }
            // Resident HIR in S (hit_RD_HIRinS): it becomes LIR.
            if flags & Self.inQueue != 0 {
                hirCost -= cost
                occupied -= cost
                queue.unlink(slot, cost: cost)
                store.setAux(slot, store.aux(slot) & ~Self.inQueue)
            }
            while lirCost + cost > lirLimit && stack.tail >= 0 && stack.tail != slot {
                evictLIR(passOpen: &passOpen, observer: &observer)
            }
            store.setAux(slot, store.aux(slot) | Self.isLIR)
            lirCost += cost
            occupied += cost
        } else {
            // Resident HIR in Q only (hit_RD_HIRinQ): demote LIR blocks, then push onto S as HIR.
            while lirCost + cost > lirLimit && stack.tail >= 0 {
                evictLIR(passOpen: &passOpen, observer: &observer)
            }
            store.pushHead(slot, &stack)
            store.setAux(slot, (store.aux(slot) & ~Self.isLIR) | Self.inStack | Self.stackResident)
        }
    }

    // MARK: Misses

    /// The miss path: `LIRS_can_insert`, the eviction loop with `LIRS_evict`, then `LIRS_insert`.
    ///
    /// - Parameter slot: the key's slot when the stack remembers it as non-resident, else -1.
    /// - Returns: `false` when the object is refused and nothing changed.
    @inlinable
    mutating func admit(_ key: Key, hash: UInt64, slot: Int32, cost requestCost: Int, value: () -> Value,
                        passOpen: inout Bool, observer: inout some EvictionObserver<Key, Value>) -> Bool {
        if slot >= 0 {
            if store.aux(slot) & Self.inStack != 0 && store.cost(slot) == requestCost {
                admitNonResident(slot, value: value, passOpen: &passOpen, observer: &observer)
                return true
            }
            // Asked for at another cost: a new object, whose limits count the cost given. (Only in
            // NH, not in S, cannot happen while NH ⊆ S.) Forget the remembered key and start
            // afresh, unless the new object is refused: a refused request leaves the cache as it was.
            guard fits(requestCost) else { return false }
            unlink(slot)
            store.release(slot)
        }
        return admitNew(key, hash: hash, cost: requestCost, value: value, passOpen: &passOpen, observer: &observer)
    }

    /// A non-resident HIR key in S comes back: it becomes LIR, with its remembered cost.
    @inlinable
    mutating func admitNonResident(_ slot: Int32, value: () -> Value,
                                   passOpen: inout Bool, observer: inout some EvictionObserver<Key, Value>) {
        let cost = store.cost(slot)
        store.moveToHead(slot, &stack)
        pinned = slot
        defer { pinned = -1 }
        // LIRS_can_insert.
        while lirCost + cost > lirLimit && stack.tail >= 0 && stack.tail != slot {
            evictLIR(passOpen: &passOpen, observer: &observer)
        }
        if store.aux(slot) & Self.inNonResident != 0 {
            nonResident.unlink(slot, cost: cost)
            store.setAux(slot, store.aux(slot) & ~Self.inNonResident)
        }
        // The eviction loop, LIRS_evict's "HIR non-resident in S" case.
        while occupied + cost > capacity {
            let before = (occupied, stack.count, queue.list.count)
            while hirCost >= hirLimit && queue.list.tail >= 0 {
                evictHIR(passOpen: &passOpen, observer: &observer)
            }
            if stack.tail >= 0 && stack.tail != slot { evictLIR(passOpen: &passOpen, observer: &observer) }
            if before == (occupied, stack.count, queue.list.count) { break }
        }
        // LIRS_insert.
        store.setAux(slot, store.aux(slot) | Self.isLIR | Self.stackResident)
        lirCost += cost
        occupied += cost
        store.setValue(slot, value())
        residentCount += 1
        residentCost += cost
    }

    /// Whether a new object of `cost` can be admitted (`LIRS_can_insert` for a new object): it
    /// fits the capacity and both the LIR and HIR budgets.
    @inlinable
    func fits(_ cost: Int) -> Bool {
        cost <= capacity && cost <= lirLimit && cost <= hirLimit
    }

    /// A key neither in S nor in Q.
    @inlinable
    mutating func admitNew(_ key: Key, hash: UInt64, cost: Int, value: () -> Value,
                           passOpen: inout Bool, observer: inout some EvictionObserver<Key, Value>) -> Bool {
        guard fits(cost) else { return false }
        if lirCost + cost > lirLimit {
            while hirCost + cost > hirLimit && queue.list.tail >= 0 {
                evictHIR(passOpen: &passOpen, observer: &observer)
            }
        }
        while occupied + cost > capacity && lirCost + cost > lirLimit && hirCost + cost > hirLimit
                && queue.list.tail >= 0 {
            evictHIR(passOpen: &passOpen, observer: &observer)
        }
        let slot = store.allocate(key: key, hash: hash, value: value(), cost: cost)
        queue.reserve(store.slotCapacity)
        nonResident.reserve(store.slotCapacity)
        store.pushHead(slot, &stack)
        if lirCost + cost <= lirLimit {
            store.setAux(slot, Self.inStack | Self.isLIR | Self.stackResident)
            lirCost += cost
        } else {
            store.setAux(slot, Self.inStack | Self.stackResident | Self.inQueue)
            queue.pushHead(slot, cost: cost)
            hirCost += cost
        }
        occupied += cost
        residentCount += 1
        residentCost += cost
        return true
    }

    // MARK: Stack and queue maintenance

    /// Drops HIR entries from S's bottom until an LIR block is there (or one entry is left).
    @inlinable
    mutating func prune(passOpen: inout Bool, observer: inout some EvictionObserver<Key, Value>) {
        while stack.tail >= 0 && stack.tail != stack.head {
            let slot = stack.tail
            let flags = store.aux(slot)
            if flags & Self.isLIR != 0 { break }
            if flags & (Self.stackResident | Self.inNonResident) == Self.inNonResident {
                nonResident.unlink(slot, cost: store.cost(slot))
                store.setAux(slot, store.aux(slot) & ~Self.inNonResident)
            }
            leaveStack(slot)
            settle(slot, passOpen: &passOpen, observer: &observer)
        }
    }

    /// Moves S's bottom block to Q's head as resident HIR (libCacheSim `evictLIR`), then prunes.
    @inlinable
    mutating func evictLIR(passOpen: inout Bool, observer: inout some EvictionObserver<Key, Value>) {
        let slot = stack.tail
        guard slot >= 0 else { return }
        let cost = store.cost(slot)
        lirCost -= cost
        leaveStack(slot)
        occupied -= cost
        if cost <= hirLimit {
            while hirCost + cost > hirLimit && queue.list.tail >= 0 {
                evictHIR(passOpen: &passOpen, observer: &observer)
            }
            if store.aux(slot) & Self.inQueue != 0 {
                queue.moveToHead(slot)
            } else {
                queue.pushHead(slot, cost: cost)
                store.setAux(slot, store.aux(slot) | Self.inQueue)
            }
            hirCost += cost
            occupied += cost
        }
        settle(slot, passOpen: &passOpen, observer: &observer)
        prune(passOpen: &passOpen, observer: &observer)
    }

    /// Evicts Q's LRU block; if S has its key, it stays there as non-resident and enters NH.
    @inlinable
    mutating func evictHIR(passOpen: inout Bool, observer: inout some EvictionObserver<Key, Value>) {
        let slot = queue.list.tail
        guard slot >= 0 else { return }
        let cost = store.cost(slot)
        hirCost -= cost
        queue.unlink(slot, cost: cost)
        var flags = store.aux(slot) & ~Self.inQueue
        if flags & Self.inStack != 0 {
            flags &= ~Self.stackResident
            if flags & Self.inNonResident != 0 {
                nonResident.moveToHead(slot)
            } else {
                nonResident.pushHead(slot, cost: cost)
                flags |= Self.inNonResident
            }
        }
        store.setAux(slot, flags)
        occupied -= cost
        settle(slot, passOpen: &passOpen, observer: &observer)
    }

    /// Bounds S at twice the capacity by forgetting the oldest non-resident keys.
    @inlinable
    mutating func limitStack(passOpen: inout Bool, observer: inout some EvictionObserver<Key, Value>) {
        while stack.cost - capacity > capacity {
            let slot = nonResident.list.tail
            guard slot >= 0 else { return }
            nonResident.unlink(slot, cost: store.cost(slot))
            store.setAux(slot, store.aux(slot) & ~Self.inNonResident)
            if store.aux(slot) & Self.inStack != 0 { leaveStack(slot) }
            settle(slot, passOpen: &passOpen, observer: &observer)
        }
    }

    @inlinable @inline(__always)
    mutating func leaveStack(_ slot: Int32) {
        store.unlink(slot, &stack)
        store.setAux(slot, store.aux(slot) & ~(Self.inStack | Self.isLIR | Self.stackResident))
    }

    /// After a slot's flags changed: report its object as evicted if it is no longer served,
    /// and free the slot once no list holds it.
    @inlinable
    mutating func settle(_ slot: Int32, passOpen: inout Bool, observer: inout some EvictionObserver<Key, Value>) {
        guard slot != pinned else { return }
        let flags = store.aux(slot)
        if !Self.isResident(flags: flags), let value = store.value(slot) {
            if !passOpen { observer.trimWillBegin(.caller); passOpen = true }
            let cost = store.cost(slot)
            observer.didEvict(store.key(slot), value: value, cost: cost)
            store.setValue(slot, nil)
            residentCount -= 1
            residentCost -= cost
        }
        if flags & (Self.inStack | Self.inQueue | Self.inNonResident) == 0 { store.release(slot) }
    }
}

/// An intrusive doubly linked list over a ``SlotArena``'s slots with its own link arrays, for a
/// policy whose entries sit in more than one list at once (LIRS's Q and NH beside its stack).
///
/// The arrays are indexed by slot and grown with ``reserve(_:)`` after the store allocates.
@usableFromInline
internal struct _ParallelList {
    @usableFromInline var prev: ContiguousArray<Int32> = []
    @usableFromInline var next: ContiguousArray<Int32> = []
    @usableFromInline var list = SlotList()

    @inlinable init() {}

    /// Makes room for slots below `slotCount`.
    @inlinable
    mutating func reserve(_ slotCount: Int) {
        while prev.count < slotCount {
            prev.append(-1)
            next.append(-1)
        }
    }

    @inlinable
    mutating func pushHead(_ slot: Int32, cost: Int) {
        let i = Int(slot)
        prev[i] = -1
        next[i] = list.head
        if list.head >= 0 { prev[Int(list.head)] = slot } else { list.tail = slot }
        list.head = slot
        list.count += 1
        list.cost += cost
    }

    @inlinable
    mutating func unlink(_ slot: Int32, cost: Int) {
        let i = Int(slot)
        let p = prev[i], n = next[i]
        if p >= 0 { next[Int(p)] = n } else { list.head = n }
        if n >= 0 { prev[Int(n)] = p } else { list.tail = p }
        prev[i] = -1
        next[i] = -1
        list.count -= 1
        list.cost -= cost
    }

    @inlinable
    mutating func moveToHead(_ slot: Int32) {
        guard list.head != slot else { return }
        unlink(slot, cost: 0)
        pushHead(slot, cost: 0)
    }
    /// Renumbers the links and the ends after the arena compacted, and drops the links of the
    /// slots it gave back. O(n) in the slots.
    @inlinable
    mutating func relocate(_ relocation: SlotRelocation) {
        relocation.forEachMove { from, to in
            guard Int(to) < prev.count else { return }
            let moved = Int(from) < prev.count
            prev[Int(to)] = moved ? prev[Int(from)] : -1
            next[Int(to)] = moved ? next[Int(from)] : -1
        }
        let kept = min(prev.count, relocation.slotCount)
        prev = ContiguousArray(prev[..<kept].lazy.map { relocation[$0] })
        next = ContiguousArray(next[..<kept].lazy.map { relocation[$0] })
        relocation.relocate(&list)
    }
}

extension LIRSCache: SlotRelocatingPolicy {
    /// Renumbers the ends of S, Q and NH, Q's and NH's own links, and the pinned slot after a compaction.
    @inlinable public mutating func relocateSlots(_ relocation: SlotRelocation) {
        relocation.relocate(&stack)
        queue.relocate(relocation)
        nonResident.relocate(relocation)
        pinned = relocation[pinned]
    }
}
