import Dispatch
import EvictionPolicies

/// Several policies at several capacities on one trace (`cachebench compare`).
public struct CompareJob: Sendable {
    /// The trace.
    public var trace: TraceSpec
    /// Policy names, in report order.
    public var policies: [String]
    /// The capacities, or `nil` for each policy's default (as `replay` without `--capacity`).
    public var capacities: CapacityList?
    /// A count limit, applied to the policies that have one.
    public var countLimit: Int?
    /// Every object has size 1; capacities count objects.
    public var ignoreSize: Bool
    /// Policy parameters; each policy receives those it declares.
    public var options: PolicyOptions
    /// Compute `lru` at every capacity from one stack-distance pass when that is exact, instead
    /// of simulating each capacity. Turn it off to time LRU's real trim passes.
    public var lruStackDistance: Bool
    /// Threads that drive the policies (the batch of decoded requests is shared read-only).
    public var threads: Int
    /// Two-level caches to run beside the policies (`--tier`), each at every capacity, which
    /// is the memory tier's; each names its own disk tier's configuration.
    public var tiers: [TierPair] = []
    /// The memory the runs may use together, in bytes, or `nil` for a quarter of physical
    /// memory. A larger grid runs in waves, each reading the trace once more.
    public var memoryBudget: Int?
    /// Where the policies (and the tiers' policies) are looked up.
    public var registry: PolicyRegistry = .standard
    /// Receives remarks worth telling the user while the comparison runs (waves).
    public var noteHandler: (@Sendable (String) -> Void)?

    /// Creates a job.
    public init(trace: TraceSpec, policies: [String], capacities: CapacityList? = nil, countLimit: Int? = nil,
                ignoreSize: Bool = false, options: PolicyOptions = PolicyOptions(), lruStackDistance: Bool = true,
                threads: Int = 2) {
        self.trace = trace
        self.policies = policies
        self.capacities = capacities
        self.countLimit = countLimit
        self.ignoreSize = ignoreSize
        self.options = options
        self.lruStackDistance = lruStackDistance
        self.threads = threads
    }
}

/// The outcome of a comparison: one ``ReplayResult`` per (policy, capacity), policies in the
/// order asked, capacities ascending.
public struct CompareResult: Sendable {
    /// The trace's path as given.
    public var trace: String
    /// One result per (policy, capacity).
    public var results: [ReplayResult]
    /// The trace's working set, when a first pass measured it.
    public var workingSet: WorkingSet?
    /// Wall-clock seconds for the whole comparison, first passes included.
    public var wallSeconds: Double
    /// Things the user should know (e.g. why LRU was simulated rather than profiled).
    public var notes: [String]

    /// The contract's `compare --format json` object: `trace` and `results` (each a `replay`
    /// object), plus `wallSeconds` and `notes`.
    public var json: JSONValue {
        .object([
            ("trace", .string(trace)),
            ("results", .array(results.map(\.json))),
            ("wallSeconds", .double(wallSeconds)),
            ("notes", .array(notes.map { .string($0) })),
        ])
    }
}

