import Foundation

/// The CI regression gate (`compare --baseline FILE.json --tolerance X`): hit ratios against a
/// saved `compare --format json` report.
public struct RegressionGate: Sendable {
    /// What identifies a result across runs: the policy and its configuration.
    public struct Key: Hashable, Sendable, CustomStringConvertible {
        /// The policy name.
        public var policy: String
        /// The capacity (`nil` for unlimited).
        public var capacity: Int?
        /// The count limit.
        public var countLimit: Int?
        /// Whether sizes were ignored (capacities count objects).
        public var ignoreSize: Bool

        /// Creates a key. Policy names are case-insensitive, as everywhere: `LRU` is `lru`.
        public init(policy: String, capacity: Int?, countLimit: Int?, ignoreSize: Bool) {
            self.policy = policy.lowercased()
            self.capacity = capacity
            self.countLimit = countLimit
            self.ignoreSize = ignoreSize
        }

        /// `lru at 64 MiB (67108864 bytes)`.
        public var description: String {
            var text = "\(policy) at " + (capacity.map { SizeFormat.describe($0, objects: ignoreSize) } ?? "unlimited capacity")
            if let countLimit { text += ", count limit \(countLimit)" }
            return text
        }
    }

    /// Baseline hit ratios (`nil` when the baseline run had no requests).
    public var baseline: [Key: Double?]
    /// The trace the baseline was made on.
    public var baselineTrace: String?
    /// Each baseline result's request count, when the report has it.
    public var baselineRequests: [Key: Int] = [:]
    /// A baseline of several traces (a merged sweep): each trace's rows, by the trace's path as
    /// the baseline names it; a run is checked against its own trace's (see
    /// ``rows(for:)``). Empty for a one-trace baseline, whose rows are ``baseline``.
    public var baselinesByTrace: [String: (hitRatios: [Key: Double?], requests: [Key: Int])] = [:]
    /// The admission rules the baseline's results ran behind (`admission.rule`; `none` for a
    /// result without one), so that a run with another admission rule is not compared as alike.
    /// Empty for a gate made from values alone, which checks nothing of it.
    public var baselineAdmissionRules: Set<String> = []
    /// The largest drop in hit ratio (absolute, e.g. 0.01 = one percentage point) that passes.
    public var tolerance: Double

    /// What the gate found.
    public struct Outcome: Sendable, Equatable {
        /// One line per (policy, capacity) whose hit ratio fell more than the tolerance.
        public var regressions: [String]
        /// Pairs absent from the baseline, or other remarks; not failures.
        public var notes: [String]
        /// Why the comparison itself is not valid (nothing compared, another trace, mode or
        /// request count): failures unless partial comparisons are allowed.
        public var mismatches: [String] = []
        /// Whether the gate passes.
        public var passed: Bool { regressions.isEmpty && mismatches.isEmpty }
    }

    /// Creates a gate from parsed baseline values.
    public init(baseline: [Key: Double?], baselineTrace: String?, tolerance: Double) {
        self.baseline = baseline
        self.baselineTrace = baselineTrace
        self.tolerance = tolerance
    }

    /// Reads a saved `compare --format json` report.
    ///
    /// - Throws: ``CacheBenchError/trace(_:)``: `cannotOpen` (exit 66) when the file cannot be
    ///   read, `malformed` (exit 65) when it is not such a report; the message is `FILE: reason`.
    /// Policy names are read as `registry` reads them: `twoq` is `2q`, in any case.
    public static func load(path: String, tolerance: Double, registry: PolicyRegistry = .standard) throws(CacheBenchError) -> RegressionGate {
        // Read with read(2), as traces are: a FIFO, `/dev/stdin` and `-` (standard input) too.
        let data: Data
        do throws(TraceError) { data = Data(try ByteSource.contents(ofPath: path)) } catch {
            throw .trace(TraceError(error.kind, file: path, reason: "cannot read the baseline: \(error.reason)"))
        }
        return try parse(data, name: path, tolerance: tolerance, registry: registry)
    }

    /// The 1-based line of a JSON parse error, from the place Foundation's message gives ("around
    /// character N", a byte offset here, or the end of the input), or `nil` when it gives none.
    static func jsonErrorLine(_ detail: String, in data: Data) -> Int? {
        let offset: Int
        if detail.hasPrefix("Unexpected end of file") {
            offset = data.count
        } else if let range = detail.range(of: "around character ") {
            guard let number = Int(detail[range.upperBound...].prefix(while: \.isNumber)) else { return nil }
            offset = min(number, data.count)
        } else {
            return nil
        }
        return line(atOffset: offset, in: data)
    }

