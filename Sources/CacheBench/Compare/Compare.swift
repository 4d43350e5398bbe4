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
    /// Compute a policy that evicts as LRU (``PolicyDescriptor/evictsAsLRU``, such as `lru`) at
    /// every capacity from one stack-distance pass when that is exact, instead of simulating each
    /// capacity. Turn it off to time LRU's real trim passes.
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
    /// Warm-up, cap, sampling and report intervals, applied to every run (``RequestWindow``);
    /// sampled runs get their capacities scaled by the ratio.
    public var window = RequestWindow()
    /// With a sampling ratio: the smallest capacity a run may be scaled to. A run whose capacity
    /// times the ratio falls below it samples more (a larger, nested sample) so its miniature
    /// cache keeps this size (``MiniatureSimulation``).
    public var minimumScaledCapacity: Int?
    /// The trace's working set when the caller has measured it already (for the same trace,
    /// `ignoreSize` and window), so the comparison does not read the trace again for it.
    public var measuredWorkingSet: WorkingSet?
    /// An admission rule in front of every policy (`--admission`), or `nil` to admit every miss.
    /// Each run starts from its own copy.
    public var admission: LibCacheSimAdmission<UInt64>?
    /// What a memory-warning row does after each policy's own reaction (``MemoryWarningOverride``);
    /// `nil`: the policy's reaction alone.
    public var memoryWarning: MemoryWarningOverride?
    /// Counts every key's requests while the trace is read (with a sampling window), for
    /// ``MiniatureSimulation``'s control variate.
    var keyCensus: _KeyCensus?

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
    /// Things the user should know (e.g. why LRU was simulated rather than profiled, or which
    /// runs a policy refused).
    public var notes: [String]
    /// The (policy, capacity) runs left out because the policy refuses their limits, each also
    /// named in ``notes``.
    public var refusals: [CompareRefusal] = []

    /// The contract's `compare --format json` object: `trace` and `results` (each a `replay`
    /// object), plus `wallSeconds`, `notes` and `refusals` (the runs left out, each with its
    /// policy, capacity, count limit, mode and reason).
    public var json: JSONValue {
        .object([
            ("trace", .string(trace)),
            ("results", .array(results.map(\.json))),
            ("wallSeconds", .double(wallSeconds)),
            ("notes", .array(notes.map { .string($0) })),
            ("refusals", .array(refusals.map(\.json))),
        ])
    }
}

/// A (policy, capacity) run a comparison left out because the policy refuses its limits (LIRS
/// below 3 objects, for one): the comparison reports the other runs, with a note for this one.
public struct CompareRefusal: Sendable, Equatable {
    /// The policy's name.
    public var policy: String
    /// The capacity it was asked to run at (bytes, or objects when sizes are ignored).
    public var capacity: Int?
    /// Where that capacity came from.
    public var capacitySource: CapacitySource
    /// The count limit it was asked to run with (`nil` when none reaches the policy).
    public var countLimit: Int?
    /// Whether sizes were ignored (the capacity counts objects).
    public var ignoreSize: Bool
    /// Why the policy refused it.
    public var reason: String

    /// The contract's object for one refusal in `compare --format json`'s `refusals`.
    public var json: JSONValue {
        .object([
            ("policy", .string(policy)),
            ("capacity", capacity.map { .int($0) } ?? .null),
            ("capacitySource", .string(capacitySource.rawValue)),
            ("countLimit", countLimit.map { .int($0) } ?? .null),
            ("ignoreSize", .bool(ignoreSize)),
            ("reason", .string(reason)),
        ])
    }

