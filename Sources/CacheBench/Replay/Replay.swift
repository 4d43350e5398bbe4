import EvictionPolicies
import Foundation

/// Where a run's capacity came from.
public enum CapacitySource: String, Sendable, Codable {
    /// `--capacity`.
    case option
    /// The modelled library's shipped default (e.g. AFNetworking's 100 MiB).
    case libraryDefault = "library-default"
    /// 10 % of the trace's working set, from a first pass over the file.
    case workingSet = "working-set-10%"
    /// A fraction of the working set given in `--capacities` (`0.01,0.1`), from a first pass.
    case workingSetFraction = "working-set-fraction"
}

/// How a result was obtained.
public enum ReplayMethod: String, Sendable {
    /// The policy was driven request by request.
    case simulation
    /// LRU counts from one stack-distance pass serving every capacity (``LRUStackProfiler``):
    /// identical counts, but no per-pass trim durations.
    case stackDistance = "stack-distance"
    /// The policy was driven by a spatially sampled trace at a capacity scaled by the sampling
    /// ratio (``MiniatureSimulation``): an estimate, the sample's misses divided by the ratio
    /// over the trace's requests.
    case miniatureSimulation = "miniature-simulation"
}

/// One replay to run: a trace, a policy and its configuration.
public struct ReplayJob: Sendable {
    /// The trace.
    public var trace: TraceSpec
    /// The policy's command-line name.
    public var policy: String
    /// The cost limit, or `nil` for the policy's default.
    public var capacity: Int?
    /// The count limit, for policies that have one.
    public var countLimit: Int?
    /// Every object has size 1; capacities count objects.
    public var ignoreSize: Bool
    /// Policy parameters (`--option`).
    public var options: PolicyOptions
    /// Threads sharing one synchronized cache (`--threads`); 1 replays on the calling thread.
    public var threads: Int = 1
    /// A disk tier behind `policy`, which is then the memory tier (`--tier`).
    public var tier: TierJob?
    /// Warm-up, cap, sampling and report intervals (``RequestWindow``); the whole trace by default.
    public var window = RequestWindow()
    /// A capacity given as this fraction of the working set (`--capacity 0.1`), used when
    /// `capacity` is `nil`.
    public var capacityFraction: CapacityList.Item?
    /// Where `policy` (and a tier's policies) are looked up: the built-in policies unless the
    /// caller registered its own.
    public var registry: PolicyRegistry = .standard
    /// An admission rule in front of the policy (`--admission`), or `nil` to admit every miss.
    public var admission: LibCacheSimAdmission<UInt64>?
    /// What a memory-warning row does after the policy's own reaction (``MemoryWarningOverride``);
    /// `nil`: the policy's reaction alone.
    public var memoryWarning: MemoryWarningOverride?

    /// Creates a job.
    public init(trace: TraceSpec, policy: String, capacity: Int? = nil, countLimit: Int? = nil,
                ignoreSize: Bool = false, options: PolicyOptions = PolicyOptions()) {
        self.trace = trace
        self.policy = policy
        self.capacity = capacity
        self.countLimit = countLimit
        self.ignoreSize = ignoreSize
        self.options = options
    }
}

/// The outcome of one replay: the contract's `replay --format json` object.
public struct ReplayResult: Sendable, Equatable {
    public var policy: String
    public var trace: String
    public var capacity: Int?
    public var capacitySource: CapacitySource
    public var countLimit: Int?
    public var ignoreSize: Bool
    public var counters: ReplayCounters
    /// Seconds spent in the replay loop (decoding and policy together).
    public var seconds: Double
    /// All trim passes.
    public var trim: TrimSummary
    /// Passes the caller waited for.
    public var trimCaller: TrimSummary
    /// Deferred passes (queued blocks, timers).
    public var trimDeferred: TrimSummary
    /// The policy's own figures (YYDiskCache's inline and file entries, …); none for a tiered run,
    /// whose tiers carry theirs.
    public var policyMetrics: [PolicyMetric] = []
    /// Each tier's figures, for a tiered run (`--tier`).
    public var tiers: TierResults?
    /// Threads that shared the cache (1 unless `--threads`).
    public var threads: Int = 1
    /// Simulation, or LRU's one-pass stack-distance profile.
    public var method: ReplayMethod = .simulation
    /// Warm-up, cap, sample and intervals, when the run had a ``RequestWindow``.
    public var window: WindowReport?
    /// What the engine found wrong with the run itself (a research policy that ended over its
    /// limits); `replay` prints them on standard error, `compare` in its notes.
    public var warnings: [String] = []
    /// The admission rule's name and counts, when the run had one (`--admission`).
    public var admission: AdmissionCounts?

