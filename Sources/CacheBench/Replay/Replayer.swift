import EvictionPolicies

/// A policy being driven by a trace, with the counters of its run.
///
/// `Replayer` is generic over the policy and is specialized once per policy type, so the loop
/// in ``apply(_:)`` calls the policy directly: no existential and no allocation per request,
/// and no clock read unless the policy starts a trim pass.
public struct Replayer<Policy: EvictionPolicy> where Policy.Key == UInt64, Policy.Value == Void {
    /// The policy under test.
    public var policy: Policy
    /// Counts and trim timings so far.
    public var counters = ReplayCounters()
    @usableFromInline var observer = _TimingObserver()
    @usableFromInline let ignoreSize: Bool
    @usableFromInline let needsFuture: Bool
    @usableFromInline var now = -Double.infinity

    /// Creates a replayer with a new, empty policy.
    public init(limits: CacheLimits, options: PolicyOptions, ignoreSize: Bool) throws(PolicyConfigurationError) {
        try options.validate(against: Policy.descriptor)
        try limits.validate(for: Policy.descriptor)
        policy = try Policy(limits: limits, options: options)
        self.ignoreSize = ignoreSize
        needsFuture = Policy.descriptor.needsFuture
    }

    /// Drives the policy with a batch of requests.
    @inlinable
    public mutating func apply(_ batch: [Request]) {
        for request in batch { apply(request) }
        counters.evictions = observer.evictions
    }

    @inlinable @inline(__always)
    mutating func apply(_ request: Request) {
        if request.time > now {
            now = request.time
            policy.advance(to: now, observer: &observer)
        }
        switch request.operation {
        case .get:
            guard request.size > 0 else { counters.skipped += 1; return }
            counters.requests += 1
            counters.byteRequests += request.size
            if needsFuture { policy.noteNextAccess(request.nextAccess) }
            if policy.access(request.key, cost: ignoreSize ? 1 : request.size, orInsert: (), observer: &observer) {
                counters.hits += 1
                counters.byteHits += request.size
            }
        case .set:
            guard request.size > 0 else { counters.skipped += 1; return }
            counters.sets += 1
            if needsFuture { policy.noteNextAccess(request.nextAccess) }
            policy.insert((), forKey: request.key, cost: ignoreSize ? 1 : request.size, observer: &observer)
        case .delete:
            counters.deletes += 1
            policy.remove(request.key, observer: &observer)
        case .memoryWarning:
            counters.events += 1
            policy.handle(.memoryWarning, observer: &observer)
        case .background:
            counters.events += 1
            policy.handle(.background, observer: &observer)
        case .tick:
            counters.events += 1
        }
    }

    /// Trim-pass timings: all passes, those the caller waited for, and deferred ones.
    public var trims: (all: LatencyHistogram, caller: LatencyHistogram, deferred: LatencyHistogram) {
        var all = observer.caller
        all.merge(observer.deferred)
        return (all, observer.caller, observer.deferred)
    }
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
    /// `memory-warning`, `background` and `tick` rows.
    public var events = 0

    /// Creates zeroed counters.
    public init() {}
}

/// Counts evictions and times each trim pass with two clock reads, kept apart by kind.
@usableFromInline
struct _TimingObserver: EvictionObserver {
    @usableFromInline typealias Key = UInt64
    @usableFromInline typealias Value = Void
    @usableFromInline var evictions = 0
    @usableFromInline var started: UInt64 = 0
    @usableFromInline var caller = LatencyHistogram()
    @usableFromInline var deferred = LatencyHistogram()

    @usableFromInline init() {}

    @inlinable
    mutating func trimWillBegin(_ kind: TrimKind) {
        started = _now()
    }

    @inlinable
    mutating func didEvict(_ key: UInt64, value: Void, cost: Int) {
        evictions += 1
    }

    @inlinable
    mutating func trimDidEnd(_ kind: TrimKind) {
        let elapsed = _now() &- started
        switch kind {
        case .caller: caller.record(elapsed)
        case .deferred: deferred.record(elapsed)
        }
    }
}

@usableFromInline
func _now() -> UInt64 { monotonicNanoseconds() }
