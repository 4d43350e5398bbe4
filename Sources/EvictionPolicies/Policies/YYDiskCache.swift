// yy-disk: YYCache's YYDiskCache over YYKVStorage.
// Source: ibireme/YYCache @ 0aac6e84f10b (1.0.4), YYCache/YYDiskCache.m (timer 86–108, trims
// 110–144, setObject 257–286, init 174–210) and YYCache/YYKVStorage.m (_dbSaveWithKey 223–247,
// _dbUpdateAccessTimeWithKey 249–261, removeItemsEarlierThanTime 833–857, removeItemsToFitSize
// 859–887, removeItemsToFitCount 889–917, saveItemWithKey 745–769).
// Spec: ``<doc:YYCache>``; test vector YD1.
//
// Rule: a SQLite manifest with an index on last_access_time, which is whole seconds
// (`time(NULL)`). A save (`insert or replace`) gives the row a NEW rowid and sets both times to
// now; a get sets last_access_time = now and keeps the rowid. NOTHING IS EVICTED ON WRITE: only
// a timer, every 60 s from the cache's init, which queues one locked pass of
//   1. `_trimToCost(costLimit)`: skipped when costLimit >= INT_MAX (2^31 − 1 bytes: a larger
//      cost limit is never enforced); then total = `select sum(size)` read with
//      sqlite3_column_int (the LOWER 32 BITS: a total above 2 GiB wraps); return if total < 0
//      or total <= limit; else repeatedly `select … order by last_access_time asc limit 16` and
//      delete while total > limit (`total -= size`, C int arithmetic); a limit <= 0 removes all;
//   2. `_trimToCount(countLimit)`: the same with `count(*)` and `total--`;
//   3. `_trimToAge(ageLimit)`: ageLimit <= 0 removes all; otherwise, unless time(NULL) <= ageLimit,
//      `delete … where last_access_time < (long)(time(NULL) − ageLimit)` (a cutoff <= 0 deletes
//      nothing): disk age is idle time since the last access;
//   4. `_trimToFreeDiskSpace(limit)`: when limit > 0 and the device's free space is below it,
//      `_trimToCost(total − (limit − free))`.
// The order of deletion is (last_access_time, rowid) ascending, ties by rowid (YD1: k1…k5 saved
// in one second, countLimit 3: the tick deletes k1, k2; if k1 was read a second later, k2, k3).
// Batches of 16 change the I/O, not the choice. A value larger than `inlineThreshold` (20 KB,
// strictly: 20480 bytes stays inline) is written to a file, the rest is an inline SQLite blob;
// threshold 0 makes every value a file, `none` keeps all inline. An empty value is not saved.
//
// Modelling choices. Time is trace time; time(NULL) is its floor; the init is the first
// advance, so ticks fall at t0 + 60k (idle ticks are skipped in O(log)). Each tick's work is one
// deferred pass (dispatch_async on the cache's queue). The size column holds the value's length
// as a C int, and the trims do their arithmetic in 32 bits, as YY does; count and totalCost are
// the true figures. Free space is modelled as `disk-free-space` (the device's free bytes with an
// empty cache) minus the cache's bytes. Termination (`_appWillBeTerminated` closes the database,
// which the next launch reopens), memory warnings and the background do nothing. The
// `policyMetrics` are the resident inline and file entries and the writes of each kind, since
// the two placements cost differently to read and write.

/// YYCache 1.0.4's `YYDiskCache`: no eviction on write; every 60 s, trims to the cost, count,
/// age and free-space limits in (last access second, rowid) order.
///
/// **Rule.** A save of a non-empty value gives the row a new rowid and sets its last access to
/// now, in whole seconds; a get sets the last access. Nothing is evicted on write. A timer, every
/// `auto-trim-interval` seconds from the cache's init, runs one deferred pass that deletes rows
/// in (last access, rowid) order while the size sum (32-bit, as YY reads it) is above the cost
/// limit (skipped from 2^31−1), then while the count is above the count limit, then every row
/// idle longer than the age limit, then to keep `free-disk-space-limit` free. Values above the
/// inline threshold are files, the rest inline blobs.
///
/// - Complexity: lookup, insert and remove are O(1) expected; a timer pass is O(k log b) for k
///   deletions from buckets of b entries sharing a last-access second.
public struct YYDiskCache<Key: Hashable, Value>: LibraryModelPolicy, _TimerDriven {
    /// YYDiskCache's default inline threshold: 20 KB.
    public static var defaultInlineThreshold: Int { 20 * 1024 }

