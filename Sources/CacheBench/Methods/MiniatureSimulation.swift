import EvictionPolicies

/// Miss-ratio curves for any policy from miniature simulations, as libCacheSim's MINISIM builds
/// them (Waldspurger et al., "Cache Modeling and Optimization using Miniature Simulations",
/// ATC '17): the trace is sampled spatially (SHARDS: a key is in or out by its hash), and the
/// policy runs once per capacity on the sample, at the capacity scaled by the sampling ratio.
///
/// A sampled trace keeps about `ratio` of the objects, of their bytes and of the requests, with
/// every reuse of a kept key, so a cache `ratio` times smaller sees about the same miss ratio.
///
/// The counts are scaled up to the whole trace: the misses (and missed bytes) of the sample
/// divided by the ratio, over the trace's own requests (counted as it is read). This is SHARDS'
/// adjustment (Waldspurger et al., FAST '15): a popular key that happens to be in or out of the
/// sample moves the sample's request count a lot but its miss count little, so dividing by the
/// expected sample size rather than the actual one removes most of that noise.
/// The runs are independent lanes of one read of the sample (``Compare``), spread over the
/// cores; each costs about `ratio` of a full run, so the curve costs one decode of the trace
/// plus `capacities × ratio` simulations.
///
/// The estimate's error is mostly variance, not bias: which keys fall in the sample. A key of
/// popularity `p` that misses with probability `m` moves the estimate by `p·m / ratio` when it is
/// in, so the standard deviation is about `√((1 − ratio)/ratio · Σ (p·m)²)`: small when many keys
/// share the misses, large when a few popular keys just beyond the capacity carry them (a
/// Zipf α = 1 trace at capacities of 0.1 % to 1 % of its working set: 1 to 3 percentage points at
/// 1 %). Runs with several ``RequestWindow/sampleSeed``s measure it on a given trace.
///
/// The ``Estimator/controlVariate`` estimator removes the part of that variance an analytic
/// model predicts: while the trace is read, the requests of a census of the keys are counted
/// (every key, or a larger nested sample holding the miniatures' when the keys exceed a budget:
/// ``Census``), and a model of the misses from those counts alone (Che's approximation for
/// LRU and FIFO's, blended by the weight that fits the miniatures' own misses) is evaluated twice
/// per capacity, on the census at its share `c` of the full capacity (`M_census`, scaled up by
/// `1/c`; exact with every key) and on the sampled keys at the miniature's capacity (`M_mini`,
/// scaled up as the simulation's misses are). The estimate is
/// `misses_mini / ratio − M_mini / ratio + M_census / c`:
/// when the sample holds more popular keys just beyond the capacity than its share, both the
/// simulation and the model miss more on it, and the difference cancels. The policy is still
/// simulated on the sample alone; the model only corrects for which keys fell in it.
public enum MiniatureSimulation {
    /// How a sampled run's counts become an estimate for the whole trace.
    public enum Estimator: Sendable, Hashable {
        /// SHARDS' adjustment: the sample's misses divided by the ratio.
        case shards
        /// SHARDS' adjustment corrected by a control variate: a request-count model of the
        /// misses on the whole trace minus the same model on the sample, scaled up.
        case controlVariate(Model)

        /// Which request-count model the control variate uses.
        public enum Model: String, Sendable, CaseIterable {
            /// Both forms, blended by the weight (0 to 1) that best predicts the miniatures' own
            /// scaled misses, by least squares over the curve's capacities.
            case automatic = "cv"
            /// Che's approximation for LRU, `h = 1 − e^(−rτ)`, for every policy.
            case lru = "cv-lru"
            /// FIFO's and RANDOM's approximation, `h = rτ / (1 + rτ)`, for every policy.
            case fifo = "cv-fifo"
        }

        /// The estimator named `name`: `shards`, `cv`, `cv-lru` or `cv-fifo`; `nil` for others.
        /// Any case, `-` and `_` ignored (`CV`, `cv_lru`).
        public init?(name: String) {
            func spelling(_ text: String) -> String { String(text.lowercased().unicodeScalars.filter { $0 != "-" && $0 != "_" }) }
            let wanted = spelling(name)
            if wanted == "shards" { self = .shards; return }
            guard let model = Model.allCases.first(where: { spelling($0.rawValue) == wanted }) else { return nil }
            self = .controlVariate(model)
        }

        /// The names ``init(name:)`` takes.
        public static let names = ["shards"] + Model.allCases.map(\.rawValue)