    /// The 1-based line of byte `offset` of `data`.
    static func line(atOffset offset: Int, in data: Data) -> Int {
        1 + data.prefix(offset).reduce(0) { $0 + ($1 == UInt8(ascii: "\n") ? 1 : 0) }
    }

    /// Parses a baseline report's bytes; `name` is used in messages. A policy named by an alias
    /// (`twoq`) is the policy `registry` finds under it (`2q`), as every command reads names.
    public static func parse(_ data: Data, name: String, tolerance: Double,
                             registry: PolicyRegistry = .standard) throws(CacheBenchError) -> RegressionGate {
        func malformed(_ reason: String) -> CacheBenchError { .trace(TraceError(.malformed, file: name, reason: reason)) }
        let report = TraceError.Hint.comparisonReport
        func notAReport(_ reason: String, line: Int? = nil) -> CacheBenchError {
            .trace(TraceError(.malformed, file: name, line: line, reason: reason, hint: report))
        }
        // Strict first: Foundation's parser takes trailing commas and a key given twice (the last
        // wins), and some of its errors say nowhere where they are.
        if let problem = _StrictJSON.problem(in: data) {
            throw notAReport("not a JSON document (\(problem.reason)); expected \(report.phrase)",
                             line: line(atOffset: problem.offset, in: data))
        }
        let object: Any
        do { object = try JSONSerialization.jsonObject(with: data) } catch {
            let detail = (error as NSError).userInfo[NSDebugDescriptionErrorKey] as? String ?? "invalid JSON"
            throw notAReport("not a JSON document (\(detail)); expected \(report.phrase)", line: jsonErrorLine(detail, in: data))
        }
        guard let root = object as? [String: Any], let results = root["results"] as? [Any] else {
            throw notAReport("expected an object with a \"results\" array (\(report.phrase))")
        }
        // Rows by the trace each was made on (its own `trace`, else the report's): a merged
        // sweep holds several traces, and one (policy, capacity) per trace.
        // Of the wrong type it is malformed, not absent: absent turns the check off.
        if let trace = root["trace"], !(trace is String) { throw malformed("\"trace\" is not a string") }
        let reportTrace = root["trace"] as? String
        var byTrace: [String: (trace: String?, hitRatios: [Key: Double?], requests: [Key: Int])] = [:]
        var admissionRules = Set<String>()
        for (i, element) in results.enumerated() {
            guard let entry = element as? [String: Any] else { throw malformed("results[\(i)] is not an object") }
            switch entry["admission"] {
            case nil, is NSNull: admissionRules.insert(Self.noAdmission)
            case let admission?:
                guard let rule = (admission as? [String: Any])?["rule"] as? String else {
                    throw malformed("results[\(i)]: \"admission\" is not an object with a \"rule\" string")
                }
                admissionRules.insert(rule.lowercased())
            }
            guard let policy = entry["policy"] as? String else { throw malformed("results[\(i)]: missing \"policy\" (a string)") }
            if let trace = entry["trace"], !(trace is String) { throw malformed("results[\(i)]: \"trace\" is not a string") }
            let trace = entry["trace"] as? String ?? reportTrace
            let group = trace ?? ""
            // Every report names the capacity (null for none): a row without it is not one to
            // compare, and skipping it would pass a gate that checked nothing.
            guard entry["capacity"] != nil else { throw malformed("results[\(i)]: missing \"capacity\" (a whole number, or null for none)") }
            let capacity = try integerOrNull(entry["capacity"], field: "capacity", index: i, malformed)
            let countLimit = try integerOrNull(entry["countLimit"], field: "countLimit", index: i, malformed)
            for (field, value) in [("capacity", capacity), ("countLimit", countLimit)] {
                if let value, value < 1 { throw malformed("results[\(i)]: \"\(field)\" \(value) is not a positive whole number") }
            }
            let ignoreSize: Bool
            switch entry["ignoreSize"] {
            case nil: ignoreSize = false
            case let value?:
                guard let flag = jsonBoolean(value) else { throw malformed("results[\(i)]: \"ignoreSize\" is not true or false") }
                ignoreSize = flag
            }
            let hitRatio: Double?
            switch entry["hitRatio"] {
            case nil: throw malformed("results[\(i)]: missing \"hitRatio\"")
            case is NSNull: hitRatio = nil
            case let value?:
                guard let number = jsonNumber(value) else { throw malformed("results[\(i)]: \"hitRatio\" is not a number") }
                hitRatio = number.doubleValue
                guard let value = hitRatio, value >= 0, value <= 1 else {
                    throw malformed("results[\(i)]: \"hitRatio\" \(number) is not between 0 and 1")
                }
            }
            var ratio = hitRatio
            // The ratio from the integer counts when the report has them: Foundation's JSON parser does
            // not always read back the exact double that was written, and a gate with tolerance 0 must
            // pass against its own output.
            // Of the wrong type, or more than the requests, they are malformed, as every field read.
            let hits = try integerOrNull(entry["hits"], field: "hits", index: i, malformed)
            let requestCount = try integerOrNull(entry["requests"], field: "requests", index: i, malformed)
            if let hits {
                guard hits >= 0, hits <= requestCount ?? .max else {
                    throw malformed("results[\(i)]: \"hits\" \(hits) is not between 0 and the requests")
                }
            }
            if let hits, let requests = requestCount, let hitRatio, requests > 0 {
                let exact = Double(hits) / Double(requests)
                if abs(exact - hitRatio) < 1e-6 { ratio = exact }
            }
            let key = Key(policy: registry.canonicalName(policy), capacity: capacity, countLimit: countLimit, ignoreSize: ignoreSize)
            var rows = byTrace[group] ?? (trace, [:], [:])
            guard rows.hitRatios[key] == nil else {
                throw malformed("results[\(i)]: \(key) appears twice" + (trace.map { " for \($0)" } ?? ""))
            }
            rows.hitRatios[key] = ratio
            if let requests = requestCount {
                guard requests >= 0 else { throw malformed("results[\(i)]: \"requests\" \(requests) is negative") }
                // A null ratio stands for a run without requests, which this one is not.
                guard ratio != nil || requests == 0 else {
                    throw malformed("results[\(i)]: \"hitRatio\" is null (no requests) but \"requests\" is \(requests)")
                }
                rows.requests[key] = requests
            }
            byTrace[group] = rows
        }
        guard byTrace.count > 1 else {
            let rows = byTrace.values.first
            var gate = RegressionGate(baseline: rows?.hitRatios ?? [:], baselineTrace: rows?.trace ?? reportTrace, tolerance: tolerance)
            gate.baselineRequests = rows?.requests ?? [:]
            gate.baselineAdmissionRules = admissionRules
            return gate
        }
        var gate = RegressionGate(baseline: [:], baselineTrace: nil, tolerance: tolerance)
        gate.baselinesByTrace = byTrace.mapValues { ($0.hitRatios, $0.requests) }
        gate.baselineAdmissionRules = admissionRules
        return gate
    }

