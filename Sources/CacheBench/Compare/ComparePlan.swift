import EvictionPolicies

/// What a comparison runs, settled before the trace is read: the policies with the options each
/// declares, one entry per (policy, capacity) and per (tier pair, capacity), the disk tiers'
/// capacities, and which entries one stack-distance pass serves instead of simulation.
struct _ComparePlan {
    /// One planned run: a policy (or tier pair) by index, and its capacity with where it came from.
    struct Entry {
        var policy: Int
        var capacity: Int?
        var source: CapacitySource
    }

    let job: CompareJob
    let policies: [RegisteredPolicy]
    /// The options each policy declares, by policy index.
    let options: [PolicyOptions]
    let tierPolicies: [(memory: RegisteredPolicy, disk: RegisteredPolicy)]
    /// The options each memory tier declares, by tier index.
    let tierOptions: [PolicyOptions]
    private(set) var entries: [Entry]
    private(set) var tierEntries: [Entry]
    let diskCapacities: [(Int?, CapacitySource)]
    /// The policy whose entries the stack-distance pass serves, when that can be exact.
    private(set) var profiledPolicy: Int?
    /// Its capacities: empty when there is no pass.
    private(set) var profiledCapacities: [Int]
    /// The trace's working set, measured once when a capacity or the memory budget needs it.
    let workingSet: _WorkingSetOnce
    /// Each entry's window (its own sampling ratio), and the stream's: the largest sample any entry needs.
    private(set) var entryWindows: [RequestWindow]
    private(set) var streamWindow: RequestWindow
    /// What the user should know about the plan itself (e.g. policies a count limit does not reach).
    let notes: [String]