        /// The default: the control variate with the blend of both model forms.
        public static let `default` = Estimator.controlVariate(.automatic)
    }

    /// Which keys the control variate's census counts (the model's population term).
    public enum Census: Sendable, Hashable {
        /// Every key while the census holds fewer than ``censusKeyBudget`` keys; then the largest
        /// power-of-two fraction of the key space (a nested sample holding the miniatures') that
        /// keeps it under: a table of at most 8 MB whatever the trace.
        case automatic
        /// The keys a sample at this ratio (0 < ratio ≤ 1) keeps, 1 for every key; raised to the
        /// largest miniature's ratio when smaller. Memory: 23 to 46 bytes per counted key.
        case ratio(Double)

        /// An empty census of this kind.
        func makeCensus() -> _KeyCensus {
            switch self {
            case .automatic: _KeyCensus(ratio: 1, maximumKeys: MiniatureSimulation.censusKeyBudget)
            case .ratio(let ratio): _KeyCensus(ratio: ratio)
            }
        }
    }

    /// The most keys the ``Census/automatic`` census holds: 2^18, a table of at most 2^19
    /// 16-byte slots (8 MB, within a server processor's last-level cache). Its ratio on a trace
    /// of `K` distinct keys is the largest power of two at most 2^18 / K: 1/4 on 763,000 keys.
    /// Chosen by measurement on a 10M-request Zipf trace (results/minisim.md): at 1/8 the
    /// model's own sampling error doubles the curve's (0.4 to 0.5 pp), at 1/4 it is 0.16 to
    /// 0.24 pp for lru, fifo and clock, at 1 (every key, 32 MB) 0.05 to 0.17 pp but the census
    /// costs as much as the rest of the command.
    public static let censusKeyBudget = 1 << 18

    /// The default sampling ratio: 1 %, the rate libCacheSim and the MINISIM paper use.
    public static let defaultRatio = 0.01

    /// The fewest distinct objects the default sample aims to keep: below it, sampling error
    /// dominates, so the default ratio is raised (to 1 — exact — on small traces).
    public static let minimumSampledObjects = 10_000

    /// The fewest objects a miniature cache holds by default on a trace whose working set is
    /// under ``largeWorkingSet`` objects: a capacity whose scaled size would be smaller is
    /// simulated on a larger (nested) sample instead, at `minimumScaledObjects / capacity`.
    /// This trades the pure ratio for less variance at small capacities, where a miniature of a
    /// handful of objects depends on a few sampled keys: on traces of a few thousand objects
    /// with locality (cache2k web12, LIRS sprite) a floor of 32 errs by up to 1.4 pp at 1 %.
    public static let minimumScaledObjects = 200

    /// The working set (objects) from which a sample at 1 % holds enough keys that a
    /// miniature's error is the policy's, not the sample's: there the default floor is the
    /// policy's own (``PolicyDescriptor/faithfulMiniatureObjects``: 0 for FIFO, LIFO, LRU,
    /// CLOCK; 32 otherwise), which on a 10M-request Zipf of 763,000 objects keeps every policy's error
    /// within 0.5 pp at a quarter of the simulated requests ``minimumScaledObjects`` costs.
    public static let largeWorkingSet = 100_000

    /// The miniature floor when none is given: ``minimumScaledObjects`` when the working set has
    /// fewer than ``largeWorkingSet`` objects, else the policy's ``PolicyDescriptor/faithfulMiniatureObjects``.
    public static func defaultMinimumMiniature(workingSetObjects objects: Int, descriptor: PolicyDescriptor) -> Int {
        objects < largeWorkingSet ? minimumScaledObjects : descriptor.faithfulMiniatureObjects
    }

    /// The default ratio for a working set of `objects` objects: 1 %, or more so the sample
    /// keeps about ``minimumSampledObjects`` objects.
    public static func defaultRatio(objects: Int) -> Double {
        guard objects > 0 else { return 1 }
        return min(1, max(defaultRatio, Double(minimumSampledObjects) / Double(objects)))
    }

