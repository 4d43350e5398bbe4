// FIFO: first in, first out, as libCacheSim's FIFO.c (1a1a11a/libCacheSim @ aa0fc40).

/// A first-in, first-out cache with cost and count limits.
///
/// **Rule.** One list ordered by insertion. Hits change nothing. A miss evicts the oldest
/// insertion until the new object fits (cost and count), then inserts it at the head. An object
/// larger than the capacity is never inserted. Re-inserting a resident key replaces its cost in
/// place and keeps its position, as a FIFO queue would.
///
/// - Complexity: lookup, insert and remove are O(1) expected; each eviction is O(1).
public struct FIFOCache<Key: Hashable, Value>: SingleListPolicy {
    public static var descriptor: PolicyDescriptor {
        PolicyDescriptor(
            name: "fifo", reproduces: "FIFO (libCacheSim FIFO.c)",
            rule: "evict the oldest insertion; hits change nothing",
            family: .research, supportsCountLimit: true, faithfulMiniatureObjects: 0)
    }

    public var store = SlotArena<Key, Value>()
    /// Insertion order: the head is the newest, the tail the next to go.
    public var residents: LimitedList

    public init(limits: CacheLimits, options: PolicyOptions) throws(PolicyConfigurationError) {
        residents = try LimitedList(for: Self.descriptor, limits: limits, options: options)
    }

    @inlinable public mutating func didHit(_ slot: Int32) {}
    @inlinable public mutating func victim() -> Int32 { residents.tail }
}

extension FIFOCache: SlotRelocatingPolicy {
    /// Renumbers the list's ends after a compaction.
    @inlinable public mutating func relocateSlots(_ relocation: SlotRelocation) {
        residents.relocate(relocation)
    }
}
