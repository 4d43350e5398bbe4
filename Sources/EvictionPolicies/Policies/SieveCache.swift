// SIEVE: Zhang, Yang, Yue, Vigfusson, Rashmi, "SIEVE is Simpler than LRU: an Efficient
// Turn-Key Eviction Algorithm for Web Caches", NSDI'24; as libCacheSim's Sieve.c
// (1a1a11a/libCacheSim @ aa0fc40, `Sieve_find`, `Sieve_insert`, `Sieve_evict`, `Sieve_remove_obj`).

/// A SIEVE cache: a FIFO queue swept by a hand that spares visited entries once.
///
/// **Rule.** One FIFO list (new objects at the head), a visited bit per object and a hand. A hit
/// sets the visited bit and moves nothing. To make room, start at the hand (or at the tail when
/// the hand is unset); while the object there is visited, clear its bit and step toward the head,
/// wrapping from the head back to the tail; evict the first unvisited object and leave the hand on
/// the object just newer than it (unset if it was the head). Survivors keep their place, so
/// retained and new objects never mix. Repeat until the new object fits (cost and count), then
/// insert it unvisited. An object larger than the capacity is never inserted. An explicit removal
/// of the object under the hand moves the hand to its newer neighbour, as libCacheSim does.
/// Re-inserting a resident key replaces its cost in place and counts as a hit. No parameters.
///
/// - Complexity: lookup, insert and remove are O(1) expected; one eviction is O(1) amortised
///   (each step of the hand clears a bit that a hit set).
public struct SieveCache<Key: Hashable, Value>: SingleListPolicy {
    public static var descriptor: PolicyDescriptor {
        PolicyDescriptor(
            name: "sieve", reproduces: "SIEVE (Zhang et al., NSDI'24; libCacheSim Sieve.c)",
            rule: "FIFO with a visited bit and a hand moving from the oldest toward the newest: a hit sets the bit; "
                + "the hand clears set bits and evicts the first unvisited object, then stays where it stopped",
            family: .research, supportsCountLimit: true)
    }

    public var store = SlotArena<Key, Value>()
    /// Head: newest insertion; tail: oldest. Entries never move within it.
    public var residents: LimitedList
    /// The slot the next eviction looks at first, or -1 to start from the tail.
    @usableFromInline var hand: Int32 = -1

    public init(limits: CacheLimits, options: PolicyOptions) throws(PolicyConfigurationError) {
        residents = try LimitedList(for: Self.descriptor, limits: limits, options: options)
    }

    @inlinable public mutating func didHit(_ slot: Int32) { store.setAux(slot, 1) }

    /// The hand passes over visited entries, clearing their bit, to the first unvisited one.
    @inlinable public mutating func victim() -> Int32 {
        let victim = store.sweepClearingAux(from: hand >= 0 ? hand : residents.tail, in: residents.list)
        hand = store.prev(victim)
        return victim
    }

    @inlinable public mutating func unlink(_ slot: Int32) {
        if slot == hand { hand = store.prev(slot) }
        store.unlink(slot, &residents.list)
    }
}

extension SieveCache: SlotRelocatingPolicy {
    /// Renumbers the list's ends and the hand after a compaction.
    @inlinable public mutating func relocateSlots(_ relocation: SlotRelocation) {
        residents.relocate(relocation)
        hand = relocation[hand]
    }
}
