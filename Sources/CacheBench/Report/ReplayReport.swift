import Foundation

import EvictionPolicies

/// How a report is printed.
public enum ReportFormat: String, Sendable, CaseIterable {
    /// Aligned text for people.
    case table
    /// The contract's JSON objects.
    case json
    /// One header row, one row per result.
    case csv
    /// A GitHub-flavoured Markdown table.
    case markdown
}

extension TrimSummary {
    /// The contract's `trim` object.
    public var json: JSONValue {
        .object([
            ("count", .int(count)), ("totalNanoseconds", .int(Int(clamping: totalNanoseconds))),
            ("p50Nanoseconds", .int(Int(clamping: p50Nanoseconds))), ("p99Nanoseconds", .int(Int(clamping: p99Nanoseconds))),
            ("maxNanoseconds", .int(Int(clamping: maxNanoseconds))),
        ])
    }
}

extension ReplayResult {
    /// The contract's `replay --format json` object, with `capacitySource`, the other row counts,
    /// the trim breakdown (`trim.caller`, `trim.deferred`), `method`, `policyMetrics` (the
    /// policy's own figures, an object, empty for most), for a tiered run `tiers`, and when the
    /// engine found the run wrong, `warnings` (what `replay` prints on standard error).
    public var json: JSONValue {
        var trimFields: [(String, JSONValue)] = []
        if case .object(let fields) = trim.json { trimFields = fields }
        trimFields.append(("caller", trimCaller.json))
        trimFields.append(("deferred", trimDeferred.json))
        var fields: [(String, JSONValue)] = [
            ("policy", .string(policy)), ("trace", .string(trace)),
            ("capacity", .integer(capacity)), ("capacitySource", .string(capacitySource.rawValue)),
            ("countLimit", .integer(countLimit)), ("ignoreSize", .bool(ignoreSize)),
            ("requests", .int(requests)), ("hits", .int(hits)), ("misses", .int(misses)),
            ("hitRatio", .number(hitRatio)), ("missRatio", .number(missRatio)),
            ("byteRequests", .int(counters.byteRequests)), ("byteHits", .int(counters.byteHits)),
            ("byteHitRatio", .number(byteHitRatio)),
            ("evictions", .int(counters.evictions)), ("skipped", .int(counters.skipped)),
            ("sets", .int(counters.sets)), ("deletes", .int(counters.deletes)), ("events", .int(counters.events)),
            ("seconds", .double(seconds)), ("requestsPerSecond", .double(requestsPerSecond.rounded())),
            ("threads", .int(threads)),
            ("trim", .object(trimFields)),
            ("method", .string(method.rawValue)),
            ("policyMetrics", policyMetrics.json),
        ]
        if let tiers { fields.append(("tiers", tiers.json)) }
        if let window { fields.append(("window", window.json)) }
        if let admission {
            fields.append(("admission", .object([("rule", .string(admission.rule)), ("admitted", .int(admission.admitted)),
                                                 ("rejected", .int(admission.rejected))])))
        }
        // What `replay` prints as warnings on standard error, for programs too; absent when none.
        if !warnings.isEmpty { fields.append(("warnings", .array(warnings.map { .string($0) }))) }
        return .object(fields)
    }

    /// Flat columns for CSV and Markdown, in order.
    static let columns = [
        "policy", "trace", "capacity", "capacitySource", "countLimit", "ignoreSize", "requests", "hits", "misses",
        "hitRatio", "missRatio", "byteRequests", "byteHits", "byteHitRatio", "evictions", "skipped",
        "seconds", "requestsPerSecond",
        "trimCount", "trimTotalNanoseconds", "trimP50Nanoseconds", "trimP99Nanoseconds", "trimMaxNanoseconds",
        "trimCallerCount", "trimCallerP50Nanoseconds", "trimCallerP99Nanoseconds", "trimCallerMaxNanoseconds",
        "trimDeferredCount", "trimDeferredP50Nanoseconds", "trimDeferredP99Nanoseconds", "trimDeferredMaxNanoseconds",
        "method",
    ]

    /// Columns added after ``columns`` when a run had an admission rule (`--admission`); runs
    /// without one keep the contract's columns exactly.
    static let admissionColumns = ["admission", "admitted", "rejected"]

    var admissionValues: [String] {
        [admission?.rule ?? "", admission.map { String($0.admitted) } ?? "", admission.map { String($0.rejected) } ?? ""]
    }

