/// ``TraceAnalysis`` as text for people or as JSON.
public enum TraceAnalysisReport {
    /// The analysis of `trace` in `format` (`csv` and `markdown` give the table's rows as
    /// `field,value` pairs or a two-column table).
    public static func render(_ a: TraceAnalysis, trace: String, as format: ReportFormat) -> String {
        let rows = self.rows(a, trace: trace)
        switch format {
        case .json: return json(a, trace: trace).serialized(pretty: true) + "\n"
        case .table:
            let width = rows.map(\.0.count).max() ?? 0
            return rows.map { $0.0.padding(toLength: width + 2, withPad: " ", startingAt: 0) + $0.1 }.joined(separator: "\n") + "\n"
        case .csv: return "field,value\n" + rows.map { "\($0.0),\"\($0.1)\"" }.joined(separator: "\n") + "\n"
        case .markdown: return "| field | value |\n|---|---|\n" + rows.map { "| \($0.0) | \($0.1) |" }.joined(separator: "\n") + "\n"
        }
    }

    private static func ratio(_ part: Int, _ whole: Int) -> String {
        whole == 0 ? "0" : String(format: "%.4f", Double(part) / Double(whole))
    }

    static func rows(_ a: TraceAnalysis, trace: String) -> [(String, String)] {
        let operations = a.operations.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")
        return [
            ("trace", trace),
            ("requests", "\(a.requests) (\(a.requestBytes) bytes)"),
            ("objects", "\(a.objects) (\(a.objectBytes) bytes, the working set)"),
            ("compulsory miss ratio", "\(ratio(a.objects, a.requests)) (bytes \(ratio(a.objectBytes, a.requestBytes)))"),
            ("mean size", "\(a.requests == 0 ? 0 : a.requestBytes / a.requests) by request, \(a.objects == 0 ? 0 : a.objectBytes / a.objects) by object"),
            ("mean frequency", ratio(a.requests, a.objects)),
            ("time span", "\(Int(a.lastTime - a.firstTime)) s"),
            ("operations", operations + (a.zeroSizeRequests > 0 ? " (\(a.zeroSizeRequests) zero-size gets skipped)" : "")),
            ("size changes", "\(a.sizeChanges) requests"),
            ("request rate", String(format: "min %.4f, max %.4f req/s (window %g s)", a.minimumRate, a.maximumRate, a.rateWindow)),
            ("popularity", String(format: "Zipf alpha %.4f, R2 %.4f", a.zipfAlpha, a.zipfR2)),
            ("one-hit wonders", "\(a.objectsByRequestCount.first ?? 0) objects (\(ratio(a.objectsByRequestCount.first ?? 0, a.objects)))"),
            ("objects by requests 1-8", a.objectsByRequestCount.map(String.init).joined(separator: ", ")),
            ("most requested", a.topFrequencies.map(String.init).joined(separator: ", ")),
        ]
    }

    static func json(_ a: TraceAnalysis, trace: String) -> JSONValue {
        .object([
            ("trace", .string(trace)),
            ("requests", .int(a.requests)), ("requestBytes", .int(a.requestBytes)),
            ("objects", .int(a.objects)), ("objectBytes", .int(a.objectBytes)),
            ("zeroSizeRequests", .int(a.zeroSizeRequests)), ("sizeChanges", .int(a.sizeChanges)),
            ("operations", .object(a.operations.sorted { $0.key < $1.key }.map { ($0.key, .int($0.value)) })),
            ("firstTime", .double(a.firstTime)), ("lastTime", .double(a.lastTime)),
            ("oneHitWonderRatio", .double(a.oneHitWonderRatio)),
            ("objectsByRequestCount", .array(a.objectsByRequestCount.map { .int($0) })),
            ("topFrequencies", .array(a.topFrequencies.map { .int($0) })),
            ("zipfAlpha", .double(a.zipfAlpha)), ("zipfR2", .double(a.zipfR2)),
            ("rateWindow", .double(a.rateWindow)), ("minimumRate", .double(a.minimumRate)), ("maximumRate", .double(a.maximumRate)),
        ])
    }
}