    public static var descriptor: PolicyDescriptor {
        PolicyDescriptor(
            name: "yy-disk",
            reproduces: "YYCache 1.0.4 YYDiskCache / YYKVStorage",
            rule: "nothing on write; a 60 s timer trims to the cost limit (ignored at 2^31-1 bytes or more; 32-bit totals), the count limit, the age limit (idle seconds) and the free-space limit, deleting by (last access second, rowid)",
            family: .library, supportsCountLimit: true, defaultCapacity: .workingSetFraction,
            parameters: [
                PolicyParameter("auto-trim-interval", default: "60", "seconds of trace time between timer trims"),
                PolicyParameter("age-limit", default: "none", "seconds; the timer deletes entries not accessed for longer (none: no limit)"),
                PolicyParameter("inline-threshold", default: "20480",
                                "bytes; larger values are files, the rest inline blobs (0: all files; none: all inline; with sizes ignored every value is 1 byte)",
                                actsOnSizes: true),
                PolicyParameter("free-disk-space-limit", default: "0", "bytes of free space the timer keeps on the device (0: off)",
                                scalesWithCapacity: true),
                PolicyParameter("disk-free-space", default: "none",
                                "the device's free bytes with an empty cache (needed by free-disk-space-limit)",
                                scalesWithCapacity: true),
            ],
            // `_trimToCost` and `_trimToCount` return at once for a limit of INT_MAX or more.
            fixedCostLimitBounds: [Int(Int32.max)], fixedCountLimitBounds: [Int(Int32.max)])
    }

    public var store = SlotArena<Key, Value>()
    /// Every row, most recently saved or read at the head, so last_access_time never decreases
    /// from tail to head; rows of one second are ordered by rowid only when a trim sorts them.
    /// A slot's `aux` is 1 for a file, 0 for an inline blob.
    @usableFromInline var rows = SlotList()
    @usableFromInline var accessTimes = SideTable<Int>(filling: 0)
    @usableFromInline var rowids = SideTable<UInt64>(filling: 0)
    @usableFromInline var nextRowid: UInt64 = 1
    /// `sum(size)` over the size column (each a C int), before sqlite3_column_int truncates it.
    @usableFromInline var sizeColumnSum = 0
    /// The rows of the oldest second not yet deleted by the current pass, sorted by rowid.
    @usableFromInline var bucket: ContiguousArray<Int32> = []
    @usableFromInline var bucketCursor = 0
    /// `costLimit` (`Int.max` for NSUIntegerMax).
    public let costLimit: Int
    /// ``costLimit``, for the flow.
    @inlinable public var capacity: Int { costLimit }
    /// `countLimit` (`Int.max` for NSUIntegerMax).
    public let countLimit: Int
    /// `ageLimit` in seconds (+infinity for DBL_MAX).
    public let ageLimit: Double
    /// `inlineThreshold` (`Int.max`: SQLite only).
    public let inlineThreshold: Int
    /// `freeDiskSpaceLimit` (0: off).
    public let freeDiskSpaceLimit: Int
    @usableFromInline let diskFreeSpace: Int
    @usableFromInline var timer: _Ticker
    @usableFromInline var now: Double = 0
    @usableFromInline var fileEntries = 0
    @usableFromInline var inlineWrites = 0
    @usableFromInline var fileWrites = 0

