/// Renders `compare` and `mrc` results.
public enum CompareReport {
    /// A comparison in any format: `json` is the contract's `{ "trace", "results" }` object;
    /// `csv` has one row per (policy, capacity) with `replay`'s columns, for programs; `table`
    /// and `markdown` show policies side by side, one row per capacity, for people (Markdown
    /// tables paste into pull requests and the committed results/).
    public static func render(_ result: CompareResult, as format: ReportFormat) -> String {
        switch format {
        case .json: return result.json.serialized(pretty: true) + "\n"
        case .csv: return ReplayReport.renderRows(result.results, as: format)
        case .table: return renderTable(result, markdown: false)
        case .markdown: return renderTable(result, markdown: true)
        }
    }

    /// The miss-ratio curve of `mrc`: JSON as `compare`; otherwise one row per capacity.
    public static func renderCurve(_ result: CompareResult, as format: ReportFormat) -> String {
        // Behind an admission rule, its name and counts go with every format (JSON has them).
        let admitted = result.results.contains { $0.admission != nil }
        let header = ["capacity", result.results.first?.ignoreSize == true ? "objects" : "bytes",
                      "hitRatio", "missRatio", "byteHitRatio", "hits", "requests"]
            + (admitted ? ReplayResult.admissionColumns : [])
        func ratio(_ value: Double?) -> String { value.map { _ratio($0, decimals: 6) } ?? "" }
        let rows: [[String]] = result.results.map { r in
            let counts: [String] = [capacityLabel(r), r.capacity.map(String.init) ?? "", ratio(r.hitRatio), ratio(r.missRatio),
                                    ratio(r.byteHitRatio), String(r.hits), String(r.requests)]
            return counts + (admitted ? r.admissionValues : [])
        }
        switch format {
        case .json: return result.json.serialized(pretty: true) + "\n"
        case .csv:
            return ([header] + rows).map { $0.map(ReplayReport.csvField).joined(separator: ",") }.joined(separator: "\n") + "\n"
        case .markdown:
            var out = "| " + header.joined(separator: " | ") + " |\n|" + header.map { _ in "---:" }.joined(separator: "|") + "|\n"
            for row in rows { out += "| " + row.map(ReplayReport.markdownCell).joined(separator: " | ") + " |\n" }
            // What the numbers are (an estimate, a fallback to simulation) travels with them.
            if !result.notes.isEmpty { out += "\n" + result.notes.map { "- note: \($0)\n" }.joined() }
            return out
        case .table:
            var out = "\(result.results.first.map { $0.policy == "lru" ? "LRU" : $0.policy } ?? "LRU") miss-ratio curve: \(ReplayReport.displayText(result.trace))\n"
            if let first = result.results.first {
                out += "\(SizeFormat.grouped(first.requests)) requests"
                out += first.ignoreSize ? ", every object counts as 1\n" : ", capacities in bytes\n"
            }
            switch result.results.first?.method {
            case .stackDistance?: out += "method: one stack-distance pass (exact)\n"
            case .miniatureSimulation?: out += "method: miniature simulation per capacity on a spatial sample (estimate)\n"
            default: out += "method: simulation per capacity\n"
            }
            out += "\n"
            let table = [["capacity", header[1], "hit ratio", "miss ratio", "byte hit ratio"] + (admitted ? ReplayResult.admissionColumns : [])]
                + result.results.map { r in
                    [capacityLabel(r), r.capacity.map(String.init) ?? "", percent(r.hitRatio), percent(r.missRatio), percent(r.byteHitRatio)]
                        + (admitted ? r.admissionValues.map { $0.isEmpty ? "-" : $0 } : [])
                }
            out += aligned(table, rightAligned: admitted ? [1, 2, 3, 4, 6, 7] : [1, 2, 3, 4])
            for note in result.notes { out += "note: \(note)\n" }
            return out
        }
    }

