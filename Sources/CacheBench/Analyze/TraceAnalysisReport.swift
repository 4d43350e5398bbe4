import Foundation

/// ``TraceAnalysis`` as text for people, as JSON, and as SVG plots.
public enum TraceAnalysisReport {
    /// The analysis of `trace` in `format` (`csv` and `markdown` give the table's rows as
    /// `field,value` pairs or a two-column table).
    public static func render(_ a: TraceAnalysis, trace: String, as format: ReportFormat) -> String {
        let rows = self.rows(a, trace: trace)
        switch format {
        case .json: return json(a, trace: trace).serialized(pretty: true) + "\n"
        case .table:
            let width = rows.map(\.0.count).max() ?? 0
            // Control bytes of the trace's name (ESC, CR) shown escaped, not sent to the terminal.
            return rows.map { $0.0.padding(toLength: width + 2, withPad: " ", startingAt: 0) + ReplayReport.displayText($0.1) }
                .joined(separator: "\n") + "\n"
        case .csv:
            return "field,value\n" + rows.map { ReplayReport.csvField($0.0) + "," + ReplayReport.csvField($0.1) }.joined(separator: "\n") + "\n"
        case .markdown:
            return "| field | value |\n|---|---|\n"
                + rows.map { "| \(ReplayReport.markdownCell($0.0)) | \(ReplayReport.markdownCell($0.1)) |" }.joined(separator: "\n") + "\n"
        }
    }

    /// `part` over `whole` with 4 decimals (more when 4 would round it to 0 or 1 and it is
    /// neither), or `n/a` when `whole` is 0: JSON's null, not a measured 0.
    private static func ratio(_ part: Int, _ whole: Int) -> String {
        whole == 0 ? "n/a" : _ratio(Double(part) / Double(whole), decimals: 4)
    }

    /// The range a log-2 bin covers: `0`, `1`, `2-3`, `4-7`, … (reuse distance: bin k ≥ 1 is 2^(k-1)..<2^k).
    static func distanceBinLabel(_ bin: Int) -> String {
        if bin == 0 { return "0" }
        let low = 1 << (bin - 1), high = (1 << bin) - 1
        return low == high ? "\(low)" : "\(low)-\(high)"
    }

    /// The smallest bin edge at or above which `fraction` of the histogram's mass lies below.
    static func quantileBin(_ histogram: [Int], _ fraction: Double) -> Int? {
        let total = histogram.reduce(0, +)
        guard total > 0 else { return nil }
        var seen = 0
        for (bin, count) in histogram.enumerated() {
            seen += count
            if Double(seen) >= fraction * Double(total) { return bin }
        }
        return histogram.count - 1
    }

    static func rows(_ a: TraceAnalysis, trace: String) -> [(String, String)] {
        let operations = a.operations.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")
        let windowRatios = a.windows.filter { $0.objects > 0 }.map(\.oneHitWonderRatio)
        let distances = a.reuseDistanceHistogram.enumerated().filter { $0.element > 0 }
            .map { "\(distanceBinLabel($0.offset)): \($0.element)" }.joined(separator: ", ")
        let reuseTime = [0.5, 0.9].map { q in
            quantileBin(a.reuseTimeHistogram, q).map { "\(Int(Double($0 + 1) * a.reuseTimeBin)) s" } ?? "-"
        }
        let sizes = a.commonSizes.prefix(4).map { "\($0.size) (\($0.requests) requests, \($0.objects) objects)" }.joined(separator: ", ")
        let ttl = a.requestsWithTTL + a.setsWithTTL == 0 ? "none (no request or set carries a TTL)"
            : "\(a.requestsWithTTL) requests (\(ratio(a.requestsWithTTL, a.requests))), \(a.setsWithTTL) sets; most common: "
                + a.commonTTLs.prefix(4).map { "\($0.ttl) s (\($0.requests))" }.joined(separator: ", ")
        return [
            ("trace", trace),
            ("requests", "\(a.requests) (\(a.requestBytes) bytes)"),
            ("objects", "\(a.objects) (\(a.objectBytes) bytes, the working set)"),
            ("compulsory miss ratio", "\(ratio(a.objects, a.requests)) (bytes \(ratio(a.objectBytes, a.requestBytes)))"),
            ("mean size", "\(a.requests == 0 ? 0 : a.requestBytes / a.requests) by request, \(a.objects == 0 ? 0 : a.objectBytes / a.objects) by object"),
            ("sizes", "smallest \(a.smallestSize), largest \(a.largestSize); most requested: \(sizes)"),
            ("mean frequency", ratio(a.requests, a.objects)),
            ("time span", "\(_saturatingInt(a.lastTime - a.firstTime)) s"),
            ("operations", operations + (a.zeroSizeRequests > 0 ? " (\(a.zeroSizeRequests) zero-size gets skipped)" : "")),
            ("size changes", "\(a.sizeChanges) requests, \(a.objectsWithSizeChanges) objects"),
            ("TTL", ttl),
            ("request rate", a.windows.count > 1
                ? String(format: "min %.4f, max %.4f req/s (window %g s)", a.minimumRate, a.maximumRate, a.rateWindow)
                : String(format: "no complete window of %g s; %.4f req/s over the whole trace", a.rateWindow, a.minimumRate)),
            ("object rate", a.windows.count > 1
                ? String(format: "min %.4f, max %.4f obj/s (distinct objects per window)", a.minimumObjectRate, a.maximumObjectRate)
                : String(format: "no complete window; %.4f obj/s over the whole trace", a.minimumObjectRate)),
            ("popularity", a.objects >= 2 ? String(format: "Zipf alpha %.4f, R2 %.4f", a.zipfAlpha, a.zipfR2) : "-"),
            ("one-hit wonders", "\(a.objectsByRequestCount.first ?? 0) objects (\(ratio(a.objectsByRequestCount.first ?? 0, a.objects)))"),
            ("one-hit wonders per window", windowRatios.isEmpty ? "-" : String(
                format: "min %.4f, mean %.4f, max %.4f over %d windows", windowRatios.min() ?? 0,
                windowRatios.reduce(0, +) / Double(windowRatios.count), windowRatios.max() ?? 0, windowRatios.count)),
            ("objects by requests 1-8", a.objectsByRequestCount.map(String.init).joined(separator: ", ")),
            ("most requested", a.topFrequencies.map(String.init).joined(separator: ", ")),
            ("reuse time", "median under \(reuseTime[0]), 90% under \(reuseTime[1]) (bins of \(SVGLineChart.trimmed(a.reuseTimeBin, decimals: 3)) s)"),
            ("reuse distance", distances.isEmpty ? "-" : distances),
        ]
    }