    public var requests: Int { counters.requests }
    public var hits: Int { counters.hits }
    public var misses: Int { counters.requests &- counters.hits }   // wrapping: a hand-made result may hold anything
    public var hitRatio: Double? { counters.requests == 0 ? nil : Double(counters.hits) / Double(counters.requests) }
    /// Misses over requests (not 1 minus ``hitRatio``, which loses the digits of a ratio near 0),
    /// `nil` without requests.
    public var missRatio: Double? { counters.requests == 0 ? nil : Double(misses) / Double(counters.requests) }
    public var byteHitRatio: Double? {
        counters.byteRequests == 0 ? nil : Double(counters.byteHits) / Double(counters.byteRequests)
    }
    /// The requests the replay loop ran per second of ``seconds``: the warm-up's as well as the
    /// measured ones, since the loop ran both in that time. (For a miniature simulation, the
    /// trace's requests over the miniature's time.)
    public var requestsPerSecond: Double {
        seconds > 0 ? Double(counters.requests + (method == .miniatureSimulation ? 0 : window?.warmupRequests ?? 0)) / seconds : 0
    }
}

extension ReplayResult {
    // Every ReplayResult is built here: a simulated run (plain, compared or threaded), a tiered
    // run, and a stack-distance profile.

    /// The result of a lane's simulated run, `replay`'s and each of `compare`'s: with a window,
    /// its statistics start after the warm-up and are scaled up from the sample.
    init(lane: _Lane, run: PolicyRun, policy: PolicyDescriptor, trace: String, capacity: (Int?, CapacitySource),
         countLimit: Int?, ignoreSize: Bool, seconds: Double) {
        var counters = run.counters()
        var window: WindowReport?
        if let stream = lane.stream {
            (counters, window) = stream.finish(lane.window, meter: lane.meter, counters: counters, capacity: capacity.0,
                                               countLimit: countLimit)
        }
        self.init(simulated: counters, trims: run.trims(), policyMetrics: run.extraMetrics(), policy: policy,
                  trace: trace, capacity: capacity, countLimit: countLimit, ignoreSize: ignoreSize, seconds: seconds)
        self.window = window
        admission = run.admission?()
        guard let held = run.occupancy?() else { return }
        warnings += Self.endOfRunWarnings(policy: policy, held: held, residents: run.residents?() ?? nil, counters: counters,
                                          capacity: capacity.0, countLimit: countLimit, window: lane.window)
    }

