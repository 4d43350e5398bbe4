// sd-disk: SDWebImage's disk cache, SDDiskCache `removeExpiredData`, as SDImageCache runs it.
// Source: SDWebImage/SDWebImage @ 36e79ba485e9 (5.21.5), SDWebImage/Core/SDDiskCache.m
// (dataForKey: sets the access date; removeExpiredData, lines 151–243), SDImageCache.m
// (applicationDidEnterBackground: and applicationWillTerminate:), SDImageCacheConfig.m.
// Spec: ``<doc:SDWebImage>``; test vector SD1.
//
// Rule: one file per key with two dates and an allocated size. Nothing is evicted on write.
// `removeExpiredData` runs when the app enters the background (async on the serial ioQueue,
// inside a background task) and when it is about to terminate (dispatch_sync on ioQueue):
//   1. expiry: with expirationDate = now − maxDiskAge (maxDiskAge 1 week by default; negative:
//      never; 0: everything), every file whose date is <= expirationDate is deleted
//      (`[[date laterDate:expirationDate] isEqualToDate:expirationDate]`);
//   2. size: if maxDiskSize > 0 and the remaining files' allocated sizes sum above it, the files
//      are sorted by date, oldest first, and deleted until the sum is STRICTLY BELOW
//      maxDiskSize / 2 (SD1: five 300 B files, maxDiskSize 1000: f1…f4 go, 300 < 500).
// The date is the content access date (`expire-type=access`, the default since 5.20.0, which
// also made dataForKey: set it on every read) or the modification date (`expire-type=
// modification`, the default before 5.20.0 and SD 4.x's only choice). A write creates the file
// anew (NSDataWritingAtomic), so it sets both dates.
//
// Modelling choices. maxDiskSize is --capacity (SD's own default, 0, means unlimited); an entry's
// cost is its allocated size, the trace's size rounded up to `block-size` (1 by default: the
// size is taken as allocated; 4096 models APFS blocks). Dates are trace time; files whose dates
// are equal sort in the order the dates were set (NSSortConcurrent leaves ties unspecified,
// and real dates rarely tie). The background clean-up is a deferred pass, the termination one
// a caller pass (the main thread waits in dispatch_sync); one pass covers both phases. Like
// SD's, the pass enumerates every file and sorts the survivors: O(n log n), rarely run.

/// SDWebImage 5.21.5's disk cache (`SDDiskCache` `removeExpiredData`, as `SDImageCache` runs
/// it): on entering the background and on termination, delete files older than maxDiskAge, then,
/// over maxDiskSize, the oldest files until below half of it.
///
/// **Rule.** One file per key with a date: the content access date (`expire-type=access`, set by
/// every write and read) or the modification date (`modification`, set by every write). A write
/// charges the size rounded up to `block-size` and evicts nothing. The clean-up, on entering the
/// background (a deferred pass) and on termination (a caller pass), first deletes every file
/// whose date is at or before now − `max-disk-age` (negative: never), oldest write first; then,
/// if the remaining files sum above `maxDiskSize` (the capacity; 0: unlimited), deletes them
/// oldest date first until the sum is strictly below half of it.
///
/// - Complexity: lookup, insert and remove are O(1) expected; a clean-up is O(n log n).
public struct SDDiskCache<Key: Hashable, Value>: LibraryModelPolicy {
    /// `SDImageCacheConfigExpireType`: which file date ages an entry.
    public enum ExpireType: String, Sendable {
        /// `NSURLContentAccessDateKey`, set by every write and read.
        case access
        /// `NSURLContentModificationDateKey`, set by every write.
        case modification
    }

    /// SD's default maxDiskAge: one week.
    public static var defaultMaxDiskAge: Double { 60 * 60 * 24 * 7 }

    public static var descriptor: PolicyDescriptor {
        PolicyDescriptor(
            name: "sd-disk",
            reproduces: "SDWebImage 5.21.5 SDDiskCache removeExpiredData",
            rule: "nothing on write; on background (async) and terminate (sync): delete files older than max-disk-age, then, over the capacity, the oldest files by access (or modification) date until strictly below half the capacity",
            family: .library, supportsCountLimit: false, defaultCapacity: .workingSetFraction,
            parameters: [
                PolicyParameter("max-disk-age", default: "604800", "seconds (one week); negative: never expire; 0: everything expires"),
                PolicyParameter("expire-type", default: "access", "access (default since 5.20.0) or modification (before 5.20.0)"),
                PolicyParameter("block-size", default: "1", "allocated sizes are sizes rounded up to this (4096: APFS blocks)",
                                actsOnSizes: true),
            ],
            slowByDesign: "sorts every file at each clean-up, as SDWebImage does: O(n log n) per clean-up")
    }

    public var store = SlotArena<Key, Value>()
    /// Every file, newest write at the head: enumeration order for the clean-up.
    @usableFromInline var files = SlotList()
    /// Per slot: the chosen date, and the order in which it was set. Dates never go back, so
    /// the order sorts files as their dates do, and breaks the ties (SD's are unspecified).
    @usableFromInline var dates = SideTable<Double>(filling: 0)
    @usableFromInline var stamps = _StampClock()
    @usableFromInline var ranked = _RankedSlots()
    /// `maxDiskSize` (0: unlimited).
    public let maxDiskSize: Int
    /// `maxDiskAge` in seconds (negative: never).
    public let maxDiskAge: Double
    /// `diskCacheExpireType`.
    public let expireType: ExpireType
    /// The allocation unit sizes are rounded up to.
    public let blockSize: Int
    @usableFromInline var now: Double = 0