    static func json(_ a: TraceAnalysis, trace: String) -> JSONValue {
        func ints(_ values: [Int]) -> JSONValue { .array(values.map { .int($0) }) }
        // A ratio over no objects, or a fit to fewer than two, is undefined: null, as replay's
        // ratios over no requests are (0 would read as a measured value, and enter a mean).
        let fitted = a.objects >= 2
        return .object([
            ("trace", .string(trace)),
            ("requests", .int(a.requests)), ("requestBytes", .int(a.requestBytes)),
            ("objects", .int(a.objects)), ("objectBytes", .int(a.objectBytes)),
            ("zeroSizeRequests", .int(a.zeroSizeRequests)), ("sizeChanges", .int(a.sizeChanges)),
            ("objectsWithSizeChanges", .int(a.objectsWithSizeChanges)),
            ("operations", .object(a.operations.sorted { $0.key < $1.key }.map { ($0.key, .int($0.value)) })),
            ("firstTime", .double(a.firstTime)), ("lastTime", .double(a.lastTime)),
            ("oneHitWonderRatio", .number(a.objects > 0 ? a.oneHitWonderRatio : nil)),
            ("objectsByRequestCount", ints(a.objectsByRequestCount)),
            ("topFrequencies", ints(a.topFrequencies)),
            ("frequencyCounts", .array(a.frequencyCounts.map { .object([("frequency", .int($0.frequency)), ("objects", .int($0.objects))]) })),
            ("zipfAlpha", .number(fitted ? a.zipfAlpha : nil)), ("zipfR2", .number(fitted ? a.zipfR2 : nil)),
            ("rateWindow", .double(a.rateWindow)), ("minimumRate", .double(a.minimumRate)), ("maximumRate", .double(a.maximumRate)),
            ("minimumObjectRate", .double(a.minimumObjectRate)), ("maximumObjectRate", .double(a.maximumObjectRate)),
            ("windows", .array(a.windows.map { w in
                .object([("requests", .int(w.requests)), ("bytes", .int(w.bytes)), ("objects", .int(w.objects)),
                         ("newObjects", .int(w.newObjects)), ("oneHitObjects", .int(w.oneHitObjects)),
                         ("oneHitWonderRatio", .number(w.objects > 0 ? w.oneHitWonderRatio : nil))])
            })),
            ("reuseTimeBin", .double(a.reuseTimeBin)), ("reuseTimeHistogram", ints(a.reuseTimeHistogram)),
            ("requestsSinceHistogram", ints(a.requestsSinceHistogram)),
            ("reuseDistanceHistogram", ints(a.reuseDistanceHistogram)),
            ("smallestSize", .int(a.smallestSize)), ("largestSize", .int(a.largestSize)),
            ("sizeHistogramByRequests", ints(a.sizeHistogramByRequests)), ("sizeHistogramByObjects", ints(a.sizeHistogramByObjects)),
            ("commonSizes", .array(a.commonSizes.map { .object([("size", .int($0.size)), ("requests", .int($0.requests)), ("objects", .int($0.objects))]) })),
            ("requestsWithTTL", .int(a.requestsWithTTL)), ("setsWithTTL", .int(a.setsWithTTL)),
            ("commonTTLs", .array(a.commonTTLs.map { .object([("ttl", .int($0.ttl)), ("requests", .int($0.requests))]) })),
        ])
    }

