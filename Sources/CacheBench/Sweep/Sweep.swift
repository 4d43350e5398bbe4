import EvictionPolicies
import Foundation

/// Runs a shard of a sweep (`cachebench sweep`).
public enum Sweep {
    /// What one run of a shard did.
    public struct Summary: Sendable, Equatable {
        /// Traces this shard holds.
        public var traces = 0
        /// Traces replayed in this run (the others were fully recorded already).
        public var tracesRun = 0
        /// Cells recorded by this run.
        public var cellsRun = 0
        /// Cells found already recorded (by an earlier run, of any shard) and skipped.
        public var cellsSkipped = 0
        /// Of ``cellsSkipped``, those recorded by another build of the program
        /// (``ToolVersion/build``): kept, not rerun, though a policy's code may have changed since.
        public var cellsOfOtherBuilds = 0
        /// Wall-clock seconds.
        public var seconds = 0.0
    }

    /// Checks what can be checked before any trace is read: every policy exists, each option is
    /// declared by a policy that takes it, a count limit has a policy to apply to, the admission
    /// rule can be made.
    ///
    /// - Parameter registry: where the policies are looked up.
    /// - Throws: ``CacheBenchError/sweep(_:)``, or ``CacheBenchError/configuration(_:)`` for an unknown policy.
    public static func validate(_ spec: SweepSpec, registry: PolicyRegistry = .standard) throws(CacheBenchError) {
        guard !spec.traces.isEmpty else { throw .sweep(.noTraces) }
        guard !spec.policies.isEmpty else { throw .sweep(.noPolicies) }
        guard !spec.capacities.isEmpty else { throw .sweep(.noCapacities) }
        var registered: [RegisteredPolicy] = []
        for name in spec.policies {
            // Names are case-insensitive and have aliases: `fifo,FIFO` or `2q,twoq` name one policy twice.
            let policy: RegisteredPolicy
            do { policy = try registry.policy(named: name) } catch { throw error.asRunError }
            guard !registered.contains(where: { $0.descriptor.name == policy.descriptor.name }) else { throw .sweep(.policyNamedTwice(name)) }
            registered.append(policy)
        }
        let descriptors = registered.map(\.descriptor)
        // Option names in any case and by alias (libCacheSim's), as compare takes them.
        for key in spec.options.values.keys.sorted() where !registered.contains(where: { $0.declares(option: key) }) {
            throw .sweep(.optionTakenByNone(key))
        }
        if spec.countLimit != nil && !descriptors.contains(where: \.supportsCountLimit) {
            throw .sweep(.countLimitTakenByNone)
        }
        // An option value a policy refuses would make every one of its cells a refusal, recorded
        // and exiting 0: found now, by making each policy that takes an option once, at 1 MiB (or
        // the sweep's largest absolute capacity, so a value that depends on the capacity is judged
        // at one the sweep runs). Only the options' verdict counts, not the limits'.
        let largest = spec.capacities.compactMap { item -> Int? in if case .size(let size) = item { return size }; return nil }.max()
        for name in spec.policies {
            guard let policy = try? registry.policy(named: name) else { continue }
            let options = PolicyOptions(spec.options.values.filter { policy.declares(option: $0.key) })
            guard !options.values.isEmpty else { continue }
            let limits = CacheLimits(capacity: max(largest ?? 0, 1 << 20), countLimit: nil)
            do { _ = try policy.makeRun(limits: limits, options: options, ignoreSize: spec.ignoreSize) } catch {
                switch error {
                case .invalidOption, .unknownOption, .missingOption: throw .sweep(.invalidOption(error, policy: policy.descriptor.name))
                default: break
                }
            }
        }
        if let admission = spec.admission {
            do { _ = try LibCacheSimAdmission<UInt64>(admission) } catch { throw .sweep(.admission(error)) }
        }
        var seen = Set<String>()
        // One file under two spellings (`Traces/a.csv`, `./Traces/a.csv`, a link) is one trace
        // named twice: refused, as a repeated path is. (A copy of its bytes is a trace of its own,
        // whose cells are recorded under its own path.)
        var files = Set<String>()
        for path in spec.traces {
            guard seen.insert(path).inserted else { throw .sweep(.traceNamedTwice(path)) }
            // stat(2), which follows a symbolic link to the file (FileManager's attributes are the link's own).
            var info = stat()
            if stat(path, &info) == 0, !files.insert("\(info.st_dev):\(info.st_ino)").inserted {
                throw .sweep(.traceNamedTwice(path))
            }
        }
    }

