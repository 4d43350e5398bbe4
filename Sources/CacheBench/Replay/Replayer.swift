import EvictionPolicies

/// A policy being driven by a trace, with the counters of its run.
///
/// `Replayer` is generic over the policy and is specialized once per policy type, so the loop
/// in ``apply(_:)`` calls the policy directly: no existential and no allocation per request,
/// and no clock read unless the policy starts a trim pass.
public struct Replayer<Policy: EvictionPolicy> where Policy.Key == UInt64, Policy.Value == Void {
    /// The policy under test.
    public var policy: Policy
    @usableFromInline var driver: RequestDriver

    /// Creates a replayer with a new, empty policy.
    public init(limits: CacheLimits, options: PolicyOptions, ignoreSize: Bool) throws(PolicyConfigurationError) {
        try options.validate(against: Policy.descriptor)
        try limits.validate(for: Policy.descriptor)
        policy = try Policy(limits: limits, options: options)
        driver = RequestDriver(ignoreSize: ignoreSize, needsFuture: Policy.descriptor.needsFuture)
    }

    /// Drives the policy with a batch of requests.
    ///
    /// The loop sees the requests ahead, so it hints each key to the policy twice before its
    /// turn (``EvictionPolicy/prefetch(_:_:)``): the index bucket 16 requests ahead and the entry
    /// 8 ahead. A request then finds its memory loaded instead of waiting for two dependent cache
    /// misses, which are most of a replay's time once the working set outgrows the L2 cache.
    @inlinable
    public mutating func apply(_ batch: [Request]) {
        let count = batch.count
        for i in 0..<count {
            if i &+ Self.indexDistance < count { policy.prefetch(batch[i &+ Self.indexDistance].key, .index) }
            if i &+ Self.entryDistance < count { policy.prefetch(batch[i &+ Self.entryDistance].key, .entry) }
            driver.apply(batch[i], to: &policy)
        }
    }

    @usableFromInline static var indexDistance: Int { 16 }
    @usableFromInline static var entryDistance: Int { 8 }

    /// Counts so far.
    public var counters: ReplayCounters { driver.counters }

    /// Trim-pass timings: all passes, those the caller waited for, and deferred ones.
    public var trims: TrimTimings { driver.trims }
}

/// Trim-pass timings: all passes, those the caller waited for, and deferred ones.
public typealias TrimTimings = (all: LatencyHistogram, caller: LatencyHistogram, deferred: LatencyHistogram)

/// Applies requests to a policy and counts what happens: the replay loop's body, shared by the
/// single-threaded ``Replayer`` and the multi-threaded replay, where each thread has its own
/// driver and applies requests to one shared policy under its lock.
public struct RequestDriver: Sendable {
    @usableFromInline var tally = ReplayCounters()
    @usableFromInline var observer = _TimingObserver()
    @usableFromInline let ignoreSize: Bool
    @usableFromInline let needsFuture: Bool
    @usableFromInline var now = -Double.infinity

    /// Creates a driver with zeroed counters.
    public init(ignoreSize: Bool, needsFuture: Bool) {
        self.ignoreSize = ignoreSize
        self.needsFuture = needsFuture
    }

    /// Applies one request to `policy`.
    @inlinable @inline(__always)
    public mutating func apply<Policy: EvictionPolicy>(_ request: Request, to policy: inout Policy)
    where Policy.Key == UInt64, Policy.Value == Void {
        if request.time > now {
            now = request.time
            policy.advance(to: now, observer: &observer)
        }
        switch request.operation {
        case .get:
            guard request.size > 0 else { tally.skipped += 1; return }
            tally.requests += 1
            tally.byteRequests += request.size
            if needsFuture { policy.noteNextAccess(request.nextAccess) }
            if policy.access(request.key, cost: ignoreSize ? 1 : request.size, orInsert: (), observer: &observer) {
                tally.hits += 1
                tally.byteHits += request.size
            }
        case .set:
            guard request.size > 0 else { tally.skipped += 1; return }
            tally.sets += 1
            if needsFuture { policy.noteNextAccess(request.nextAccess) }
            policy.insert((), forKey: request.key, cost: ignoreSize ? 1 : request.size, observer: &observer)
        case .delete:
            tally.deletes += 1
            policy.remove(request.key, observer: &observer)
        case .memoryWarning:
            tally.events += 1
            policy.handle(.memoryWarning, observer: &observer)
        case .background:
            tally.events += 1
            policy.handle(.background, observer: &observer)
        case .terminate:
            tally.events += 1
            policy.handle(.terminate, observer: &observer)
        case .tick:
            tally.events += 1
        }
    }

    /// The counts so far, evictions included.
    public var counters: ReplayCounters {
        var result = tally
        result.evictions = observer.evictions
        return result
    }

    /// Trim-pass timings so far.
    public var trims: TrimTimings { observer.timings }
}

/// What happened during a replay.
public struct ReplayCounters: Sendable, Equatable {
    /// `get` rows (size > 0).
    public var requests = 0
    /// `get` rows that found their key resident.
    public var hits = 0
    /// Sum of the sizes of `get` rows.
    public var byteRequests = 0
    /// Sum of the sizes of hits.
    public var byteHits = 0
    /// Entries removed by limits, timers or events.
    public var evictions = 0
    /// Rows of size 0, skipped as libCacheSim does.
    public var skipped = 0
    /// `set` rows applied.
    public var sets = 0
    /// `delete` rows applied.
    public var deletes = 0
    /// `memory-warning`, `background`, `terminate` and `tick` rows.
    public var events = 0

    /// Creates zeroed counters.
    public init() {}
}

/// Counts evictions and times each trim pass with two reads of ``_TrimClock``, kept apart by kind.
@usableFromInline
struct _TimingObserver: EvictionObserver, Sendable {
    @usableFromInline typealias Key = UInt64
    @usableFromInline typealias Value = Void
    @usableFromInline var evictions = 0
    @usableFromInline var started: UInt64 = 0
    @usableFromInline let readsTicks: Bool
    /// Pass durations in ``_TrimClock`` units; ``timings`` converts them to nanoseconds.
    @usableFromInline var callerReadings = LatencyHistogram()
    @usableFromInline var deferredReadings = LatencyHistogram()

    @usableFromInline init() { readsTicks = _TrimClock.start() }

    @inlinable
    mutating func trimWillBegin(_ kind: TrimKind) {
        started = _TrimClock.read(ticks: readsTicks)
    }

    @inlinable
    mutating func didEvict(_ key: UInt64, value: Void, cost: Int) {
        evictions += 1
    }

    @inlinable
    mutating func trimDidEnd(_ kind: TrimKind) {
        let elapsed = _TrimClock.read(ticks: readsTicks) &- started
        switch kind {
        case .caller: callerReadings.record(elapsed)
        case .deferred: deferredReadings.record(elapsed)
        }
    }

    /// All passes, those the caller waited for and deferred ones, in nanoseconds.
    var timings: TrimTimings {
        var caller = callerReadings, deferred = deferredReadings
        if readsTicks && caller.count + deferred.count > 0 {
            let factor = _TrimClock.nanosecondsPerTick()
            caller = caller.scaled(by: factor)
            deferred = deferred.scaled(by: factor)
        }
        var all = caller
        all.merge(deferred)
        return (all, caller, deferred)
    }
}