    /// Plans `job`: resolves its policies, splits its options, settles every capacity.
    init(_ job: CompareJob, progress: ProgressReporter?) throws(CacheBenchError) {
        self.job = job
        policies = try Self.resolvePolicies(job)
        if !job.window.isWholeTrace && !job.tiers.isEmpty { throw .configuration(.windowWithTier) }
        if job.admission != nil && !job.tiers.isEmpty { throw .configuration(.admissionWithTierOrThreads) }
        if job.memoryWarning != nil && (!job.tiers.isEmpty || job.admission != nil) {
            throw .configuration(.memoryWarningOverrideUnsupported)
        }
        var tierPolicies: [(memory: RegisteredPolicy, disk: RegisteredPolicy)] = []
        for pair in job.tiers { tierPolicies.append(try Replay.tierPolicies(pair, in: job.registry)) }
        self.tierPolicies = tierPolicies
        // An option reaches the policies and the memory tiers that declare it; the disk tiers have their own.
        let allOptions = try Self.splitOptions(job.options, among: policies + tierPolicies.map(\.memory))
        options = Array(allOptions.prefix(policies.count))
        tierOptions = Array(allOptions.dropFirst(policies.count))
        if job.countLimit != nil && !(policies + tierPolicies.map(\.memory)).contains(where: { $0.descriptor.supportsCountLimit }) {
            throw .configuration(.countLimitTakenByNone)
        }
        // A count limit goes to the policies that have one; the others run without, and say so.
        let withoutCountLimit = (policies + tierPolicies.map(\.memory)).map(\.descriptor).filter { !$0.supportsCountLimit }.map(\.name)
        var notes: [String] = []
        if let countLimit = job.countLimit, !withoutCountLimit.isEmpty {
            notes.append("\(withoutCountLimit.joined(separator: ", ")): no count limit, so the limit of \(countLimit) objects does not apply (countLimit null in the results)")
        }
        let workingSet = _WorkingSetOnce(job.trace, ignoreSize: job.ignoreSize, maxRows: job.window.maxRequests, progress: progress,
                                         measured: job.measuredWorkingSet)
        self.workingSet = workingSet
        func defaultCapacity(_ descriptor: PolicyDescriptor) throws(CacheBenchError) -> (Int?, CapacitySource) {
            try Replay.defaultCapacity(for: descriptor, countLimit: job.countLimit, ignoreSize: job.ignoreSize,
                                       workingSet: workingSet.measure)
        }

        var entries: [Entry] = [], tierEntries: [Entry] = []
        if let list = job.capacities {
            let total = list.needsWorkingSet ? try workingSet.measure().total(ignoreSize: job.ignoreSize) : nil
            // Each capacity says where it came from: a size given, or a fraction of the working set.
            let capacities = list.resolveWithOrigins(workingSet: total).map { resolved in
                (capacity: resolved.capacity, source: resolved.isFraction ? CapacitySource.workingSetFraction : .option)
            }
            // CapacityList.parse never yields these, but a list built in code can.
            if let bad = capacities.first(where: { $0.capacity <= 0 }) { throw .configuration(.capacityNotPositive(bad.capacity)) }
            if capacities.count < list.items.count {
                notes.append("\(list.items.count) capacities were given and \(capacities.count) sizes are run: capacities that resolve to one size (1MiB and 1048576, or two fractions of a small working set) are reported once")
            }
            for index in policies.indices {
                for (capacity, source) in capacities { entries.append(Entry(policy: index, capacity: capacity, source: source)) }
            }
            for index in job.tiers.indices {
                for (capacity, source) in capacities { tierEntries.append(Entry(policy: index, capacity: capacity, source: source)) }
            }
        } else {
            for (index, policy) in policies.enumerated() {
                let (capacity, source) = try defaultCapacity(policy.descriptor)
                entries.append(Entry(policy: index, capacity: capacity, source: source))
            }
            for (index, pair) in tierPolicies.enumerated() {
                let (capacity, source) = try defaultCapacity(pair.memory.descriptor)
                tierEntries.append(Entry(policy: index, capacity: capacity, source: source))
            }
        }
        self.entries = entries
        self.notes = notes
        self.tierEntries = tierEntries
        var diskCapacities: [(Int?, CapacitySource)] = []
        for (index, pair) in job.tiers.enumerated() {
            if let capacity = pair.tier.diskCapacity {
                diskCapacities.append((capacity, .option))
            } else if let fraction = pair.tier.diskCapacityFraction {
                let total = try workingSet.measure().total(ignoreSize: job.ignoreSize)
                diskCapacities.append((CapacityList([fraction]).resolve(workingSet: total).first ?? 1, .workingSetFraction))
            } else {
                diskCapacities.append(try defaultCapacity(tierPolicies[index].disk.descriptor))
            }
        }
        self.diskCapacities = diskCapacities

        // A policy that evicts as LRU at two or more capacities: one stack-distance pass, when
        // exact. Not when options reach it: they may change its rule, which only its runs apply.
        let (plannedPolicies, plannedOptions) = (policies, options)
        let candidate = plannedPolicies.indices.first { plannedPolicies[$0].descriptor.evictsAsLRU && plannedOptions[$0].values.isEmpty }
        var profiled: [Int] = []
        // A window's cuts need per-run counters, which the one-pass profile does not keep.
        if job.lruStackDistance, job.admission == nil, job.memoryWarning == nil, let candidate, job.countLimit == nil, job.window.isWholeTrace {
            profiled = entries.filter { $0.policy == candidate }.compactMap(\.capacity)
            if profiled.count < 2 { profiled = [] }
        }
        profiledPolicy = profiled.isEmpty ? nil : candidate
        profiledCapacities = profiled
        let entryWindows = entries.map { job.window.forCapacity($0.capacity, minimumScaled: job.minimumScaledCapacity) }
        self.entryWindows = entryWindows
        streamWindow = job.window.covering(entryWindows)
    }

    /// The entries simulated on the first read: all but those the stack-distance pass serves.
    var simulatedEntries: [Int] { entries.indices.filter { entries[$0].policy != profiledPolicy } }

    /// The count limit a policy receives: the job's, when the policy has one.
    func countLimit(for descriptor: PolicyDescriptor) -> Int? {
        descriptor.supportsCountLimit ? job.countLimit : nil
    }