    /// What the end of a run says about the policy itself, each warning naming the run (compare
    /// and mrc gather every run's): a count that disagrees with its arena's `residents`, a run
    /// that admitted nothing (with `counters`), and a research policy holding more than its
    /// limits (scaled by `window`'s sampling) allow.
    static func endOfRunWarnings(policy: PolicyDescriptor, held: (count: Int, cost: Int), residents: (count: Int, cost: Int)?,
                                 counters: ReplayCounters?, capacity: Int?, countLimit: Int?,
                                 window: RequestWindow = RequestWindow()) -> [String] {
        var warnings: [String] = [], held = held
        // A policy that keeps its own count (one of someone else's package, say) may keep it
        // wrong; its arena's slots say what it holds. A wrong count also hides the policy from
        // the limit check below, which then reads the arena's.
        let limits = [capacity.map { "capacity \($0)" }, countLimit.map { "count limit \($0)" }].compactMap { $0 }.joined(separator: ", ")
        let named = policy.name + (limits.isEmpty ? "" : " at " + limits)
        if let residents, residents != held {
            warnings.append("\(named): it reports \(held.count) objects costing \(held.cost) at the end of the run, but its slot arena holds \(residents.count) costing \(residents.cost), so its count or totalCost is wrong and these counts are not a cache's")
            held = residents
        }
        // A run that missed every request, evicted nothing and ends empty admitted no object:
        // every object was larger than the capacity, or the rule's queues hold nothing at this
        // size (libCacheSim aborts on some of these; others refuse such limits outright). Events
        // and ticks do not change that (what they take out is counted as evicted), nor do sets
        // that stored nothing; a delete takes an entry out unseen, and so does a set too large to
        // keep replacing a stored one.
        if let counters, held.count == 0, counters.requests > 0, counters.hits == 0, counters.evictions == 0,
           counters.deletes == 0, !counters.storedBySet {
            warnings.append("\(named) cached nothing: it missed all \(counters.requests) requests, evicted nothing and holds no object, so at these limits it admits none (every object larger than the capacity, or a rule whose queues hold nothing at this size)")
        }
        // A library's fixed bound (YYDiskCache ignores a cost limit of INT_MAX or more) does not
        // scale with a sampled run's limits: a miniature scaled under a bound the full limit
        // reaches runs the other rule.
        if window.sampleRatio != nil {
            for (kind, limit, bounds) in [("capacity", capacity, policy.fixedCostLimitBounds),
                                          ("count limit", policy.supportsCountLimit ? countLimit : nil, policy.fixedCountLimitBounds)] {
                guard let limit else { continue }
                let scaled = window.scaled(limit)
                for bound in bounds where scaled < bound && bound <= limit {
                    warnings.append("\(named): sampled to \(kind) \(scaled), under \(bound), where the rule changes in the library's code whatever the scale, so this sampled run does not stand for the full cache at \(limit)")
                }
            }
        }
        // A research policy keeps within its limits at every moment: one that ended over them
        // did not evict as they require (a policy of someone else's package, say), and its
        // counts are not a cache's. Library models may hold more until a deferred trim.
        if policy.family == .research {
            let costLimit = capacity.map(window.scaled), count = policy.supportsCountLimit ? countLimit.map(window.scaled) : nil
            if held.cost > (costLimit ?? .max) || held.count > (count ?? .max) {
                let limits = [costLimit.map { "capacity \($0)" }, count.map { "count limit \($0)" }].compactMap { $0 }.joined(separator: ", ")
                warnings.append("\(policy.name) at \(limits): it holds \(held.count) objects costing \(held.cost) at the end of the run, over its limits, so it did not evict as they require and these counts are not a cache's")
            }
        }
        return warnings
    }

    /// The result of a simulated run from its figures (a threaded run has no ``PolicyRun``).
    init(simulated counters: ReplayCounters, trims: TrimTimings, policyMetrics: [PolicyMetric], policy: PolicyDescriptor,
         trace: String, capacity: (Int?, CapacitySource), countLimit: Int?, ignoreSize: Bool, seconds: Double, threads: Int = 1) {
        self.init(policy: policy.name, trace: trace, capacity: capacity.0, capacitySource: capacity.1,
                  countLimit: countLimit, ignoreSize: ignoreSize, counters: counters, seconds: seconds,
                  trim: trims.all.summary, trimCaller: trims.caller.summary, trimDeferred: trims.deferred.summary,
                  policyMetrics: policyMetrics)
        self.threads = threads
    }

