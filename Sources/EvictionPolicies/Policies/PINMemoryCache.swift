// pin-memory: PINCache's PINMemoryCache.
// Source: pinterest/PINCache @ 2fb85948463 (3.0.4), Source/PINMemoryCache.m (set 552–598, get
// 495–521, trimToCostLimitByEvictionStrategy 275–326, trimToCostLimit 245–273, trimMemoryToDate
// 205–221, trimToAgeLimitRecursively 328–358, notifications 141–171).
// Spec: ``<doc:PINCache>``; test vectors P1 and P2.
//
// Rule: dictionaries of created dates, access dates, costs and access counts; no count limit.
//   - set: createdDate = accessDate = now, accessCount += 1 (a set counts as a use, and a re-set
//     keeps the count), cost replaced. Then, if costLimit > 0, synchronously on the caller's
//     thread: if totalCost > costLimit, copy the access dates (and counts), sort every key (LRU:
//     by access date, oldest first; LFU: by access count, ties by access date) and remove in
//     that order until totalCost <= costLimit (P1). The target is the limit itself.
//   - get: on a hit, accessDate = now and accessCount += 1. With `ttl-cache`, an entry whose
//     age since its set is not below the age limit (`|created − now| < ageLimit` fails) is a
//     miss, but is neither removed nor touched; `containsObjectForKey:` ignores the TTL.
//   - age limit (> 0): a timer started with the cache runs `trimMemoryToDate(now − ageLimit)` at
//     once and then every ageLimit seconds, removing entries whose CREATED date (the last set,
//     not the last access) is strictly earlier.
//   - memory warning: `removeAllObjectsAsync` when `removeAllObjectsOnMemoryWarning` (default),
//     otherwise `removeExpiredObjects`; entering the background: `removeAllObjectsAsync` when
//     `removeAllObjectsOnEnteringBackground` (default).
//   - the explicit `trimToCost:` (``trimToCost(_:observer:)``) removes the COSTLIEST entries
//     first (keys sorted by cost, enumerated in reverse) until totalCost <= the target (P2).
//
// Modelling choices. Dates are trace time for ages; the access order is a logical clock with
// unique, increasing stamps, which is what NSDate's sub-microsecond dates give a real app, so
// the sort never meets a tie (several trace rows may share one timestamp). For the explicit
// trimToCost, equal costs go newest access first (NSDictionary's order for ties is unspecified).
// The sort of every resident entry on every over-limit set is done for real, as PIN does: it is
// what this policy's trim latency is made of (O(n log n) per set under pressure). The async
// purges run on PIN's operation queue: they are deferred passes, run at the event (the default
// drain point, before the next trace row); the age timer's passes are deferred too. Per-object
// age limits are an API this replay never uses, so `removeExpiredObjects`, which only visits
// keys that have one, does nothing here. The `ttlMisses` metric counts gets refused by the TTL.

/// PINCache 3.0.4's `PINMemoryCache`: on every set over the cost limit, a full sort by access
/// date (or access count) and removal of the oldest until within the limit; an age timer by
/// creation date; everything purged on a memory warning and on entering the background.
///
/// **Rule.** Each entry has a created date, an access date and an access count. A set sets both
/// dates to now, counts as a use and replaces the cost; then, with a cost limit, if the total cost
/// is above it, every entry is sorted (LRU: by access date; LFU: by access count, ties by access
/// date) and removed in that order until the total is within the limit (one caller pass). A get
/// of a resident entry sets its access date and counts a use, unless `ttl-cache` refuses an entry
/// at least `age-limit` old (a miss; it stays). With an age limit, a timer from the cache's init
/// (at once, then every age-limit seconds) removes entries created more than age-limit ago. A
/// memory warning and entering the background remove everything (deferred passes). The explicit
/// ``trimToCost(_:observer:)`` removes the costliest entries first. No count limit.
///
/// - Complexity: lookup and remove are O(1) expected; a set within the limit is O(1), over the
///   limit O(n log n) for the sort of the n resident entries.
public struct PINMemoryCache<Key: Hashable, Value>: LibraryModelPolicy, _TimerDriven {
    /// `evictionStrategy`.
    public enum EvictionStrategy: String, Sendable {
        /// `PINCacheEvictionStrategyLeastRecentlyUsed` (the default): oldest access date first.
        case lru
        /// `PINCacheEvictionStrategyLeastFrequentlyUsed`: fewest accesses first, ties by access date.
        case lfu
    }

    public static var descriptor: PolicyDescriptor {
        PolicyDescriptor(
            name: "pin-memory",
            reproduces: "PINCache 3.0.4 PINMemoryCache",
            rule: "on each set over the cost limit, sort all entries by access date (or count) and remove the oldest until within the limit (sync); age timer by creation date; memory warning and background remove all (async)",
            family: .library, supportsCountLimit: false, defaultCapacity: .workingSetFraction,
            parameters: [
                PolicyParameter("eviction-strategy", default: "lru", "lru (access date) or lfu (access count, ties by access date)"),
                PolicyParameter("age-limit", default: "0", "seconds; a timer with this period removes entries set longer ago (0: off)"),
                PolicyParameter("ttl-cache", default: "false", "gets refuse entries at least age-limit old (they stay resident)"),
                PolicyParameter("remove-all-on-memory-warning", default: "true", "a memory warning removes every entry"),
                PolicyParameter("remove-all-on-background", default: "true", "entering the background removes every entry"),
            ],
            slowByDesign: "sorts every resident on each set over the cost limit, as PINCache does: O(n log n) per such set")
    }