    /// Takes out the entries whose policy refuses their limits (LIRS below 3 objects, a sampled
    /// capacity scaled below a policy's minimum), so that one impossible cell does not stop the
    /// others, and returns why each was refused, in plan order. Each is tried by making its empty
    /// policy, as its run would be made; so are the stack-distance pass's, whose profile would
    /// otherwise report a capacity the policy never accepts. When every run is refused, throws
    /// the first refusal, as a single run would; any other error (an option the policy refuses)
    /// is thrown.
    mutating func dropRefusedEntries() throws(CacheBenchError) -> [CompareRefusal] {
        var refusals: [CompareRefusal] = []
        var firstRefusal: CacheBenchError?
        // Whether `make` succeeds; a refusal of the limits is recorded under `name`, any other
        // error thrown.
        func runs(_ entry: Entry, named name: String, countLimit: Int?, _ make: () throws(CacheBenchError) -> Void) throws(CacheBenchError) -> Bool {
            do throws(CacheBenchError) {
                try make()
                return true
            } catch {
                guard case .configuration(let refusal) = error, refusal.isLimitRefusal else { throw error }
                firstRefusal = firstRefusal ?? error
                // The refusal names its policy already.
                var reason = refusal
                if case .inPolicy(_, let inner) = refusal { reason = inner }
                refusals.append(CompareRefusal(policy: name, capacity: entry.capacity, capacitySource: entry.source,
                                               countLimit: countLimit, ignoreSize: job.ignoreSize, reason: reason.description))
                return false
            }
        }
        var kept: [Int] = []
        for i in entries.indices {
            let descriptor = policies[entries[i].policy].descriptor
            if try runs(entries[i], named: descriptor.name, countLimit: countLimit(for: descriptor), { () throws(CacheBenchError) in _ = try makeRun(i) }) {
                kept.append(i)
            }
        }
        // A tier pair whose memory tier refuses a capacity is left out the same way.
        var keptTiers: [Entry] = []
        for entry in tierEntries {
            let memory = tierPolicies[entry.policy].memory.descriptor
            let name = TierPair(memory: memory.name, tier: job.tiers[entry.policy].tier).name
            if try runs(entry, named: name, countLimit: countLimit(for: memory), { () throws(CacheBenchError) in _ = try makeTierRun(entry) }) {
                keptTiers.append(entry)
            }
        }
        tierEntries = keptTiers
        if kept.isEmpty && tierEntries.isEmpty, let firstRefusal { throw firstRefusal }
        if kept.count < entries.count {
            entries = kept.map { entries[$0] }
            entryWindows = kept.map { entryWindows[$0] }
            streamWindow = job.window.covering(entryWindows)
            if let profiled = profiledPolicy {
                // As planned: one pass for two capacities or more, simulation for one.
                profiledCapacities = entries.filter { $0.policy == profiled }.compactMap(\.capacity)
                if profiledCapacities.count < 2 { (profiledPolicy, profiledCapacities) = (nil, []) }
            }
        }
        return refusals
    }

    /// A new, empty run of entry `i`'s policy, with the entry's limits scaled to its sample.
    func makeRun(_ i: Int) throws(CacheBenchError) -> PolicyRun {
        let entry = entries[i]
        let policy = policies[entry.policy]
        let window = entryWindows[i]
        // A sampled run simulates a miniature cache: its limits scale with its sampling ratio.
        let limits = CacheLimits(capacity: entry.capacity.map(window.scaled),
                                 countLimit: countLimit(for: policy.descriptor).map(window.scaled))
        do {
            return try policy.makeRun(limits: limits, options: window.scaled(options[entry.policy], for: policy.descriptor),
                                      ignoreSize: job.ignoreSize, admission: job.admission)
        } catch {
            let refusal = error.asRunError(given: CacheLimits(capacity: entry.capacity, countLimit: countLimit(for: policy.descriptor)),
                                           givenOptions: options[entry.policy], window: window)
            // Among several policies, say whose refusal it is, unless it says so already.
            guard policies.count > 1, case .configuration(let inner) = refusal else { throw refusal }
            if case .policy(let error) = inner, error.namesItsPolicy { throw refusal }
            throw .configuration(.inPolicy(policy.descriptor.name, inner))
        }
    }

    /// A new, empty run for entry `i`.
    func makeLane(_ i: Int) throws(CacheBenchError) -> _Lane {
        let run = try makeRun(i)
        let window = entryWindows[i]
        if let memoryWarning = job.memoryWarning {
            guard let override = run.overrideMemoryWarnings else { throw .configuration(.memoryWarningOverrideUnsupported) }
            override(memoryWarning)
        }
        let lane = _Lane(run)
        lane.subsample = window.nestedFilter(within: streamWindow)
        lane.window = window
        return lane
    }

    /// A new, empty tiered run for each tier entry.
    func makeTierRuns() throws(CacheBenchError) -> [(run: TieredRun, lane: _Lane)] {
        var runs: [(run: TieredRun, lane: _Lane)] = []
        for entry in tierEntries {
            let run = try makeTierRun(entry)
            runs.append((run, _Lane(apply: run.apply)))
        }
        return runs
    }

    /// A new, empty tiered run of tier entry `entry`.
    func makeTierRun(_ entry: Entry) throws(CacheBenchError) -> TieredRun {
        let (memory, disk) = tierPolicies[entry.policy]
        return try Replay.makeTieredRun(
            memory: memory, disk: disk, tier: job.tiers[entry.policy].tier,
            memoryLimits: CacheLimits(capacity: entry.capacity, countLimit: countLimit(for: memory.descriptor)),
            diskCapacity: diskCapacities[entry.policy].0, options: tierOptions[entry.policy], ignoreSize: job.ignoreSize)
    }

