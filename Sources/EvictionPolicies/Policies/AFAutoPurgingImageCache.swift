// af-lru: AFNetworking's AFAutoPurgingImageCache.
// Source: AFNetworking/AFNetworking @ d9f589cc2c1f (4.0.1), UIKit+AFNetworking/AFAutoPurgingImageCache.m,
// and its test testThatPrioritizedImagesWithOldestLastAccessDatesAreRemovedDuringPurge.
// Spec: ``<doc:AFNetworking>``; test vectors A1 and A2.
//
// Rule: every entry carries its bytes and a lastAccessDate, set when it is added and on every
// hit; re-adding an identifier replaces the entry with a fresh date. Each add queues a barrier
// block that purges when `usage > memoryCapacity` (strict): it copies every entry, sorts them
// all by lastAccessDate, oldest first, and removes them in that order until the bytes removed
// reach `usage − preferredMemoryUsageAfterPurge`, so at least one entry always goes and usage
// ends at or below the preferred size. The sort is O(n log n) on every purge, as in AF, and is
// what trim-latency measurements of this policy show. A memory warning removes everything
// (`removeAllImages`, a synchronous barrier); entering the background does nothing.
//
// Modelling choices. The purge block is deferred work: it runs at the start of the next
// operation on the cache (a lookup, insert, remove or event), which is when a reader on the
// same thread would observe it (AF's reads queue behind its barriers), and it is reported as a
// deferred trim pass. lastAccessDate is a logical clock with unique, increasing stamps, so the
// sort never meets a tie. Defaults: memoryCapacity 100 MiB, preferred 60 % of the capacity
// (AF's 60 MiB of 100 MiB); `--option preferred=` takes a fraction (0.5) or a size (40MiB).
//
// Odd behaviours kept on purpose: an entry larger than the preferred size flushes the whole
// cache, itself included (A2), because the purge walks on past the older entries to the newest.
// AF only: a preferred size above the capacity makes `usage − preferred` underflow UInt64, so
// the target becomes enormous and every purge empties the cache (AlamofireImage forbids that
// configuration; see AlamofireAutoPurgingImageCache.swift).

/// AFNetworking 4.0.1's `AFAutoPurgingImageCache`: when usage exceeds the capacity, sort every
/// entry by last access and remove the oldest until usage is down to the preferred size.
///
/// **Rule.** Every entry carries a last-access date, set when it is added and on every hit;
/// re-adding an identifier replaces the entry with a fresh date. Each add queues a purge that runs
/// before the next call: if usage is above `memoryCapacity`, every entry is sorted by last access,
/// oldest first, and removed in that order until usage is at most
/// `preferredMemoryUsageAfterPurge` (one deferred pass; an entry larger than the preferred size
/// flushes the whole cache, itself included; a preferred size above the usage wraps around in
/// UInt64 and empties the cache). A memory warning removes everything; the background does nothing.
///
/// - Complexity: lookup, insert and remove are O(1) expected; a purge is O(n log n) for the
///   full sort of the n resident entries.
public struct AFAutoPurgingImageCache<Key: Hashable, Value>: LibraryModelPolicy {
    /// The library's default memory capacity: 100 MiB.
    public static var libraryCapacity: Int { 100 * 1024 * 1024 }

    public static var descriptor: PolicyDescriptor {
        PolicyDescriptor(
            name: "af-lru",
            reproduces: "AFNetworking 4.0.1 AFAutoPurgingImageCache",
            rule: "when usage exceeds the capacity, sort all entries by last access and remove the oldest until usage is at most the preferred size (deferred barrier); memory warning removes all",
            family: .library, defaultCapacity: .library(libraryCapacity),
            parameters: [
                PolicyParameter("preferred", default: "0.6",
                                "preferredMemoryUsageAfterPurge: a fraction of the capacity (a number without a unit: 0.6) or a size with a unit (60MiB, 60B); above the capacity it reproduces AF's underflow"),
            ],
            slowByDesign: "sorts every resident at each purge, as AFNetworking does: O(n log n) per purge")
    }

    public var store = SlotArena<Key, Value>()
    /// Every resident entry, in no meaningful order: AF keeps a dictionary, not a list. The
    /// list only lets a purge enumerate the entries, as `cachedImages.allValues` does.
    @usableFromInline var entries = SlotList()
    /// lastAccessDate per slot, as a logical clock.
    @usableFromInline var lastAccess = _StampClock()
    /// The purge block queued by the last add, which runs at the start of the next operation.
    @usableFromInline var purgePending = false
    /// Reused by every purge, so that only the sort itself may allocate.
    @usableFromInline var ranked = _RankedSlots()
    /// `memoryCapacity`, in cost units (bytes in replay).
    public let memoryCapacity: UInt64
    /// `preferredMemoryUsageAfterPurge`.
    public let preferredMemoryUsageAfterPurge: UInt64