    public var store = SlotArena<Key, Value>()
    /// Every resident entry, newest set at the head: PIN keeps dictionaries, not a list; the
    /// list only lets a trim enumerate them.
    @usableFromInline var entries = SlotList()
    /// Per slot: the access stamp (logical accessDate), the access count and the created date.
    @usableFromInline var accessStamps = _StampClock()
    @usableFromInline var accessCounts = SideTable<UInt64>(filling: 0)
    @usableFromInline var createdDates = SideTable<Double>(filling: 0)
    @usableFromInline var ranked = _RankedSlots()
    /// `costLimit` (0: off).
    public internal(set) var costLimit: Int
    /// `ageLimit` in seconds (0: off).
    public let ageLimit: Double
    /// `ttlCache`.
    public let isTTLCache: Bool
    /// `evictionStrategy`.
    public let evictionStrategy: EvictionStrategy
    @usableFromInline let removeAllOnMemoryWarning: Bool
    @usableFromInline let removeAllOnBackground: Bool
    @usableFromInline var now: Double = 0
    /// The age timer, `ageLimit` apart.
    @usableFromInline var timer: _Ticker
    /// The earliest created date among the entries the last age pass kept.
    @usableFromInline var oldestKept: Double = .infinity
    @usableFromInline var ttlMisses = 0

    public init(limits: CacheLimits, options: PolicyOptions) throws(PolicyConfigurationError) {
        try options.validate(against: Self.descriptor)
        try limits.validate(for: Self.descriptor)
        costLimit = limits.capacity ?? 0
        let strategy = options.string("eviction-strategy", default: "lru")
        guard let parsed = EvictionStrategy(rawValue: strategy) else {
            throw PolicyConfigurationError.invalidOption("eviction-strategy", value: strategy, expected: "lru or lfu")
        }
        evictionStrategy = parsed
        ageLimit = try options.double("age-limit", default: 0, in: 0...1e15)
        // PINCache schedules its timer in whole nanoseconds (dispatch_time): a shorter period
        // rounds to 0 and would re-fire without end, so it is not a limit the library can run.
        if ageLimit > 0 && ageLimit < 1e-9 {
            throw PolicyConfigurationError.invalidOption("age-limit", value: "\(ageLimit)", expected: "0 (off) or at least 1e-9 seconds (PINCache's timer counts whole nanoseconds)")
        }
        isTTLCache = try options.bool("ttl-cache", default: false)
        removeAllOnMemoryWarning = try options.bool("remove-all-on-memory-warning", default: true)
        removeAllOnBackground = try options.bool("remove-all-on-background", default: true)
        timer = _Ticker(period: ageLimit > 0 ? ageLimit : 1)
    }

    /// ``costLimit``, `Int.max` when off.
    @inlinable public var capacity: Int { costLimit > 0 ? costLimit : .max }
    @inlinable public var count: Int { entries.count }
    @inlinable public var totalCost: Int { entries.cost }

    @inlinable @inline(__always)
    public func prefetch(_ key: Key, _ stage: PrefetchStage) { store.prefetch(key, stage) }

    /// `objectForKey:` on a hit: accessDate = now, accessCount += 1.
    @inlinable public mutating func didHit(_ slot: Int32) {
        accessStamps.stamp(slot)
        if accessCounts[slot] < UInt64(Int.max) { accessCounts[slot] += 1 }
    }
    /// `setObject:forKey:withCost:` of a new key: a first use, created now.
    @inlinable public mutating func didInsert(_ slot: Int32) {
        store.pushHead(slot, &entries)
        accessCounts[slot] = 0
        didReplace(slot, formerCost: 0)
    }
    /// A re-set: created now, and one more use (the count is kept).
    @inlinable public mutating func didReplace(_ slot: Int32, formerCost: Int) {
        createdDates[slot] = now
        didHit(slot)
    }
    /// With `ttl-cache`, a get refuses an entry at least `ageLimit` old (it stays resident).
    @inlinable
    public mutating func refusesHit(_ slot: Int32, observer: inout some EvictionObserver<Key, Value>) -> Bool {
        guard isTTLCache && ageLimit > 0 && !(abs(createdDates[slot] - now) < ageLimit) else { return false }
        ttlMisses += 1
        return true
    }
    /// The entry the strategy ranks first, which a trim removes first. O(n).
    @inlinable public mutating func victim() -> Int32 {
        let rank = strategyRank
        return store.lowestRanked(in: entries, by: rank)
    }
    @inlinable public mutating func unlink(_ slot: Int32) { store.unlink(slot, &entries) }
    @inlinable public mutating func setCost(_ slot: Int32, _ cost: Int) { store.setCost(slot, cost, in: &entries) }

