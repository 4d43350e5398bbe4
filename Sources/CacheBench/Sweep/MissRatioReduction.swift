/// The figure the S3-FIFO and SIEVE papers draw from a sweep: per policy and cache size, the
/// distribution across traces of the miss-ratio reduction against a baseline policy (FIFO).
///
/// A trace's reduction at one size is `(baseline − policy) / baseline` of their miss ratios:
/// 0.2 means 20 % fewer misses than the baseline, negative means more. Traces where the baseline
/// has no misses at that size (the reduction is undefined) or where either cell is missing are
/// left out of that size and counted in ``skipped``.
public struct MissRatioReduction: Sendable {
    /// One policy at one size, across traces.
    public struct Distribution: Sendable, Equatable {
        /// The policy.
        public var policy: String
        /// The size.
        public var capacity: SweepCapacity
        /// The reductions, one per trace, ascending.
        public var values: [Double]

        /// The reductions of `policy` at `capacity`, which are sorted here.
        public init(policy: String, capacity: SweepCapacity, values: [Double]) {
            self.policy = policy
            self.capacity = capacity
            self.values = values.sorted()
        }

        /// The `p` quantile (0...1), interpolating linearly between order statistics (the
        /// default of NumPy and R's type 7); `nil` without values.
        public func quantile(_ p: Double) -> Double? {
            guard let first = values.first else { return nil }
            guard values.count > 1 else { return first }
            let h = Double(values.count - 1) * min(1, max(0, p))
            let low = Int(h.rounded(.down))
            let high = min(low + 1, values.count - 1)
            return values[low] + (h - Double(low)) * (values[high] - values[low])
        }

        /// The mean; `nil` without values.
        public var mean: Double? { values.isEmpty ? nil : values.reduce(0, +) / Double(values.count) }
    }

    /// The baseline policy.
    public var baseline: String
    /// The policies compared with it, in the sweep's order.
    public var policies: [String]
    /// The sizes, in the sweep's order.
    public var capacities: [SweepCapacity]
    /// One distribution per (policy, size), policy by policy.
    public var distributions: [Distribution]
    /// The traces of the sweep.
    public var traceCount: Int
    /// (trace, policy, size) left out: undefined reduction or a missing cell.
    public var skipped: Int
    /// Why ``skipped`` were left out, when known: a cell of either policy refused by its policy
    /// (a size below what it takes), a cell with no record, or a baseline without misses.
    var _skippedBecause: (refused: Int, missing: Int, noBaselineMisses: Int)?

    /// Reductions already computed (to chart figures a sweep did not record, say).
    public init(baseline: String, policies: [String], capacities: [SweepCapacity], distributions: [Distribution],
                traceCount: Int, skipped: Int = 0) {
        self.baseline = baseline
        self.policies = policies
        self.capacities = capacities
        self.distributions = distributions
        self.traceCount = traceCount
        self.skipped = skipped
    }

    /// The reductions of every other policy of `merge` against `baseline`.
    ///
    /// - Throws: ``SweepError`` when the sweep has no `baseline` policy or no other.
    public init(_ merge: SweepMerge, baseline: String = "fifo") throws(SweepError) {
        guard merge.manifest.policies.contains(baseline) else {
            throw .noBaselineResults(baseline, policies: merge.manifest.policies)
        }
        self.baseline = baseline
        policies = merge.manifest.policies.filter { $0 != baseline }
        guard !policies.isEmpty else { throw .onlyBaseline(baseline) }
        capacities = merge.manifest.capacities
        traceCount = merge.manifest.traces.count
        var missRatio: [SweepCell: Double] = [:]
        for (cell, result) in zip(merge.resultCells, merge.results) { if let ratio = result.missRatio { missRatio[cell] = ratio } }
        let refusedCells = Set(merge.refused.map(\.cell)), missingCells = Set(merge.missing)
        var because = (refused: 0, missing: 0, noBaselineMisses: 0)
        var skipped = 0
        var distributions: [Distribution] = []
        for policy in policies {
            for capacity in capacities {
                var values: [Double] = []
                for trace in merge.manifest.traces {
                    let baseCell = SweepCell(trace: trace, policy: baseline, capacity: capacity)
                    let cell = SweepCell(trace: trace, policy: policy, capacity: capacity)
                    guard let base = missRatio[baseCell], base > 0, let mine = missRatio[cell] else {
                        skipped += 1
                        if refusedCells.contains(baseCell) || refusedCells.contains(cell) { because.refused += 1 }
                        else if missingCells.contains(baseCell) || missingCells.contains(cell) { because.missing += 1 }
                        else { because.noBaselineMisses += 1 }
                        continue
                    }
                    values.append((base - mine) / base)
                }
                distributions.append(Distribution(policy: policy, capacity: capacity, values: values.sorted()))
            }
        }
        self.distributions = distributions
        self.skipped = skipped
        _skippedBecause = because
    }