/// Runs comparisons.
public enum Compare {
    /// Runs every policy of `job` at every capacity from one decode of the trace.
    ///
    /// Each decoded batch is fed to every run; the runs are split between `job.threads` threads
    /// that share the batch read-only, rebalanced by the time each run has taken. Every run sees
    /// the same requests in the same order as `replay` would, so its counters are identical;
    /// `seconds` is the time spent in that run's own policy calls (decoding is shared and not
    /// included). `lru` at two or more capacities comes from ``LRUStackProfiler`` when that is
    /// exact (see there), otherwise from simulation.
    ///
    /// - Throws: ``CacheBenchError`` with the contract's exit code.
    public static func run(_ job: CompareJob, progress: ProgressReporter? = nil) throws(CacheBenchError) -> CompareResult {
        let started = monotonicNanoseconds()
        var notes: [String] = []
        let policies = try resolvePolicies(job)
        var tierPolicies: [(memory: RegisteredPolicy, disk: RegisteredPolicy)] = []
        for pair in job.tiers { tierPolicies.append(try Replay.tierPolicies(pair, in: job.registry)) }
        // --option reaches the policies and the memory tiers that declare it; the disk tiers have --disk-option.
        let allOptions = try splitOptions(job.options, among: policies + tierPolicies.map(\.memory))
        let optionsFor = Array(allOptions.prefix(policies.count))
        let tierOptionsFor = Array(allOptions.dropFirst(policies.count))
        if job.countLimit != nil && !(policies + tierPolicies.map(\.memory)).contains(where: { $0.descriptor.supportsCountLimit }) {
            throw .configuration(.countLimitTakenByNone)
        }

        // Capacities, measuring the working set first when they depend on it.
        var workingSet: WorkingSet?
        func measuredWorkingSet() throws(CacheBenchError) -> WorkingSet {
            if let workingSet { return workingSet }
            progress?.begin(phase: "working set")
            do {
                let measured = try WorkingSet.measure(job.trace, ignoreSize: job.ignoreSize)
                workingSet = measured
                return measured
            } catch { throw .trace(error) }
        }
        /// A policy's capacity when none is given: its library's, or 10 % of the working set.
        func defaultCapacity(_ descriptor: PolicyDescriptor) throws(CacheBenchError) -> (Int?, CapacitySource) {
            if case .library(let bytes) = descriptor.defaultCapacity, !job.ignoreSize { return (bytes, .libraryDefault) }
            // As replay: beside a count limit, the library's own cost default (none).
            if job.countLimit != nil && descriptor.supportsCountLimit { return (nil, .libraryDefault) }
            return (max(1, try measuredWorkingSet().total(ignoreSize: job.ignoreSize) / 10), .workingSet)
        }
        var plan: [(policy: Int, capacity: Int?, source: CapacitySource)] = []
        var tierPlan: [(tier: Int, capacity: Int?, source: CapacitySource)] = []
        if let list = job.capacities {
            let total = list.needsWorkingSet ? try measuredWorkingSet().total(ignoreSize: job.ignoreSize) : nil
            let capacities = list.resolve(workingSet: total)
            // CapacityList.parse never yields these, but a list built in code can.
            if let bad = capacities.first(where: { $0 <= 0 }) {
                throw .configuration(.capacityNotPositive(bad))
            }
            let source: CapacitySource = list.needsWorkingSet ? .workingSetFraction : .option
            for index in policies.indices {
                for capacity in capacities { plan.append((index, capacity, source)) }
            }
            for index in job.tiers.indices {
                for capacity in capacities { tierPlan.append((index, capacity, source)) }
            }
        } else {
            for (index, policy) in policies.enumerated() {
                let (capacity, source) = try defaultCapacity(policy.descriptor)
                plan.append((index, capacity, source))
            }
            for (index, pair) in tierPolicies.enumerated() {
                let (capacity, source) = try defaultCapacity(pair.memory.descriptor)
                tierPlan.append((index, capacity, source))
            }
        }
        var diskCapacities: [(Int?, CapacitySource)] = []
        for (index, pair) in job.tiers.enumerated() {
            if let capacity = pair.tier.diskCapacity {
                diskCapacities.append((capacity, .option))
            } else {
                diskCapacities.append(try defaultCapacity(tierPolicies[index].disk.descriptor))
            }
        }

        // The stack-distance pass replaces lru's runs when it can be exact.
        let lruIndex = policies.firstIndex { $0.descriptor.name == "lru" }
        var profiledCapacities: [Int] = []
        if job.lruStackDistance, let lruIndex, job.countLimit == nil {
            profiledCapacities = plan.filter { $0.policy == lruIndex }.compactMap(\.capacity)
            if profiledCapacities.count < 2 { profiledCapacities = [] }
        }

        // One run per planned (policy, capacity), except the profiled ones, made wave by wave.
        func makeLane(_ i: Int) throws(CacheBenchError) -> _Lane {
            let entry = plan[i]
            let policy = policies[entry.policy]
            let countLimit = policy.descriptor.supportsCountLimit ? job.countLimit : nil
            do {
                return _Lane(try policy.makeRun(limits: CacheLimits(capacity: entry.capacity, countLimit: countLimit),
                                                options: optionsFor[entry.policy], ignoreSize: job.ignoreSize))
            } catch { throw error.asRunError }
        }
        /// A finished run's result; its lane (and the policy's memory) can then go.
        func simulatedResult(_ i: Int, _ lane: _Lane) -> ReplayResult? {
            let entry = plan[i]
            let policy = policies[entry.policy]
            guard let run = lane.run else { return nil }
            let trims = run.trims()
            return ReplayResult(
                policy: policy.descriptor.name, trace: job.trace.path, capacity: entry.capacity,
                capacitySource: entry.source, countLimit: policy.descriptor.supportsCountLimit ? job.countLimit : nil,
                ignoreSize: job.ignoreSize, counters: run.counters(), seconds: Double(lane.nanoseconds) / 1e9,
                trim: trims.all.summary, trimCaller: trims.caller.summary, trimDeferred: trims.deferred.summary)
        }
        var resultOfPlan = [ReplayResult?](repeating: nil, count: plan.count)
        let simulated = plan.indices.filter { !(plan[$0].policy == lruIndex && !profiledCapacities.isEmpty) }
        /// Splits `indices` into waves whose runs fit the memory budget together.
        func waves(_ indices: [Int], extra: Int) throws(CacheBenchError) -> [[Int]] {
            guard indices.count + extra >= _MemoryBudget.gridWorthMeasuring else { return [indices] }
            let budget = _MemoryBudget(limit: job.memoryBudget ?? _MemoryBudget.defaultLimit,
                                       workingSet: try measuredWorkingSet(), ignoreSize: job.ignoreSize)
            let (waves, estimate) = budget.pack(indices.map { plan[$0].capacity }, extra: extra)
            if waves.count > 1 {
                job.noteHandler?("compare: the \(indices.count + extra) runs need about \(SizeFormat.describe(estimate, objects: false)) of memory, more than the budget of \(SizeFormat.describe(budget.limit, objects: false)); running them in \(waves.count) waves, one read of the trace each")
            }
            return waves.map { $0.map { indices[$0] } }
        }
        let simulatedWaves = try waves(simulated, extra: tierPlan.count)
        var lanes: [_Lane] = []
        for i in simulatedWaves.first ?? [] { lanes.append(try makeLane(i)) }
        // One lane per planned (tier pair, capacity).
        var tierRuns: [(run: TieredRun, lane: _Lane)] = []
        for entry in tierPlan {
            let (memory, disk) = tierPolicies[entry.tier]
            let countLimit = memory.descriptor.supportsCountLimit ? job.countLimit : nil
            let run = try Replay.makeTieredRun(memory: memory, disk: disk, tier: job.tiers[entry.tier].tier,
                                               memoryLimits: CacheLimits(capacity: entry.capacity, countLimit: countLimit),
                                               diskCapacity: diskCapacities[entry.tier].0, options: tierOptionsFor[entry.tier],
                                               ignoreSize: job.ignoreSize)
            tierRuns.append((run, _Lane(apply: run.apply)))
        }
        let profilerLane: _Lane?
        let profiler: _ProfilerBox?
        if profiledCapacities.isEmpty {
            profilerLane = nil
            profiler = nil
        } else {
            let box = _ProfilerBox(LRUStackProfiler(capacities: profiledCapacities, ignoreSize: job.ignoreSize))
            profiler = box
            profilerLane = _Lane(apply: { box.profiler.apply($0) })
        }

        // Offline policies need each request's next access; one annotated stream serves every run.
        let future = policies.first { $0.descriptor.needsFuture }
        func open() throws(CacheBenchError) -> (reader: any TraceReader, source: ByteSource) {
            try Replay.openReader(needsFuture: future != nil, job.trace, policy: future?.descriptor.name ?? "")
        }

        progress?.begin(phase: "replay")
        let rows: Int
        let opened = try open()
        do {
            rows = try drive(lanes + tierRuns.map(\.lane) + (profilerLane.map { [$0] } ?? []), opened, threads: job.threads,
                             progress: progress)
        }
        catch { throw .trace(error) }
        // As replay: a trace with no rows is almost always a mistake, not a result of zeros.
        if rows == 0 {
            progress?.finish()
            throw .trace(TraceError(.malformed, file: job.trace.path, reason: "the trace has no rows (empty file, or a header alone)"))
        }
        /// Collects the results of a driven wave, releasing its runs.
        func collect(_ wave: [Int], _ waveLanes: [_Lane]) {
            for (i, lane) in zip(wave, waveLanes) { resultOfPlan[i] = simulatedResult(i, lane) }
        }
        /// Makes a wave's runs, drives them with one more read of the trace and collects them.
        func runWave(_ wave: [Int]) throws(CacheBenchError) {
            var waveLanes: [_Lane] = []
            for i in wave { waveLanes.append(try makeLane(i)) }
            let reopened = try open()
            do { _ = try drive(waveLanes, reopened, threads: job.threads, progress: progress) }
            catch { throw .trace(error) }
            collect(wave, waveLanes)
        }
        collect(simulatedWaves.first ?? [], lanes)
        lanes = []
        for wave in simulatedWaves.dropFirst() { try runWave(wave) }

        // If the stack pass could not be exact, simulate lru per capacity on a second pass.
        var profiled: [Int: (counters: ReplayCounters, trimPasses: Int)] = [:]
        if let profiler, let profilerLane {
            if let reason = profiler.profiler.abandonReason {
                notes.append("lru: simulated per capacity on a second pass; the one-pass stack-distance profile is not exact here (\(reason))")
                progress?.begin(phase: "lru")
                for wave in try waves(plan.indices.filter { plan[$0].policy == lruIndex }, extra: 0) { try runWave(wave) }
            } else {
                for entry in profiler.profiler.counters() {
                    profiled[entry.capacity] = (entry.counters, entry.trimPasses)
                }
                // The one pass serves every capacity; each is charged an equal share of its time.
                profilerLane.nanoseconds /= UInt64(max(1, profiledCapacities.count))
            }
        }
        progress?.finish()

        var results: [ReplayResult] = []
        for (i, entry) in plan.enumerated() {
            let policy = policies[entry.policy]
            if let result = resultOfPlan[i] {
                results.append(result)
            } else if let capacity = entry.capacity, let (counters, passes) = profiled[capacity], let profilerLane {
                // Counts are exact; pass durations do not exist in a stack pass and are reported as 0.
                let trim = TrimSummary(count: passes, totalNanoseconds: 0, p50Nanoseconds: 0, p99Nanoseconds: 0, maxNanoseconds: 0)
                let none = TrimSummary(count: 0, totalNanoseconds: 0, p50Nanoseconds: 0, p99Nanoseconds: 0, maxNanoseconds: 0)
                var result = ReplayResult(
                    policy: policy.descriptor.name, trace: job.trace.path, capacity: capacity,
                    capacitySource: entry.source, countLimit: nil, ignoreSize: job.ignoreSize,
                    counters: counters, seconds: Double(profilerLane.nanoseconds) / 1e9, trim: trim,
                    trimCaller: trim, trimDeferred: none)
                result.method = .stackDistance
                results.append(result)
            }
        }
        for (entry, tiered) in zip(tierPlan, tierRuns) {
            let (memory, disk) = tierPolicies[entry.tier]
            tiered.run.finish()
            results.append(Replay.tieredResult(
                tiered.run, memory: memory.descriptor, disk: disk.descriptor, tier: job.tiers[entry.tier].tier,
                trace: job.trace.path, memoryCapacity: (entry.capacity, entry.source),
                memoryCountLimit: memory.descriptor.supportsCountLimit ? job.countLimit : nil,
                diskCapacity: diskCapacities[entry.tier], ignoreSize: job.ignoreSize,
                seconds: Double(tiered.lane.nanoseconds) / 1e9))
        }
        return CompareResult(trace: job.trace.path, results: results, workingSet: workingSet,
                             wallSeconds: Double(monotonicNanoseconds() - started) / 1e9, notes: notes)
    }

