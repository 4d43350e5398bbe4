import EvictionPolicies

/// One finished cell as it is stored: one line of JSON that checks itself.
///
/// The line is a JSON object: the cell (`cell` identity, `trace`, `traceIdentity`, `policy`,
/// `capacity`, `configuration`), the tool's `version` and `build` (``ToolVersion/build``; absent
/// when unknown, and in records written before builds were recorded), the `shard` that ran it, the `result`
/// (the contract's `replay` object) or, for a cell the policy cannot be configured for (LIRS at a
/// capacity of 1), `refused` with the reason; `warnings`, when the replay warned (a policy that
/// cached nothing, or ended over its limits), as `replay` prints them; and last `check`, the FNV-1a
/// hash of everything before it.
/// A line cut short, or damaged in any byte, fails the check and counts as absent, so its cell
/// is run again.
public struct SweepRecord: Sendable, Equatable {
    /// The cell.
    public var cell: SweepCell
    /// The cell's stable identity (``SweepCell/identity(trace:configurationKey:)``).
    public var identity: String
    /// The content of the trace the result was made from.
    public var traceIdentity: TraceIdentity
    /// The sweep configuration the result was made under (``SweepSpec/configurationKey``).
    public var configurationKey: String
    /// The version of cachebench that made it.
    public var version: String
    /// The build of the program that made it (``ToolVersion/build``), when known.
    public var build: String?
    /// The shard that ran it (`K/N`).
    public var shard: String
    /// The replay's result; `nil` when the policy refused the cell's configuration.
    public var result: ReplayResult?
    /// Why the policy refused the cell's configuration (e.g. a capacity too small for it); such a
    /// cell is recorded, so it is not retried forever, and reported apart.
    public var refusal: String?

    /// Creates a record.
    public init(cell: SweepCell, identity: String, traceIdentity: TraceIdentity, configurationKey: String,
                version: String = ToolVersion.current, build: String? = ToolVersion.build, shard: String,
                result: ReplayResult?, refusal: String? = nil) {
        self.cell = cell
        self.identity = identity
        self.traceIdentity = traceIdentity
        self.configurationKey = configurationKey
        self.version = version
        self.build = build
        self.shard = shard
        self.result = result
        self.refusal = result == nil ? (refusal ?? "no result") : nil
    }

    /// `, "check": "` + 16 hexadecimal digits + `"}`.
    private static let checkSuffixLength = 30

    /// The record as one line of JSON, without the newline.
    public var line: String {
        let body = JSONValue.object([
            ("cell", .string(identity)), ("trace", .string(cell.trace)), ("traceIdentity", .string(traceIdentity.description)),
            ("policy", .string(cell.policy)), ("capacity", .string(cell.capacity.key)),
            ("configuration", .string(configurationKey)), ("version", .string(version)),
        ] + (build.map { [("build", JSONValue.string($0))] } ?? []) + [
            ("shard", .string(shard)),
            result.map { ("result", $0.json) } ?? ("refused", .string(refusal ?? "")),
        ]).serialized()
        return String(body.dropLast()) + ", \"check\": \"" + _FNV1a64.hex(of: body) + "\"}"
    }

    /// Reads a line written by ``line``; `nil` when it is cut short, damaged, not a record, or
    /// disagrees with itself (a cell identity that is not the hash of its fields).
    public init?(line: Substring) {
        guard line.utf8.count > Self.checkSuffixLength, line.hasSuffix("\"}") else { return nil }
        let split = line.utf8.index(line.utf8.endIndex, offsetBy: -Self.checkSuffixLength)
        let suffix = line[split...]
        guard suffix.hasPrefix(", \"check\": \"") else { return nil }
        let check = suffix.dropFirst(12).dropLast(2)
        guard _FNV1a64.hex(of: String(line[..<split]) + "}") == check else { return nil }
        guard let object = JSONValue.parse(line),
              let identity = object["cell"]?.stringValue, let trace = object["trace"]?.stringValue,
              let traceText = object["traceIdentity"]?.stringValue, let traceIdentity = TraceIdentity(traceText),
              let policy = object["policy"]?.stringValue,
              let capacityKey = object["capacity"]?.stringValue, let capacity = SweepCapacity(key: capacityKey),
              let configurationKey = object["configuration"]?.stringValue, let version = object["version"]?.stringValue,
              let shard = object["shard"]?.stringValue
        else { return nil }
        var result: ReplayResult?
        if let resultObject = object["result"] {
            guard var decoded = ReplayResult(json: resultObject) else { return nil }
            // Records written before results carried their warnings keep them beside the result.
            if let warnings = object["warnings"] {
                guard case .array(let values) = warnings else { return nil }
                decoded.warnings = values.compactMap(\.stringValue)
            }
            result = decoded
        } else if object["refused"]?.stringValue == nil {
            return nil
        }
        // A line that checks itself must also agree with itself: its cell's identity is the hash
        // of the fields it names (a relabelled cell would stand for a run it is not).
        let cell = SweepCell(trace: trace, policy: policy, capacity: capacity)
        guard cell.identity(trace: traceIdentity, configurationKey: configurationKey) == identity else { return nil }
        self.init(cell: cell, identity: identity,
                  traceIdentity: traceIdentity, configurationKey: configurationKey, version: version,
                  build: object["build"]?.stringValue, shard: shard, result: result, refusal: object["refused"]?.stringValue)
    }
}

