import EvictionPolicies

/// A policy's miss-ratio curve (`cachebench mrc`): LRU's exactly, any policy by miniature
/// simulations (``MiniatureSimulation``).
public enum MissRatioCurve {
    /// The default number of points when neither points nor capacities are given.
    public static let defaultPoints = 32

    /// LRU at every capacity of `capacities`, or at `points` log-spaced capacities from 1/1000 of
    /// the working set (at least 1) to the whole working set, where LRU reaches its best hit ratio.
    ///
    /// One exact stack-distance pass serves every capacity when the trace allows it (see
    /// ``LRUStackProfiler``); otherwise LRU is simulated at each capacity on one shared read.
    ///
    /// - Throws: ``CacheBenchError``: usage (2) for fewer than 2 points or a working set needed
    ///   from standard input; trace errors (65, 66).
    /// With a `policy` other than `lru`, or a `window`, the curve comes from
    /// ``MiniatureSimulation`` instead: one scaled run per capacity on a sampled trace, each
    /// miniature holding at least `minimumMiniature` objects (0: every capacity at the ratio; `nil`:
    /// ``MiniatureSimulation/defaultMinimumMiniature(workingSetObjects:descriptor:)``),
    /// its counts scaled up by `estimator` (a control variate's model counting the keys `census` says).
    /// With an `admission` rule every run has it in front of the policy, and LRU is simulated at
    /// each capacity: one stack-distance pass cannot model a rule that refuses misses.
    /// `policy` is looked up in `registry`, and made with `options`; the exact curve is for a
    /// policy that evicts as LRU (``PolicyDescriptor/evictsAsLRU``).
    public static func run(trace: TraceSpec, capacities: CapacityList?, points: Int?, ignoreSize: Bool,
                           threads: Int = 2, progress: ProgressReporter? = nil, policy: String = "lru",
                           window: RequestWindow = RequestWindow(),
                           minimumMiniature: Int? = nil,
                           admission: LibCacheSimAdmission<UInt64>? = nil,
                           estimator: MiniatureSimulation.Estimator = .default,
                           census: MiniatureSimulation.Census = .automatic,
                           options: PolicyOptions = PolicyOptions(),
                           registry: PolicyRegistry = .standard) throws(CacheBenchError) -> CompareResult {
        // Named first: an unknown policy is a usage error before the trace is read.
        let registered: RegisteredPolicy
        do { registered = try registry.policy(named: policy) } catch { throw error.asRunError }
        let list: CapacityList
        var workingSet: WorkingSet?
        if let capacities {
            list = capacities
        } else {
            let count = points ?? defaultPoints
            guard count >= 2 && count <= CapacityList.maximumCount else {
                throw .invalidValue(InvalidValueError("points", String(count), expected: "must be from 2 to \(CapacityList.maximumCount)"))
            }
            progress?.begin(phase: "working set")
            let measured: WorkingSet
            do { measured = try WorkingSet.measure(trace, ignoreSize: ignoreSize, maxRows: window.maxRequests) } catch { throw .trace(error) }
            workingSet = measured
            let total = max(1, measured.total(ignoreSize: ignoreSize))
            let low = max(1, total / 1000)
            if total <= low {
                list = CapacityList([.size(total)])
            } else {
                // The last point is the total itself: as a Double it may round past Int.max.
                list = CapacityList(CapacityList.logSpaced(Double(low), Double(total), count: count).map {
                    .size(min(total, Int(exactly: $0.rounded()) ?? total))
                })
            }
        }
        /// Points chosen here are fractions of the working set (from 1/1000 to all of it), whatever
        /// sizes they resolve to: the results say so, as for `--capacities 0.1`.
        func sourced(_ result: CompareResult) -> CompareResult {
            guard capacities == nil else { return result }
            var result = result
            for i in result.results.indices where result.results[i].capacitySource == .option {
                result.results[i].capacitySource = .workingSetFraction
            }
            return result
        }
        // The exact one-pass curve is LRU's: a policy given options runs as itself.
        if !registered.descriptor.evictsAsLRU || !window.isWholeTrace || !options.values.isEmpty {
            // A point the policy refuses (LIRS needs 3 objects) is left out by compare, with a note.
            return sourced(try MiniatureSimulation.run(trace: trace, policy: policy, capacities: list, workingSet: workingSet,
                                                       ignoreSize: ignoreSize, window: window, threads: threads, progress: progress,
                                                       minimumMiniature: minimumMiniature, admission: admission,
                                                       estimator: estimator, census: census, options: options, registry: registry))
        }
        var job = CompareJob(trace: trace, policies: [policy], capacities: list, ignoreSize: ignoreSize, threads: threads)
        job.registry = registry
        job.admission = admission
        job.options = options
        var result = try Compare.run(job, progress: progress)
        if result.workingSet == nil { result.workingSet = workingSet }
        if let admission {
            result.notes.append("\(policy): simulated at each capacity behind admission \(admission.name) (the stack-distance pass cannot model a rule that refuses misses)")
        }
        return sourced(result)
    }
}
