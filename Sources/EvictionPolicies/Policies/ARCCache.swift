// ARC: Megiddo & Modha, "ARC: A Self-Tuning, Low Overhead Replacement Cache", FAST'03, exactly as
// libCacheSim's ARC.c at commit aa0fc40 (2024-10-07), the version of the golden table in Traces/.
//
// Rule. Two resident LRU lists, T1 (seen once recently) and T2 (seen at least twice), two ghost
// LRU lists of keys only, B1 and B2, and a target p for T1's size (a Double, as libCacheSim and
// trauzti/cache's ARC.py keep it; the paper leaves the type open). All sizes are in cost units.
// - Hit in T1 or T2: move to T2's head.
// - Miss on a key in B1 (paper case II): p = min(p + max(|B2| / |B1|, 1), c), measured before
//   the key leaves B1; in B2 (case III): p = max(p - max(|B1| / |B2|, 1), 0). Either way the key
//   leaves its ghost list, the cache REPLACEs until the object fits, and it enters T2's head.
// - Miss on an unknown key (case IV), for each eviction needed to fit the object:
//   if |T1| + |B1| + cost > c: drop B1's LRU key and REPLACE if B1 is not empty, else evict T1's
//   LRU object outright (no ghost); otherwise, if |T1| + |B1| + |T2| + |B2| >= 2c, drop B2's LRU key
//   (when there is one), then REPLACE. The object enters T1's head.
// - REPLACE: if (|T1| > 0 and (|T1| > p or (|T1| == p and the request hit B2))) or |T2| == 0,
//   T1's LRU object leaves the cache and its key enters B1's head; otherwise T2's LRU goes to B2.
// libCacheSim departs from the paper only where sizes vary: it tests "|T1| + |B1| + cost > c"
// rather than "|T1| + |B1| == c", and it runs the ghost trimming of case IV once per eviction
// rather than once per request. With unit sizes the two agree. Ghost lists have no bound beyond
// these rules. Objects larger than the capacity leave the cache, ghosts and p untouched (the
// project's research convention; libCacheSim would still consume a ghost entry and move p).

/// ARC, the adaptive replacement cache (Megiddo & Modha, FAST'03; libCacheSim ARC.c at aa0fc40).
///
/// - Complexity: lookup and remove are O(1) expected; each eviction is O(1).
public struct ARCCache<Key: Hashable, Value>: GhostListPolicy {
    public static var descriptor: PolicyDescriptor {
        PolicyDescriptor(
            name: "arc",
            reproduces: "ARC (Megiddo & Modha, FAST'03) as libCacheSim ARC.c @ aa0fc40 (p as a Double, sizes in cost units)",
            rule: "T1 holds objects seen once, T2 objects seen twice; ghost lists B1/B2 of their evicted keys steer the target size p of T1",
            family: .research)
    }

    @usableFromInline static var t1Tag: UInt32 { 0 }
    @usableFromInline static var t2Tag: UInt32 { 1 }
    @usableFromInline static var b1Tag: UInt32 { 2 }
    @usableFromInline static var b2Tag: UInt32 { 3 }

    // aux = the list the slot is in.
    public var store = SlotArena<Key, Value>()
    @usableFromInline var t1 = SlotList()
    @usableFromInline var t2 = SlotList()
    @usableFromInline var b1 = SlotList()
    @usableFromInline var b2 = SlotList()
    @usableFromInline let capacity: Int
    /// The target size of T1, in cost units.
    @usableFromInline var p: Double = 0

    public init(limits: CacheLimits, options: PolicyOptions) throws(PolicyConfigurationError) {
        try options.validate(against: Self.descriptor)
        try limits.validate(for: Self.descriptor)
        guard let capacity = limits.capacity else {
            throw PolicyConfigurationError.missingLimit(.capacity, policy: "arc")
        }
        self.capacity = capacity
    }

    @inlinable public var count: Int { t1.count + t2.count }
    @inlinable public var totalCost: Int { t1.cost + t2.cost }

    @inlinable @inline(__always)
    public func prefetch(_ key: Key, _ stage: PrefetchStage) { store.prefetch(key, stage) }

    /// The current target size of T1 (ARC's p), for tests and reports.
    @inlinable public var target: Double { p }

    @inlinable @inline(__always)
    public func isResident(_ slot: Int32) -> Bool { store.aux(slot) <= Self.t2Tag }

    @inlinable
    public mutating func unlink(_ slot: Int32) {
        switch store.aux(slot) {
        case Self.t1Tag: store.unlink(slot, &t1)
        case Self.t2Tag: store.unlink(slot, &t2)
        case Self.b1Tag: store.unlink(slot, &b1)
        default: store.unlink(slot, &b2)
        }
    }

