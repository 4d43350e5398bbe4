// yy-lru: YYCache's YYMemoryCache.
// Source: ibireme/YYCache @ 0aac6e84f10b (1.0.4), YYCache/YYMemoryCache.m (get 397–407,
// set 413–456, trims 199–231, timer 181–197, notifications 302–318).
// Spec: ``<doc:YYCache>``; test vectors Y1–Y4.
//
// Rule: strict LRU on a linked map. A set inserts at the head, or updates cost and time and
// moves the entry to the head; a get stamps the entry with the current time and moves it to
// the head; `contains` touches nothing. After a set:
//   - cost over the limit: a trim to the cost limit is queued on the cache's serial queue. It
//     runs later, decides its victims then (from the LRU tail, until `totalCost <= costLimit`),
//     and until it runs the over-limit entries are still hits (Y2);
//   - count over the limit: exactly ONE tail entry is removed, synchronously (Y1). A lowered
//     count limit therefore sheds one entry per set, and the rest waits for the timer (Y3).
// An auto-trim timer, every `autoTrimInterval` (5 s), queues one pass that trims to the cost
// limit, then the count limit, then the age limit: entries whose time is more than `ageLimit`
// before the pass are removed from the tail, stopping at the first young enough one (Y4).
// Nothing else enforces age: a stale entry is returned by get until a timer pass removes it.
// A limit of 0 (age ≤ 0) empties the cache. A memory warning and entering the background each
// remove everything (both switchable, both on by default).
//
// Modelling choices. Time is trace time: an entry's `_time` is the time of the last advance.
// The cache's "init" is its first `advance(to:)`, at t0; the timer fires at t0+5, t0+10, ...
// inside `advance(to:)`, each due tick in order at its own time, even when one advance jumps
// over several (ticks that provably evict nothing are skipped). A queued cost trim runs at the
// start of the next operation (lookup, insert, remove or event; a cache-aside miss is a lookup
// and an insert) by default; `drain-delay=N`
// lets N more operations run first, as a busy queue would (Y2's second case is `drain-delay=1`).
// Queued trims run before a timer pass, which is queued behind them. Queued and timer trims
// are deferred passes; the synchronous count removal and the notification purges are caller
// passes. The 10 ms trylock back-off does not exist in a single-threaded replay.

/// YYCache 1.0.4's `YYMemoryCache`: LRU with a synchronous one-entry count trim, an
/// asynchronous cost trim, and a 5-second timer that trims cost, count and age.
///
/// **Rule.** Strict LRU: a get stamps the entry with the current time and moves it to the head
/// (stale entries are still returned); a set stores or updates at the head. After a set over the
/// count limit exactly one tail entry goes at once (a caller pass); over the cost limit a trim is
/// queued that removes tail entries until within the limit when it runs, at the start of the next
/// call (`drain-delay` calls later). Every `auto-trim-interval` seconds from the cache's init a
/// timer pass trims to the cost limit, the count limit, then removes tail entries idle longer
/// than the age limit (deferred passes). A limit of 0 empties the cache. A memory warning and
/// entering the background remove everything.
///
/// - Complexity: lookup, insert and remove are O(1) expected; each eviction is O(1); a timer
///   tick that evicts nothing is O(1).
public struct YYMemoryCache<Key: Hashable, Value>: LibraryModelPolicy {
    public static var descriptor: PolicyDescriptor {
        PolicyDescriptor(
            name: "yy-lru",
            reproduces: "YYCache 1.0.4 YYMemoryCache",
            rule: "LRU; over the count limit a set removes one tail entry at once; over the cost limit a queued trim removes tail entries later; a 5 s timer trims cost, count and age; memory warning and background remove all",
            family: .library, supportsCountLimit: true, defaultCapacity: .workingSetFraction,
            parameters: [
                PolicyParameter("auto-trim-interval", default: "5", "seconds of trace time between timer trims"),
                PolicyParameter("age-limit", default: "none", "seconds; the timer removes entries idle for longer (none: no age limit)"),
                PolicyParameter("remove-all-on-memory-warning", default: "true", "a memory warning removes every entry"),
                PolicyParameter("remove-all-on-background", default: "true", "entering the background removes every entry"),
                PolicyParameter("drain-delay", default: "0",
                                "operations that run before a queued cost trim (0: it runs at the start of the next operation; at most 63)"),
            ])
    }

    public var store = SlotArena<Key, Value>()
    /// The head is the most recently used entry, the tail the next to go.
    @usableFromInline var lru = SlotList()
    /// The cost limit (`NSUIntegerMax`, here `Int.max`, when unlimited). As in YY, changing it
    /// trims nothing at once: the next over-limit set queues a trim, and the timer trims.
    public var costLimit: Int
    /// The count limit (`Int.max` when unlimited). Changing it trims nothing at once (Y3).
    public var countLimit: Int
    /// The age limit in seconds (`infinity` when unlimited), enforced only by the timer.
    public var ageLimit: Double
    /// Seconds of trace time between timer passes.
    public let autoTrimInterval: Double
    @usableFromInline let removeAllOnMemoryWarning: Bool
    @usableFromInline let removeAllOnBackground: Bool
    @usableFromInline let drainDelay: Int
    /// Queued cost trims: bit i is a trim due at the start of the (i+1)-th next operation.
    @usableFromInline var queuedTrims: UInt64 = 0
    /// The current trace time.
    @usableFromInline var now: Double = 0
    /// The time of the first advance (the cache's init), or `nil` before it: no timer yet.
    @usableFromInline var startTime: Double?
    /// The index k of the next timer tick, due at `startTime + k * autoTrimInterval`.
    @usableFromInline var nextTick: Double = 1
    /// `startTime + nextTick * autoTrimInterval`, kept so that most advances cost one comparison.
    @usableFromInline var nextTickTime = Double.infinity

