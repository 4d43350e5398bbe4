// LRU: least recently used, as libCacheSim's LRU.c (1a1a11a/libCacheSim @ aa0fc40).

/// A least-recently-used cache with cost and count limits.
///
/// **Rule.** One list ordered by recency. A hit moves the entry to the head. A miss evicts from
/// the tail until the new object fits (cost and count), then inserts it at the head. An object
/// larger than the capacity is never inserted and leaves the cache untouched (libCacheSim's
/// `can_insert`). Re-inserting a resident key replaces its cost and counts as a use.
///
/// - Complexity: lookup, insert and remove are O(1) expected; each eviction is O(1).
public struct LRUCache<Key: Hashable, Value>: SingleListPolicy {
    public static var descriptor: PolicyDescriptor {
        PolicyDescriptor(
            name: "lru", reproduces: "LRU (libCacheSim LRU.c)",
            rule: "evict the least recently used entry; a hit moves the entry to the head",
            family: .research, supportsCountLimit: true, evictsAsLRU: true,
            faithfulMiniatureObjects: 0)
    }

    public var store = SlotArena<Key, Value>()
    /// Recency order: the head is the most recently used, the tail the next to go.
    public var residents: LimitedList

    public init(limits: CacheLimits, options: PolicyOptions) throws(PolicyConfigurationError) {
        residents = try LimitedList(for: Self.descriptor, limits: limits, options: options)
    }

    // A hit's move to the head is queued and applied in batches (see PendingHits), always before
    // an insert, a victim choice or an unlink, so the order they see is the order of the rule.
    @usableFromInline var pendingHits = PendingHits()

    @inlinable public mutating func didHit(_ slot: Int32) { store.deferMoveToHead(slot, &residents.list, &pendingHits) }
    @inlinable public mutating func didInsert(_ slot: Int32) {
        store.applyPendingHits(&pendingHits, &residents.list)
        store.pushHead(slot, &residents.list)
    }
    @inlinable public mutating func victim() -> Int32 {
        store.applyPendingHits(&pendingHits, &residents.list)
        return residents.tail
    }
    @inlinable public mutating func unlink(_ slot: Int32) {
        store.applyPendingHits(&pendingHits, &residents.list)
        store.unlink(slot, &residents.list)
    }
}

extension LRUCache: SlotRelocatingPolicy {
    /// Renumbers the list's ends and the queued hits after a compaction.
    @inlinable public mutating func relocateSlots(_ relocation: SlotRelocation) {
        residents.relocate(relocation)
        pendingHits.relocate(relocation)
    }
}