    /// Columns added after ``columns`` and the admission columns when a trace had rows other
    /// than gets (an op column's sets and deletes, memory events): what a run of sets alone did,
    /// which ``columns`` (requests are gets) cannot show. Traces of gets keep the contract's columns.
    static let operationColumns = ["sets", "deletes", "events"]

    var operationValues: [String] { [String(counters.sets), String(counters.deletes), String(counters.events)] }

    /// Columns added after ``columns`` (and the admission and operation columns) when a run had a window
    /// (`--warmup`, `--max-requests`, `--sample`, `--report-interval`): the `window` object's
    /// figures, flat; `intervals` is the number of intervals, whose points are in the JSON.
    /// Runs without a window keep the contract's columns exactly.
    static let windowColumns = [
        "warmup", "warmupTraceRows", "warmupRequests", "maxRequests", "traceRows", "traceRequests",
        "traceByteRequests", "sampleRatio", "sampleSeed", "sampledCapacity", "sampledCountLimit",
        "sampledRequests", "sampledHits", "intervals",
    ]

    var windowValues: [String] {
        guard let window else { return Array(repeating: "", count: Self.windowColumns.count) }
        let asked = window.window
        func number(_ value: Int?) -> String { value.map(String.init) ?? "" }
        return [
            asked.warmup?.description ?? "", String(window.warmupTraceRows), String(window.warmupRequests),
            number(asked.maxRequests), String(window.traceRows), String(window.traceRequests),
            String(window.traceByteRequests), asked.sampleRatio.map { String(format6: $0) } ?? "",
            asked.sampleRatio == nil ? "" : String(asked.sampleSeed), number(window.sampledCapacity),
            number(window.sampledCountLimit), number(window.sampledRequests), number(window.sampledHits),
            asked.reportInterval == nil ? "" : String(window.intervals.count),
        ]
    }

    var flatValues: [String] {
        func ratio(_ value: Double?) -> String { value.map { _ratio($0, decimals: 6) } ?? "" }
        return [
            policy, trace, capacity.map(String.init) ?? "", capacitySource.rawValue, countLimit.map(String.init) ?? "",
            String(ignoreSize), String(requests), String(hits), String(misses),
            ratio(hitRatio), ratio(missRatio), String(counters.byteRequests), String(counters.byteHits),
            ratio(byteHitRatio), String(counters.evictions), String(counters.skipped),
            String(format6: seconds), String(_saturatingInt(requestsPerSecond.rounded())),
            String(trim.count), String(trim.totalNanoseconds), String(trim.p50Nanoseconds),
            String(trim.p99Nanoseconds), String(trim.maxNanoseconds),
            String(trimCaller.count), String(trimCaller.p50Nanoseconds), String(trimCaller.p99Nanoseconds),
            String(trimCaller.maxNanoseconds),
            String(trimDeferred.count), String(trimDeferred.p50Nanoseconds), String(trimDeferred.p99Nanoseconds),
            String(trimDeferred.maxNanoseconds), method.rawValue,
        ]
    }
}

/// Renders replay results in every report format.
public enum ReplayReport {
    /// One result (the `replay` command).
    public static func render(_ result: ReplayResult, as format: ReportFormat) -> String {
        switch format {
        case .json: return result.json.serialized(pretty: true) + "\n"
        case .csv, .markdown: return renderRows([result], as: format)
        case .table: return renderTable(result)
        }
    }

    /// Several results as rows (CSV or Markdown), one per result.
    public static func renderRows(_ results: [ReplayResult], as format: ReportFormat) -> String {
        let withAdmission = results.contains { $0.admission != nil }
        let withOperations = results.contains { $0.counters.sets > 0 || $0.counters.deletes > 0 || $0.counters.events > 0 }
        let withWindow = results.contains { $0.window != nil }
        let header = ReplayResult.columns + (withAdmission ? ReplayResult.admissionColumns : [])
            + (withOperations ? ReplayResult.operationColumns : []) + (withWindow ? ReplayResult.windowColumns : [])
        let rows = results.map {
            $0.flatValues + (withAdmission ? $0.admissionValues : []) + (withOperations ? $0.operationValues : [])
                + (withWindow ? $0.windowValues : [])
        }
        switch format {
        case .markdown:
            var out = "| " + header.joined(separator: " | ") + " |\n"
            out += "|" + header.map { _ in "---" }.joined(separator: "|") + "|\n"
            for row in rows { out += "| " + row.map(markdownCell).joined(separator: " | ") + " |\n" }
            return out
        default:
            var out = header.joined(separator: ",") + "\n"
            for row in rows { out += row.map(csvField).joined(separator: ",") + "\n" }
            return out
        }
    }