    /// `value` when it is a JSON number. Foundation's parser hands back numbers and booleans
    /// alike as `NSNumber` (and either casts to `Bool`); a boolean's type encoding is `c`.
    static func jsonNumber(_ value: Any?) -> NSNumber? {
        guard let number = value as? NSNumber, String(cString: number.objCType) != "c" else { return nil }
        return number
    }

    /// `value` when it is a JSON boolean (not a number 0 or 1).
    static func jsonBoolean(_ value: Any) -> Bool? {
        guard let number = value as? NSNumber, String(cString: number.objCType) == "c" else { return nil }
        return number.boolValue
    }

    private static func integerOrNull(_ value: Any?, field: String, index: Int,
                                      _ malformed: (String) -> CacheBenchError) throws(CacheBenchError) -> Int? {
        switch value {
        case nil, is NSNull: return nil
        case let value?:
            guard let number = jsonNumber(value) else { throw malformed("results[\(index)]: \"\(field)\" is not a number") }
            // An integer in the text is read exactly (a capacity of 2^53 or more, which compare
            // writes, is not a Double's); only a number with a fraction or exponent goes through one.
            switch String(cString: number.objCType) {
            case "q", "l", "i", "s": return number.intValue
            case "Q", "L", "I", "S":
                guard number.uint64Value <= UInt64(Int.max) else {
                    throw malformed("results[\(index)]: \"\(field)\" \(number.uint64Value) is too large")
                }
                return Int(number.uint64Value)
            default: break
            }
            let double = number.doubleValue
            guard double == double.rounded(), abs(double) < 9e15 else {
                throw malformed("results[\(index)]: \"\(field)\" is not a whole number")
            }
            return Int(double)
        }
    }

