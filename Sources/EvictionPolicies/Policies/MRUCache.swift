// MRU: most recently used (Chou & DeWitt, "An Evaluation of Buffer Management Strategies for
// Relational Database Systems", VLDB'85), as libCacheSim's MRU.c (1a1a11a/libCacheSim @ aa0fc40,
// `MRU_find`, `MRU_insert`, `MRU_evict`).

/// A most-recently-used cache with cost and count limits.
///
/// **Rule.** One list ordered by recency. A hit moves the entry to the head; a new object is
/// inserted at the head. To make room, evict the head (the most recently used or inserted object)
/// until the new object fits (cost and count), then insert it at the head. The newcomer is never
/// its own victim. An object larger than the capacity is never inserted and leaves the cache
/// untouched. Re-inserting a resident key counts as a use: the entry is taken out, room is made
/// for its new cost among the others (most recent first), and it goes back at the head, or the
/// entry being replaced would always be the first victim of its own growth.
///
/// - Complexity: lookup, insert and remove are O(1) expected; each eviction is O(1).
public struct MRUCache<Key: Hashable, Value>: SingleListPolicy {
    public static var descriptor: PolicyDescriptor {
        PolicyDescriptor(
            name: "mru", reproduces: "MRU (libCacheSim MRU.c)",
            rule: "evict the most recently used or inserted entry; a hit moves the entry to the head",
            family: .research, supportsCountLimit: true)
    }

    public var store = SlotArena<Key, Value>()
    /// Head: most recently used or inserted; the victim end.
    public var residents: LimitedList

    public init(limits: CacheLimits, options: PolicyOptions) throws(PolicyConfigurationError) {
        residents = try LimitedList(for: Self.descriptor, limits: limits, options: options)
    }

    @inlinable public mutating func didHit(_ slot: Int32) { store.moveToHead(slot, &residents.list) }
    @inlinable public mutating func victim() -> Int32 { residents.head }

    /// The update step, changed: the entry stands aside while room is made for its new cost.
    @inlinable
    public mutating func replace(_ slot: Int32, with value: Value, cost: Int,
                                 observer: inout some EvictionObserver<Key, Value>) {
        unlink(slot)
        guard cost <= capacity else { store.release(slot); return }
        store.setValue(slot, value)
        store.setCost(slot, cost)
        makeRoom(forCost: cost, count: 1, observer: &observer)
        store.pushHead(slot, &residents.list)
    }
}

extension MRUCache: SlotRelocatingPolicy {
    /// Renumbers the list's ends after a compaction.
    @inlinable public mutating func relocateSlots(_ relocation: SlotRelocation) {
        residents.relocate(relocation)
    }
}