    /// `policy` at every capacity of `capacities` (full-trace sizes), each run at the capacity
    /// scaled by the window's ratio on the window's sample. Without a ratio in `window`, the
    /// ratio is ``defaultRatio(objects:)`` of the working set (measured when `workingSet` is `nil`).
    /// A capacity whose miniature would hold fewer than `minimumMiniature` objects samples more
    /// (0: every capacity at the window's ratio; `nil`: ``defaultMinimumMiniature(workingSetObjects:descriptor:)``,
    /// the working set probed from the trace's beginning when it is not measured anyway).
    ///
    /// The results carry the capacities asked (the curve's x axis) and method
    /// ``ReplayMethod/miniatureSimulation`` when sampled; each run's `window` gives its scaled capacity.
    /// An `admission` rule stands in front of every run; its counts are scaled up as the misses are.
    ///
    /// - Throws: ``CacheBenchError``: usage (2) for an unknown policy or bad limits; trace errors (65, 66).
    public static func run(trace: TraceSpec, policy: String, capacities: CapacityList, workingSet: WorkingSet?,
                           ignoreSize: Bool, window: RequestWindow, threads: Int,
                           progress: ProgressReporter? = nil,
                           minimumMiniature minimumMiniatureGiven: Int? = nil,
                           admission: LibCacheSimAdmission<UInt64>? = nil,
                           estimator: Estimator = .default,
                           census censusKind: Census = .automatic,
                           options: PolicyOptions = PolicyOptions(),
                           registry: PolicyRegistry = .standard) throws(CacheBenchError) -> CompareResult {
        var window = window
        var measured = workingSet
        if window.sampleRatio == nil {
            if measured == nil {
                progress?.begin(phase: "working set")
                do { measured = try WorkingSet.measure(trace, ignoreSize: ignoreSize, maxRows: window.maxRequests) } catch { throw .trace(error) }
            }
            window.sampleRatio = defaultRatio(objects: measured?.objects ?? 0)
        }
        let ratio = window.sampleRatio ?? 1
        var job = CompareJob(trace: trace, policies: [policy], capacities: capacities, ignoreSize: ignoreSize,
                             lruStackDistance: false, threads: threads)
        job.registry = registry
        job.admission = admission
        job.options = options
        // A miniature cache of a handful of objects says little about the full one: small
        // capacities sample more, so each miniature keeps at least `minimumMiniature` objects
        // (their bytes at the working set's mean size in byte mode). Unless given, the floor
        // depends on the working set: on a large one (probed from the trace's beginning, which
        // is all the probe reads of it) the policy's own, on a small one `minimumScaledObjects`.
        var minimumMiniature = minimumMiniatureGiven ?? 0
        if minimumMiniatureGiven == nil, ratio < 1 {
            let registered: RegisteredPolicy
            do { registered = try registry.policy(named: policy) } catch { throw error.asRunError }
            let objects: Int
            if let measured {
                objects = measured.objects
            } else {
                progress?.begin(phase: "working set")
                do {
                    objects = try WorkingSet.measure(trace, ignoreSize: ignoreSize, maxRows: window.maxRequests,
                                                     stoppingAt: largeWorkingSet).objects
                } catch { throw .trace(error) }
            }
            minimumMiniature = defaultMinimumMiniature(workingSetObjects: objects, descriptor: registered.descriptor)
        }
        if minimumMiniature <= 0 {
            job.minimumScaledCapacity = nil
        } else if ignoreSize {
            job.minimumScaledCapacity = minimumMiniature
        } else if ratio < 1 {
            if measured == nil {
                progress?.begin(phase: "working set")
                do { measured = try WorkingSet.measure(trace, ignoreSize: ignoreSize, maxRows: window.maxRequests) } catch { throw .trace(error) }
            }
            if let measured, measured.objects > 0 {
                let meanSize = Double(measured.bytes) / Double(measured.objects)
                job.minimumScaledCapacity = Int(min(Double(Int.max / 2), Double(minimumMiniature) * meanSize))
            }
        }
        // The sample's own share of the working set, when the working set is known (or must be
        // read anyway, for capacities given as fractions of it): capacities scale by it rather
        // than by the ratio (see ``RequestWindow/capacityRatio``).
        if ratio < 1, measured == nil, capacities.needsWorkingSet {
            progress?.begin(phase: "working set")
            do { measured = try WorkingSet.measure(trace, ignoreSize: ignoreSize, maxRows: window.maxRequests) } catch { throw .trace(error) }
        }
        job.measuredWorkingSet = measured
        if ratio < 1, let measured, measured.total(ignoreSize: ignoreSize) > 0 {
            progress?.begin(phase: "sample")
            window.capacityRatio = try sampleShare(trace, window: window, ignoreSize: ignoreSize, of: measured)
        }
        job.window = ratio < 1 ? window : RequestWindow(warmup: window.warmup, maxRequests: window.maxRequests,
                                                        reportInterval: window.reportInterval)
        let census: _KeyCensus?
        if ratio < 1, case .controlVariate = estimator { census = censusKind.makeCensus() } else { census = nil }
        job.keyCensus = census
        var result = try Compare.run(job, progress: progress)
        if result.workingSet == nil { result.workingSet = measured }
        if ratio < 1 {
            let ratios = result.results.map { $0.window?.window.sampleRatio ?? ratio }
            // The sample's size from a run at the ratio itself: a small capacity whose miniature
            // the floor raised ran on a larger sample (or the whole trace).
            let sampled = zip(result.results, ratios).first { $0.1 == ratio }?.0.requests
            let raised = ratios.filter { $0 > ratio }.count
            var variate: _BlendedControlVariate?
            if let census, case .controlVariate(let model) = estimator {
                let runs = zip(result.results, ratios).map { run, ratio in
                    (capacity: run.capacity, miniature: run.window?.sampledCapacity, ratio: ratio,
                     misses: _RequestCountModel.Misses(requests: Double(run.counters.requests - run.counters.hits) / ratio,
                                                       bytes: Double(run.counters.byteRequests - run.counters.byteHits) / ratio))
                }
                variate = _BlendedControlVariate(census: census, ignoreSize: ignoreSize, forms: model.forms, runs: runs)
            }
            // With every key counted, no warm-up and gets only, each counted key's first get is
            // a miss wherever the sample's luck puts the estimate.
            let compulsory = census.flatMap { $0.ratio >= 1 && window.warmup == nil && !$0.sawOtherOperations ? $0.keys : nil }
            var unsampled = 0
            for i in result.results.indices {
                if result.results[i].counters.requests == 0, (result.results[i].window?.traceRequests ?? 0) > 0 { unsampled += 1 }
                result.results[i] = scaledUp(result.results[i], ratio: ratios[i], correction: variate?.corrections[i],
                                             atLeast: compulsory ?? 0)
            }
            if unsampled > 0 {
                result.notes.append("\(policy): \(unsampled) of \(ratios.count) capacities have no estimate: their sample held none of the measured requests (a larger sampling ratio keeps some)")
            }
            let weight = variate?.weights.requests ?? 1
            let how = variate.map { _ in "corrected by a control variate (a request-count model, \(String(format2: weight * 100)) % Che's LRU form and \(String(format2: (1 - weight) * 100)) % FIFO's, on \(censusPhrase(census)) minus the same on the sample)" }
                ?? "the sample's divided by the ratio"
            let floor = raised == 0 ? "" : "; \(raised) of \(ratios.count) capacities sampled more (up to \(String(format6: (ratios.max() ?? ratio) * 100).trimmingZeros) %), so that each miniature holds at least \(minimumMiniature) objects"
            // Six decimals, or the ratio's own digits where those would round it to 0 (1e-9).
            let percent = ratio * 100 >= 1e-6 ? String(format6: ratio * 100).trimmingZeros : String(format: "%.3g", ratio * 100)
            let seed = window.sampleSeed == 0 ? "" : " (seed \(window.sampleSeed))"
            // The sample's size as its own run kept it; when every capacity was raised, no run
            // kept the sample at the ratio asked, and its size is not known.
            let measured = result.results.first.map { $0.window?.traceRequests ?? $0.requests } ?? 0
            let size = sampled.map { " (\($0) of \(measured) requests)" } ?? ""
            let scale = window.capacityRatio.map {
                "each capacity scaled by the sample's share of the working set (\(String(format6: $0 * 100).trimmingZeros) %)"
            } ?? "each capacity scaled by the ratio"
            result.notes.append("\(policy): miniature simulations on a \(percent) % spatial sample\(seed)\(size), \(scale)\(floor); misses are \(how), an estimate, not an exact count")
        }
        return result
    }
}

