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
public struct LIFOCache<Key: Hashable, Value>: SlotPolicy {
    public static var descriptor: PolicyDescriptor {
        PolicyDescriptor(
            name: "lifo", reproduces: "LIFO (stack order; libCacheSim conventions)",
            rule: "evict the most recently inserted resident entry, then insert the new one",
            family: .research, supportsCountLimit: true)
    }

    public var store = SlotArena<Key, Value>()
    @usableFromInline var stack = SlotList()
    public let capacity: Int
    public let countLimit: Int

    public init(limits: CacheLimits, options: PolicyOptions) throws(PolicyConfigurationError) {
        (capacity, countLimit) = try limits.validated(for: Self.descriptor, options: options)
    }

    @inlinable public var count: Int { stack.count }
    @inlinable public var totalCost: Int { stack.cost }

    @inlinable public mutating func didHit(_ slot: Int32) {}
    @inlinable public mutating func didInsert(_ slot: Int32) { store.pushHead(slot, &stack) }
    @inlinable public mutating func victim() -> Int32 { stack.head }
    @inlinable public mutating func unlink(_ slot: Int32) { store.unlink(slot, &stack) }
    @inlinable public mutating func setCost(_ slot: Int32, _ cost: Int) { store.setCost(slot, cost, in: &stack) }
}
