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
        policy = try Self.makePolicy(limits: limits, options: options)
        driver = Self.makeDriver(ignoreSize: ignoreSize)
    }

    /// A new, empty policy, its options and limits checked against its descriptor.
    @usableFromInline
    static func makePolicy(limits: CacheLimits, options: PolicyOptions) throws(PolicyConfigurationError) -> Policy {
        try options.validate(against: Policy.descriptor)
        try limits.validate(for: Policy.descriptor)
        return try Policy(limits: limits, options: options)
    }

    /// A driver with zeroed counters, for the policy's descriptor.
    @usableFromInline
    static func makeDriver(ignoreSize: Bool) -> RequestDriver {
        RequestDriver(ignoreSize: ignoreSize, needsFuture: Policy.descriptor.needsFuture)
    }

    /// The fewest residents for which ``apply(_:)`` hints keys ahead; tests set it to 0 or
    /// `Int.max` to check that the hints change nothing.
    public var prefetchResidents = Self.defaultPrefetchResidents

    /// The fewest residents for which ``apply(_:)`` hints entries as well as index buckets (at
    /// least ``prefetchResidents`` must be reached too); tests set it to 0 or `Int.max`.
    public var entryPrefetchResidents = Self.defaultEntryPrefetchResidents

    /// Drives the policy with a batch of requests.
    ///
    /// The loop sees the requests ahead, so it hints each key to the policy twice before its
    /// turn (``EvictionPolicy/prefetch(_:_:)``): the index bucket 16 requests ahead and the entry
    /// 8 ahead. A request then finds its memory loaded instead of waiting for two dependent cache
    /// misses, which are most of a replay's time once the working set outgrows the L2 cache.
    ///
    /// Below ``prefetchResidents`` residents (checked once per batch) it does not hint: a small
    /// cache's index and entries stay in the processor's cache, so there is nothing to wait for,
    /// and each hint costs a hash and, for the entry, a probe of the index, as much again as the
    /// request's own lookup. Below ``entryPrefetchResidents`` it hints index buckets only: the
    /// slots still stay in the processor's last-level cache, and the entry hint costs more than
    /// it saves.
    @inlinable
    public mutating func apply(_ batch: [Request]) {
        let count = batch.count
        if policy.count < prefetchResidents {
            for i in 0..<count { driver.apply(batch[i], to: &policy) }
            return
        }
        let hintsEntries = policy.count >= entryPrefetchResidents
        for i in 0..<count {
            if i &+ Self.indexDistance < count { policy.prefetch(batch[i &+ Self.indexDistance].key, .index) }
            if hintsEntries && i &+ Self.entryDistance < count { policy.prefetch(batch[i &+ Self.entryDistance].key, .entry) }
            driver.apply(batch[i], to: &policy)
        }
    }

    /// The default ``entryPrefetchResidents``, 262,144 entries (6 MiB of slots, 2 MiB of keys).
    ///
    /// The entry hint hashes the key a second time and reads the index bucket the first hint
    /// loaded; that pays only once the slots no longer stay in the processor's cache. Measured on
    /// the 10M-request Zipf trace of `Scripts/bench` (objects of 100 B to 10 KB), best of five
    /// alternated runs, index hints alone against both: at 256 MiB (about 53,000 residents) FIFO
    /// 0.36 s against 0.47, LRU 0.40 against 0.44, Random 0.57 against 0.75, and the same way
    /// at 512 MiB and 1 GiB (about 210,000); at 2 GiB (about 420,000) FIFO 0.41 against 0.35 and
    /// Random 0.59 against 0.50, and at 4 GiB FIFO 0.35 against 0.29. See
    /// `results/replay-hints-2026-12-04-s61.md`.
    public static var defaultEntryPrefetchResidents: Int { 262_144 }

    /// The default ``prefetchResidents``, 16,384 entries.
    ///
    /// Measured on the 10M-request Zipf trace of `Scripts/bench` (objects of 100 B to 10 KB),
    /// replay seconds without hints against with them: FIFO 0.71 against 0.92 and LRU 0.70
    /// against 0.87 at 16 MiB (about 3,300 residents), FIFO 0.89 against 0.97 and Random 1.41
    /// against 1.77 at 1 MiB; about level at 64 MiB (13,000); either way from run to run at
    /// 128 and 256 MiB (26,000 and 53,000); twice as fast with hints at 4 GiB (760,000). See
    /// `results/replay-hints-2026-12-01-s42.md`.
    public static var defaultPrefetchResidents: Int { 16_384 }

    @usableFromInline static var indexDistance: Int { 16 }
    @usableFromInline static var entryDistance: Int { 8 }

    /// Makes memory-warning rows do what `override` says after the policy's own reaction, for a
    /// policy made with `limits` and `options` (those a policy that starts again gets).
    public mutating func overrideMemoryWarnings(_ override: MemoryWarningOverride, limits: CacheLimits, options: PolicyOptions) {
        driver.memoryWarningOverride = override.forPolicy(limits: limits, options: options)
        driver.tracksSets = override.tracksSets(for: Policy.self)
    }

    /// Counts so far.
    public var counters: ReplayCounters { driver.counters }

    /// Trim-pass timings: all passes, those the caller waited for, and deferred ones.
    public var trims: TrimTimings { driver.trims }
}