    /// The result of a finished tiered run: hits are memory hits plus disk hits, evictions and
    /// trim passes cover both tiers, and `tiers` has each tier's own figures.
    init(tiered run: TieredRun, memory: PolicyDescriptor, disk: PolicyDescriptor, tier: TierJob, trace: String,
         memoryCapacity: (Int?, CapacitySource), memoryCountLimit: Int?, diskCapacity: (Int?, CapacitySource),
         ignoreSize: Bool, seconds: Double) {
        var counters = run.counters()
        let memoryState = run.memory(), diskState = run.disk()
        let (diskHits, diskByteHits) = run.diskHits()
        counters.evictions = memoryState.evictions + diskState.evictions
        func tierResult(_ name: String, _ capacity: (Int?, CapacitySource), _ countLimit: Int?,
                        hits: Int, byteHits: Int, _ state: TierState) -> TierResult {
            TierResult(policy: name, capacity: capacity.0, capacitySource: capacity.1, countLimit: countLimit,
                       hits: hits, byteHits: byteHits, evictions: state.evictions, entries: state.entries, bytes: state.bytes,
                       trim: state.trims.all.summary, trimCaller: state.trims.caller.summary,
                       trimDeferred: state.trims.deferred.summary, policyMetrics: state.policyMetrics)
        }
        var all = memoryState.trims.all, caller = memoryState.trims.caller, deferred = memoryState.trims.deferred
        all.merge(diskState.trims.all)
        caller.merge(diskState.trims.caller)
        deferred.merge(diskState.trims.deferred)
        self.init(policy: TierPair(memory: memory.name, tier: tier).name, trace: trace,
                  capacity: memoryCapacity.0, capacitySource: memoryCapacity.1, countLimit: memoryCountLimit,
                  ignoreSize: ignoreSize, counters: counters, seconds: seconds,
                  trim: all.summary, trimCaller: caller.summary, trimDeferred: deferred.summary)
        tiers = TierResults(
            memoryCost: tier.memoryCost.rawValue,
            memory: tierResult(memory.name, memoryCapacity, memoryCountLimit,
                               hits: counters.hits - diskHits, byteHits: counters.byteHits - diskByteHits, memoryState),
            disk: tierResult(disk.name, diskCapacity, tier.diskCountLimit, hits: diskHits, byteHits: diskByteHits, diskState))
        // Each tier's policy is held to its own limits, as in a run of its own.
        warnings = Self.endOfRunWarnings(policy: memory, held: (memoryState.entries, memoryState.bytes), residents: nil, counters: nil,
                                         capacity: memoryCapacity.0, countLimit: memoryCountLimit).map { "memory tier " + $0 }
            + Self.endOfRunWarnings(policy: disk, held: (diskState.entries, diskState.bytes), residents: nil, counters: nil,
                                    capacity: diskCapacity.0, countLimit: tier.diskCountLimit).map { "disk tier " + $0 }
    }

    /// The result of a policy that evicts as LRU, read from a stack-distance pass: exact counts,
    /// but no pass durations, which do not exist in such a pass and are reported as 0.
    init(profiled counters: ReplayCounters, trimPasses: Int, policy: PolicyDescriptor, trace: String,
         capacity: (Int, CapacitySource), ignoreSize: Bool, seconds: Double) {
        let trim = TrimSummary(count: trimPasses, totalNanoseconds: 0, p50Nanoseconds: 0, p99Nanoseconds: 0, maxNanoseconds: 0)
        let none = TrimSummary(count: 0, totalNanoseconds: 0, p50Nanoseconds: 0, p99Nanoseconds: 0, maxNanoseconds: 0)
        self.init(policy: policy.name, trace: trace, capacity: capacity.0, capacitySource: capacity.1, countLimit: nil,
                  ignoreSize: ignoreSize, counters: counters, seconds: seconds, trim: trim, trimCaller: trim, trimDeferred: none)
        method = .stackDistance
    }
}

/// Any failure of a command, with the contract's exit code.
public enum CacheBenchError: Error, Sendable, CustomStringConvertible {
    /// A setting's value the engine cannot take (exit 2).
    case invalidValue(InvalidValueError)
    /// A trace generator that cannot run as asked (exit 2).
    case generator(GeneratorError)
    /// A sweep that cannot run as asked (exit 2).
    case sweep(SweepError)
    /// A run that cannot go as asked: an unknown policy, a refused limit or option (exit 2).
    case configuration(RunConfigurationError)
    /// Unreadable (66) or malformed (65) input.
    case trace(TraceError)
    /// The output cannot be written (74).
    case output(String)
    /// The regression gate failed (3); one line per regression.
    case regression([String])

    public var description: String {
        switch self {
        case .invalidValue(let error): error.description
        case .generator(let error): error.description
        case .sweep(let error): error.description
        case .configuration(let error): error.description
        case .trace(let error): error.description
        case .output(let message): message
        case .regression(let lines): lines.joined(separator: "\n")
        }
    }
}

extension CacheBenchError {
    /// A file that could not be written (exit 74).
    public init(_ error: OutputError) { self = .output(error.description) }
}

