import EvictionPolicies

// The report's parts for policy-specific figures and tiered runs: `policyMetrics` and `tiers`
// in the replay object (ReplayResult.json), and the tier rows of the table.

extension [PolicyMetric] {
    /// `{ "name": value, … }` in the policy's order.
    public var json: JSONValue { .object(map { ($0.name, .int($0.value)) }) }
}

extension TierResults {
    /// `{ "memoryCost": "size", "memory": {…}, "disk": {…} }`.
    public var json: JSONValue {
        .object([("memoryCost", .string(memoryCost)), ("memory", memory.json), ("disk", disk.json)])
    }
}

extension TierResult {
    /// One tier: its policy and limits, hits, evictions, what is resident at the end, its trim
    /// passes (as the top-level `trim`, with `caller` and `deferred`) and its policy metrics.
    public var json: JSONValue {
        var trimFields: [(String, JSONValue)] = []
        if case .object(let fields) = trim.json { trimFields = fields }
        trimFields.append(("caller", trimCaller.json))
        trimFields.append(("deferred", trimDeferred.json))
        return .object([
            ("policy", .string(policy)), ("capacity", .integer(capacity)), ("capacitySource", .string(capacitySource.rawValue)),
            ("countLimit", .integer(countLimit)), ("hits", .int(hits)), ("byteHits", .int(byteHits)),
            ("evictions", .int(evictions)), ("entries", .int(entries)), ("bytes", .int(bytes)),
            ("trim", .object(trimFields)), ("policyMetrics", policyMetrics.json),
        ])
    }

    /// Table rows for the human-readable report.
    func tableRows(role: String, ignoreSize: Bool) -> [(String, String)] {
        let limit = (capacity.map { SizeFormat.describe($0, objects: ignoreSize) } ?? "unlimited") + " (\(capacitySource.rawValue))"
            + (countLimit.map { ", count limit \($0)" } ?? "")
        var rows: [(String, String)] = [
            ("\(role) tier", "\(policy), \(limit)"),
            ("  hits", "\(hits) (\(byteHits) bytes)"),
            ("  evictions", "\(evictions); \(entries) entries, \(SizeFormat.describe(bytes, objects: ignoreSize)) resident at the end"),
            ("  trims", "\(trim.count) passes (\(trimCaller.count) caller, \(trimDeferred.count) deferred), p50 \(Duration.format(trim.p50Nanoseconds)), max \(Duration.format(trim.maxNanoseconds))"),
        ]
        if !policyMetrics.isEmpty { rows.append(("  metrics", policyMetrics.map(\.description).joined(separator: ", "))) }
        return rows
    }
}