    // MARK: The rule

    /// Case I: a hit moves the object to T2's head.
    @inlinable @inline(__always)
    public mutating func didHit(_ slot: Int32) {
        if store.aux(slot) == Self.t1Tag {
            store.unlink(slot, &t1)
            store.pushHead(slot, &t2, tag: Self.t2Tag)
        } else {
            store.moveToHead(slot, &t2)
        }
    }

    /// Cases II–IV.
    @inlinable
    public mutating func miss(_ key: Key, hash: UInt64, ghost slot: Int32, cost: Int, value: () -> Value,
                              observer: inout some EvictionObserver<Key, Value>) {
        guard cost <= capacity else { return }
        let hitB2 = slot >= 0 && store.aux(slot) == Self.b2Tag
        if slot >= 0 && !hitB2 {
            let raised = p + Self.atLeastOne(Double(b2.cost) / Double(b1.cost))
            p = raised < Double(capacity) ? raised : Double(capacity)
            store.unlinkGhost(slot, from: &b1)
        } else if hitB2 {
            let lowered = p - Self.atLeastOne(Double(b1.cost) / Double(b2.cost))
            p = lowered > 0 ? lowered : 0
            store.unlinkGhost(slot, from: &b2)
        }
        // libCacheSim's find has consumed the ghost and moved p before can_insert asks.
        guard observer.admits(key, cost: cost) else {
            if slot >= 0 { store.release(slot) }
            return
        }
        var pass = TrimPass(.caller)
        while t1.cost + t2.cost + cost > capacity && !(t1.isEmpty && t2.isEmpty) {
            if slot >= 0 {
                replaceStep(hitB2: hitB2, &pass, observer: &observer)
            } else {
                evictOnFullMiss(cost: cost, &pass, observer: &observer)
            }
        }
        if slot >= 0 {
            store.revive(slot, value: value(), cost: cost)
            store.pushHead(slot, &t2, tag: Self.t2Tag)
        } else {
            store.pushHead(store.allocate(key: key, hash: hash, value: value(), cost: cost), &t1, tag: Self.t1Tag)
        }
        pass.end(&observer)
    }

    /// C's `MAX(x, 1)`, which keeps 1 when `x` is NaN (a ghost list of zero-cost keys).
    @inlinable @inline(__always)
    static func atLeastOne(_ x: Double) -> Double { x > 1 ? x : 1 }

    // MARK: Eviction

    /// Case IV's ghost trimming, then REPLACE (libCacheSim `_ARC_evict_miss_on_all_queues`).
    @inlinable
    mutating func evictOnFullMiss(cost: Int, _ pass: inout TrimPass, observer: inout some EvictionObserver<Key, Value>) {
        if t1.cost + b1.cost + cost > capacity {
            if b1.cost > 0 && b1.tail >= 0 {
                store.forgetGhost(b1.tail, from: &b1)
                store.prefetchEviction(of: b1.tail)
                replaceStep(hitB2: false, &pass, observer: &observer)
            } else if t1.tail >= 0 {
                pass.willRemove(&observer)
                store.evict(t1.tail, from: &t1, observer: &observer)
            } else {
                replaceStep(hitB2: false, &pass, observer: &observer)
            }
        } else {
            // |T1| + |B1| + |T2| + |B2| >= 2c, written so that it cannot overflow.
            if t1.cost + b1.cost + t2.cost + b2.cost - capacity >= capacity && b2.cost > 0 && b2.tail >= 0 {
                store.forgetGhost(b2.tail, from: &b2)
                store.prefetchEviction(of: b2.tail)
            }
            replaceStep(hitB2: false, &pass, observer: &observer)
        }
    }

    /// REPLACE: T1's LRU object leaves and its key enters B1, or T2's LRU goes to B2.
    @inlinable
    mutating func replaceStep(hitB2: Bool, _ pass: inout TrimPass, observer: inout some EvictionObserver<Key, Value>) {
        let sizeT1 = Double(t1.cost)
        let fromT1 = (t1.cost > 0 && (sizeT1 > p || (sizeT1 == p && hitB2))) || t2.cost == 0
        if (fromT1 && t1.tail >= 0) || t2.tail < 0 {
            let slot = t1.tail
            guard slot >= 0 else { return }
            store.unlink(slot, &t1)
            store.prefetchEviction(of: t1.tail)
            store.demote(slot, to: &b1, limit: .max, tag: Self.b1Tag, pass: &pass, observer: &observer)
        } else {
            let slot = t2.tail
            store.unlink(slot, &t2)
            store.prefetchEviction(of: t2.tail)
            store.demote(slot, to: &b2, limit: .max, tag: Self.b2Tag, pass: &pass, observer: &observer)
        }
    }
}
