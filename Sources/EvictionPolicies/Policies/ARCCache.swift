// ARC: Megiddo & Modha, "ARC: A Self-Tuning, Low Overhead Replacement Cache", FAST'03, exactly as
// libCacheSim's ARC.c at commit aa0fc40 (2024-10-07), the version of the golden table in Traces/.

/// ARC, the adaptive replacement cache (Megiddo & Modha, FAST'03; libCacheSim ARC.c at aa0fc40).
///
/// **Rule.** Two resident LRU lists, T1 (seen once recently) and T2 (seen at least twice), two ghost
/// LRU lists of keys only, B1 and B2, and a target p for T1's size (a Double, as libCacheSim and
/// trauzti/cache's ARC.py keep it; the paper leaves the type open). All sizes are in cost units.
/// - Hit in T1 or T2: move to T2's head.
/// - Miss on a key in B1 (paper case II): p = min(p + max(|B2| / |B1|, 1), c), measured before
///   the key leaves B1; in B2 (case III): p = max(p - max(|B1| / |B2|, 1), 0). Either way the key
///   leaves its ghost list, the cache REPLACEs until the object fits, and it enters T2's head.
/// - Miss on an unknown key (case IV), for each eviction needed to fit the object:
///   if |T1| + |B1| + cost > c: drop B1's LRU key and REPLACE if B1 is not empty, else evict T1's
///   LRU object outright (no ghost); otherwise, if |T1| + |B1| + |T2| + |B2| >= 2c, drop B2's LRU key
///   (when there is one), then REPLACE. The object enters T1's head.
/// - REPLACE: if (|T1| > 0 and (|T1| > p or (|T1| == p and the request hit B2))) or |T2| == 0,
///   T1's LRU object leaves the cache and its key enters B1's head; otherwise T2's LRU goes to B2.
///   Under an admission policy, a refused B2 hit still counts as "the request hit B2" for the
///   full misses after it, until a request finds its key, as libCacheSim's flag stays set then.
///
/// libCacheSim departs from the paper only where sizes vary: it tests "|T1| + |B1| + cost > c"
/// rather than "|T1| + |B1| == c", and it runs the ghost trimming of case IV once per eviction
/// rather than once per request. With unit sizes the two agree. Ghost lists have no bound beyond
/// these rules. Objects larger than the capacity leave the cache, ghosts and p untouched (the
/// project's research convention; libCacheSim would still consume a ghost entry and move p).
///
/// - Complexity: lookup and remove are O(1) expected; each eviction is O(1).
public struct ARCCache<Key: Hashable, Value>: _ARCListsPolicy {
    public static var descriptor: PolicyDescriptor {
        PolicyDescriptor(
            name: "arc",
            reproduces: "ARC (Megiddo & Modha, FAST'03) as libCacheSim ARC.c @ aa0fc40 (p as a Double, sizes in cost units)",
            rule: "T1 holds objects seen once, T2 objects seen twice; ghost lists B1/B2 of their evicted keys steer the target size p of T1",
            family: .research)
    }

    @usableFromInline typealias Lists = _ARCLists

    // aux = the list the slot is in.
    public var store = SlotArena<Key, Value>()
    @usableFromInline var lists: Lists
    /// Whether a B2 ghost hit was refused by an admission policy, with no request finding its key
    /// since: libCacheSim's `curr_obj_in_L2_ghost`, which its insert would have cleared, stays set
    /// and steers the tie rule of later full misses' REPLACE steps.
    @usableFromInline var refusedB2 = false

    public init(limits: CacheLimits, options: PolicyOptions) throws(PolicyConfigurationError) {
        lists = try Lists(limits, options, for: Self.descriptor)
    }

    @inlinable @inline(__always)
    public func isResident(_ slot: Int32) -> Bool { Lists.isResident(store.aux(slot)) }

    // MARK: The rule

    /// Case I: a hit moves the object to T2's head.
    @inlinable @inline(__always)
    public mutating func didHit(_ slot: Int32) {
        refusedB2 = false
        if store.aux(slot) == Lists.t1Tag {
            store.unlink(slot, &lists.t1)
            store.pushHead(slot, &lists.t2, tag: Lists.t2Tag)
        } else {
            store.moveToHead(slot, &lists.t2)
        }
    }