    public init(limits: CacheLimits, options: PolicyOptions) throws(PolicyConfigurationError) {
        (costLimit, countLimit) = try limits.validated(for: Self.descriptor, options: options)
        ageLimit = options.string("age-limit", default: "none") == "none" ? .infinity
            : try options.double("age-limit", default: .infinity, in: 0...1e15)
        timer = _Ticker(period: try options.double("auto-trim-interval", default: 60, in: 0.001...1e12))
        inlineThreshold = options.string("inline-threshold", default: "") == "none" ? .max
            : try options.integer("inline-threshold", default: Self.defaultInlineThreshold, in: 0...Int.max)
        freeDiskSpaceLimit = try options.bytes("free-disk-space-limit", default: 0)
        if options.string("disk-free-space", default: "none") == "none" {
            guard freeDiskSpaceLimit == 0 else {
                throw PolicyConfigurationError.missingOption("disk-free-space", neededBy: "free-disk-space-limit")
            }
            diskFreeSpace = 0
        } else {
            diskFreeSpace = try options.bytes("disk-free-space", default: 0)
        }
    }

    @inlinable public var count: Int { rows.count }
    /// The sum of the values' lengths.
    @inlinable public var totalCost: Int { rows.cost }

    @inlinable @inline(__always)
    public func prefetch(_ key: Key, _ stage: PrefetchStage) { store.prefetch(key, stage) }

    // The rule. `containsObjectForKey:` touches nothing.

    /// `objectForKey:` → `getItemForKey:`: last_access_time = time(NULL).
    @inlinable public mutating func didHit(_ slot: Int32) {
        accessTimes[slot] = timestamp
        store.moveToHead(slot, &rows)
    }
    /// `setObject:forKey:` → `saveItemWithKey:`: `value.length == 0` is not saved.
    @inlinable public mutating func admits(_ key: Key, cost: Int) -> Bool { cost > 0 }
    @inlinable public mutating func didInsert(_ slot: Int32) {
        store.pushHead(slot, &rows)
        save(slot)
    }
    /// `insert or replace`: the old row's share of the totals goes, a new row comes.
    @inlinable public mutating func didReplace(_ slot: Int32, formerCost: Int) {
        if store.aux(slot) != 0 { fileEntries -= 1 }
        sizeColumnSum -= sizeColumn(formerCost)
        store.moveToHead(slot, &rows)
        save(slot)
    }
    /// The next row in (last_access_time, rowid) order.
    @inlinable public mutating func victim() -> Int32 {
        forgetGatheredRows()
        return nextVictim()
    }
    @inlinable public mutating func unlink(_ slot: Int32) {
        forget(slot)
        store.unlink(slot, &rows)
    }
    @inlinable public mutating func setCost(_ slot: Int32, _ cost: Int) { store.setCost(slot, cost, in: &rows) }
    /// Nothing is evicted on write.
    @inlinable public mutating func trimAfterSet(observer: inout some EvictionObserver<Key, Value>) {}

    /// The row's file flag, counters, size column, last access and new rowid.
    @inlinable
    mutating func save(_ slot: Int32) {
        let cost = store.cost(slot)
        let isFile = cost > inlineThreshold
        store.setAux(slot, isFile ? 1 : 0)
        if isFile {
            fileEntries += 1
            fileWrites += 1
        } else {
            inlineWrites += 1
        }
        sizeColumnSum += sizeColumn(cost)
        accessTimes[slot] = timestamp
        rowids[slot] = nextRowid
        nextRowid &+= 1
    }

    /// Keeps the timer's beat and the time across a new, empty model (see
    /// ``EvictionPolicy/continueClock(of:)``).
    @inlinable
    public mutating func continueClock(of previous: Self) { continueTimer(of: previous) }

    /// Moves trace time forward, running each due timer pass at its own time.
    @inlinable
    public mutating func advance(to time: Double, observer: inout some EvictionObserver<Key, Value>) {
        advanceTimer(to: time, observer: &observer)
    }

    public var extraMetrics: [PolicyMetric] {
        [PolicyMetric("inlineEntries", rows.count - fileEntries), PolicyMetric("fileEntries", fileEntries),
         PolicyMetric("inlineWrites", inlineWrites), PolicyMetric("fileWrites", fileWrites)]
    }

    // MARK: The timer's pass

    /// `time(NULL)`.
    @inlinable
    var timestamp: Int { Self.wholeSeconds(now) }

    /// `time` in whole seconds, rounded down and held within `Int` (an app's clock may read
    /// anything, NaN included, which counts as 0).
    @inlinable
    static func wholeSeconds(_ time: Double) -> Int {
        let floor = time.rounded(.down)
        if floor.isNaN { return 0 }
        return floor >= 9e18 ? Int.max : floor <= -9e18 ? Int.min : Int(floor)
    }