extension MiniatureSimulation {
    /// The note's words for what the census counted.
    static func censusPhrase(_ census: _KeyCensus?) -> String {
        guard let census else { return "the whole trace" }
        if census.ratio >= 1 { return "the whole trace (\(census.keys) keys counted)" }
        return "a \(String(format6: census.ratio * 100).trimmingZeros) % census of the keys (\(census.keys) keys counted, scaled up)"
    }

    /// The share of `workingSet` (its objects with `ignoreSize`, else its bytes) that the keys
    /// `window` samples hold, counted as ``WorkingSet/measure(_:ignoreSize:maxRows:stoppingAt:sample:)``
    /// counts the whole (it does the counting, `sample:`); `nil` when the sample holds none. One
    /// pass over the trace, keeping the sampled keys only.
    static func sampleShare(_ trace: TraceSpec, window: RequestWindow, ignoreSize: Bool,
                            of workingSet: WorkingSet) throws(CacheBenchError) -> Double? {
        guard window.keepBelow != nil else { return nil }
        let sampled: WorkingSet
        do { sampled = try WorkingSet.measure(trace, ignoreSize: ignoreSize, maxRows: window.maxRequests, sample: window) }
        catch { throw .trace(error) }
        let share = ignoreSize ? Double(sampled.objects) / Double(workingSet.objects) : Double(sampled.bytes) / Double(workingSet.bytes)
        return share > 0 && share.isFinite ? min(share, 1) : nil
    }