    /// `trimToCostLimitByEvictionStrategy:`, run by every set with a cost limit: one caller pass
    /// that includes the copy and the sort when the cache is over the limit.
    @inlinable
    public mutating func trimAfterSet(observer: inout some EvictionObserver<Key, Value>) {
        guard costLimit > 0, entries.cost > costLimit else { return }
        observer.trimWillBegin(.caller)
        ranked.sort(entries, in: store, by: strategyRank)
        ranked.evict(from: &entries, in: &store, downTo: costLimit, observer: &observer)
        observer.trimDidEnd(.caller)
    }

    /// `setCostLimit:`, which then trims by the strategy as a set does (the cache's trim after
    /// this): the new limit, each entry's access date, count and created date kept.
    public mutating func adoptLimits(of other: Self) -> Bool {
        costLimit = other.costLimit
        return true
    }

    /// The notification handlers: `removeAllObjectsAsync`, a deferred pass.
    @inlinable
    public mutating func handle(_ event: CacheEvent, observer: inout some EvictionObserver<Key, Value>) {
        let removesAll: Bool
        switch event {
        case .memoryWarning: removesAll = removeAllOnMemoryWarning   // else removeExpiredObjects: nothing here
        case .background: removesAll = removeAllOnBackground
        case .terminate: removesAll = false
        }
        guard removesAll else { return }
        store.evictAll(from: &entries, as: .deferred, observer: &observer)
    }

    /// Keeps the timer's beat and the time across a new, empty model (see
    /// ``EvictionPolicy/continueClock(of:)``).
    @inlinable
    public mutating func continueClock(of previous: Self) { continueTimer(of: previous) }

    /// Moves trace time forward, running the age timer's due passes in order.
    @inlinable
    public mutating func advance(to time: Double, observer: inout some EvictionObserver<Key, Value>) {
        advanceTimer(to: time, observer: &observer)
    }

    public var extraMetrics: [PolicyMetric] { [PolicyMetric("ttlMisses", ttlMisses)] }

    /// `trimToCost:`, PIN's explicit trim: the costliest entries first (among equal costs the
    /// newest access), until totalCost <= `limit`. A caller pass.
    @inlinable
    public mutating func trimToCost(_ limit: Int, observer: inout some EvictionObserver<Key, Value>) {
        guard entries.cost > limit else { return }
        observer.trimWillBegin(.caller)
        let store = self.store, stamps = accessStamps
        ranked.sort(entries, in: store) { (UInt64(store.cost($0)), stamps[$0]) }
        ranked.evict(from: &entries, in: &self.store, downTo: limit, descending: true, observer: &observer)
        observer.trimDidEnd(.caller)
    }

    // MARK: Internals

    /// The strategy's sort key; ties always fall back to the access order.
    @inlinable
    var strategyRank: (Int32) -> (UInt64, UInt64) {
        let stamps = accessStamps, counts = accessCounts
        return evictionStrategy == .lru ? { (stamps[$0], 0) } : { (counts[$0], stamps[$0]) }
    }

    /// `setAgeLimit:` runs the first age trim at once.
    @inlinable
    mutating func timerDidStart(observer: inout some EvictionObserver<Key, Value>) {
        timerDidFire(observer: &observer)
    }

    /// `trimMemoryToDate:(now − ageLimit)`: a deferred pass removing entries created strictly
    /// earlier, oldest insertion first (NSDictionary's order is unspecified); remembers the
    /// oldest survivor for skipping idle ticks.
    @inlinable
    mutating func timerDidFire(observer: inout some EvictionObserver<Key, Value>) {
        guard ageLimit > 0 else { return }
        let cutoff = now - ageLimit, created = createdDates
        var oldest = Double.infinity
        var pass = TrimPass(.deferred)
        store.evictOldestFirst(from: &entries, pass: &pass, observer: &observer) { slot in
            if created[slot] < cutoff { return true }
            oldest = min(oldest, created[slot])
            return false
        }
        pass.end(&observer)
        oldestKept = oldest
    }

    @inlinable
    func timerWouldEvict(at time: Double) -> Bool { ageLimit > 0 && oldestKept < time - ageLimit }
}

extension PINMemoryCache: SlotRelocatingPolicy {
    /// Renumbers the list's ends and the per-entry stamps, counts and dates after a compaction
    /// (the ranked copy is rebuilt by each purge).
    @inlinable public mutating func relocateSlots(_ relocation: SlotRelocation) {
        relocation.relocate(&entries)
        accessStamps.relocate(relocation)
        accessCounts.relocate(relocation)
        createdDates.relocate(relocation)
    }
}

extension PINMemoryCache {
    /// An entry's creation date, which the age limit reads: PINMemoryCache's limit setters trim
    /// and leave the dates alone.
    @inlinable
    public func entryTime(forKey key: Key) -> Double? { createdDates.element(forKey: key, in: store) }

    @inlinable
    public mutating func restoreEntryTime(_ time: Double, forKey key: Key) { createdDates.setElement(time, forKey: key, in: store) }
}