    /// The size column's value for a length: `(int)value.length`.
    @inlinable
    func sizeColumn(_ length: Int) -> Int { Int(Int32(truncatingIfNeeded: length)) }

    /// `_trimInBackground`: cost, count, age and free space, under one lock, as one deferred pass.
    @inlinable
    mutating func timerDidFire(observer: inout some EvictionObserver<Key, Value>) {
        var pass = TrimPass(.deferred)
        forgetGatheredRows()
        trimToCost(costLimit, &pass, observer: &observer)
        trimToCount(&pass, observer: &observer)
        trimToAge(&pass, observer: &observer)
        trimToFreeDiskSpace(&pass, observer: &observer)
        pass.end(&observer)
    }

    /// `_trimToCost:` and `removeItemsToFitSize:`, in C int arithmetic.
    @inlinable
    mutating func trimToCost(_ limit: Int, _ pass: inout TrimPass, observer: inout some EvictionObserver<Key, Value>) {
        guard limit < Int(Int32.max) else { return }
        let maxSize = Int32(truncatingIfNeeded: limit)
        if maxSize <= 0 { removeAll(&pass, observer: &observer); return }
        var total = Int32(truncatingIfNeeded: sizeColumnSum)
        guard total >= 0, total > maxSize else { return }
        while total > maxSize {
            let victim = nextVictim()
            guard victim >= 0 else { return }
            total = total &- Int32(truncatingIfNeeded: store.cost(victim))
            delete(victim, &pass, observer: &observer)
        }
    }

    /// `_trimToCount:` and `removeItemsToFitCount:`.
    @inlinable
    mutating func trimToCount(_ pass: inout TrimPass, observer: inout some EvictionObserver<Key, Value>) {
        guard countLimit < Int(Int32.max) else { return }
        if countLimit <= 0 { removeAll(&pass, observer: &observer); return }
        while rows.count > countLimit {
            let victim = nextVictim()
            guard victim >= 0 else { return }
            delete(victim, &pass, observer: &observer)
        }
    }

    /// `_trimToAge:` and `removeItemsEarlierThanTime:`.
    @inlinable
    mutating func trimToAge(_ pass: inout TrimPass, observer: inout some EvictionObserver<Key, Value>) {
        if ageLimit <= 0 { removeAll(&pass, observer: &observer); return }
        guard let cutoff = ageCutoff(at: timestamp) else { return }
        while true {
            let victim = nextVictim(consume: false)
            guard victim >= 0, accessTimes[victim] < cutoff else { return }
            _ = nextVictim()
            delete(victim, &pass, observer: &observer)
        }
    }

    /// The last_access_time below which `_trimToAge:` deletes at `timestamp`, or `nil` when it
    /// deletes nothing.
    @inlinable
    func ageCutoff(at timestamp: Int) -> Int? {
        guard ageLimit.isFinite, Double(timestamp) > ageLimit else { return nil }
        let age = (Double(timestamp) - ageLimit).rounded(.towardZero)      // `long age = timestamp - ageLimit`
        guard age < Double(Int32.max), age > 0 else { return nil }
        return Int(age)
    }

    /// `_trimToFreeDiskSpace:`.
    @inlinable
    mutating func trimToFreeDiskSpace(_ pass: inout TrimPass, observer: inout some EvictionObserver<Key, Value>) {
        guard let target = freeSpaceCostLimit() else { return }
        trimToCost(target, &pass, observer: &observer)
    }

    /// The cost limit `_trimToFreeDiskSpace:` trims to, or `nil` when it does nothing.
    @inlinable
    func freeSpaceCostLimit() -> Int? {
        guard freeDiskSpaceLimit > 0 else { return nil }
        let totalBytes = Int(Int32(truncatingIfNeeded: sizeColumnSum))      // getItemsSize: an int
        guard totalBytes > 0 else { return nil }
        let free = max(0, diskFreeSpace - rows.cost)
        let needTrimBytes = freeDiskSpaceLimit - free
        guard needTrimBytes > 0 else { return nil }
        return Int(Int32(truncatingIfNeeded: max(0, totalBytes - needTrimBytes)))
    }