    /// The file names ``plots(_:trace:)`` gives, in its order.
    public static let plotNames = ["popularity.svg", "reuse-distance.svg", "reuse-time.svg", "sizes.svg",
                                   "request-rate.svg", "one-hit-wonders.svg"]

    /// The plots of an analysis as (file name, SVG document): popularity (rank-frequency, log-log),
    /// reuse distance, reuse time, object sizes, and request rate with one-hit wonders over time.
    public static func plots(_ a: TraceAnalysis, trace: String) -> [(name: String, svg: String)] {
        let name = (trace as NSString).lastPathComponent
        var rank = 0
        var rankFrequency: [(x: Double, y: Double)] = []
        for entry in a.frequencyCounts {
            // One point at each end of a run of equally popular objects keeps the plot small.
            rankFrequency.append((Double(rank + 1), Double(entry.frequency)))
            rank += entry.objects
            if entry.objects > 1 { rankFrequency.append((Double(rank), Double(entry.frequency))) }
        }
        // Reuse time regrouped in powers of two of the bin width, readable on a log axis.
        var reuseTime: [Int: Int] = [:]
        for (bin, count) in a.reuseTimeHistogram.enumerated() where count > 0 { reuseTime[TraceAnalyzer.log2Bin(bin + 1), default: 0] += count }
        func bins(_ h: [Int], edge: (Int) -> Double) -> [(x: Double, y: Double)] {
            h.enumerated().filter { $0.element > 0 }.map { (edge($0.offset), Double($0.element)) }
        }
        let windowStart = { (i: Int) in Double(i) * a.rateWindow }
        // Rates of complete windows only, as the summary's: the last window is cut short by the
        // end of the trace, and divided by the whole window it would dip at the end of every
        // chart. A trace shorter than one window has only that one, whose rate is over the span
        // its requests cover (at least a second), as the summary's line gives it.
        var rates: [(x: Double, requests: Double, newObjects: Double)] = []
        if a.windows.count > 1 {
            for (i, w) in a.windows.dropLast().enumerated() {
                rates.append((windowStart(i), Double(w.requests) / a.rateWindow, Double(w.newObjects) / a.rateWindow))
            }
        } else if let only = a.windows.first {
            let span = max(a.lastTime - a.firstTime, 1)
            rates.append((0, Double(only.requests) / span, Double(only.newObjects) / span))
        }
        let rateTitle = a.windows.count > 1
            ? "Requests per second: \(name) (complete windows of \(SVGLineChart.trimmed(a.rateWindow, decimals: 3)) s)"
            : "Requests per second: \(name) (one window, shorter than \(SVGLineChart.trimmed(a.rateWindow, decimals: 3)) s)"
        return [
            ("popularity.svg", AnalysisPlot(title: "Popularity: \(name) (Zipf alpha \(String(format: "%.3f", a.zipfAlpha)))",
                                            xTitle: "object rank", yTitle: "requests", logX: true, logY: true,
                                            series: [.init(name: "requests", points: rankFrequency)]).render()),
            ("reuse-distance.svg", AnalysisPlot(title: "Reuse distance: \(name)", xTitle: "distinct objects in between (bin start)",
                                                yTitle: "requests", logX: true, logY: true,
                                                series: [.init(name: "requests", points: bins(a.reuseDistanceHistogram) { $0 == 0 ? 0.5 : Double(1 << ($0 - 1)) })]).render()),
            ("reuse-time.svg", AnalysisPlot(title: "Reuse time: \(name)", xTitle: "seconds since the previous request (bin start)",
                                            yTitle: "requests", logX: true, logY: true,
                                            series: [.init(name: "requests", points: reuseTime.sorted { $0.key < $1.key }
                                                .map { (Double(1 << $0.key) * a.reuseTimeBin, Double($0.value)) })]).render()),
            ("sizes.svg", AnalysisPlot(title: "Object sizes: \(name)", xTitle: "bytes (bin start)", yTitle: "count",
                                       logX: true, logY: true,
                                       series: [.init(name: "requests", points: bins(a.sizeHistogramByRequests) { Double(1 << min($0, 62)) }),
                                                .init(name: "objects", points: bins(a.sizeHistogramByObjects) { Double(1 << min($0, 62)) })]).render()),
            ("request-rate.svg", AnalysisPlot(title: rateTitle,
                                              xTitle: "trace seconds from the first request", yTitle: "requests per second", logX: false, logY: false,
                                              series: [.init(name: "requests", points: rates.map { ($0.x, $0.requests) }),
                                                       .init(name: "new objects", points: rates.map { ($0.x, $0.newObjects) })]).render()),
            ("one-hit-wonders.svg", AnalysisPlot(title: "One-hit wonders per window: \(name)", xTitle: "trace seconds from the first request",
                                                 yTitle: "objects requested once / objects", logX: false, logY: false,
                                                 series: [.init(name: "ratio", points: a.windows.enumerated().filter { $0.element.objects > 0 }
                                                     .map { (windowStart($0.offset), $0.element.oneHitWonderRatio) })]).render()),
        ]
    }
}