    public init(limits: CacheLimits, options: PolicyOptions) throws(PolicyConfigurationError) {
        (costLimit, countLimit) = try limits.validated(for: Self.descriptor, options: options)
        autoTrimInterval = try options.double("auto-trim-interval", default: 5, in: 0.001...1e12)
        let age = options.string("age-limit", default: "none")
        ageLimit = age == "none" ? .infinity : try options.double("age-limit", default: .infinity, in: 0...1e15)
        removeAllOnMemoryWarning = try options.bool("remove-all-on-memory-warning", default: true)
        removeAllOnBackground = try options.bool("remove-all-on-background", default: true)
        drainDelay = try options.integer("drain-delay", default: 0, in: 0...63)
    }

    @inlinable public var count: Int { lru.count }
    @inlinable public var totalCost: Int { lru.cost }

    @inlinable @inline(__always)
    public func prefetch(_ key: Key, _ stage: PrefetchStage) { store.prefetch(key, stage) }

    /// ``costLimit``, for the flow.
    @inlinable public var capacity: Int { costLimit }

    // The rule: `objectForKey:` stamps the entry and moves it to the head (stale entries are
    // returned); `setObject:forKey:withCost:` stores at the head, or updates, stamps and moves.
    // `containsObjectForKey:` touches nothing. A cache-aside miss is two operations for the
    // drain point, objectForKey: then setObject:.

    @inlinable public mutating func didHit(_ slot: Int32) {
        store.setStamp(slot, now)
        store.moveToHead(slot, &lru)
    }
    @inlinable public mutating func didInsert(_ slot: Int32) {
        store.pushHead(slot, &lru)
        store.setStamp(slot, now)
    }
    @inlinable public mutating func victim() -> Int32 { lru.tail }
    @inlinable public mutating func unlink(_ slot: Int32) { store.unlink(slot, &lru) }
    @inlinable public mutating func setCost(_ slot: Int32, _ cost: Int) { store.setCost(slot, cost, in: &lru) }

    /// Over the cost limit a trim is queued; over the count limit exactly one tail entry goes now.
    @inlinable
    public mutating func trimAfterSet(observer: inout some EvictionObserver<Key, Value>) {
        if lru.cost > costLimit {
            queuedTrims |= 1 << UInt64(drainDelay)
        }
        if lru.count > countLimit {
            evictVictims(toCost: .max, toCount: lru.count - 1, as: .caller, observer: &observer)
        }
    }

    /// Whether a cost trim is queued.
    @inlinable public var hasDeferredWork: Bool { queuedTrims != 0 }

    /// Runs the queued cost trim that is due at the start of this operation, if any.
    @inlinable @inline(__always)
    public mutating func willOperate(observer: inout some EvictionObserver<Key, Value>) {
        guard queuedTrims != 0 else { return }
        let due = queuedTrims & 1 != 0
        queuedTrims >>= 1
        if due { trimToCostPass(observer: &observer) }
    }

    /// The notification handlers: `removeAllObjects` when the matching flag is set.
    @inlinable
    public mutating func handle(_ event: CacheEvent, observer: inout some EvictionObserver<Key, Value>) {
        willOperate(observer: &observer)
        let removesAll: Bool
        switch event {
        case .memoryWarning: removesAll = removeAllOnMemoryWarning
        case .background: removesAll = removeAllOnBackground
        case .terminate: removesAll = false        // YYMemoryCache does not observe termination
        }
        guard removesAll, !lru.isEmpty else { return }
        observer.trimWillBegin(.caller)
        removeAll(observer: &observer)
        observer.trimDidEnd(.caller)
    }

    /// Keeps the timer's beat and the time across a new, empty model (see
    /// ``EvictionPolicy/continueClock(of:)``): `removeAllObjects` and the limits' setters leave
    /// YYMemoryCache's recursive trim alone. The next tick stays a lower bound on the first that
    /// can evict: whatever is stored from now on is stamped now or later.
    @inlinable
    public mutating func continueClock(of previous: Self) {
        (now, startTime, nextTick, nextTickTime) = (previous.now, previous.startTime, previous.nextTick, previous.nextTickTime)
    }