    /// Cases II–IV.
    @inlinable
    public mutating func miss(_ key: Key, hash: UInt64, ghost slot: Int32, cost: Int, value: () -> Value,
                              observer: inout some EvictionObserver<Key, Value>) {
        // Too large: the cache is left untouched (the project's convention), but the admissioner
        // is asked all the same, as libCacheSim's can_insert asks it before the size.
        guard cost <= lists.capacity else { _ = observer.admits(key, cost: cost); return }
        let hitB2 = slot >= 0 && store.aux(slot) == Lists.b2Tag
        if slot >= 0 {
            lists.adaptTarget(hitB1: !hitB2, step: Lists.ratioStep)
            lists.unlink(slot, in: &store)
            refusedB2 = false
        }
        // libCacheSim's find has consumed the ghost and moved p before can_insert asks.
        guard observer.admits(key, cost: cost) else {
            if slot >= 0 {
                store.release(slot)
                refusedB2 = hitB2
            }
            return
        }
        var pass = TrimPass(.caller)
        while lists.needsRoom(for: cost) {
            if slot >= 0 {
                replaceStep(hitB2: hitB2, &pass, observer: &observer)
            } else {
                evictOnFullMiss(cost: cost, &pass, observer: &observer)
            }
        }
        if slot >= 0 {
            store.revive(slot, value: value(), cost: cost)
            lists.place(slot, toT2: true, in: &store)
        } else {
            lists.place(store.allocate(key: key, hash: hash, value: value(), cost: cost), toT2: false, in: &store)
        }
        pass.end(&observer)
    }

    // MARK: Eviction

    /// Case IV's ghost trimming, then REPLACE (libCacheSim `_ARC_evict_miss_on_all_queues`).
    @inlinable
    mutating func evictOnFullMiss(cost: Int, _ pass: inout TrimPass, observer: inout some EvictionObserver<Key, Value>) {
        if lists.t1.cost + lists.b1.cost + cost > lists.capacity {
            if lists.b1.cost > 0 && lists.b1.tail >= 0 {
                store.forgetGhost(lists.b1.tail, from: &lists.b1)
                store.prefetchEviction(of: lists.b1.tail)
                replaceStep(hitB2: refusedB2, &pass, observer: &observer)
            } else if lists.t1.tail >= 0 {
                pass.willRemove(&observer)
                store.evict(lists.t1.tail, from: &lists.t1, observer: &observer)
            } else {
                replaceStep(hitB2: refusedB2, &pass, observer: &observer)
            }
        } else {
            // |T1| + |B1| + |T2| + |B2| >= 2c, written so that it cannot overflow.
            let all = lists.t1.cost + lists.b1.cost + lists.t2.cost + lists.b2.cost
            if all - lists.capacity >= lists.capacity && lists.b2.cost > 0 && lists.b2.tail >= 0 {
                store.forgetGhost(lists.b2.tail, from: &lists.b2)
                store.prefetchEviction(of: lists.b2.tail)
            }
            replaceStep(hitB2: refusedB2, &pass, observer: &observer)
        }
    }

    /// REPLACE: T1's LRU object leaves and its key enters B1, or T2's LRU goes to B2.
    @inlinable
    mutating func replaceStep(hitB2: Bool, _ pass: inout TrimPass, observer: inout some EvictionObserver<Key, Value>) {
        let sizeT1 = Double(lists.t1.cost)
        let fromT1 = (lists.t1.cost > 0 && (sizeT1 > lists.p || (sizeT1 == lists.p && hitB2))) || lists.t2.cost == 0
        if (fromT1 && lists.t1.tail >= 0) || lists.t2.tail < 0 {
            guard lists.t1.tail >= 0 else { return }
            lists.demoteTail(fromT1: true, &store, &pass, observer: &observer)
        } else {
            lists.demoteTail(fromT1: false, &store, &pass, observer: &observer)
        }
    }
}

extension ARCCache: SlotRelocatingPolicy {
    /// Renumbers the ends of T1, T2, B1 and B2 after a compaction.
    @inlinable public mutating func relocateSlots(_ relocation: SlotRelocation) {
        lists.relocate(relocation)
    }
}
