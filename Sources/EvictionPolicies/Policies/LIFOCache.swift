// LIFO: last in, first out (a stack), the textbook policy named in Wikipedia's taxonomy; neither
// libCacheSim nor Caffeine ships it, so it follows their conventions for research policies.

/// A last-in, first-out cache with cost and count limits.
///
/// **Rule.** One list ordered by insertion. Hits change nothing. To make room for a new object,
/// evict the most recently inserted *resident* entry, repeatedly, until the new object fits; then
/// insert it. The newcomer is never its own victim, so a full cache keeps its oldest entries and
/// cycles the newest position. An object larger than the capacity is never inserted.
/// Re-inserting a resident key replaces its cost in place.
///
/// - Complexity: lookup, insert and remove are O(1) expected; each eviction is O(1).
public struct LIFOCache<Key: Hashable, Value>: SingleListPolicy {
    public static var descriptor: PolicyDescriptor {
        PolicyDescriptor(
            name: "lifo", reproduces: "LIFO (stack order; libCacheSim conventions)",
            rule: "evict the most recently inserted resident entry, then insert the new one",
            family: .research, supportsCountLimit: true, faithfulMiniatureObjects: 0)
    }

    public var store = SlotArena<Key, Value>()
    /// Insertion order: the head is the newest, and the next to go.
    public var residents: LimitedList

    public init(limits: CacheLimits, options: PolicyOptions) throws(PolicyConfigurationError) {
        residents = try LimitedList(for: Self.descriptor, limits: limits, options: options)
    }

    @inlinable public mutating func didHit(_ slot: Int32) {}
    @inlinable public mutating func victim() -> Int32 { residents.head }
}

extension LIFOCache: SlotRelocatingPolicy {
    /// Renumbers the list's ends after a compaction.
    @inlinable public mutating func relocateSlots(_ relocation: SlotRelocation) {
        residents.relocate(relocation)
    }
}