    /// How ``baselineAdmissionRules`` names a result that ran without an admission rule.
    static let noAdmission = "none"

    /// Compares `result` with the baseline.
    ///
    /// The comparison must be valid to pass: at least one (policy, capacity) compared, on a
    /// trace of the same name, in the same mode (sizes or objects), behind the same admission
    /// rule and with the same request count. With `allowPartial`, those problems are notes instead of failures.
    public func check(_ result: CompareResult, allowPartial: Bool = false) -> Outcome {
        var regressions: [String] = []
        var notes: [String] = []
        var mismatches: [String] = []
        if let baselineTrace, Self.fileName(baselineTrace) != Self.fileName(result.trace) {
            mismatches.append("the baseline was made on \(baselineTrace), this run is on \(result.trace)")
        }
        let baselineKeys = baselinesByTrace.isEmpty ? Array(baseline.keys) : baselinesByTrace.values.flatMap(\.hitRatios.keys)
        let baselineModes = Set(baselineKeys.map(\.ignoreSize))
        let runModes = Set(result.results.map(\.ignoreSize))
        if !baselineModes.isEmpty, !runModes.isEmpty, baselineModes.isDisjoint(with: runModes) {
            let mode = { (ignoreSize: Bool) in ignoreSize ? "object counts (sizes ignored)" : "bytes" }
            mismatches.append("the baseline's capacities count \(mode(baselineModes.contains(true))), this run's count \(mode(runModes.contains(true)))")
        }
        let runAdmissionRules = Set(result.results.map { $0.admission?.rule.lowercased() ?? Self.noAdmission })
        if !baselineAdmissionRules.isEmpty, !runAdmissionRules.isEmpty, baselineAdmissionRules != runAdmissionRules {
            let rules = { (rules: Set<String>) in rules.sorted().map { $0 == Self.noAdmission ? "no admission rule" : "admission \($0)" }.joined(separator: " and ") }
            mismatches.append("the baseline ran with \(rules(baselineAdmissionRules)), this run with \(rules(runAdmissionRules))")
        }
        // A baseline of several traces: this run's trace's rows.
        var rows = (hitRatios: baseline, requests: baselineRequests)
        if !baselinesByTrace.isEmpty {
            switch self.rows(for: result.trace) {
            case .found(let traceRows): rows = traceRows
            case .none:
                let traces = baselinesByTrace.keys.sorted().map { $0.isEmpty ? "(unnamed)" : $0 }.joined(separator: ", ")
                mismatches.append("the baseline holds results for \(traces), none for \(result.trace)")
            case .ambiguous(let traces):
                mismatches.append("the baseline holds results for \(traces.joined(separator: ", ")), each as near to \(result.trace) (run from the folder the baseline was made from, or name the trace by the path the baseline gives)")
            }
        }
        var compared = 0
        var requestMismatch: String?
        for run in result.results {
            let key = Key(policy: run.policy, capacity: run.capacity, countLimit: run.countLimit, ignoreSize: run.ignoreSize)
            guard let saved = rows.hitRatios[key] else {
                notes.append("\(key): not in the baseline, not checked")
                continue
            }
            if requestMismatch == nil, let expected = rows.requests[key], expected != run.requests {
                requestMismatch = "the baseline counted \(expected) requests for \(key), this run \(run.requests)"
            }
            guard let expected = saved, let actual = run.hitRatio else {
                notes.append("\(key): no requests, not checked")
                continue
            }
            compared += 1
            let drop = expected - actual
            // A billionth of slack absorbs decimal round-trips of ratios written by other tools.
            if drop > tolerance + 1e-9 {
                let (shownDrop, shownTolerance) = Self.percents(drop, tolerance)
                regressions.append("regression: \(key): hit ratio \(Self.percent(actual)) is \(shownDrop) points below the baseline \(Self.percent(expected)) (tolerance \(shownTolerance))")
            }
        }
        if let requestMismatch { mismatches.append(requestMismatch) }
        // A run the baseline has a hit ratio for, and that this run's policy now refuses, is a
        // regression: the policy no longer runs where it did.
        var refusedKeys = Set<Key>()
        for refusal in result.refusals {
            let key = Key(policy: refusal.policy, capacity: refusal.capacity, countLimit: refusal.countLimit, ignoreSize: refusal.ignoreSize)
            guard let saved = rows.hitRatios[key] else { continue }
            refusedKeys.insert(key)
            let baselineRatio = saved.map { " has hit ratio \(Self.percent($0))" } ?? " ran it"
            regressions.append("regression: \(key): the policy refuses it in this run (\(refusal.reason)); the baseline\(baselineRatio)")
        }
        // What the baseline holds that this run did not check: a policy or capacity dropped from
        // the run must not pass unseen.
        let runKeys = Set(result.results.map { Key(policy: $0.policy, capacity: $0.capacity, countLimit: $0.countLimit, ignoreSize: $0.ignoreSize) })
            .union(refusedKeys)
        let unchecked = rows.hitRatios.keys.filter { !runKeys.contains($0) }.map(\.description).sorted()
        if !unchecked.isEmpty {
            let shown = unchecked.prefix(5).joined(separator: "; ") + (unchecked.count > 5 ? "; and \(unchecked.count - 5) more" : "")
            notes.append("\(unchecked.count) of the baseline's results \(unchecked.count == 1 ? "is" : "are") not in this run, not checked: \(shown)")
        }
        if baselineTrace == nil && baselinesByTrace.isEmpty {
            notes.append("the baseline names no trace: that this run is on the baseline's trace was not checked")
        }
        if !rows.hitRatios.isEmpty && rows.requests.isEmpty {
            notes.append("the baseline has no request counts: that this run read as many requests was not checked")
        }
        if compared == 0 {
            mismatches.append("nothing was compared: no (policy, capacity) of this run has a hit ratio in the baseline")
        }
        if allowPartial {
            notes += mismatches
            mismatches = []
        }
        return Outcome(regressions: regressions, notes: notes,
                       mismatches: mismatches.map { "gate: \($0) (partial comparisons must be allowed explicitly)" })
    }

