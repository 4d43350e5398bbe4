// nscache-darwin: Apple's NSCache on Darwin, APPROXIMATED from documentation and third-party
// observation; Apple's implementation is not open source. Spec: ``<doc:NSCache>``
// (the "NSCacheDarwinApprox" recommendation); its observations are the test vectors here
// (BaHui/NSCache README: countLimit 5 over keys 1…8 evicts 1, 2, 3; totalCostLimit 10 with eight
// sets of cost 5 evicts 1…6; interleaved cost-0 and cost-1 inserts evict in insertion order).
//
// Rule: one list in insertion order. On set, evict the oldest insertion until the total cost is
// within the cost limit, then until the count is within the count limit; the new entry can go
// too if it alone exceeds the cost limit. Reads never reorder. Re-setting a resident key keeps
// its place (`keep-position-on-reset=true`, the default) or makes it the newest. Entering the
// background removes everything (Darwin purges objects that are not NSDiscardableContent; the
// replay has no discardable objects). A memory warning evicts the oldest fraction of the entries
// (`memory-warning-fraction`, default 1: everything). Those two purges are the system's doing,
// not the caller's, so they are reported as deferred passes. Costs are clamped at 0.
//
// What is not modelled: libcache's own sizing against free memory, and its "recently and
// frequently used" preference, which no public observation shows under explicit limits.

/// Darwin's NSCache, approximated from Apple's documentation and observations (Apple's
/// implementation is not open source): oldest insertion first under limits, everything purged on
/// entering the background, a configurable fraction on a memory warning.
///
/// **Rule.** One list in insertion order; reads never reorder. A set stores the entry, then evicts
/// the oldest insertion until the total cost is within the cost limit and the count within the
/// count limit; the new entry goes too if it alone exceeds the cost limit. Re-setting a resident
/// key keeps its place (`keep-position-on-reset=true`) or makes it the newest. Entering the
/// background removes everything; a memory warning removes the oldest `memory-warning-fraction`
/// of the entries (rounded up), both as deferred passes. Costs below 0 count as 0.
///
/// - Complexity: lookup, insert and remove are O(1) expected; each eviction is O(1).
public struct DarwinNSCacheApproximation<Key: Hashable, Value>: LibraryModelPolicy, SingleListPolicy {
    public static var descriptor: PolicyDescriptor {
        PolicyDescriptor(
            name: "nscache-darwin",
            reproduces: "NSCache on Darwin, approximated from Apple's documentation and observations",
            rule: "on set, evict the oldest insertion until within the cost limit, then the count limit; background removes all; memory warning removes the oldest fraction",
            family: .library, isApproximation: true, supportsCountLimit: true, defaultCapacity: .workingSetFraction,
            parameters: [
                PolicyParameter("keep-position-on-reset", default: "true",
                                "re-setting a resident key keeps its insertion position (false: it becomes the newest)"),
                PolicyParameter("memory-warning-fraction", default: "1",
                                "fraction of the entries, oldest first, a memory warning evicts (0 to 1)"),
                PolicyParameter("remove-all-on-background", default: "true",
                                "entering the background removes every entry"),
            ])
    }

    public var store = SlotArena<Key, Value>()
    /// Insertion order: the head is the newest, the tail the oldest and the next to go.
    public var residents: LimitedList
    @usableFromInline let keepPositionOnReset: Bool
    @usableFromInline let memoryWarningFraction: Double
    @usableFromInline let removeAllOnBackground: Bool
    /// Whether a purge renumbers the slots in use (``SlotRelocatingPolicy``); off under a model
    /// that keeps numbers of these slots itself (Kingfisher's expiry times), which then compacts
    /// this arena where it can follow. When off, only the free slots above the highest in use go.
    @usableFromInline var compactsArena = true

    public init(limits: CacheLimits, options: PolicyOptions) throws(PolicyConfigurationError) {
        residents = try LimitedList(for: Self.descriptor, limits: limits, options: options)
        keepPositionOnReset = try options.bool("keep-position-on-reset", default: true)
        memoryWarningFraction = try options.double("memory-warning-fraction", default: 1, in: 0...1)
        removeAllOnBackground = try options.bool("remove-all-on-background", default: true)
    }

    @inlinable public mutating func didHit(_ slot: Int32) {}
    @inlinable public mutating func didReplace(_ slot: Int32, formerCost: Int) {
        if !keepPositionOnReset { store.moveToHead(slot, &residents.list) }
    }
    @inlinable public mutating func victim() -> Int32 { residents.tail }

    /// The system's purges: everything on entering the background, the oldest fraction on a
    /// memory warning, as deferred passes.
    @inlinable
    public mutating func handle(_ event: CacheEvent, observer: inout some EvictionObserver<Key, Value>) {
        let victims: Int
        switch event {
        case .background:
            victims = removeAllOnBackground ? count : 0
        case .memoryWarning:
            victims = Int((Double(count) * memoryWarningFraction).rounded(.up))
        case .terminate:
            victims = 0
        }
        evictVictims(toCost: .max, toCount: count - min(victims, count), as: .deferred, observer: &observer)
    }

    /// The events as a library built on this NSCache handles them (SDWebImage, Kingfisher): a
    /// memory warning is its handler's `removeAllObjects`, a caller pass, oldest first; entering
    /// the background is the NSCache's own purge; termination does nothing.
    @inlinable
    public mutating func handleAsLibraryStore(_ event: CacheEvent, observer: inout some EvictionObserver<Key, Value>) {
        switch event {
        case .memoryWarning: store.evictAll(from: &residents.list, as: .caller, observer: &observer)
        case .background: handle(.background, observer: &observer)
        case .terminate: break
        }
    }
}

extension DarwinNSCacheApproximation: SlotRelocatingPolicy {
    /// Renumbers the list's ends after a compaction.
    @inlinable public mutating func relocateSlots(_ relocation: SlotRelocation) { residents.relocate(relocation) }

    /// Compacts the arena when it is sparse, unless a wrapping model keeps slot numbers of its own
    /// (Kingfisher's); then it only cuts the free slots above the highest in use.
    @inlinable @inline(__always)
    public mutating func shrinkStorageIfSparse() {
        guard compactsArena else { return store.shrinkIfSparse() }
        if let relocation = store.compactIfSparse() { relocateSlots(relocation) }
    }
}
