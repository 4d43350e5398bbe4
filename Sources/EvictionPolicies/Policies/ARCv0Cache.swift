// ARCv0: Megiddo & Modha, "ARC: A Self-Tuning, Low Overhead Replacement Cache", FAST'03, as
// libCacheSim 0.3.5's ARCv0.c (PyPI `libcachesim` 0.3.5, src/libCacheSim/cache/eviction/ARCv0.c),
// its first ARC, built from four LRU caches. Exact on every golden row.
//
// It differs from `arc` (libCacheSim's ARC.c, ARCCache) where the four lists are caches of their own:
// - B1 and B2 are LRU caches of the full capacity each: a key entering one beyond that pushes
//   out its least recent keys.
// - Case IV's trimming of B2 is a loop: B2 drops keys while |T1| + |B1| + |T2| + |B2| >= 2c.
// - A hit in T1 is T1's removal and T2's `get`: the object re-enters T2's head. libCacheSim
//   re-enters it at the request's size; here, by the project's research convention (a hit does
//   not change an object's size), it keeps its own. The golden rows are equal either way.
// - The ghost lists are searched before the size check, so a request larger than the cache
//   still consumes its ghost key and moves p.
// - "The request hit B2" in REPLACE's tie rule is a flag set by the last request that found its
//   key anywhere and cleared when a ghost hit is admitted, so a B2 hit whose object was too
//   large to admit leaves it set for the following misses.

/// ARC built as libCacheSim's ARCv0.c: four LRU caches, T1, T2, B1 and B2, and the target p.
///
/// **Rule.** T1 holds objects seen once recently, T2 those seen at least twice, B1 and B2 the
/// keys they evicted; p is T1's target size in cost units (a `Double`).
/// - **Hit** in T1: moves to T2's head; in T2: to T2's head. A hit keeps the object's cost.
/// - **Ghost hit** in B1: p = min(p + max(|B2| / |B1|, 1), c); in B2: p = max(p − max(|B1| / |B2|, 1), 0);
///   the key leaves its ghost list; the cache REPLACEs until the object fits; it enters T2.
/// - **Miss** (case IV), per eviction: if |T1| + |B1| + cost > c, B1's LRU key goes and REPLACE
///   runs, or with B1 empty T1's LRU object leaves outright; otherwise B2 drops keys while
///   |T1| + |B1| + |T2| + |B2| ≥ 2c, then REPLACE. The object enters T1's head.
/// - **REPLACE**: T1's LRU object goes to B1's head when |T1| > 0 and (|T1| > p, or |T1| = p and
///   the last found key was in B2), or when T2 is empty; otherwise T2's LRU goes to B2's head.
///
/// - Complexity: lookup and remove are O(1) expected; each eviction is O(1) amortised.
public struct ARCv0Cache<Key: Hashable, Value>: _ARCListsPolicy {
    public static var descriptor: PolicyDescriptor {
        PolicyDescriptor(
            name: "arcv0",
            reproduces: "ARC (Megiddo & Modha, FAST'03) as libCacheSim 0.3.5 ARCv0.c (four LRU caches, bounded ghosts)",
            rule: "ARC whose T1, T2, B1 and B2 are LRU caches of the full capacity each; B2 is trimmed in a loop",
            family: .research)
    }

    @usableFromInline typealias Lists = _ARCLists

    // aux = the list the slot is in.
    public var store = SlotArena<Key, Value>()
    @usableFromInline var lists: Lists
    /// Whether the last request that found its key anywhere found it in B2 (libCacheSim's
    /// `curr_obj_in_L2_ghost`), read by REPLACE's tie rule.
    @usableFromInline var lastFoundInB2 = false

    public init(limits: CacheLimits, options: PolicyOptions) throws(PolicyConfigurationError) {
        lists = try Lists(limits, options, for: Self.descriptor)
    }

    @inlinable @inline(__always)
    public func isResident(_ slot: Int32) -> Bool { Lists.isResident(store.aux(slot)) }

    /// A lookup or access of a resident key is a request for it at its cost.
    @inlinable @inline(__always)
    public mutating func didHit(_ slot: Int32, observer: inout some EvictionObserver<Key, Value>) {
        hit(slot, cost: store.cost(slot), value: store.value(slot), observer: &observer)
    }

    @inlinable
    public mutating func didHit(_ slot: Int32) {
        var ignoring = IgnoringObserver<Key, Value>()
        didHit(slot, observer: &ignoring)
    }

    /// Removes a resident object; a ghost key stays, as in `ARCv0_remove`.
    @inlinable
    @discardableResult
    public mutating func remove(_ key: Key, observer: inout some EvictionObserver<Key, Value>) -> Value? {
        let slot = store.find(key)
        guard slot >= 0, isResident(slot) else { return nil }
        unlink(slot)
        defer { shrinkStorageIfSparse() }
        return store.release(slot)
    }

    // MARK: The rule