    /// Runs shard `shard` of `plan`, recording each cell in `directory`; cells already recorded
    /// there (by any earlier run of any shard) are skipped, so a killed task resumes.
    ///
    /// Each trace of the shard is read once for all its unrecorded cells, by ``Compare/run(_:progress:)``
    /// on `spec.threads` threads, and its cells are written as one record file the moment it
    /// finishes (see ``SweepRecordStore``). A trace's identity (a hash of its bytes) costs one
    /// more read; it makes each record name the content it was computed from.
    ///
    /// - Parameters:
    ///   - registry: where the policies are looked up.
    ///   - progress: called with one line per trace, for people.
    /// - Throws: ``CacheBenchError`` with the contract's exit code; the cells recorded before the
    ///   failure stay recorded. A trace that cannot be read or is malformed does not stop the
    ///   shard: its cells stay unrecorded (`merge` lists them as missing, a rerun retries them),
    ///   the shard's other traces run and are recorded, and then the first such error is thrown.
    public static func run(_ plan: SweepPlan, shard: SweepShard, directory: String, registry: PolicyRegistry = .standard,
                           progress: ((String) -> Void)? = nil) throws(CacheBenchError) -> Summary {
        let started = monotonicNanoseconds()
        let spec = plan.spec
        try validate(spec, registry: registry)
        let store = SweepRecordStore(directory: directory)
        try store.prepare(for: SweepManifest(spec))
        let contents = try store.read()
        let recorded = contents.recorded()
        let otherBuilds = contents.recordedByOtherBuilds(than: ToolVersion.build)
        let configurationKey = spec.configurationKey
        let mine = plan.traces(ofShard: shard.index)
        var summary = Summary()
        summary.traces = mine.count
        var badTrace: TraceError?
        var badTraces = 0
        for (position, traceIndex) in mine.enumerated() {
            let path = spec.traces[traceIndex]
            /// Notes a trace that cannot be read: the shard goes on, and ends with its error.
            func notRun(_ error: TraceError) {
                badTrace = badTrace ?? error
                badTraces += 1
                progress?("[\(position + 1)/\(mine.count)] \(path): not run: \(error)")
            }
            let identity: TraceIdentity
            do { identity = try TraceIdentity.of(path: path) } catch {
                notRun(error)
                continue
            }
            let cells = plan.cells(ofTrace: traceIndex)
            let keyed = cells.map { cell in
                let cellIdentity = cell.identity(trace: identity, configurationKey: configurationKey)
                return (cell, cellIdentity, SweepRecordStore.Contents.recordKey(identity: cellIdentity, trace: path))
            }
            let pending = keyed.filter { !recorded.contains($0.2) }.map { ($0.0, $0.1) }
            summary.cellsSkipped += cells.count - pending.count
            summary.cellsOfOtherBuilds += keyed.count { otherBuilds.contains($0.2) }
            guard !pending.isEmpty else {
                progress?("[\(position + 1)/\(mine.count)] \(path): all \(cells.count) cells already recorded")
                continue
            }
            let traceStarted = monotonicNanoseconds()
            let outcomes: [(result: ReplayResult?, refusal: String?)]
            do {
                outcomes = try replayIsolatingRefusals(pending.map(\.0), of: spec, trace: path, registry: registry)
            } catch .trace(let error) {
                notRun(error)
                continue
            }
            let records = zip(pending, outcomes).map { pair, outcome in
                SweepRecord(cell: pair.0, identity: pair.1, traceIdentity: identity, configurationKey: configurationKey,
                            shard: shard.description, result: outcome.result, refusal: outcome.refusal)
            }
            try store.write(records)
            summary.tracesRun += 1
            summary.cellsRun += records.count
            let seconds = Double(monotonicNanoseconds() - traceStarted) / 1e9
            progress?("[\(position + 1)/\(mine.count)] \(path): \(records.count) cells in \(_fixed(seconds, decimals: 2)) s")
        }
        if var badTrace {
            // The first one's error, naming how many more were not run: a rerun retries them all.
            if badTraces > 1 { badTrace.reason += " (and \(badTraces - 1) more of this shard's traces could not be run)" }
            throw .trace(badTrace)
        }
        summary.seconds = Double(monotonicNanoseconds() - started) / 1e9
        return summary
    }

