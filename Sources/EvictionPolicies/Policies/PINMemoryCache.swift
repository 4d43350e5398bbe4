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
/// - Complexity: lookup and remove are O(1) expected; a set within the limit is O(1), over the
///   limit O(n log n) for the sort of the n resident entries.
public struct PINMemoryCache<Key: Hashable, Value>: EvictionPolicy {
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
            ])
    }

    /// One entry's sort key, gathered into the scratch buffer a trim sorts.
    @usableFromInline
    struct _SortKey {
        @usableFromInline var primary: UInt64
        @usableFromInline var secondary: UInt64
        @usableFromInline var slot: Int32
        @inlinable init(primary: UInt64, secondary: UInt64, slot: Int32) {
            self.primary = primary
            self.secondary = secondary
            self.slot = slot
        }
    }

    @usableFromInline var store = SlotArena<Key, Value>()
    /// Every resident entry, newest set at the head: PIN keeps dictionaries, not a list; the
    /// list only lets a trim enumerate them.
    @usableFromInline var entries = SlotList()
    /// Per slot: the access stamp (logical accessDate), the access count and the created date.
    @usableFromInline var accessStamps: ContiguousArray<UInt64> = []
    @usableFromInline var accessCounts: ContiguousArray<Int> = []
    @usableFromInline var createdDates: ContiguousArray<Double> = []
    @usableFromInline var clock: UInt64 = 0
    @usableFromInline var scratch: ContiguousArray<_SortKey> = []
    /// `costLimit` (0: off).
    public let costLimit: Int
    /// `ageLimit` in seconds (0: off).
    public let ageLimit: Double
    /// `ttlCache`.
    public let isTTLCache: Bool
    /// `evictionStrategy`.
    public let evictionStrategy: EvictionStrategy
    @usableFromInline let removeAllOnMemoryWarning: Bool
    @usableFromInline let removeAllOnBackground: Bool
    @usableFromInline var now: Double = 0
    @usableFromInline var ageTimer: _Ticker
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
        ageTimer = _Ticker(period: ageLimit > 0 ? ageLimit : 1)
    }

    @inlinable public var count: Int { entries.count }
    @inlinable public var totalCost: Int { entries.cost }

    @inlinable @inline(__always)
    public func prefetch(_ key: Key, _ stage: PrefetchStage) { store.prefetch(key, stage) }

    /// `containsObjectForKey:`: whether the key is in the dictionary, TTL or not.
    @inlinable
    public func contains(_ key: Key) -> Bool { store.find(key) >= 0 }

    /// `objectForKey:`.
    @inlinable
    public mutating func lookup(_ key: Key, observer: inout some EvictionObserver<Key, Value>) -> Value? {
        let slot = store.find(key)
        guard slot >= 0 else { return nil }
        guard isAlive(slot) else {
            ttlMisses += 1
            return nil
        }
        touch(slot)
        return store.values[Int(slot)]
    }

    /// `setObject:forKey:withCost:`.
    @inlinable
    public mutating func insert(_ value: Value, forKey key: Key, cost: Int,
                                observer: inout some EvictionObserver<Key, Value>) {
        let cost = max(cost, 0)
        let hash = store.hash(key)
        var slot = store.find(key, hash: hash)
        if slot >= 0 {
            store.values[Int(slot)] = value
            store.setCost(slot, cost, in: &entries)
        } else {
            slot = store.allocate(key: key, hash: hash, value: value, cost: cost)
            store.pushHead(slot, &entries)
            let i = Int(slot)
            while accessStamps.count <= i {
                accessStamps.append(0)
                accessCounts.append(0)
                createdDates.append(0)
            }
            accessCounts[i] = 0
        }
        createdDates[Int(slot)] = now
        touch(slot)
        if costLimit > 0 { trimToCostByEvictionStrategy(costLimit, observer: &observer) }
    }

    /// `removeObjectForKey:`: not an eviction. The access count goes with the entry.
    @inlinable
    @discardableResult
    public mutating func remove(_ key: Key, observer: inout some EvictionObserver<Key, Value>) -> Value? {
        return store.remove(key, from: &entries)
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

    /// Moves trace time forward, running the age timer's due passes in order.
    @inlinable
    public mutating func advance(to time: Double, observer: inout some EvictionObserver<Key, Value>) {
        guard ageTimer.start != nil else {
            ageTimer.start = time
            now = time
            if ageLimit > 0 { trimToAge(observer: &observer) }     // setAgeLimit: runs at once
            return
        }
        guard time > now else { return }
        if ageLimit > 0 {
            while let tick = ageTimer.due(by: time) {
                now = tick
                trimToAge(observer: &observer)
                let limit = ageLimit, oldest = oldestKept
                ageTimer.skip(until: time) { oldest < $0 - limit }
            }
        }
        now = time
    }

    public var extraMetrics: [PolicyMetric] { [PolicyMetric("ttlMisses", ttlMisses)] }

    /// `trimToCost:`, PIN's explicit trim: the costliest entries first, until totalCost <= `limit`.
    /// A caller pass.
    @inlinable
    public mutating func trimToCost(_ limit: Int, observer: inout some EvictionObserver<Key, Value>) {
        guard entries.cost > limit else { return }
        observer.trimWillBegin(.caller)
        gather(by: .cost)
        // Ascending by cost, enumerated in reverse: the costliest, and among equals the newest, first.
        var i = scratch.count - 1
        while i >= 0 {
            store.evict(scratch[i].slot, from: &entries, observer: &observer)
            if entries.cost <= limit { break }
            i -= 1
        }
        observer.trimDidEnd(.caller)
    }

    // MARK: Internals

    /// Whether a get may return the entry: always, unless the TTL refuses it.
    @inlinable @inline(__always)
    func isAlive(_ slot: Int32) -> Bool {
        !isTTLCache || ageLimit <= 0 || abs(createdDates[Int(slot)] - now) < ageLimit
    }

    @inlinable @inline(__always)
    mutating func touch(_ slot: Int32) {
        clock &+= 1
        accessStamps[Int(slot)] = clock
        let i = Int(slot)
        if accessCounts[i] < Int.max { accessCounts[i] += 1 }
    }

    /// `trimToCostLimitByEvictionStrategy:`, run by every set: one caller pass that includes the
    /// copy and the sort when the cache is over the limit.
    @inlinable
    mutating func trimToCostByEvictionStrategy(_ limit: Int, observer: inout some EvictionObserver<Key, Value>) {
        guard entries.cost > limit else { return }
        observer.trimWillBegin(.caller)
        gather(by: evictionStrategy == .lru ? .accessDate : .accessCount)
        for victim in scratch {
            store.evict(victim.slot, from: &entries, observer: &observer)
            if entries.cost <= limit { break }
        }
        observer.trimDidEnd(.caller)
    }

    /// What a trim sorts by; ties always fall back to the access order.
    @usableFromInline
    enum _SortOrder {
        case accessDate, accessCount, cost
    }

    /// Copies every entry's sort key into `scratch` and sorts it ascending.
    @inlinable
    mutating func gather(by order: _SortOrder) {
        scratch.removeAll(keepingCapacity: true)
        var slot = entries.head
        while slot >= 0 {
            let i = Int(slot)
            let primary: UInt64
            switch order {
            case .accessDate: primary = accessStamps[i]
            case .accessCount: primary = UInt64(accessCounts[i])
            case .cost: primary = UInt64(store.cost(slot))
            }
            scratch.append(_SortKey(primary: primary, secondary: accessStamps[i], slot: slot))
            slot = store.next(slot)
        }
        scratch.sort { ($0.primary, $0.secondary) < ($1.primary, $1.secondary) }
    }

    /// `trimMemoryToDate:(now − ageLimit)`: a deferred pass removing entries created strictly
    /// earlier; remembers the oldest survivor for skipping idle ticks.
    @inlinable
    mutating func trimToAge(observer: inout some EvictionObserver<Key, Value>) {
        let cutoff = now - ageLimit
        var oldest = Double.infinity
        var started = false
        // NSDictionary's enumeration order is unspecified: oldest insertion first here.
        var slot = entries.tail
        while slot >= 0 {
            let following = store.prev(slot)
            let created = createdDates[Int(slot)]
            if created < cutoff {
                if !started {
                    observer.trimWillBegin(.deferred)
                    started = true
                }
                store.evict(slot, from: &entries, observer: &observer)
            } else {
                oldest = min(oldest, created)
            }
            slot = following
        }
        if started { observer.trimDidEnd(.deferred) }
        oldestKept = oldest
    }
}
