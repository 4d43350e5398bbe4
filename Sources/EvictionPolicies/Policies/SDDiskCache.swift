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

/// SDWebImage 5.21.5's disk cache: on entering the background and on termination, delete files
/// older than maxDiskAge, then, over maxDiskSize, the oldest files until below half of it.
///
/// - Complexity: lookup, insert and remove are O(1) expected; a clean-up is O(n log n).
public struct SDDiskCache<Key: Hashable, Value>: EvictionPolicy {
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
                PolicyParameter("block-size", default: "1", "allocated sizes are sizes rounded up to this (4096: APFS blocks)"),
            ])
    }

    @usableFromInline var store = SlotArena<Key, Value>()
    /// Every file, newest write at the head: enumeration order for the clean-up.
    @usableFromInline var files = SlotList()
    /// Per slot: the chosen date, and the order in which it was set (for ties).
    @usableFromInline var dates: ContiguousArray<Double> = []
    @usableFromInline var stamps: ContiguousArray<UInt64> = []
    @usableFromInline var clock: UInt64 = 0
    @usableFromInline var scratch: ContiguousArray<_Dated> = []
    @usableFromInline var expired: ContiguousArray<Int32> = []
    /// `maxDiskSize` (0: unlimited).
    public let maxDiskSize: Int
    /// `maxDiskAge` in seconds (negative: never).
    public let maxDiskAge: Double
    /// `diskCacheExpireType`.
    public let expireType: ExpireType
    /// The allocation unit sizes are rounded up to.
    public let blockSize: Int
    @usableFromInline var now: Double = 0

    /// A surviving file's date, gathered for the size phase's sort.
    @usableFromInline
    struct _Dated {
        @usableFromInline var date: Double
        @usableFromInline var stamp: UInt64
        @usableFromInline var slot: Int32
        @inlinable init(date: Double, stamp: UInt64, slot: Int32) {
            self.date = date
            self.stamp = stamp
            self.slot = slot
        }
    }

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

    @inlinable public var count: Int { files.count }
    /// The allocated size of every file.
    @inlinable public var totalCost: Int { files.cost }

    @inlinable @inline(__always)
    public func prefetch(_ key: Key, _ stage: PrefetchStage) { store.prefetch(key, stage) }

    @inlinable
    public func contains(_ key: Key) -> Bool { store.find(key) >= 0 }

    /// `dataForKey:`: a read sets the access date.
    @inlinable
    public mutating func lookup(_ key: Key, observer: inout some EvictionObserver<Key, Value>) -> Value? {
        let slot = store.find(key)
        guard slot >= 0 else { return nil }
        if expireType == .access { stampDate(slot) }
        return store.values[Int(slot)]
    }

    /// `setData:forKey:`: an atomic write, so both dates become now. Nothing is evicted.
    @inlinable
    public mutating func insert(_ value: Value, forKey key: Key, cost: Int,
                                observer: inout some EvictionObserver<Key, Value>) {
        let allocated = allocatedSize(cost)
        var slot = store.find(key)
        if slot >= 0 {
            store.values[Int(slot)] = value
            store.setCost(slot, allocated, in: &files)
        } else {
            slot = store.allocate(key: key, value: value, cost: allocated)
            store.pushHead(slot, &files)
            while dates.count <= Int(slot) {
                dates.append(0)
                stamps.append(0)
            }
        }
        stampDate(slot)
    }

    /// `removeDataForKey:`: not an eviction.
    @inlinable
    @discardableResult
    public mutating func remove(_ key: Key, observer: inout some EvictionObserver<Key, Value>) -> Value? {
        return store.remove(key, from: &files)
    }

    /// Background: `deleteOldFiles` on ioQueue (deferred). Terminate: `dispatch_sync` (caller).
    @inlinable
    public mutating func handle(_ event: CacheEvent, observer: inout some EvictionObserver<Key, Value>) {
        switch event {
        case .background: removeExpiredData(kind: .deferred, observer: &observer)
        case .terminate: removeExpiredData(kind: .caller, observer: &observer)
        case .memoryWarning: break
        }
    }

    @inlinable
    public mutating func advance(to time: Double, observer: inout some EvictionObserver<Key, Value>) {
        if time > now { now = time }
    }

    /// `removeExpiredData`: the expiry phase, then the size phase, as one pass.
    @inlinable
    public mutating func removeExpiredData(kind: TrimKind, observer: inout some EvictionObserver<Key, Value>) {
        // Pass 1: enumerate every file, oldest write first.
        expired.removeAll(keepingCapacity: true)
        scratch.removeAll(keepingCapacity: true)
        let expirationDate: Double? = maxDiskAge < 0 ? nil : now - maxDiskAge
        var currentCacheSize = 0
        var slot = files.tail
        while slot >= 0 {
            let date = dates[Int(slot)]
            if let expirationDate, date <= expirationDate {
                expired.append(slot)
            } else {
                currentCacheSize += store.cost(slot)
                scratch.append(_Dated(date: date, stamp: stamps[Int(slot)], slot: slot))
            }
            slot = store.prev(slot)
        }
        let overSize = maxDiskSize > 0 && currentCacheSize > maxDiskSize
        guard !expired.isEmpty || overSize else { return }
        observer.trimWillBegin(kind)
        for victim in expired { store.evict(victim, from: &files, observer: &observer) }
        if overSize {
            // Pass 2: oldest first until strictly below half of maxDiskSize.
            let desiredCacheSize = maxDiskSize / 2
            scratch.sort { ($0.date, $0.stamp) < ($1.date, $1.stamp) }
            for file in scratch {
                currentCacheSize -= store.cost(file.slot)
                store.evict(file.slot, from: &files, observer: &observer)
                if currentCacheSize < desiredCacheSize { break }
            }
        }
        observer.trimDidEnd(kind)
    }

    /// `NSURLTotalFileAllocatedSizeKey`: the size rounded up to whole blocks.
    @inlinable
    func allocatedSize(_ size: Int) -> Int {
        let size = max(size, 0)
        guard blockSize > 1 else { return size }
        let blocks = size / blockSize + (size % blockSize == 0 ? 0 : 1)
        return blocks.multipliedReportingOverflow(by: blockSize).overflow ? Int.max : blocks * blockSize
    }

    @inlinable @inline(__always)
    mutating func stampDate(_ slot: Int32) {
        clock &+= 1
        dates[Int(slot)] = now
        stamps[Int(slot)] = clock
    }
}