    /// The outcome of each of `cells` (all of one trace): its result, or why its policy refused it.
    ///
    /// All the cells run in one `compare` (one read of the trace), which leaves out the cells whose
    /// policy refuses their limits (such as LIRS below 3 objects) and says why. When the compare
    /// itself is refused (every cell, or a configuration a policy refuses at any capacity), the
    /// policies run one by one, and a refusing policy capacity by capacity, so one impossible cell
    /// costs extra reads of this trace only and never stops the sweep.
    static func replayIsolatingRefusals(_ cells: [SweepCell], of spec: SweepSpec, trace path: String,
                                        registry: PolicyRegistry) throws(CacheBenchError) -> [(result: ReplayResult?, refusal: String?)] {
        do {
            return try replay(cells, of: spec, trace: path, registry: registry)
        } catch .configuration(let refusal) {
            let policies = spec.policies.filter { name in cells.contains { $0.policy == name } }
            guard policies.count > 1 || cells.count > 1 else { return [(nil, refusal.description)] }
            var outcomes: [SweepCell: (result: ReplayResult?, refusal: String?)] = [:]
            let groups = policies.count > 1 ? policies.map { name in cells.filter { $0.policy == name } } : cells.map { [$0] }
            for group in groups {
                for (cell, outcome) in zip(group, try replayIsolatingRefusals(group, of: spec, trace: path, registry: registry)) { outcomes[cell] = outcome }
            }
            return cells.map { outcomes[$0] ?? (nil, "no result") }
        }
    }

    /// The outcomes of `cells` (all of one trace), from one `compare` of the policies and
    /// capacities they need, in the order of `cells`: each a result, or the reason its policy
    /// refused it.
    static func replay(_ cells: [SweepCell], of spec: SweepSpec, trace path: String,
                       registry: PolicyRegistry) throws(CacheBenchError) -> [(result: ReplayResult?, refusal: String?)] {
        let policies = spec.policies.filter { name in cells.contains { $0.policy == name } }
        let capacities = spec.capacities.filter { item in cells.contains { $0.capacity == SweepCapacity(item) } }
        // Only the options the policies of this run declare, or compare would call the others a typo.
        // Declared by name or alias, in any case, as compare and validate read them.
        let runPolicies = policies.compactMap { try? registry.policy(named: $0) }
        let options = PolicyOptions(spec.options.values.filter { option in
            runPolicies.contains { $0.declares(option: option.key) }
        })
        var trace = spec.reading
        // The layout is for the sweep's CSV traces; its binary ones ignore it.
        trace.layoutNeedsCSV = false
        trace.path = path
        var countLimit = spec.countLimit
        if countLimit != nil, !policies.contains(where: { (try? registry.policy(named: $0))?.descriptor.supportsCountLimit == true }) {
            countLimit = nil   // compare refuses a count limit none of its policies has; these have none to apply
        }
        var job = CompareJob(trace: trace, policies: policies, capacities: CapacityList(capacities), countLimit: countLimit,
                             ignoreSize: spec.ignoreSize, options: options, lruStackDistance: spec.lruStackDistance,
                             threads: spec.threads)
        job.registry = registry
        if let admission = spec.admission {
            do { job.admission = try LibCacheSimAdmission(admission) } catch { throw .sweep(.admission(error)) }
        }
        let outcome = try Compare.run(job)
        let workingSet = outcome.workingSet?.total(ignoreSize: spec.ignoreSize)
        var outcomes: [(result: ReplayResult?, refusal: String?)] = []
        for cell in cells {
            let capacity = cell.capacity.resolve(workingSet: workingSet)
            // Compare names each result by the policy's own name; the cell keeps the name as given
            // (an alias such as `twoq`, or `LRU`), which is part of its identity.
            let name = registry.canonicalName(cell.policy)
            if let result = outcome.results.first(where: { $0.policy == name && $0.capacity == capacity }) {
                outcomes.append((result, nil))
            } else if let refusal = outcome.refusals.first(where: { $0.policy == name && $0.capacity == capacity }) {
                outcomes.append((nil, refusal.reason))
            } else {
                // Compare runs every policy at every capacity asked, or names it refused; a gap would be a bug here, not bad input.
                throw .trace(TraceError(.malformed, file: path, reason: "internal: compare returned no result for \(cell.policy) at \(capacity)"))
            }
        }
        return outcomes
    }
}