    /// Moves trace time forward, firing every timer tick that falls due, in order, at its own time.
    @inlinable
    public mutating func advance(to time: Double, observer: inout some EvictionObserver<Key, Value>) {
        guard let start = startTime else {
            startTime = time
            now = time
            nextTickTime = time + Double(nextTick) * autoTrimInterval
            return
        }
        guard time > now else { return }
        while nextTickTime <= time {
            now = nextTickTime
            fireTimer(observer: &observer)
            nextTick = nextUsefulTick(after: nextTick, start: start, until: time)
            nextTickTime = start + Double(nextTick) * autoTrimInterval
        }
        now = time
    }

    // MARK: The queue

    /// One queued `trimToCost:` block: a deferred pass when it removes anything.
    @inlinable
    mutating func trimToCostPass(observer: inout some EvictionObserver<Key, Value>) {
        guard costLimit == 0 ? !lru.isEmpty : lru.cost > costLimit else { return }
        observer.trimWillBegin(.deferred)
        trimToCost(observer: &observer)
        observer.trimDidEnd(.deferred)
    }

    // MARK: Timer

    /// `_trimInBackground`: the queued cost trims run first (they are ahead of it on the serial
    /// queue; after the first the others find nothing to do), then one pass trims cost, count, age.
    @inlinable
    mutating func fireTimer(observer: inout some EvictionObserver<Key, Value>) {
        if queuedTrims != 0 {
            queuedTrims = 0
            trimToCostPass(observer: &observer)
        }
        let overCost = costLimit == 0 ? !lru.isEmpty : lru.cost > costLimit
        let overCount = countLimit == 0 ? !lru.isEmpty : lru.count > countLimit
        guard overCost || overCount || tailIsExpired else { return }
        observer.trimWillBegin(.deferred)
        trimToCost(observer: &observer)
        trimToCount(observer: &observer)
        trimToAge(observer: &observer)
        observer.trimDidEnd(.deferred)
    }

    /// Whether `_trimToAge:` would remove something now.
    @inlinable @inline(__always)
    var tailIsExpired: Bool {
        // Without an age limit this is false; checking first spares a cache miss on every tick.
        if lru.isEmpty || ageLimit == .infinity { return false }
        return ageLimit <= 0 || now - store.stamp(lru.tail) > ageLimit
    }

    /// After a tick, the next one that can evict anything: with no operation in between, cost
    /// and count stay within their limits, so only age can act, and only once the tail (the
    /// oldest `_time`) is older than the age limit. Returns an index past `time` when none can.
    /// Whole-number tick indices are `Double`s, searched by ``_Ticker/smallestIndex(atLeast:estimate:where:)``,
    /// so no timestamp overflows them or makes the search step one tick at a time.
    @inlinable
    func nextUsefulTick(after tick: Double, start: Double, until time: Double) -> Double {
        let interval = autoTrimInterval
        let following = _Ticker.successor(of: tick)
        guard !lru.isEmpty, ageLimit.isFinite else {
            return _Ticker.smallestIndex(atLeast: following, estimate: ((time - start) / interval).rounded(.down) + 1) { k in
                start + k * interval > time
            }
        }
        let tail = store.stamp(lru.tail), ageLimit = ageLimit
        return _Ticker.smallestIndex(atLeast: following, estimate: ((tail + ageLimit - start) / interval).rounded(.down)) { k in
            let tick = start + k * interval
            return tick > time || tick - tail > ageLimit
        }
    }

    // MARK: Trims (each removes from the LRU tail; a limit of 0 removes everything)

    @inlinable
    mutating func trimToCost(observer: inout some EvictionObserver<Key, Value>) {
        if costLimit == 0 { removeAll(observer: &observer); return }
        while lru.cost > costLimit && !lru.isEmpty { store.evict(lru.tail, from: &lru, observer: &observer) }
    }

    @inlinable
    mutating func trimToCount(observer: inout some EvictionObserver<Key, Value>) {
        if countLimit == 0 { removeAll(observer: &observer); return }
        while lru.count > countLimit && !lru.isEmpty { store.evict(lru.tail, from: &lru, observer: &observer) }
    }

    @inlinable
    mutating func trimToAge(observer: inout some EvictionObserver<Key, Value>) {
        if ageLimit <= 0 { removeAll(observer: &observer); return }
        while !lru.isEmpty && now - store.stamp(lru.tail) > ageLimit {
            store.evict(lru.tail, from: &lru, observer: &observer)
        }
    }

    @inlinable
    mutating func removeAll(observer: inout some EvictionObserver<Key, Value>) {
        while !lru.isEmpty { store.evict(lru.tail, from: &lru, observer: &observer) }
    }
}

extension YYMemoryCache: SlotRelocatingPolicy {
    /// Renumbers the list's ends after a compaction.
    @inlinable public mutating func relocateSlots(_ relocation: SlotRelocation) { relocation.relocate(&lru) }
}

extension YYMemoryCache {
    /// An entry's last-use time (its `_time`), which the age limit reads: YYMemoryCache's limit
    /// setters do not touch it.
    @inlinable
    public func entryTime(forKey key: Key) -> Double? {
        let slot = store.find(key)
        return slot >= 0 ? store.stamp(slot) : nil
    }

    @inlinable
    public mutating func restoreEntryTime(_ time: Double, forKey key: Key) {
        let slot = store.find(key)
        if slot >= 0 { store.setStamp(slot, time) }
    }
}