    /// Opens the trace for `lanes`, through the job's window, each lane metering its own cuts;
    /// offline policies need each request's next access, and one annotated stream serves every run.
    /// On the read that counts the job's key census, also the lane that counts it, to drive with `lanes`.
    func open(_ lanes: [_Lane]) throws(CacheBenchError) -> (reader: any TraceReader, source: ByteSource, census: _Lane?) {
        let future = policies.first { $0.descriptor.needsFuture }
        let opened = try Replay.openReader(needsFuture: future != nil, job.trace, policy: future?.descriptor.name ?? "",
                                           maxRequests: job.window.maxRequests)
        guard !job.window.isWholeTrace else { return (opened.reader, opened.source, nil) }
        let feed = job.keyCensus?.claim(covering: streamWindow).map(_CensusFeed.init)
        let stream = _WindowedStream(opened.reader, window: streamWindow, census: feed)
        for lane in lanes {
            lane.stream = stream
            lane.meter = stream.meter(streamWindow)
        }
        return (stream.reader, opened.source, feed?.makeLane())
    }

    /// Splits `indices` (of entries) into waves whose runs fit the memory budget together;
    /// `extra` runs of unbounded size join the first wave.
    func waves(_ indices: [Int], extra: Int) throws(CacheBenchError) -> [[Int]] {
        // A small grid is not worth a pass to measure, unless the user set a budget.
        guard job.memoryBudget != nil || indices.count + extra >= _MemoryBudget.gridWorthMeasuring else { return [indices] }
        let budget = _MemoryBudget(limit: job.memoryBudget ?? _MemoryBudget.defaultLimit,
                                   workingSet: try workingSet.measure(), ignoreSize: job.ignoreSize)
        let (waves, estimate) = budget.pack(indices.map { entries[$0].capacity }, extra: extra)
        if waves.count > 1 {
            job.noteHandler?("compare: the \(indices.count + extra) runs need about \(SizeFormat.describe(estimate, objects: false)) of memory, more than the budget of \(SizeFormat.describe(budget.limit, objects: false)); running them in \(waves.count) waves, one read of the trace each")
        }
        return waves.map { $0.map { indices[$0] } }
    }

    /// The policies named in `job`, each once.
    static func resolvePolicies(_ job: CompareJob) throws(CacheBenchError) -> [RegisteredPolicy] {
        guard !job.policies.isEmpty || !job.tiers.isEmpty else { throw .configuration(.noPolicies) }
        var seen = Set<String>()
        var policies: [RegisteredPolicy] = []
        for name in job.policies {
            let policy: RegisteredPolicy
            do { policy = try job.registry.policy(named: name) } catch { throw error.asRunError }
            // By the policy named, not the spelling: `fifo,FIFO` and `2q,twoq` are one policy twice.
            guard seen.insert(policy.descriptor.name).inserted else { throw .configuration(.policyNamedTwice(name)) }
            policies.append(policy)
        }
        return policies
    }

    /// Gives each policy the options it declares; an option no selected policy declares is a
    /// mistake (a typo would otherwise be silently ignored).
    static func splitOptions(_ options: PolicyOptions, among policies: [RegisteredPolicy]) throws(CacheBenchError) -> [PolicyOptions] {
        for key in options.values.keys.sorted() where !policies.contains(where: { $0.declares(option: key) }) {
            throw .configuration(.optionTakenByNone(key, policies: policies.map(\.descriptor.name)))
        }
        return policies.map { policy in PolicyOptions(options.values.filter { policy.declares(option: $0.key) }) }
    }
}

/// A trace's working set, measured by a first pass the first time it is asked for.
final class _WorkingSetOnce {
    private let trace: TraceSpec
    private let ignoreSize: Bool
    /// The rows the run reads (its window's cap), which are all the working set can hold.
    private let maxRows: Int?
    private let progress: ProgressReporter?
    private(set) var measured: WorkingSet?

    init(_ trace: TraceSpec, ignoreSize: Bool, maxRows: Int?, progress: ProgressReporter?, measured: WorkingSet? = nil) {
        self.trace = trace
        self.ignoreSize = ignoreSize
        self.maxRows = maxRows
        self.progress = progress
        self.measured = measured
    }

    func measure() throws(CacheBenchError) -> WorkingSet {
        if let measured { return measured }
        progress?.begin(phase: "working set")
        do {
            let workingSet = try WorkingSet.measure(trace, ignoreSize: ignoreSize, maxRows: maxRows)
            measured = workingSet
            return workingSet
        } catch { throw .trace(error) }
    }
}