    /// The distribution of `policy` at `capacity`.
    public func distribution(_ policy: String, _ capacity: SweepCapacity) -> Distribution? {
        distributions.first { $0.policy == policy && $0.capacity == capacity }
    }

    /// The quantiles every rendering but the Markdown reports, with their field names.
    static let reportedQuantiles: [(name: String, p: Double)] = [
        ("p10", 0.1), ("p25", 0.25), ("median", 0.5), ("p75", 0.75), ("p90", 0.9),
    ]

    /// `{ "baseline", "traces", "skipped", "results": [ { "policy", "capacity", "capacityKey",
    /// "traces", "p10", "p25", "median", "p75", "p90", "mean" } ] }`: the reductions as fractions
    /// of the baseline's misses (0.2 is 20 % fewer), `null` where no trace counted; one result
    /// per (policy, size), policy by policy in the sweep's order.
    public var json: JSONValue {
        .object([
            ("baseline", .string(baseline)), ("traces", .int(traceCount)), ("skipped", .int(skipped)),
            ("results", .array(distributions.map { d in
                var fields: [(String, JSONValue)] = [
                    ("policy", .string(d.policy)), ("capacity", .string(d.capacity.label)),
                    ("capacityKey", .string(d.capacity.key)), ("traces", .int(d.values.count)),
                ]
                for (name, p) in Self.reportedQuantiles { fields.append((name, d.quantile(p).map { .double($0) } ?? .null)) }
                fields.append(("mean", d.mean.map { .double($0) } ?? .null))
                return .object(fields)
            })),
        ])
    }

    /// One row per (policy, size): `policy,capacity,traces,p10,p25,median,p75,p90,mean`, the
    /// reductions as fractions of the baseline's misses, empty where no trace counted.
    public var csv: String {
        var out = "policy,capacity,traces," + Self.reportedQuantiles.map(\.name).joined(separator: ",") + ",mean\n"
        for d in distributions {
            let numbers = Self.reportedQuantiles.map { d.quantile($0.p) } + [d.mean]
            out += [d.policy, d.capacity.label, String(d.values.count)].map(ReplayReport.csvField).joined(separator: ",")
            out += "," + numbers.map { $0.map { String($0) } ?? "" }.joined(separator: ",") + "\n"
        }
        return out
    }

    /// What the size labels are: fractions of each trace's working set, absolute sizes, or both.
    var sizeUnits: String {
        let fractions = capacities.filter { if case .fraction = $0.item { return true }; return false }.count
        if fractions == capacities.count { return "(of each trace's working set)" }
        if fractions == 0 { return "(as given: bytes, or objects in object mode)" }
        return "(fractions are of each trace's working set)"
    }

    /// Two Markdown tables, policies by sizes: the median with the quartiles, and the mean.
    public var markdown: String {
        func percent(_ value: Double?) -> String {
            guard let value else { return "–" }
            let text = _fixed(value * 100, decimals: 1)
            return value > 0 && text != "0.0" ? "+" + text : text
        }
        let sizeTitle = "size " + sizeUnits
        var out = "Miss-ratio reduction against \(baseline), in % of \(baseline)'s misses (positive: fewer misses), across \(traceCount) traces.\n\n"
        out += "**Median [p25, p75]**\n\n"
        var rows = [["policy \\ " + sizeTitle] + capacities.map(\.label)]
        for policy in policies {
            rows.append([policy] + capacities.map { capacity in
                guard let d = distribution(policy, capacity), !d.values.isEmpty else { return "–" }
                return "\(percent(d.quantile(0.5))) [\(percent(d.quantile(0.25))), \(percent(d.quantile(0.75)))]"
            })
        }
        out += CompareReport.markdownTable(rows)
        out += "\n**Mean (traces)**\n\n"
        rows = [["policy \\ " + sizeTitle] + capacities.map(\.label)]
        for policy in policies {
            rows.append([policy] + capacities.map { capacity in
                guard let d = distribution(policy, capacity), !d.values.isEmpty else { return "–" }
                return "\(percent(d.mean)) (\(d.values.count))"
            })
        }
        out += CompareReport.markdownTable(rows)
        if skipped > 0 {
            if let because = _skippedBecause {
                let reasons = [(because.refused, "refused by their policy (a size below what it takes)"),
                               (because.missing, "with a cell not recorded"),
                               (because.noBaselineMisses, "where \(baseline) had no misses")]
                    .filter { $0.0 > 0 }.map { "\($0.0) \($0.1)" }.joined(separator: ", ")
                out += "\n\(skipped) (trace, policy, size) left out: \(reasons).\n"
            } else {
                out += "\n\(skipped) (trace, policy, size) left out: \(baseline) had no misses there, or a cell is missing.\n"
            }
        }
        return out
    }
}