    /// The policies named in `job`, each once.
    static func resolvePolicies(_ job: CompareJob) throws(CacheBenchError) -> [RegisteredPolicy] {
        guard !job.policies.isEmpty || !job.tiers.isEmpty else {
            throw .configuration(.noPolicies)
        }
        var seen = Set<String>()
        var policies: [RegisteredPolicy] = []
        for name in job.policies {
            guard seen.insert(name).inserted else { throw .configuration(.policyNamedTwice(name)) }
            do { policies.append(try job.registry.policy(named: name)) } catch { throw error.asRunError }
        }
        return policies
    }

    /// Gives each policy the options it declares; an option no selected policy declares is a
    /// mistake (a typo would otherwise be silently ignored).
    static func splitOptions(_ options: PolicyOptions, among policies: [RegisteredPolicy]) throws(CacheBenchError) -> [PolicyOptions] {
        for key in options.values.keys.sorted() {
            guard policies.contains(where: { $0.declares(option: key) }) else {
                throw .configuration(.optionTakenByNone(key, policies: policies.map(\.descriptor.name)))
            }
        }
        return policies.map { policy in PolicyOptions(options.values.filter { policy.declares(option: $0.key) }) }
    }

    /// Reads the trace once and feeds every batch to every lane, on up to `threads` threads.
    ///
    /// With two or more threads, decoding is pipelined: while the lanes process batch k, the
    /// thread of group 0 decodes batch k+1 into a second buffer, so decoding costs wall time only
    /// where it is the longest task.
    /// - Returns: the number of rows decoded.
    @discardableResult
    static func drive(_ lanes: [_Lane], _ opened: (reader: any TraceReader, source: ByteSource), threads: Int,
                      progress: ProgressReporter?) throws(TraceError) -> Int {
        guard !lanes.isEmpty else { return 0 }
        let (reader, source) = opened
        let decoder = _Decoder(reader)
        var current: [Request] = []
        current.reserveCapacity(1 << 14)
        guard try decoder.decode(into: &current) else { return 0 }
        var rows = current.count
        if threads <= 1 {
            repeat {
                for lane in lanes { lane.apply(current) }
                progress?.update(bytes: source.bytesRead, total: source.length, items: rows)
                guard try decoder.decode(into: &current) else { break }
                rows += current.count
            } while true
            return rows
        }
        var groups = _Groups(lanes: lanes, count: min(threads, lanes.count + 1))
        var batches = 0
        while true {
            let shared = _SharedBatch(current)
            let assignment = groups
            DispatchQueue.concurrentPerform(iterations: assignment.members.count) { g in
                if g == 0 { decoder.decodeAhead() }
                for lane in assignment.members[g] { lane.apply(shared.requests) }
            }
            batches += 1
            // Rebalance early (costs differ by policy and capacity), then now and then.
            if batches == 4 || batches % 64 == 0 { groups.rebalance(decodeNanoseconds: decoder.nanoseconds) }
            progress?.update(bytes: source.bytesRead, total: source.length, items: rows)
            guard try decoder.takeAhead(into: &current) else { break }
            rows += current.count
        }
        return rows
    }
}