    /// `value` as one CSV field: quoted, with quotes doubled, when it holds a comma, a quote or a
    /// line break of any kind (LF, CR, CRLF; RFC 4180); as it is otherwise.
    public static func csvField(_ value: String) -> String {
        guard value.contains(where: { $0 == "," || $0 == "\"" || $0.isNewline }) else { return value }
        return "\"" + value.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }

    /// `text` for a terminal: control characters other than a tab (a CR or ESC in a trace's file
    /// name) written as `\u{D}`-style escapes, so they cannot move the cursor or break the layout.
    public static func displayText(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: _isControl) else { return text }
        var result = ""
        for scalar in text.unicodeScalars {
            if _isControl(scalar) { result += "\\u{\(String(scalar.value, radix: 16, uppercase: true))}" } else { result.unicodeScalars.append(scalar) }
        }
        return result
    }

    private static func _isControl(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value < 0x20 && scalar != "\t" || scalar.value == 0x7F || (0x80..<0xA0).contains(scalar.value)
    }

    /// `value` as a Markdown code span outside a table: control characters (line feeds too)
    /// spelled as `\u{…}`, and fenced by one backtick more than its longest run of backticks
    /// (padded with spaces where it starts or ends with one), so no name can end the span early.
    public static func markdownCode(_ value: String) -> String {
        let text = displayText(value)
        var longest = 0, run = 0
        for character in text {
            run = character == "`" ? run + 1 : 0
            longest = max(longest, run)
        }
        let fence = String(repeating: "`", count: longest + 1)
        let pad = text.hasPrefix("`") || text.hasSuffix("`") ? " " : ""
        return fence + pad + text + pad + fence
    }

    /// `value` as one cell of a Markdown table, shown as it is: each character that Markdown
    /// would read as markup (`|`, which ends the cell, and `` \ ` * _ [ ] < > & ~ $ ``, which make
    /// escapes, code, emphasis, links, HTML, strikethrough and math) escaped with a backslash;
    /// each line break (which would end the row) written as `<br>`, which GitHub's tables show as
    /// one; and any other control character (an ESC in a trace's file name) escaped as
    /// ``displayText(_:)`` escapes it.
    public static func markdownCell(_ value: String) -> String {
        guard value.unicodeScalars.contains(where: { _markdownMarkup.contains($0) || _isControl($0) })
                || value.contains(where: \.isNewline) else { return value }
        var cell = ""
        for character in value {
            if character.isNewline {
                cell += "<br>"
            } else {
                // By scalar: `*` with a combining mark is one character, and still emphasis.
                for scalar in character.unicodeScalars {
                    cell += _markdownMarkup.contains(scalar) ? "\\" + String(scalar) : displayText(String(scalar))
                }
            }
        }
        return cell
    }

    /// The characters ``markdownCell(_:)`` escapes.
    private static let _markdownMarkup: Set<Unicode.Scalar> = ["|", "\\", "`", "*", "_", "[", "]", "<", ">", "&", "~", "$"]

    static func renderTable(_ r: ReplayResult) -> String {
        func percent(_ value: Double?) -> String { value.map { _ratio($0 * 100, decimals: 2, of: 100) + " %" } ?? "n/a" }
        func trimLine(_ t: TrimSummary) -> String {
            "\(t.count) passes, p50 \(Duration.format(t.p50Nanoseconds)), p99 \(Duration.format(t.p99Nanoseconds)), max \(Duration.format(t.maxNanoseconds)), total \(Duration.format(t.totalNanoseconds))"
        }
        var rows: [(String, String)] = [
            ("policy", r.policy), ("trace", displayText(r.trace)),
            ("capacity", (r.capacity.map { SizeFormat.describe($0, objects: r.ignoreSize) } ?? "unlimited") + " (\(r.capacitySource.rawValue))"),
        ]
        if let limit = r.countLimit { rows.append(("count limit", String(limit))) }
        rows += r.window?.tableRows ?? []
        rows += [
            ("requests", "\(r.requests) (\(r.hits) hits, \(r.misses) misses)"),
            ("hit ratio", percent(r.hitRatio)),
            ("byte hit ratio", percent(r.byteHitRatio)),
            ("evictions", String(r.counters.evictions)),
        ]
        if r.counters.skipped > 0 { rows.append(("skipped (size 0)", String(r.counters.skipped))) }
        if r.counters.sets + r.counters.deletes + r.counters.events > 0 {
            rows.append(("other rows", "\(r.counters.sets) sets, \(r.counters.deletes) deletes, \(r.counters.events) events"))
        }
        rows += [
            ("throughput", "\(SizeFormat.grouped(_saturatingInt(r.requestsPerSecond.rounded()))) requests/s (\(String(format6: r.seconds)) s"
                + (r.threads > 1 ? ", \(r.threads) threads sharing one locked cache)" : ")")),
            ("trim latency", trimLine(r.trim)),
        ]
        if r.trimDeferred.count > 0 {
            rows.append(("  caller", trimLine(r.trimCaller)))
            rows.append(("  deferred", trimLine(r.trimDeferred)))
        }
        if let a = r.admission { rows.append(("admission", "\(a.rule): \(a.admitted) admitted, \(a.rejected) rejected")) }
        if !r.policyMetrics.isEmpty { rows.append(("policy metrics", r.policyMetrics.map(\.description).joined(separator: ", "))) }
        if let tiers = r.tiers {
            rows.append(("memory copies cost", tiers.memoryCost))
            rows += tiers.memory.tableRows(role: "memory", ignoreSize: r.ignoreSize)
            rows += tiers.disk.tableRows(role: "disk", ignoreSize: r.ignoreSize)
        }
        let width = rows.map(\.0.count).max() ?? 0
        return rows.map { $0.0.padding(toLength: width, withPad: " ", startingAt: 0) + "  " + $0.1 }.joined(separator: "\n") + "\n"
    }
}