/// Trim-pass timings: all passes, those the caller waited for, and deferred ones.
public typealias TrimTimings = (all: LatencyHistogram, caller: LatencyHistogram, deferred: LatencyHistogram)

/// Applies requests to a policy, or to a tiered cache, and counts what happens: the one replay
/// loop body, shared by the single-threaded ``Replayer``, the tiered replay and the
/// multi-threaded replay, where each thread has its own driver and applies requests to one
/// shared policy under its lock.
public struct RequestDriver: Sendable {
    @usableFromInline var tally = ReplayCounters()
    @usableFromInline var observer = _TimingObserver()
    /// Gets a tiered cache answered from its lower tier, and their bytes (part of `tally`'s hits).
    @usableFromInline var lowerTierHits = 0
    @usableFromInline var lowerTierByteHits = 0
    @usableFromInline let ignoreSize: Bool
    @usableFromInline let needsFuture: Bool
    @usableFromInline var now = -Double.infinity
    /// What a memory-warning row does after the policy's own reaction (``MemoryWarningOverride``).
    @usableFromInline var memoryWarningOverride: MemoryWarningOverride?
    /// Whether sets are remembered in order, for the override's trim of a policy naming no victims.
    @usableFromInline var tracksSets = false
    @usableFromInline var setOrder = _SetOrder()

    /// Creates a driver with zeroed counters.
    public init(ignoreSize: Bool, needsFuture: Bool) {
        self.ignoreSize = ignoreSize
        self.needsFuture = needsFuture
    }

    /// Applies one request to `policy`.
    @inlinable @inline(__always)
    public mutating func apply<Policy: EvictionPolicy>(_ request: Request, to policy: inout Policy)
    where Policy.Key == UInt64, Policy.Value == Void {
        apply(request, to: &policy, as: _PolicyTarget<Policy>.self)
    }

    /// Applies one request to the two tiers of `cache`.
    @inlinable @inline(__always)
    public mutating func apply<Memory: EvictionPolicy>(_ request: Request, to cache: inout TieredModel<Memory, DiskTierHandle>)
    where Memory.Key == UInt64, Memory.Value == Void {
        apply(request, to: &cache, as: _TieredTarget<Memory>.self)
    }