/// The trace reader with a second buffer, so the next batch can be decoded on a worker thread
/// while the lanes read the current one.
///
/// Only the thread running group 0 calls ``decodeAhead()`` during a batch, and the caller reads
/// the result after `concurrentPerform` returns; hence `@unchecked Sendable`.
final class _Decoder: @unchecked Sendable {
    private var reader: any TraceReader
    private var ahead: [Request] = []
    private var aheadResult: Result<Bool, TraceError> = .success(false)
    /// Time spent decoding ahead, which group 0 carries when balancing.
    private(set) var nanoseconds: UInt64 = 0

    init(_ reader: any TraceReader) {
        self.reader = reader
        ahead.reserveCapacity(1 << 14)
    }

    func decode(into batch: inout [Request]) throws(TraceError) -> Bool {
        try reader.nextBatch(&batch)
    }

    func decodeAhead() {
        let start = monotonicNanoseconds()
        do { aheadResult = .success(try reader.nextBatch(&ahead)) } catch { aheadResult = .failure(error) }
        nanoseconds &+= monotonicNanoseconds() &- start
    }

    /// Swaps the batch decoded ahead into `batch`; `false` at the end of the trace.
    func takeAhead(into batch: inout [Request]) throws(TraceError) -> Bool {
        guard try aheadResult.get() else { return false }
        swap(&batch, &ahead)
        return true
    }
}