    /// Case I. From T1 the object re-enters T2 with `cost` (T2's own LRU evicting, unrecorded,
    /// if it no longer fits; only a re-insert changes the cost); in T2 it moves to the head.
    @inlinable
    mutating func hit(_ slot: Int32, cost: Int, value: Value?, observer: inout some EvictionObserver<Key, Value>) {
        lastFoundInB2 = false
        store.setValue(slot, value)
        guard store.aux(slot) == Lists.t1Tag else {
            store.moveToHead(slot, &lists.t2)
            return
        }
        store.unlink(slot, &lists.t1)
        guard cost <= lists.capacity else {
            store.release(slot)
            return
        }
        store.setCost(slot, cost)
        var pass = TrimPass(.caller)
        while lists.t2.cost + cost > lists.capacity && !lists.t2.isEmpty {
            pass.willRemove(&observer)
            store.evict(lists.t2.tail, from: &lists.t2, observer: &observer)
        }
        pass.end(&observer)
        lists.place(slot, toT2: true, in: &store)
    }

    /// Cases II–IV. `ghostSlot` is the key's ghost slot, or -1 when the key is unknown.
    @inlinable
    public mutating func miss(_ key: Key, hash: UInt64, ghost ghostSlot: Int32, cost: Int, value: () -> Value,
                              observer: inout some EvictionObserver<Key, Value>) {
        let ghostHit = ghostSlot >= 0
        if ghostHit {
            lastFoundInB2 = store.aux(ghostSlot) == Lists.b2Tag
            lists.adaptTarget(hitB1: !lastFoundInB2, step: Lists.ratioStep)
            lists.unlink(ghostSlot, in: &store)
            store.release(ghostSlot)
        }
        // can_insert after ARCv0_find consumed the ghost and moved p: the admissioner, then the size.
        // A refused object leaves the ghost flag set, as libCacheSim's does: only the next find
        // that finds something, or the next insert after a ghost hit, clears it, and a REPLACE
        // before then reads it.
        guard observer.admits(key, cost: cost), cost <= lists.capacity else { return }
        var pass = TrimPass(.caller)
        while lists.needsRoom(for: cost) {
            if ghostHit { replace(&pass, observer: &observer) } else { evictOnFullMiss(cost: cost, &pass, observer: &observer) }
        }
        if ghostHit { lastFoundInB2 = false }
        lists.place(store.allocate(key: key, hash: hash, value: value(), cost: cost), toT2: ghostHit, in: &store)
        pass.end(&observer)
    }

    /// Case IV, one eviction (`_ARCv0_evict_miss_on_all_queues`).
    @inlinable
    mutating func evictOnFullMiss(cost: Int, _ pass: inout TrimPass, observer: inout some EvictionObserver<Key, Value>) {
        if lists.t1.cost + lists.b1.cost + cost > lists.capacity {
            if lists.b1.cost > 0 {
                store.forgetGhost(lists.b1.tail, from: &lists.b1)
                replace(&pass, observer: &observer)
            } else if !lists.t1.isEmpty {
                pass.willRemove(&observer)
                store.evict(lists.t1.tail, from: &lists.t1, observer: &observer)
            } else {
                replace(&pass, observer: &observer)
            }
            return
        }
        // |T1| + |B1| + |T2| + |B2| >= 2c, written so that it cannot overflow.
        let resident = lists.t1.cost + lists.b1.cost + lists.t2.cost
        while resident + lists.b2.cost - lists.capacity >= lists.capacity && !lists.b2.isEmpty {
            store.forgetGhost(lists.b2.tail, from: &lists.b2)
        }
        replace(&pass, observer: &observer)
    }

    /// REPLACE: T1's LRU object to B1, or T2's LRU to B2.
    @inlinable
    mutating func replace(_ pass: inout TrimPass, observer: inout some EvictionObserver<Key, Value>) {
        let sizeT1 = Double(lists.t1.cost)
        let fromT1 = (lists.t1.cost > 0 && (sizeT1 > lists.p || (sizeT1 == lists.p && lastFoundInB2))) || lists.t2.cost == 0
        if (fromT1 && !lists.t1.isEmpty) || lists.t2.isEmpty {
            demote(lists.t1.tail, from: Lists.t1Tag, to: Lists.b1Tag, &pass, observer: &observer)
        } else {
            demote(lists.t2.tail, from: Lists.t2Tag, to: Lists.b2Tag, &pass, observer: &observer)
        }
    }

    /// Evicts `slot`'s object and keeps its key at the head of its ghost list, whose own LRU
    /// first drops keys while the key would not fit in the capacity.
    @inlinable
    mutating func demote(_ slot: Int32, from resident: UInt32, to ghost: UInt32, _ pass: inout TrimPass,
                         observer: inout some EvictionObserver<Key, Value>) {
        if resident == Lists.t1Tag { store.unlink(slot, &lists.t1) } else { store.unlink(slot, &lists.t2) }
        let cost = store.cost(slot)
        pass.willRemove(&observer)
        if let value = store.value(slot) { observer.didEvict(store.key(slot), value: value, cost: cost) }
        store.setValue(slot, nil)
        store.setAux(slot, ghost)
        if ghost == Lists.b1Tag {
            store.trimGhosts(&lists.b1, toCost: lists.capacity - cost)
            store.pushHead(slot, &lists.b1)
        } else {
            store.trimGhosts(&lists.b2, toCost: lists.capacity - cost)
            store.pushHead(slot, &lists.b2)
        }
    }
}

extension ARCv0Cache: SlotRelocatingPolicy {
    /// Renumbers the ends of T1, T2, B1 and B2 after a compaction.
    @inlinable public mutating func relocateSlots(_ relocation: SlotRelocation) { lists.relocate(relocation) }
}