    /// Applies one request to `target`, whose operations `Target` names: the loop body written once.
    @inlinable @inline(__always)
    mutating func apply<Target: _RequestTarget>(_ request: Request, to target: inout Target.Cache, as _: Target.Type) {
        if request.time > now {
            now = request.time
            Target.advance(&target, to: now, observer: &observer)
        }
        switch request.operation {
        case .get:
            guard request.size > 0 else { tally.skipped += 1; return }
            tally.requests += 1
            tally.byteRequests += request.size
            if needsFuture { Target.noteNextAccess(&target, request.nextAccess) }
            switch Target.access(&target, request.key, cost: ignoreSize ? 1 : request.size, observer: &observer) {
            case .hit:
                tally.hits += 1
                tally.byteHits += request.size
            case .lowerTierHit:
                tally.hits += 1
                tally.byteHits += request.size
                lowerTierHits += 1
                lowerTierByteHits += request.size
            case .miss:
                if tracksSets { setOrder.note(request.key) }
            }
        case .set:
            guard request.size > 0 else { tally.skipped += 1; return }
            tally.sets += 1
            if needsFuture { Target.noteNextAccess(&target, request.nextAccess) }
            Target.insert(&target, request.key, cost: ignoreSize ? 1 : request.size, observer: &observer)
            // Asked only until one set is found stored: one lookup per set row of a run that keeps none.
            if !tally.storedBySet && Target.holds(&target, request.key) { tally.storedBySet = true }
            if tracksSets { setOrder.note(request.key) }
        case .delete:
            tally.deletes += 1
            Target.remove(&target, request.key, observer: &observer)
        case .memoryWarning:
            tally.events += 1
            Target.handle(&target, .memoryWarning, observer: &observer)
            if let memoryWarningOverride {
                Target.respond(&target, to: memoryWarningOverride, sets: &setOrder, observer: &observer)
            }
        case .background:
            tally.events += 1
            Target.handle(&target, .background, observer: &observer)
        case .terminate:
            tally.events += 1
            Target.handle(&target, .terminate, observer: &observer)
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

/// Where a get was answered.
@usableFromInline
enum _AccessOutcome {
    case hit, lowerTierHit, miss
}

/// The operations ``RequestDriver`` applies, for one kind of cache: a policy, or a tiered
/// cache. Static witnesses over `inout Cache`, so the driver is specialized for each cache type
/// and no cache is wrapped or copied.
@usableFromInline
protocol _RequestTarget {
    associatedtype Cache
    static func advance(_ cache: inout Cache, to time: Double, observer: inout _TimingObserver)
    static func noteNextAccess(_ cache: inout Cache, _ nextAccess: Int64)
    static func access(_ cache: inout Cache, _ key: UInt64, cost: Int, observer: inout _TimingObserver) -> _AccessOutcome
    static func insert(_ cache: inout Cache, _ key: UInt64, cost: Int, observer: inout _TimingObserver)
    /// Whether the cache holds `key` now, for ``ReplayCounters/storedBySet``.
    static func holds(_ cache: inout Cache, _ key: UInt64) -> Bool
    static func remove(_ cache: inout Cache, _ key: UInt64, observer: inout _TimingObserver)
    static func handle(_ cache: inout Cache, _ event: CacheEvent, observer: inout _TimingObserver)
    static func respond(_ cache: inout Cache, to override: MemoryWarningOverride, sets: inout _SetOrder,
                        observer: inout _TimingObserver)
}

/// A policy as the driver's target.
@usableFromInline
enum _PolicyTarget<Policy: EvictionPolicy>: _RequestTarget where Policy.Key == UInt64, Policy.Value == Void {
    @inlinable @inline(__always)
    static func advance(_ policy: inout Policy, to time: Double, observer: inout _TimingObserver) {
        policy.advance(to: time, observer: &observer)
    }
    @inlinable @inline(__always)
    static func noteNextAccess(_ policy: inout Policy, _ nextAccess: Int64) { policy.noteNextAccess(nextAccess) }
    @inlinable @inline(__always)
    static func access(_ policy: inout Policy, _ key: UInt64, cost: Int, observer: inout _TimingObserver) -> _AccessOutcome {
        // A run behind an admission rule keeps the rule in its observer, which answers the
        // policy's question; the same loop serves runs with and without one.
        if let admission = observer.admission { admission.pointee.willAccess(key, cost: cost, to: Policy.self) }
        let hit = policy.access(key, cost: cost, orInsert: (), observer: &observer)
        if let admission = observer.admission { finishAdmission(&policy, key, cost: cost, hit: hit, admission, observer: &observer) }
        return hit ? .hit : .miss
    }
    /// The end of an admission-controlled request (``AdmissionControl/didAccess(_:cost:hit:policy:observer:)``).
    /// Out of line: only a run behind a rule calls it, and inlined it would grow every plain loop.
    @inlinable @inline(never)
    static func finishAdmission(_ policy: inout Policy, _ key: UInt64, cost: Int, hit: Bool,
                                _ admission: UnsafeMutablePointer<AdmissionControl<LibCacheSimAdmission<UInt64>>>,
                                observer: inout _TimingObserver) {
        admission.pointee.didAccess(key, cost: cost, hit: hit, policy: &policy, observer: &observer)
    }
    @inlinable @inline(__always)
    static func insert(_ policy: inout Policy, _ key: UInt64, cost: Int, observer: inout _TimingObserver) {
        policy.insert((), forKey: key, cost: cost, observer: &observer)
    }
    @inlinable @inline(__always)
    static func holds(_ policy: inout Policy, _ key: UInt64) -> Bool { policy.contains(key) }
    @inlinable @inline(__always)
    static func remove(_ policy: inout Policy, _ key: UInt64, observer: inout _TimingObserver) {
        policy.remove(key, observer: &observer)
    }
    @inlinable @inline(__always)
    static func handle(_ policy: inout Policy, _ event: CacheEvent, observer: inout _TimingObserver) {
        policy.handle(event, observer: &observer)
    }
    @inlinable
    static func respond(_ policy: inout Policy, to override: MemoryWarningOverride, sets: inout _SetOrder,
                        observer: inout _TimingObserver) {
        override.respond(&policy, sets: &sets, observer: &observer)
    }
}

/// A memory policy in front of a disk tier as the driver's target; a disk hit is a lower-tier hit.
@usableFromInline
enum _TieredTarget<Memory: EvictionPolicy>: _RequestTarget where Memory.Key == UInt64, Memory.Value == Void {
    @usableFromInline typealias Cache = TieredModel<Memory, DiskTierHandle>
    @inlinable @inline(__always)
    static func advance(_ cache: inout Cache, to time: Double, observer: inout _TimingObserver) {
        cache.advance(to: time, observer: &observer)
    }
    /// Tiers are online policies (an offline policy cannot be a tier).
    @inlinable @inline(__always)
    static func noteNextAccess(_ cache: inout Cache, _ nextAccess: Int64) {}
    @inlinable @inline(__always)
    static func access(_ cache: inout Cache, _ key: UInt64, cost: Int, observer: inout _TimingObserver) -> _AccessOutcome {
        switch cache.access(key, cost: cost, orInsert: (), observer: &observer) {
        case .memory: .hit
        case .disk: .lowerTierHit
        case nil: .miss
        }
    }
    @inlinable @inline(__always)
    static func insert(_ cache: inout Cache, _ key: UInt64, cost: Int, observer: inout _TimingObserver) {
        cache.insert((), forKey: key, cost: cost, observer: &observer)
    }
    /// Not asked: a tiered run's end-of-run warnings do not judge what it stored.
    @inlinable @inline(__always)
    static func holds(_ cache: inout Cache, _ key: UInt64) -> Bool { true }
    @inlinable @inline(__always)
    static func remove(_ cache: inout Cache, _ key: UInt64, observer: inout _TimingObserver) {
        cache.remove(key, observer: &observer)
    }
    @inlinable @inline(__always)
    static func handle(_ cache: inout Cache, _ event: CacheEvent, observer: inout _TimingObserver) {
        cache.handle(event, observer: &observer)
    }
    /// Tiered runs take no override (the command line refuses one).
    @inlinable
    static func respond(_ cache: inout Cache, to override: MemoryWarningOverride, sets: inout _SetOrder,
                        observer: inout _TimingObserver) {}
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
    /// Whether a `set` row left its key in the cache (looked at until one does): a run whose gets
    /// cached nothing may still have stored objects by its sets, which a later set too large to
    /// keep took out again without an eviction. A hint for the end-of-run warnings, not a count:
    /// it is not part of equality (a profiled LRU run does not look), nor of saved records.
    public var storedBySet = false

    /// Whether the counts are equal (``storedBySet`` aside).
    public static func == (a: ReplayCounters, b: ReplayCounters) -> Bool {
        a.requests == b.requests && a.hits == b.hits && a.byteRequests == b.byteRequests && a.byteHits == b.byteHits
            && a.evictions == b.evictions && a.skipped == b.skipped && a.sets == b.sets && a.deletes == b.deletes
            && a.events == b.events
    }

    /// Creates zeroed counters.
    public init() {}
}

/// Counts evictions and times each trim pass with two reads of ``_TrimClock``, kept apart by kind.
@usableFromInline
struct _TimingObserver: EvictionObserver, @unchecked Sendable {  // unchecked: `admission`, used by one thread
    @usableFromInline typealias Key = UInt64
    @usableFromInline typealias Value = Void
    @usableFromInline var evictions = 0
    @usableFromInline var started: UInt64 = 0
    @usableFromInline let readsTicks: Bool
    /// Pass durations in ``_TrimClock`` units; ``timings`` converts them to nanoseconds. Copies
    /// of the observer share them: a run owns its observer.
    @usableFromInline let callerReadings = _LatencyTally()
    @usableFromInline let deferredReadings = _LatencyTally()
    /// The admission rule of a run that has one, answering ``admits(_:cost:)``; owned by the
    /// run (``_AdmissionStorage``). A pointer, so the observer stays a plain value of no
    /// references, and a run without a rule tests one word per request.
    @usableFromInline var admission: UnsafeMutablePointer<AdmissionControl<LibCacheSimAdmission<UInt64>>>?

    @usableFromInline init() { readsTicks = _TrimClock.start() }

    @inlinable @inline(__always)
    mutating func admits(_ key: UInt64, cost: Int) -> Bool {
        guard let admission else { return true }
        return admission.pointee.admits(key, cost: cost)
    }

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
    @usableFromInline
    var timings: TrimTimings {
        var caller = callerReadings.histogram, deferred = deferredReadings.histogram
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