/// One independent consumer of the request stream, with the time spent in it.
///
/// Lanes are shared with worker threads: during a batch each lane is touched by exactly one
/// thread (its group's), and `concurrentPerform` returns only when every group has finished,
/// which orders those accesses; hence `@unchecked Sendable`.
final class _Lane: @unchecked Sendable {
    let run: PolicyRun?
    private let body: ([Request]) -> Void
    var nanoseconds: UInt64 = 0

    init(_ run: PolicyRun) {
        self.run = run
        body = run.apply
    }

    init(apply: @escaping ([Request]) -> Void) {
        run = nil
        body = apply
    }

    @inline(__always)
    func apply(_ batch: [Request]) {
        let start = monotonicNanoseconds()
        body(batch)
        nanoseconds &+= monotonicNanoseconds() &- start
    }
}

/// A decoded batch read by several threads at once, never written while they run.
struct _SharedBatch: @unchecked Sendable {
    let requests: [Request]
    init(_ requests: [Request]) { self.requests = requests }
}

/// The lanes split into groups, one per thread, balanced by measured time.
struct _Groups: @unchecked Sendable {
    let lanes: [_Lane]
    var members: [[_Lane]]

    /// Deals the lanes round-robin, starting after group 0, which also decodes.
    init(lanes: [_Lane], count: Int) {
        self.lanes = lanes
        members = Array(repeating: [], count: max(1, count))
        for (i, lane) in lanes.enumerated() { members[(i + 1) % members.count].append(lane) }
    }

    /// Longest-processing-time-first: the costliest lane goes to the least-loaded group. Group 0
    /// runs on the decoding thread, so it starts with the decoding time.
    mutating func rebalance(decodeNanoseconds: UInt64) {
        var loads = Array(repeating: UInt64(0), count: members.count)
        loads[0] = decodeNanoseconds
        var newMembers: [[_Lane]] = Array(repeating: [], count: members.count)
        for lane in lanes.sorted(by: { $0.nanoseconds > $1.nanoseconds }) {
            var least = 0
            for g in loads.indices where loads[g] < loads[least] { least = g }
            newMembers[least].append(lane)
            loads[least] &+= lane.nanoseconds
        }
        members = newMembers
    }
}

final class _ProfilerBox {
    var profiler: LRUStackProfiler
    init(_ profiler: LRUStackProfiler) { self.profiler = profiler }
}