extension TraceIdentity {
    /// Parses ``description`` (`HASH-BYTES`).
    init?(_ text: String) {
        let parts = text.split(separator: "-")
        guard parts.count == 2, parts[0].count == 16, let bytes = Int(parts[1]), bytes >= 0 else { return nil }
        self.init(hash: String(parts[0]), bytes: bytes)
    }
}

extension ReplayResult {
    /// A result back from its JSON object (``json``); `nil` when a field is missing or of the
    /// wrong type. Derived fields (ratios, requests per second) are recomputed; a tiered run's
    /// `tiers` are not read back (sweeps have none); an admission rule's counts are.
    public init?(json object: JSONValue) {
        func summary(_ value: JSONValue?) -> TrimSummary? {
            guard let value, let count = value["count"]?.intValue,
                  let total = value["totalNanoseconds"]?.intValue, let p50 = value["p50Nanoseconds"]?.intValue,
                  let p99 = value["p99Nanoseconds"]?.intValue, let max = value["maxNanoseconds"]?.intValue,
                  total >= 0, p50 >= 0, p99 >= 0, max >= 0 else { return nil }
            return TrimSummary(count: count, totalNanoseconds: UInt64(total), p50Nanoseconds: UInt64(p50),
                               p99Nanoseconds: UInt64(p99), maxNanoseconds: UInt64(max))
        }
        func optionalInteger(_ value: JSONValue?) -> Int?? {
            switch value {
            case .null?: return .some(nil)
            case .int(let number)?: return .some(number)
            default: return nil
            }
        }
        guard let policy = object["policy"]?.stringValue, let trace = object["trace"]?.stringValue,
              let sourceText = object["capacitySource"]?.stringValue, let source = CapacitySource(rawValue: sourceText),
              let ignoreSize = object["ignoreSize"]?.boolValue, let seconds = object["seconds"]?.doubleValue,
              let capacity = optionalInteger(object["capacity"]), let countLimit = optionalInteger(object["countLimit"]),
              let trim = object["trim"], let all = summary(trim),
              let caller = summary(trim["caller"]), let deferred = summary(trim["deferred"]),
              let methodText = object["method"]?.stringValue, let method = ReplayMethod(rawValue: methodText),
              let threads = object["threads"]?.intValue,
              case .object(let metrics)? = object["policyMetrics"]
        else { return nil }
        var counters = ReplayCounters()
        let fields: [(WritableKeyPath<ReplayCounters, Int>, String)] = [
            (\.requests, "requests"), (\.hits, "hits"), (\.byteRequests, "byteRequests"), (\.byteHits, "byteHits"),
            (\.evictions, "evictions"), (\.skipped, "skipped"), (\.sets, "sets"), (\.deletes, "deletes"),
            (\.events, "events"),
        ]
        for (path, name) in fields {
            guard let value = object[name]?.intValue, value >= 0 else { return nil }
            counters[keyPath: path] = value
        }
        // Counts no replay can give (a hand-edited record whose check was recomputed): not a result.
        guard counters.hits <= counters.requests, counters.byteHits <= counters.byteRequests,
              seconds.isFinite, seconds >= 0, threads >= 1,
              (capacity ?? nil).map({ $0 >= 1 }) ?? true, (countLimit ?? nil).map({ $0 >= 1 }) ?? true else { return nil }
        var policyMetrics: [PolicyMetric] = []
        for (name, value) in metrics {
            guard let number = value.intValue else { return nil }
            policyMetrics.append(PolicyMetric(name, number))
        }
        self.init(policy: policy, trace: trace, capacity: capacity, capacitySource: source, countLimit: countLimit,
                  ignoreSize: ignoreSize, counters: counters, seconds: seconds, trim: all, trimCaller: caller,
                  trimDeferred: deferred)
        self.policyMetrics = policyMetrics
        self.threads = threads
        self.method = method
        if let admission = object["admission"] {
            guard let rule = admission["rule"]?.stringValue, let admitted = admission["admitted"]?.intValue,
                  let rejected = admission["rejected"]?.intValue else { return nil }
            self.admission = AdmissionCounts(rule: rule, admitted: admitted, rejected: rejected)
        }
        if let warnings = object["warnings"] {
            guard case .array(let values) = warnings else { return nil }
            self.warnings = values.compactMap(\.stringValue)
        }
    }

    /// The result with every timing zeroed (the seconds and the trim-pass durations, not their
    /// count): what two runs of one cell must agree on exactly.
    public var withoutTimings: ReplayResult {
        var copy = self
        copy.seconds = 0
        func counted(_ summary: TrimSummary) -> TrimSummary {
            TrimSummary(count: summary.count, totalNanoseconds: 0, p50Nanoseconds: 0, p99Nanoseconds: 0, maxNanoseconds: 0)
        }
        copy.trim = counted(trim)
        copy.trimCaller = counted(trimCaller)
        copy.trimDeferred = counted(trimDeferred)
        return copy
    }
}