    /// Whether a pass at `time`, with nothing happening before it, would delete anything.
    @inlinable
    func timerWouldEvict(at time: Double) -> Bool {
        guard !rows.isEmpty else { return false }
        let total = Int32(truncatingIfNeeded: sizeColumnSum)
        func overCost(_ limit: Int) -> Bool {
            guard limit < Int(Int32.max) else { return false }
            return limit <= 0 || (total >= 0 && Int(total) > limit)
        }
        if overCost(costLimit) { return true }
        if countLimit < Int(Int32.max) && (countLimit <= 0 || rows.count > countLimit) { return true }
        if ageLimit <= 0 { return true }
        if let cutoff = ageCutoff(at: Self.wholeSeconds(time)), oldestAccessTime < cutoff { return true }
        if let target = freeSpaceCostLimit(), overCost(target) { return true }
        return false
    }

    /// The smallest last_access_time: the tail's, since the list is in access order.
    @inlinable
    var oldestAccessTime: Int { rows.isEmpty ? .max : accessTimes[rows.tail] }

    /// Empties the gathered bucket of oldest rows; the next victim gathers again. O(1).
    @inlinable
    mutating func forgetGatheredRows() {
        bucket.removeAll(keepingCapacity: true)
        bucketCursor = 0
    }

    /// The next row in (last_access_time, rowid) order, or -1 when none is left. With
    /// `consume: false`, the row stays next.
    @inlinable
    mutating func nextVictim(consume: Bool = true) -> Int32 {
        if bucketCursor >= bucket.count {
            // Gather the tail rows sharing the oldest second and sort them by rowid.
            forgetGatheredRows()
            guard !rows.isEmpty else { return -1 }
            let second = accessTimes[rows.tail]
            var slot = rows.tail
            while slot >= 0 && accessTimes[slot] == second {
                bucket.append(slot)
                slot = store.prev(slot)
            }
            let ids = rowids
            bucket.sort { ids[$0] < ids[$1] }
        }
        let victim = bucket[bucketCursor]
        if consume { bucketCursor += 1 }
        return victim
    }

    @inlinable
    mutating func delete(_ slot: Int32, _ pass: inout TrimPass, observer: inout some EvictionObserver<Key, Value>) {
        pass.willRemove(&observer)
        evict(slot, observer: &observer)
    }

    /// `removeAllItems`: the database is deleted and recreated.
    @inlinable
    mutating func removeAll(_ pass: inout TrimPass, observer: inout some EvictionObserver<Key, Value>) {
        while !rows.isEmpty { delete(rows.tail, &pass, observer: &observer) }
        forgetGatheredRows()
    }

    /// Drops a row's share of the totals before it goes.
    @inlinable
    mutating func forget(_ slot: Int32) {
        if store.aux(slot) != 0 { fileEntries -= 1 }
        sizeColumnSum -= sizeColumn(store.cost(slot))
    }
}

extension YYDiskCache: SlotRelocatingPolicy {
    /// Renumbers the list's ends, the access times and the row ids after a compaction. The
    /// gathered bucket of oldest rows is dropped: the next victim gathers again the rows it had
    /// not deleted yet, in the same order (the consumed ones are gone from the list).
    @inlinable public mutating func relocateSlots(_ relocation: SlotRelocation) {
        relocation.relocate(&rows)
        accessTimes.relocate(relocation)
        rowids.relocate(relocation)
        forgetGatheredRows()
    }
}

extension YYDiskCache {
    /// A row's `last_access_time`, which the age limit and the LRU order read: YYDiskCache's
    /// limits are properties its trim reads, and changing them rewrites no row.
    @inlinable
    public func entryTime(forKey key: Key) -> Double? {
        let slot = store.find(key)
        return slot >= 0 ? Double(accessTimes[slot]) : nil
    }

    @inlinable
    public mutating func restoreEntryTime(_ time: Double, forKey key: Key) {
        let slot = store.find(key)
        if slot >= 0, let seconds = Int(exactly: time) { accessTimes[slot] = seconds }
    }
}