    static func renderTable(_ result: CompareResult, markdown: Bool) -> String {
        var policies: [String] = []
        for r in result.results where !policies.contains(r.policy) { policies.append(r.policy) }
        var capacities: [Int?] = []
        for r in result.results where !capacities.contains(r.capacity) { capacities.append(r.capacity) }
        capacities.sort { ($0 ?? .max) < ($1 ?? .max) }
        let objects = result.results.first?.ignoreSize ?? false
        func cell(_ policy: String, _ capacity: Int?) -> ReplayResult? {
            result.results.first { $0.policy == policy && $0.capacity == capacity }
        }
        func matrix(_ title: String, _ value: (ReplayResult) -> String) -> String {
            var rows = [["capacity", objects ? "objects" : "bytes"] + policies]
            for capacity in capacities {
                let label = capacity.map { SVGLineChart.xLabel(Double($0), unit: objects ? .objects : .bytes, exact: true) } ?? "unlimited"
                rows.append([objects ? label.replacingOccurrences(of: " objects", with: "") : label,
                             capacity.map(String.init) ?? ""] + policies.map { cell($0, capacity).map(value) ?? "-" })
            }
            if markdown { return "**\(title)**\n\n" + markdownTable(rows) }
            return title + "\n" + aligned(rows, rightAligned: Set(1..<(policies.count + 2)))
        }
        var out = "trace: \(markdown ? ReplayReport.markdownCode(result.trace) : ReplayReport.displayText(result.trace))"
        if let first = result.results.first {
            out += " (\(SizeFormat.grouped(first.requests)) requests"
            if first.counters.skipped > 0 { out += ", \(first.counters.skipped) skipped" }
            out += objects ? ", every object counts as 1)\n" : ")\n"
        } else {
            out += "\n"
        }
        if let ws = result.workingSet {
            out += (markdown ? "\n" : "") + "working set: \(SizeFormat.grouped(ws.objects)) objects, \(SizeFormat.describe(ws.bytes, objects: false))\n"
        }
        if let limit = result.results.lazy.compactMap(\.countLimit).first {
            out += (markdown ? "\n" : "") + "count limit: \(SizeFormat.grouped(limit)) objects\n"
        }
        let admissionRule = result.results.lazy.compactMap(\.admission).first?.rule
        if let rule = admissionRule {
            out += (markdown ? "\n" : "") + "admission: \(rule), ahead of every run (admitted / rejected misses below)\n"
        }
        out += "\n" + matrix("hit ratio (%)") { percentNumber($0.hitRatio) }
        if !objects { out += "\n" + matrix("byte hit ratio (%)") { percentNumber($0.byteHitRatio) } }
        if admissionRule != nil {
            out += "\n" + matrix("admission: admitted / rejected misses") { r in r.admission.map { "\($0.admitted) / \($0.rejected)" } ?? "-" }
        }
        out += "\n" + matrix("throughput (million requests/s, each run's own policy calls)") {
            $0.method == .stackDistance ? _fixed($0.requestsPerSecond / 1e6, decimals: 2) + "*" : _fixed($0.requestsPerSecond / 1e6, decimals: 2)
        }
        out += "\n" + matrix("trim passes: p99 duration") { r in
            r.method == .stackDistance ? "n/a*" : (r.trim.count == 0 ? "none" : Duration.format(r.trim.p99Nanoseconds))
        }
        if result.results.contains(where: { $0.method == .stackDistance }) {
            out += "\n" + (markdown ? "\\* " : "* ")
                + "lru: all capacities from one exact stack-distance pass (its time is shared equally; no pass durations).\n"
        }
        out += "\n" + (markdown ? "" : "wall time: \(_fixed(result.wallSeconds, decimals: 3)) s for \(result.results.count) runs\n")
        for note in result.notes { out += "note: \(note)\n" }
        return out
    }

    /// A GitHub-flavoured Markdown table; the first row is the header, columns after the first
    /// are numbers and align right.
    static func markdownTable(_ rows: [[String]]) -> String {
        guard let header = rows.first else { return "" }
        var out = "| " + header.map(ReplayReport.markdownCell).joined(separator: " | ") + " |\n"
        out += "|" + header.indices.map { $0 == 0 ? "---" : "---:" }.joined(separator: "|") + "|\n"
        for row in rows.dropFirst() { out += "| " + row.map(ReplayReport.markdownCell).joined(separator: " | ") + " |\n" }
        return out
    }

    static func capacityLabel(_ r: ReplayResult) -> String {
        r.capacity.map { SVGLineChart.xLabel(Double($0), unit: r.ignoreSize ? .objects : .bytes, exact: true) } ?? "unlimited"
    }

    static func percent(_ value: Double?) -> String { value.map { _ratio($0 * 100, decimals: 2, of: 100) + " %" } ?? "n/a" }
    static func percentNumber(_ value: Double?) -> String { value.map { _ratio($0 * 100, decimals: 2, of: 100) } ?? "n/a" }

    /// Columns padded to their widest cell; `rightAligned` columns (numbers) align right.
    static func aligned(_ rows: [[String]], rightAligned: Set<Int>) -> String {
        guard let columns = rows.map(\.count).max() else { return "" }
        var widths = Array(repeating: 0, count: columns)
        for row in rows { for (i, cell) in row.enumerated() { widths[i] = max(widths[i], cell.count) } }
        var out = ""
        for row in rows {
            var line = ""
            for (i, cell) in row.enumerated() {
                let pad = String(repeating: " ", count: widths[i] - cell.count)
                line += (i == 0 ? "" : "  ") + (rightAligned.contains(i) ? pad + cell : cell + pad)
            }
            while line.hasSuffix(" ") { line.removeLast() }
            out += line + "\n"
        }
        return out
    }
}