    /// A sampled run's counts as estimates for the whole trace: misses and missed bytes divided
    /// by the ratio (at most every request), over the trace's requests; the sample's own counts
    /// stay in `window.sampledRequests` and `window.sampledHits`.
    /// A `correction` (the control variate's `M_census / c − M_mini / ratio`) is added to the scaled
    /// misses and missed bytes; the sum is kept within 0 and every request.
    /// Misses, and missed bytes, are at least `minimumMisses` (the compulsory ones, when known). A run whose sample
    /// held no measured request has no estimate: it keeps its counts of 0, so its ratios are `nil`.
    static func scaledUp(_ result: ReplayResult, ratio: Double,
                         correction: _RequestCountModel.Misses? = nil, atLeast minimumMisses: Int = 0) -> ReplayResult {
        guard let window = result.window else { return result }
        var scaled = result
        let sampled = result.counters
        scaled.method = .miniatureSimulation
        if sampled.requests == 0 && window.traceRequests > 0 {
            scaled.window?.sampledRequests = 0
            scaled.window?.sampledHits = 0
            return scaled
        }
        func estimate(_ count: Int, atMost limit: Int, plus extra: Double = 0) -> Int {
            var value = (Double(count) / ratio + extra).rounded()
            if value.isNaN { value = (Double(count) / ratio).rounded() }  // a model that failed corrects nothing
            return value <= 0 ? 0 : value >= Double(limit) ? limit : Int(value)
        }
        scaled.counters.requests = window.traceRequests
        let misses = estimate(sampled.requests - sampled.hits, atMost: window.traceRequests, plus: correction?.requests ?? 0)
        scaled.counters.hits = window.traceRequests - max(misses, min(minimumMisses, window.traceRequests))
        scaled.counters.byteRequests = window.traceByteRequests
        // Each compulsory miss misses at least one byte (zero-size rows are skipped), so the
        // floor holds for missed bytes too; with sizes ignored, bytes are requests and byte hits
        // stay equal to hits.
        let missedBytes = estimate(sampled.byteRequests - sampled.byteHits, atMost: window.traceByteRequests, plus: correction?.bytes ?? 0)
        scaled.counters.byteHits = window.traceByteRequests - max(missedBytes, min(minimumMisses, window.traceByteRequests))
        scaled.counters.evictions = estimate(sampled.evictions, atMost: .max)
        if let admission = result.admission {
            let asked = admission.admitted + admission.rejected
            if asked > 0 && asked == sampled.requests - sampled.hits {
                // Every miss asked the rule: the estimated misses split as the sample's did, so
                // admitted and rejected add up to the misses after their correction too.
                let estimatedMisses = window.traceRequests - scaled.counters.hits
                let admitted = Int((Double(estimatedMisses) * Double(admission.admitted) / Double(asked)).rounded())
                scaled.admission?.admitted = min(admitted, estimatedMisses)
                scaled.admission?.rejected = estimatedMisses - min(admitted, estimatedMisses)
            } else {
                scaled.admission?.admitted = estimate(admission.admitted, atMost: .max)
                scaled.admission?.rejected = estimate(admission.rejected, atMost: .max)
            }
        }
        scaled.window?.sampledRequests = sampled.requests
        scaled.window?.sampledHits = sampled.hits
        return scaled
    }
}

extension String {
    /// `1.000000` → `1`, `0.500000` → `0.5`.
    var trimmingZeros: String {
        guard contains(".") else { return self }
        var text = self
        while text.hasSuffix("0") { text.removeLast() }
        if text.hasSuffix(".") { text.removeLast() }
        return text
    }
}