    public init(limits: CacheLimits, options: PolicyOptions) throws(PolicyConfigurationError) {
        try options.validate(against: Self.descriptor)
        try limits.validate(for: Self.descriptor)
        let capacity = limits.capacity ?? Self.libraryCapacity
        let preferred = try options.fractionOrSize("preferred", of: capacity, default: Self.sixtyPercent(of: capacity))
        self.init(memoryCapacity: capacity, preferredMemoryUsageAfterPurge: preferred)
    }

    /// Creates a cache with explicit sizes, unchecked, as AF's designated initializer does.
    @usableFromInline
    init(memoryCapacity: Int, preferredMemoryUsageAfterPurge: Int) {
        self.memoryCapacity = UInt64(max(memoryCapacity, 0))
        self.preferredMemoryUsageAfterPurge = UInt64(max(preferredMemoryUsageAfterPurge, 0))
    }

    /// 60 % of `capacity`, exactly, rounded to the nearest byte as an explicit `preferred=0.6`
    /// rounds (100 MiB gives AF's 60 MiB, 100 MB gives AlamofireImage's 60 MB, 268 gives 161).
    @usableFromInline
    static func sixtyPercent(of capacity: Int) -> Int { capacity / 100 * 60 + (capacity % 100 * 60 + 50) / 100 }

    /// ``memoryCapacity``.
    @inlinable public var capacity: Int { Int(clamping: memoryCapacity) }
    @inlinable public var count: Int { entries.count }
    /// `currentMemoryUsage`. Between an add and the next operation it may exceed the capacity,
    /// as it does in AF until the queued purge block runs.
    @inlinable public var totalCost: Int { entries.cost }

    @inlinable @inline(__always)
    public func prefetch(_ key: Key, _ stage: PrefetchStage) { store.prefetch(key, stage) }

    /// `imageWithIdentifier:` stamps the entry.
    @inlinable public mutating func didHit(_ slot: Int32) { lastAccess.stamp(slot) }
    /// `addImage:withIdentifier:`: a new entry with a fresh date (a re-add is a hit: a fresh date).
    @inlinable public mutating func didInsert(_ slot: Int32) {
        store.pushHead(slot, &entries)
        didHit(slot)
    }
    /// The oldest access, which a purge removes first. O(n): AF keeps no order.
    @inlinable public mutating func victim() -> Int32 {
        let lastAccess = self.lastAccess
        return store.lowestRanked(in: entries) { (lastAccess[$0], 0) }
    }
    @inlinable public mutating func unlink(_ slot: Int32) { store.unlink(slot, &entries) }
    @inlinable public mutating func setCost(_ slot: Int32, _ cost: Int) { store.setCost(slot, cost, in: &entries) }

    /// Each add queues the purge block behind it.
    @inlinable public mutating func trimAfterSet(observer: inout some EvictionObserver<Key, Value>) {
        purgePending = true
    }

    /// Whether a purge block is queued.
    @inlinable public var hasDeferredWork: Bool { purgePending }

    /// Every call runs after the queued barrier blocks.
    @inlinable @inline(__always)
    public mutating func willOperate(observer: inout some EvictionObserver<Key, Value>) {
        guard purgePending else { return }
        purgePending = false
        purge(observer: &observer)
    }

    /// `memoryUsage` and `imageWithIdentifier:` are `dispatch_sync` reads, queued behind the
    /// purge barrier an earlier add queued: a read sees the purged cache.
    @inlinable public mutating func willRead(observer: inout some EvictionObserver<Key, Value>) {
        willOperate(observer: &observer)
    }

    /// A memory warning calls `removeAllImages` (a synchronous barrier); background does nothing.
    @inlinable
    public mutating func handle(_ event: CacheEvent, observer: inout some EvictionObserver<Key, Value>) {
        willOperate(observer: &observer)
        guard event == .memoryWarning else { return }
        store.evictAll(from: &entries, as: .caller, newestFirst: true, observer: &observer)
    }

    /// The purge block, reported as one deferred pass that includes the copy and the sort.
    @inlinable
    mutating func purge(observer: inout some EvictionObserver<Key, Value>) {
        let usage = UInt64(entries.cost)
        guard usage > memoryCapacity else { return }
        observer.trimWillBegin(.deferred)
        // AF purges `usage − preferred` bytes in UInt64: a preferred size above the usage wraps
        // around, and every entry goes (AF only).
        let target = preferredMemoryUsageAfterPurge > usage ? -1 : Int(preferredMemoryUsageAfterPurge)
        let lastAccess = self.lastAccess
        ranked.sort(entries, in: store) { (lastAccess[$0], 0) }
        ranked.evict(from: &entries, in: &store, downTo: target, observer: &observer)
        observer.trimDidEnd(.deferred)
    }
}

extension AFAutoPurgingImageCache: SlotRelocatingPolicy {
    /// Renumbers the list's ends and the access stamps after a compaction (the ranked copy is
    /// rebuilt by each purge).
    @inlinable public mutating func relocateSlots(_ relocation: SlotRelocation) {
        relocation.relocate(&entries)
        lastAccess.relocate(relocation)
    }
}
