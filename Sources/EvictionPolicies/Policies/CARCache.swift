// CAR: Bansal & Modha, "CAR: Clock with Adaptive Replacement", FAST'04, as libCacheSim 0.3.5's
// CAR.c (PyPI `libcachesim` 0.3.5, src/libCacheSim/cache/eviction/CAR.c), default `p=0`. Exact
// on every golden row.
//
// Where libCacheSim departs from the paper, this follows libCacheSim:
// - The paper's "|T1| + |B1| = c" and "|T1| + |T2| + |B1| + |B2| = 2c" are tests on cost units,
//   and p's step is the integer quotient max(1, ⌊|B2| / |B1|⌋) (max(1, ⌊|B1| / |B2|⌋) on a B2 hit).
// - The B2 trimming is unreachable (its test, |T1| + |B1| > c, sits in the `else` of
//   |T1| + |B1| >= c), so B2 is never trimmed.
// - The "request was in a ghost list" flags are cleared only when an object is inserted, so a
//   ghost hit whose object is too large to admit sends the next admitted miss to T2.
// Where libCacheSim would dereference an empty list (REPLACE with the list it picks empty, or
// B1 empty when trimming it) this takes the other list or skips the step.

/// CAR: two CLOCKs, T1 (seen once recently) and T2 (seen at least twice), with ghost lists B1
/// and B2 of the keys they evicted steering the target size p of T1.
///
/// **Rule** (libCacheSim 0.3.5 `CAR.c`). p starts at the `p` option (0 by default).
/// - **Hit**: sets the object's reference bit; nothing moves.
/// - **Ghost hit** in B1: p = min(p + max(1, ⌊|B2| / |B1|⌋), c); in B2: p = max(p − max(1, ⌊|B1| / |B2|⌋), 0).
///   The key leaves its ghost list and the object will enter T2.
/// - **Miss**: while the object does not fit, REPLACE, then if |T1| + |B1| ≥ c drop B1's oldest key.
///   The object enters behind T1's hand (or T2's, after a ghost hit) with its bit clear.
/// - **REPLACE**: if |T1| ≥ max(1, p), T1's hand: bit clear → the object leaves and its key enters
///   B1; bit set → cleared and the object moves behind T2's hand. Otherwise T2's hand: bit clear →
///   leaves for B2; set → cleared and moved behind the hand. Repeats until one object leaves.
///
/// - Complexity: lookups O(1) expected; REPLACE is amortised O(1) (each bit it clears was set by a hit).
public struct CARCache<Key: Hashable, Value>: _ARCListsPolicy {
    public static var descriptor: PolicyDescriptor {
        PolicyDescriptor(
            name: "car", reproduces: "CAR (Bansal & Modha, FAST'04) as libCacheSim 0.3.5 CAR.c",
            rule: "two CLOCKs for objects seen once and seen twice; ghost lists of their evicted keys steer the target size of the first, as ARC",
            family: .research,
            parameters: [PolicyParameter("p", default: "0", "the initial target size of T1, in the capacity's units (at most the capacity)",
                                         scalesWithCapacity: true)])
    }

    @usableFromInline typealias Lists = _ARCLists
    @usableFromInline static var referenceBit: UInt32 { 4 }

    // aux = the list in bits 0–1, the reference bit in bit 2. In T1 and T2 the tail is the hand
    // (the oldest) and the head the newest; in B1 and B2 the head is the newest key.
    public var store = SlotArena<Key, Value>()
    @usableFromInline var lists: Lists
    /// libCacheSim's `curr_obj_in_L1_ghost` / `curr_obj_in_L2_ghost`: set by a ghost hit, cleared by the next insert.
    @usableFromInline var wasInB1 = false
    @usableFromInline var wasInB2 = false

    public init(limits: CacheLimits, options: PolicyOptions) throws(PolicyConfigurationError) {
        lists = try Lists(limits, options, for: Self.descriptor)
        // Above the capacity libCacheSim fails; the target cannot exceed the cache anyway.
        lists.p = Double(try options.integer("p", default: 0, in: 0...lists.capacity))
    }

    @inlinable @inline(__always)
    public func isResident(_ slot: Int32) -> Bool { Lists.isResident(store.aux(slot)) }

    /// A hit sets the object's reference bit; nothing moves.
    @inlinable @inline(__always)
    public mutating func didHit(_ slot: Int32) { store.setAux(slot, store.aux(slot) | Self.referenceBit) }

    // MARK: The rule

    /// A ghost hit adapts p and forgets the key; then, if the object fits the capacity, REPLACE
    /// and B1's trimming make room and it enters T2 (after any ghost hit not yet consumed) or T1.
    @inlinable
    public mutating func miss(_ key: Key, hash: UInt64, ghost ghostSlot: Int32, cost: Int, value: () -> Value,
                              observer: inout some EvictionObserver<Key, Value>) {
        if ghostSlot >= 0 {
            let hitB1 = store.aux(ghostSlot) & 3 == Lists.b1Tag
            if hitB1 { wasInB1 = true } else { wasInB2 = true }
            lists.adaptTarget(hitB1: hitB1) { other, own in Double(Self.step(other, own)) }
            lists.unlink(ghostSlot, in: &store)
            store.release(ghostSlot)
        }
        // can_insert after CAR_find consumed the ghost: the admissioner, then the size; as for a
        // refused size, the ghost marks stay until the next insert (libCacheSim's CAR_insert
        // clears them).
        guard observer.admits(key, cost: cost), cost <= lists.capacity else { return }
        var pass = TrimPass(.caller)
        while lists.needsRoom(for: cost) {
            replace(&pass, observer: &observer)
            if !(wasInB1 && wasInB2) && lists.t1.cost + lists.b1.cost >= lists.capacity && !lists.b1.isEmpty {
                store.forgetGhost(lists.b1.tail, from: &lists.b1)
            }
        }
        let toT2 = wasInB1 || wasInB2
        (wasInB1, wasInB2) = (false, false)
        lists.place(store.allocate(key: key, hash: hash, value: value(), cost: cost), toT2: toT2, in: &store)
        pass.end(&observer)
    }

    /// libCacheSim's `MAX(1, numerator / denominator)` on integers; 1 when the denominator is 0
    /// (ghost keys of zero cost), where C would trap.
    @inlinable @inline(__always)
    static func step(_ numerator: Int, _ denominator: Int) -> Int {
        denominator > 0 ? max(1, numerator / denominator) : 1
    }

    /// REPLACE: turns T1's or T2's hand until an object with a clear bit leaves for its ghost list.
    @inlinable
    mutating func replace(_ pass: inout TrimPass, observer: inout some EvictionObserver<Key, Value>) {
        while true {
            let fromT1 = (Double(lists.t1.cost) >= max(1, lists.p) && !lists.t1.isEmpty) || lists.t2.isEmpty
            let hand = fromT1 ? lists.t1.tail : lists.t2.tail
            guard store.aux(hand) & Self.referenceBit != 0 else {
                lists.demoteTail(fromT1: fromT1, &store, &pass, observer: &observer)
                return
            }
            // A set bit is cleared and the object moves behind T2's hand.
            store.setAux(hand, Lists.t2Tag)
            if fromT1 {
                store.unlink(hand, &lists.t1)
                store.pushHead(hand, &lists.t2)
            } else {
                store.moveToHead(hand, &lists.t2)
            }
        }
    }
}

extension CARCache: SlotRelocatingPolicy {
    /// Renumbers the ends of T1, T2 (their hands), B1 and B2 after a compaction.
    @inlinable public mutating func relocateSlots(_ relocation: SlotRelocation) {
        lists.relocate(relocation)
    }
}