/// Runs replays.
public enum Replay {
    /// Runs `job` to the end of its trace.
    ///
    /// - Throws: ``CacheBenchError`` with the contract's exit code.
    /// - Parameter progress: where to report bytes read, for a progress bar on long runs.
    public static func run(_ job: ReplayJob, progress: ProgressReporter? = nil) throws(CacheBenchError) -> ReplayResult {
        let policy: RegisteredPolicy
        do { policy = try job.registry.policy(named: job.policy) } catch { throw error.asRunError }
        if job.admission != nil && (job.tier != nil || job.threads > 1) { throw .configuration(.admissionWithTierOrThreads) }
        if job.memoryWarning != nil && (job.tier != nil || job.threads > 1) {
            throw .configuration(.memoryWarningOverrideUnsupported)
        }
        if let tier = job.tier {
            try requireWholeTrace(job, otherwise: .windowWithTier)
            return try runTiered(job, tier)
        }
        let (capacity, source) = try resolveCapacity(for: policy.descriptor, job)
        if job.threads > 1 {
            if policy.descriptor.needsFuture { throw .configuration(.offlineWithThreads(policy.descriptor.name)) }
            try requireWholeTrace(job, otherwise: .windowWithThreads)
            return try runConcurrently(policy, job, capacity: capacity, source: source)
        }
        let run: PolicyRun
        let window = job.window
        do {
            run = try policy.makeRun(limits: CacheLimits(capacity: capacity.map(window.scaled), countLimit: job.countLimit.map(window.scaled)),
                                     options: window.scaled(job.options, for: policy.descriptor), ignoreSize: job.ignoreSize, admission: job.admission)
        } catch { throw error.asRunError(given: CacheLimits(capacity: capacity, countLimit: job.countLimit), givenOptions: job.options, window: window) }
        if let memoryWarning = job.memoryWarning {
            guard let override = run.overrideMemoryWarnings else { throw .configuration(.memoryWarningOverrideUnsupported) }
            override(memoryWarning)
        }
        // A replay is a comparison of one run: the same batch loop drives it. With a second core,
        // the next batch is decoded on it while the policy reads this one.
        let opened = try openReader(needsFuture: policy.descriptor.needsFuture, job.trace, policy: policy.descriptor.name,
                                    maxRequests: window.maxRequests, lastPass: true)
        let stream = _WindowedStream(opened.reader, window: window)
        let lane = _Lane(run)
        lane.stream = stream
        lane.window = window
        lane.meter = stream.meter(window)
        let start = monotonicNanoseconds()
        let threads = ProcessInfo.processInfo.activeProcessorCount > 1 ? 2 : 1
        do { _ = try Compare.drive([lane], (stream.reader, opened.source), threads: threads, progress: progress) }
        catch { throw .trace(error) }
        let seconds = Double(monotonicNanoseconds() - start) / 1e9
        progress?.finish()
        try requireRows(run.counters(), job)
        return ReplayResult(lane: lane, run: run, policy: policy.descriptor, trace: job.trace.path, capacity: (capacity, source),
                            countLimit: job.countLimit, ignoreSize: job.ignoreSize, seconds: seconds)
    }

    /// Warm-up, caps, sampling and intervals apply to one single-threaded cache.
    private static func requireWholeTrace(_ job: ReplayJob, otherwise error: RunConfigurationError) throws(CacheBenchError) {
        guard job.window.isWholeTrace else { throw .configuration(error) }
    }

    private static func runConcurrently(_ policy: RegisteredPolicy, _ job: ReplayJob, capacity: Int?,
                                        source: CapacitySource) throws(CacheBenchError) -> ReplayResult {
        let reader = try openReader(for: policy.descriptor, job)
        let outcome = try policy.replayConcurrently(
            limits: CacheLimits(capacity: capacity, countLimit: job.countLimit), options: job.options,
            ignoreSize: job.ignoreSize, threads: job.threads, reader: reader)
        try requireRows(outcome.counters, job)
        var result = ReplayResult(simulated: outcome.counters, trims: outcome.trims, policyMetrics: outcome.policyMetrics,
                                  policy: policy.descriptor, trace: job.trace.path, capacity: (capacity, source),
                                  countLimit: job.countLimit, ignoreSize: job.ignoreSize, seconds: outcome.seconds, threads: job.threads)
        // The same end-of-run checks as a single-threaded run's.
        result.warnings = ReplayResult.endOfRunWarnings(policy: policy.descriptor, held: outcome.held, residents: outcome.residents,
                                                        counters: outcome.counters, capacity: capacity, countLimit: job.countLimit)
        return result
    }