    /// The note that names the refusal.
    public var note: String {
        "\(policy) at capacity \(capacity.map(String.init) ?? "none"): not run, the policy refuses it (\(reason))"
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
    /// included). A policy that evicts as LRU (``PolicyDescriptor/evictsAsLRU``) at two or more
    /// capacities comes from ``LRUStackProfiler`` when that is exact (see there), otherwise from
    /// simulation.
    ///
    /// The work is planned (``_ComparePlan``: policies, options, capacities, waves), then each
    /// read of the trace makes its lanes, drives them (``drive(_:_:threads:progress:)``) and
    /// collects their results (``_CompareResults``).
    ///
    /// - Throws: ``CacheBenchError`` with the contract's exit code.
    public static func run(_ job: CompareJob, progress: ProgressReporter? = nil) throws(CacheBenchError) -> CompareResult {
        let started = monotonicNanoseconds()
        var plan = try _ComparePlan(job, progress: progress)
        let refusals = try plan.dropRefusedEntries()
        var results = _CompareResults(plan)
        results.notes += refusals.map(\.note)
        try runFirstRead(plan, into: &results, progress: progress)
        progress?.finish()
        var result = CompareResult(trace: job.trace.path, results: results.inPlanOrder(), workingSet: plan.workingSet.measured,
                                   wallSeconds: Double(monotonicNanoseconds() - started) / 1e9, notes: results.notes)
        result.refusals = refusals
        return result
    }

    /// Lanes, drive, collect: makes the first wave's runs, the tiered runs and the stack-distance
    /// pass, drives them all with one read of the trace and collects them; then runs the other
    /// waves, and the profiled policy per capacity if its pass could not be exact.
    private static func runFirstRead(_ plan: _ComparePlan, into results: inout _CompareResults,
                                     progress: ProgressReporter?) throws(CacheBenchError) {
        let simulatedWaves = try plan.waves(plan.simulatedEntries, extra: plan.tierEntries.count)
        let firstWave = simulatedWaves.first ?? []
        var lanes: [_Lane] = []
        for i in firstWave { lanes.append(try plan.makeLane(i)) }
        let tierRuns = try plan.makeTierRuns()
        let profiler = plan.profiledCapacities.isEmpty
            ? nil : _ProfilerBox(LRUStackProfiler(capacities: plan.profiledCapacities, ignoreSize: plan.job.ignoreSize))
        let profilerLane = profiler.map { box in _Lane(apply: { box.profiler.apply($0) }) }

        progress?.begin(phase: "replay")
        let rows: Int
        let opened = try plan.open(lanes)
        do {
            rows = try drive(lanes + tierRuns.map(\.lane) + [profilerLane, opened.census].compactMap { $0 },
                             (opened.reader, opened.source),
                             threads: plan.job.threads, progress: progress)
        } catch { throw .trace(error) }
        // As replay: a trace with no rows is almost always a mistake, not a result of zeros.
        if rows == 0 {
            progress?.finish()
            throw .trace(plan.job.window.emptyStreamError(file: plan.job.trace.path))
        }
        results.collect(firstWave, lanes)
        lanes = []
        for wave in simulatedWaves.dropFirst() { try runWave(wave, plan, into: &results, progress: progress) }
        for (entry, tiered) in zip(plan.tierEntries, tierRuns) {
            tiered.run.finish()
            results.collectTiered(entry, tiered.run, seconds: Double(tiered.lane.nanoseconds) / 1e9)
        }

        guard let profiler, let profilerLane, let profiled = plan.profiledPolicy else { return }
        if let reason = profiler.profiler.abandonReason {
            // The stack pass could not be exact: simulate the policy per capacity on a second pass.
            let name = plan.policies[profiled].descriptor.name
            results.notes.append("\(name): simulated per capacity on a second pass; the one-pass stack-distance profile is not exact here (\(reason))")
            progress?.begin(phase: name)
            for wave in try plan.waves(plan.entries.indices.filter { plan.entries[$0].policy == profiled }, extra: 0) {
                try runWave(wave, plan, into: &results, progress: progress)
            }
        } else {
            // The one pass serves every capacity; each is charged an equal share of its time.
            let share = Double(profilerLane.nanoseconds / UInt64(max(1, plan.profiledCapacities.count))) / 1e9
            results.collectProfiled(profiler.profiler.counters(), seconds: share)
        }
    }

    /// Makes a wave's runs, drives them with one more read of the trace and collects them.
    private static func runWave(_ wave: [Int], _ plan: _ComparePlan, into results: inout _CompareResults,
                                progress: ProgressReporter?) throws(CacheBenchError) {
        var lanes: [_Lane] = []
        for i in wave { lanes.append(try plan.makeLane(i)) }
        let opened = try plan.open(lanes)
        do { _ = try drive(lanes + [opened.census].compactMap { $0 }, (opened.reader, opened.source),
                           threads: plan.job.threads, progress: progress) }
        catch { throw .trace(error) }
        results.collect(wave, lanes)
    }

    /// Reads the trace once and feeds every batch to every lane, on up to `threads` threads.
    ///
    /// With two or more threads, decoding is pipelined: while the lanes process batch k, the
    /// thread of the last group (a worker) decodes batch k+1 into a second buffer, so decoding
    /// costs wall time only where it is the longest task. The lanes start on the calling thread
    /// because it never sleeps between batches: when decoding is the shorter task the next batch
    /// is ready when the lanes finish. Lanes on a worker had to wake it at the start of every
    /// batch and wake the caller at its end, two wake-ups per batch in the replay's own time.
    /// Before each batch, and once after the last, the lanes fed by the reader take what it
    /// handed over (``_Lane/handOver``).
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
        let fed = lanes.filter { $0.handOver != nil }
        // The reader's last rows, gathered on a read that ended the trace, are handed over and taken at the end.
        defer { for lane in fed { lane.takeLastHandOver() } }
        if threads <= 1 {
            repeat {
                for lane in fed { lane.handOver?() }
                for lane in lanes { lane.apply(current) }
                progress?.update(bytes: source.bytesRead, total: source.length, items: rows)
                guard try decoder.decode(into: &current) else { break }
                rows += current.count
            } while true
            return rows
        }
        var groups = _Groups(lanes: lanes, count: min(threads, lanes.count + 1))
        let workers = _GroupThreads(count: groups.members.count)
        defer { workers.stop() }
        var batches = 0
        while true {
            let shared = _SharedBatch(current)
            for lane in fed { lane.handOver?() }
            let assignment = groups
            workers.run { g in
                if g == assignment.decodingGroup { decoder.decodeAhead() }
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
/// Only the thread running the decoding group calls ``decodeAhead()`` during a batch, and the caller reads
/// the result after ``_GroupThreads/run(_:)`` returns; hence `@unchecked Sendable`.
final class _Decoder: @unchecked Sendable {
    private var reader: any TraceReader
    private var ahead: [Request] = []
    private var aheadResult: Result<Bool, TraceError> = .success(false)
    /// Time spent decoding ahead, which the decoding group carries when balancing.
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
/// thread (its group's), and ``_GroupThreads/run(_:)`` returns only when every group has finished,
/// which orders those accesses; hence `@unchecked Sendable`.
final class _Lane: @unchecked Sendable {
    let run: PolicyRun?
    private let body: ([Request]) -> Void
    var nanoseconds: UInt64 = 0
    /// The windowed stream the lane reads and its cuts, when the job has a window.
    var stream: _WindowedStream?
    var meter: WindowMeter?
    /// The run's own window, and the filter of its nested sample when it samples less than the stream.
    var window = RequestWindow()
    var subsample: _NestedSample?
    /// For a lane fed by the reader beside the batch (the key census's rows): called by the
    /// driver between batches, when no thread runs, to take what the reader gathered.
    let handOver: (() -> Void)?

    init(_ run: PolicyRun) {
        self.run = run
        body = run.apply
        handOver = nil
    }

    init(apply: @escaping ([Request]) -> Void) {
        run = nil
        body = apply
        handOver = nil
    }

    /// A lane that works on what the reader hands over between batches (its `apply` ignores the batch).
    init(handOver: @escaping () -> Void, apply: @escaping ([Request]) -> Void) {
        run = nil
        body = apply
        self.handOver = handOver
    }

    /// After the last batch: takes and works on what the reader handed over since the last batch.
    func takeLastHandOver() {
        handOver?()
        apply([])
    }

    @inline(__always)
    func apply(_ batch: [Request]) {
        let start = monotonicNanoseconds()
        // The meter cuts at positions of the stream, so a nested sample is filtered after the cut.
        if let meter, let run {
            if let subsample { meter.apply(batch, { body(subsample.filter($0)) }, counters: run.counters) }
            else { meter.apply(batch, body, counters: run.counters) }
        } else if let subsample { body(subsample.filter(batch)) } else { body(batch) }
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

    /// The group whose thread also decodes: the last, a worker's (see ``Compare/drive(_:_:threads:progress:)``).
    var decodingGroup: Int { members.count - 1 }

    /// Deals the lanes round-robin from group 0, so that the decoding group gets the fewest.
    init(lanes: [_Lane], count: Int) {
        self.lanes = lanes
        members = Array(repeating: [], count: max(1, count))
        for (i, lane) in lanes.enumerated() { members[i % members.count].append(lane) }
    }

    /// Longest-processing-time-first: the costliest lane goes to the least-loaded group. The
    /// decoding group starts with the decoding time.
    mutating func rebalance(decodeNanoseconds: UInt64) {
        var loads = Array(repeating: UInt64(0), count: members.count)
        loads[decodingGroup] = decodeNanoseconds
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

/// The results of a comparison as its runs finish, releasing each run once collected.
struct _CompareResults {
    private let plan: _ComparePlan
    private var ofEntry: [ReplayResult?]
    private var tiered: [ReplayResult] = []
    /// Things the user should know (e.g. why a policy was simulated rather than profiled).
    var notes: [String] = []

    init(_ plan: _ComparePlan) {
        self.plan = plan
        ofEntry = Array(repeating: nil, count: plan.entries.count)
        notes = plan.notes
    }

    /// Collects the simulated runs of `wave` (entry indices), driven in `lanes`.
    mutating func collect(_ wave: [Int], _ lanes: [_Lane]) {
        for (i, lane) in zip(wave, lanes) {
            guard let run = lane.run else { continue }
            let entry = plan.entries[i]
            let descriptor = plan.policies[entry.policy].descriptor
            let result = ReplayResult(lane: lane, run: run, policy: descriptor, trace: plan.job.trace.path,
                                      capacity: (entry.capacity, entry.source), countLimit: plan.countLimit(for: descriptor),
                                      ignoreSize: plan.job.ignoreSize, seconds: Double(lane.nanoseconds) / 1e9)
            notes += result.warnings
            ofEntry[i] = result
        }
    }

    /// Collects the profiled policy's counts at each of its capacities from the stack-distance pass.
    mutating func collectProfiled(_ counts: [(capacity: Int, counters: ReplayCounters, trimPasses: Int)], seconds: Double) {
        for (i, entry) in plan.entries.enumerated() where entry.policy == plan.profiledPolicy {
            guard let capacity = entry.capacity, let count = counts.first(where: { $0.capacity == capacity }) else { continue }
            ofEntry[i] = ReplayResult(profiled: count.counters, trimPasses: count.trimPasses,
                                      policy: plan.policies[entry.policy].descriptor, trace: plan.job.trace.path,
                                      capacity: (capacity, entry.source), ignoreSize: plan.job.ignoreSize, seconds: seconds)
        }
    }

    /// Collects a finished tiered run.
    mutating func collectTiered(_ entry: _ComparePlan.Entry, _ run: TieredRun, seconds: Double) {
        let (memory, disk) = plan.tierPolicies[entry.policy]
        tiered.append(ReplayResult(
            tiered: run, memory: memory.descriptor, disk: disk.descriptor, tier: plan.job.tiers[entry.policy].tier,
            trace: plan.job.trace.path, memoryCapacity: (entry.capacity, entry.source),
            memoryCountLimit: plan.countLimit(for: memory.descriptor), diskCapacity: plan.diskCapacities[entry.policy],
            ignoreSize: plan.job.ignoreSize, seconds: seconds))
    }

    /// Every result: the policies' in plan order, then the tier pairs'.
    func inPlanOrder() -> [ReplayResult] { ofEntry.compactMap { $0 } + tiered }
}

final class _ProfilerBox {
    var profiler: LRUStackProfiler
    init(_ profiler: LRUStackProfiler) { self.profiler = profiler }
}