/// Human-readable durations.
enum Duration {
    static func format(_ nanoseconds: UInt64) -> String {
        let value = Double(nanoseconds)
        if value < 1_000 { return "\(nanoseconds) ns" }
        if value < 1_000_000 { return String(format2: value / 1_000) + " µs" }
        if value < 1_000_000_000 { return String(format2: value / 1_000_000) + " ms" }
        return String(format2: value / 1_000_000_000) + " s"
    }
}

extension String {
    /// Fixed-point with 6 decimals, without Foundation.
    init(format6 value: Double) { self = _fixed(value, decimals: 6) }
    /// Fixed-point with 2 decimals, without Foundation.
    init(format2 value: Double) { self = _fixed(value, decimals: 2) }
}

/// A ratio of `whole` (1, or 100 for a percentage) in fixed point with at least `decimals`
/// decimals, and more when fewer would print an end the ratio is not at: one miss in three million
/// is `0.9999997`, not `1.000000`, and one hit `0.0000003`, not `0.000000` (up to 15 decimals).
func _ratio(_ value: Double, decimals: Int, of whole: Double = 1) -> String {
    var decimals = decimals
    var text = _fixed(value, decimals: decimals)
    while decimals < 15, value > 0 && value < whole, let shown = Double(text), shown <= 0 || shown >= whole {
        decimals += 1
        text = _fixed(value, decimals: decimals)
    }
    return text
}

func _fixed(_ value: Double, decimals: Int) -> String {
    guard value.isFinite else { return "nan" }
    var scale = 1.0
    for _ in 0..<decimals { scale *= 10 }
    let product = abs(value) * scale
    var scaled = product.rounded()
    // A product that rounded onto a half may come from a value just below it (6.42874999… × 10⁴
    // is 64287.5 as a Double): the exact error of the product (a fused multiply-add) says which
    // way, so 6.42874999… prints as 6.4287, as printf and traceAnalyzer print it.
    if product - product.rounded(.down) == 0.5, (-product).addingProduct(abs(value), scale) < 0 {
        scaled = product.rounded(.down)
    }
    // Too large for the integer arithmetic below (and for fixed point to be readable): six
    // significant digits, as `1.5e+23`, not Swift's shortest round-trip form (`1.4999999999999999e+23`).
    guard scaled < 9e18 else { return String(format: "%.6g", value) }
    let whole = Int64(scaled)
    let integer = whole / Int64(scale)
    let fraction = String(whole % Int64(scale))
    let sign = value < 0 && whole != 0 ? "-" : ""
    if decimals == 0 { return sign + String(integer) }
    return sign + String(integer) + "." + String(repeating: "0", count: decimals - fraction.count) + fraction
}