    /// A trace with no rows at all is almost always a mistake (an empty file, a header alone), so
    /// it is reported rather than answered with a report of zeros.
    static func requireRows(_ counters: ReplayCounters, _ job: ReplayJob) throws(CacheBenchError) {
        let rows = counters.requests + counters.sets + counters.deletes + counters.events + counters.skipped
        if rows == 0 {
            throw .trace(job.window.emptyStreamError(file: job.trace.path))
        }
    }

    /// Opens the job's trace, giving an offline policy next-access times when the format lacks them.
    static func openReader(for descriptor: PolicyDescriptor, _ job: ReplayJob) throws(CacheBenchError) -> any TraceReader {
        try openReader(needsFuture: descriptor.needsFuture, job.trace, policy: descriptor.name, maxRequests: job.window.maxRequests).reader
    }

    /// Opens `trace`, annotated with next-access times when an offline policy (`policy`) needs
    /// them and the format lacks them, and returns the byte source under it for progress reports.
    /// With `maxRequests`, the future is that of the trace cut after that many requests.
    /// A `lastPass` reads a one-shot input without copying it if the trace ``TraceSpec/isReadByOneJob``
    /// (not when the future's table takes a pass of its own).
    static func openReader(needsFuture: Bool, _ trace: TraceSpec, policy: String, maxRequests: Int?,
                           lastPass: Bool = false) throws(CacheBenchError) -> (reader: any TraceReader, source: ByteSource) {
        let opened: (reader: any TraceReader, source: ByteSource)
        do { opened = try trace.openWithSource(lastPass: lastPass && !needsFuture) } catch { throw .trace(error) }
        guard needsFuture && !opened.reader.providesNextAccess else { return opened }
        return (try annotateNextAccess(opened.reader, trace, policy: policy, maxRequests: maxRequests), opened.source)
    }

    /// Gives an offline policy the future on a trace that lacks it: a first pass builds a
    /// ``NextAccessTable`` (O(requests) memory) and the replay reads through it.
    private static func annotateNextAccess(_ reader: any TraceReader, _ trace: TraceSpec,
                                           policy: String, maxRequests: Int?) throws(CacheBenchError) -> any TraceReader {
        let table: NextAccessTable
        do { table = try NextAccessTable.build(trace, maxRequests: maxRequests) } catch { throw .trace(error) }
        return NextAccessAnnotatingReader(base: reader, table: table)
    }

    /// The capacity to use: the option, else the library's default (none beside a count limit),
    /// else 10 % of the working set.
    static func resolveCapacity(for descriptor: PolicyDescriptor, _ job: ReplayJob) throws(CacheBenchError) -> (Int?, CapacitySource) {
        if let capacity = job.capacity { return (capacity, .option) }
        if let fraction = job.capacityFraction {
            let workingSet: WorkingSet
            do { workingSet = try WorkingSet.measure(job.trace, ignoreSize: job.ignoreSize, maxRows: job.window.maxRequests) } catch { throw .trace(error) }
            return (CapacityList([fraction]).resolve(workingSet: workingSet.total(ignoreSize: job.ignoreSize)).first ?? 1,
                    .workingSetFraction)
        }
        return try defaultCapacity(for: descriptor, countLimit: job.countLimit, ignoreSize: job.ignoreSize) { () throws(CacheBenchError) in
            do throws(TraceError) { return try WorkingSet.measure(job.trace, ignoreSize: job.ignoreSize, maxRows: job.window.maxRequests) } catch { throw .trace(error) }
        }
    }

    /// A policy's capacity when none is given: its library's default, else 10 % of the working
    /// set, which `workingSet` measures only when it is needed.
    ///
    /// A library default in bytes does not apply when sizes are ignored (every size is 1, so
    /// 100 MiB would be a hundred million objects, no limit at all): the working set's objects
    /// give it then, as for any policy.
    static func defaultCapacity(for descriptor: PolicyDescriptor, countLimit: Int?, ignoreSize: Bool,
                                workingSet: () throws(CacheBenchError) -> WorkingSet) throws(CacheBenchError) -> (Int?, CapacitySource) {
        switch descriptor.defaultCapacity {
        case .library(let bytes) where !ignoreSize:
            return (bytes, .libraryDefault)
        case .deviceShare:
            // The library bounds the cost even beside a count limit: the stand-in does too.
            break
        case .library, .workingSetFraction:
            // The contract: the working-set default applies only when neither limit is given;
            // with a count limit alone, the cost limit is the library's own default, which is none.
            if countLimit != nil && descriptor.supportsCountLimit { return (nil, .libraryDefault) }
        }
        return (max(1, try workingSet().total(ignoreSize: ignoreSize) / 10), .workingSet)
    }
}