    public init(limits: CacheLimits, options: PolicyOptions) throws(PolicyConfigurationError) {
        try options.validate(against: Self.descriptor)
        try limits.validate(for: Self.descriptor)
        maxDiskSize = limits.capacity ?? 0
        maxDiskAge = try options.double("max-disk-age", default: Self.defaultMaxDiskAge)
        let type = options.string("expire-type", default: "access")
        guard let parsed = ExpireType(rawValue: type) else {
            throw PolicyConfigurationError.invalidOption("expire-type", value: type, expected: "access or modification")
        }
        expireType = parsed
        blockSize = try options.integer("block-size", default: 1, in: 1...(1 << 30))
    }

    /// ``maxDiskSize``, `Int.max` when unlimited.
    @inlinable public var capacity: Int { maxDiskSize > 0 ? maxDiskSize : .max }
    @inlinable public var count: Int { files.count }
    /// The allocated size of every file.
    @inlinable public var totalCost: Int { files.cost }

    @inlinable @inline(__always)
    public func prefetch(_ key: Key, _ stage: PrefetchStage) { store.prefetch(key, stage) }

    /// `dataForKey:`: a read sets the access date.
    @inlinable public mutating func didHit(_ slot: Int32) {
        if expireType == .access { stampDate(slot) }
    }
    /// `setData:forKey:`: an atomic write, so both dates become now.
    @inlinable public mutating func didInsert(_ slot: Int32) {
        store.pushHead(slot, &files)
        stampDate(slot)
    }
    @inlinable public mutating func didReplace(_ slot: Int32, formerCost: Int) { stampDate(slot) }
    /// The oldest date, which the size phase deletes first. O(n).
    @inlinable public mutating func victim() -> Int32 {
        let stamps = self.stamps
        return store.lowestRanked(in: files) { (stamps[$0], 0) }
    }
    @inlinable public mutating func unlink(_ slot: Int32) { store.unlink(slot, &files) }
    @inlinable public mutating func setCost(_ slot: Int32, _ cost: Int) { store.setCost(slot, cost, in: &files) }
    /// Nothing is evicted on write.
    @inlinable public mutating func trimAfterSet(observer: inout some EvictionObserver<Key, Value>) {}

    /// Background: `deleteOldFiles` on ioQueue (deferred). Terminate: `dispatch_sync` (caller).
    @inlinable
    public mutating func handle(_ event: CacheEvent, observer: inout some EvictionObserver<Key, Value>) {
        switch event {
        case .background: removeExpiredData(kind: .deferred, observer: &observer)
        case .terminate: removeExpiredData(kind: .caller, observer: &observer)
        case .memoryWarning: break
        }
    }

    /// Keeps the time across a new, empty model (see ``EvictionPolicy/continueClock(of:)``).
    @inlinable
    public mutating func continueClock(of previous: Self) { now = previous.now }

    @inlinable
    public mutating func advance(to time: Double, observer: inout some EvictionObserver<Key, Value>) {
        if time > now { now = time }
    }

    /// `removeExpiredData`: the expiry phase, then the size phase, as one pass of `kind`.
    @inlinable
    public mutating func removeExpiredData(kind: TrimKind, observer: inout some EvictionObserver<Key, Value>) {
        var pass = TrimPass(kind)
        if maxDiskAge >= 0 {
            // `[[date laterDate:expirationDate] isEqualToDate:expirationDate]`: at or before.
            let expirationDate = now - maxDiskAge, dates = self.dates
            store.evictOldestFirst(from: &files, pass: &pass, observer: &observer) { dates[$0] <= expirationDate }
        }
        if maxDiskSize > 0 && files.cost > maxDiskSize {
            // Oldest first until strictly below half of maxDiskSize.
            pass.willRemove(&observer)
            let stamps = self.stamps
            ranked.sort(files, in: store) { (stamps[$0], 0) }
            ranked.evict(from: &files, in: &store, downTo: maxDiskSize / 2 - 1, observer: &observer)
        }
        pass.end(&observer)
    }

    /// `NSURLTotalFileAllocatedSizeKey`: the size rounded up to whole blocks.
    @inlinable
    public func chargedCost(_ size: Int) -> Int {
        let size = max(size, 0)
        guard blockSize > 1 else { return size }
        let blocks = size / blockSize + (size % blockSize == 0 ? 0 : 1)
        return blocks.multipliedReportingOverflow(by: blockSize).overflow ? Int.max : blocks * blockSize
    }

    @inlinable @inline(__always)
    mutating func stampDate(_ slot: Int32) {
        dates[slot] = now
        stamps.stamp(slot)
    }
}

extension SDDiskCache: SlotRelocatingPolicy {
    /// Renumbers the list's ends, the dates and the stamps after a compaction (the ranked copy
    /// is rebuilt by each purge).
    @inlinable public mutating func relocateSlots(_ relocation: SlotRelocation) {
        relocation.relocate(&files)
        dates.relocate(relocation)
        stamps.relocate(relocation)
    }
}

extension SDDiskCache {
    /// A file's date, which the clean-up's age limit reads: changing the limits does not touch
    /// the files.
    @inlinable
    public func entryTime(forKey key: Key) -> Double? { dates.element(forKey: key, in: store) }

    @inlinable
    public mutating func restoreEntryTime(_ time: Double, forKey key: Key) { dates.setElement(time, forKey: key, in: store) }
}