    /// The last path component: a baseline made from another folder names the same trace.
    static func fileName(_ path: String) -> Substring {
        path.split(separator: "/").last ?? Substring(path)
    }

    /// Which trace's rows of a several-trace baseline a run on `trace` is checked against.
    enum TraceRows {
        case found((hitRatios: [Key: Double?], requests: [Key: Int]))
        case none
        /// The traces that match equally well.
        case ambiguous([String])
    }

    /// The rows of the baseline's trace that `trace` names: the one of the same path, else the
    /// one whose path ends in the most of `trace`'s last components (at least its file name), so
    /// a baseline made from another folder, or on another machine, still finds `d4/t.csv` among
    /// `d1/t.csv` and `d4/t.csv`. O(traces × path components).
    func rows(for trace: String) -> TraceRows {
        if let exact = baselinesByTrace[trace] { return .found(exact) }
        let wanted = Array(trace.split(separator: "/").reversed())
        var best = 0, bestTraces: [String] = []
        for candidate in baselinesByTrace.keys {
            let components = candidate.split(separator: "/").reversed()
            let shared = zip(wanted, components).prefix { $0 == $1 }.count
            if shared > best { best = shared; bestTraces = [candidate] } else if shared == best && shared > 0 { bestTraces.append(candidate) }
        }
        guard best > 0, let first = bestTraces.first else { return .none }
        guard bestTraces.count == 1, let found = baselinesByTrace[first] else { return .ambiguous(bestTraces.sorted()) }
        return .found(found)
    }

    /// `12.3456 %`: four decimals, so a drop just over a small tolerance is visible.
    static func percent(_ ratio: Double) -> String { _fixed(ratio * 100, decimals: 4) + " %" }

    /// Two ratios as percentages with as many decimals (4 to 9) as it takes to tell them apart,
    /// so that a drop just past the tolerance does not print as equal to it.
    static func percents(_ a: Double, _ b: Double) -> (String, String) {
        var decimals = 4
        while decimals < 9 && _fixed(a * 100, decimals: decimals) == _fixed(b * 100, decimals: decimals) { decimals += 1 }
        return (_fixed(a * 100, decimals: decimals) + " %", _fixed(b * 100, decimals: decimals) + " %")
    }
}