/// The distinct objects of a trace and their bytes (each object's first size).
public struct WorkingSet: Sendable, Equatable {
    /// Distinct keys requested or set.
    public var objects: Int
    /// The sum of each distinct object's first size.
    public var bytes: Int

    /// Objects with `ignoreSize`, bytes otherwise.
    public func total(ignoreSize: Bool) -> Int { ignoreSize ? objects : bytes }

    /// Reads the trace once: all of it, or its first `maxRows` rows (a run's ``RequestWindow/maxRequests``,
    /// as libCacheSim's `-n` limits the working set its fractions and default size are taken of;
    /// the size-0 gets and sets a replay skips are not counted, as `-n` does not count them, nor
    /// are events).
    /// With `stoppingAt`, the read stops once that many objects are found: a probe of whether
    /// the working set is at least that large, which reads only the trace's beginning when it is.
    /// With `sample` (a window with a sampling ratio), only the keys it samples count: the
    /// sample's own working set.
    public static func measure(_ trace: TraceSpec, ignoreSize: Bool, maxRows: Int? = nil,
                               stoppingAt objectLimit: Int? = nil, sample: RequestWindow? = nil) throws(TraceError) -> WorkingSet {
        var reader = try trace.open()
        var batch: [Request] = []
        var seen = _DistinctKeys(expecting: objectLimit ?? 0)
        var bytes = 0
        var remaining = maxRows ?? Int.max
        let objectLimit = objectLimit ?? Int.max
        let keepBelow = sample?.keepBelow ?? .max, salt = SpatialSample.salt(seed: sample?.sampleSeed ?? 0)
        while remaining > 0, seen.count < objectLimit, try reader.nextBatch(&batch) {
            for request in batch where request.isCountedRequest {
                guard remaining > 0 else { break }
                remaining -= 1
                if (request.operation == .get || request.operation == .set)
                    && (keepBelow == .max || SpatialSample.hash(request.key, salt: salt) < keepBelow) && seen.insert(request.key) {
                    bytes &+= request.size
                }
            }
        }
        return WorkingSet(objects: seen.count, bytes: bytes)
    }
}

/// A set of 64-bit keys for counting a working set: open addressing with linear probing, at
/// most half full, one multiplicative hash per key (a key is a trace's object id, not a value an
/// adversary picks for a long-lived table). About 16 to 32 bytes per key; no allocation but the
/// doublings.
struct _DistinctKeys {
    private var slots: [UInt64]
    private var shift: UInt64
    private var hasZero = false
    /// Distinct keys inserted.
    private(set) var count = 0

    /// An empty set sized for `expected` keys without a doubling.
    init(expecting expected: Int) {
        var bits = 12
        while bits < 40 && (1 << bits) < expected * 2 { bits += 1 }
        slots = Array(repeating: 0, count: 1 << bits)
        shift = UInt64(64 - bits)
    }

    /// Inserts `key`; whether it was new. Amortised O(1).
    mutating func insert(_ key: UInt64) -> Bool {
        if key == 0 {
            if hasZero { return false }
            hasZero = true
            count += 1
            return true
        }
        if (count + 1) * 2 > slots.count { grow() }
        let mask = slots.count - 1
        var i = Int(truncatingIfNeeded: (key &* 0x9E37_79B9_7F4A_7C15) >> shift)
        while true {
            let slot = slots[i]
            if slot == key { return false }
            if slot == 0 {
                slots[i] = key
                count += 1
                return true
            }
            i = (i + 1) & mask
        }
    }

    private mutating func grow() {
        let old = slots
        slots = Array(repeating: 0, count: old.count * 2)
        shift -= 1
        let mask = slots.count - 1
        for key in old where key != 0 {
            var i = Int(truncatingIfNeeded: (key &* 0x9E37_79B9_7F4A_7C15) >> shift)
            while slots[i] != 0 { i = (i + 1) & mask }
            slots[i] = key
        }
    }
}
