@testable import CacheBench
import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif
import Testing
import TestSupport

/// Numbers of attribute `name` in `svg`, in document order.
private func attribute(_ name: String, in svg: String) -> [Double] {
    svg.components(separatedBy: " \(name)=\"").dropFirst().compactMap { Double($0.prefix { $0 != "\"" }) }
}

@Suite("charts: what lies at an axis's end stays readable")
struct ChartFrameTests {
    @Test("capacity ticks of a few bytes or objects: none below one, each label its own value")
    func ticksOfTinyCapacities() {
        // One capacity of 1 (the axis then spans about 0.5 to 2), and a few other small ones.
        for (low, high) in [(0.47, 2.1), (0.2, 40.0), (1.4, 6.4), (3.0, 3_000.0)] {
            for unit in [SVGLineChart.XUnit.bytes, .objects] {
                let ticks = SVGLineChart.xTicks(low: low, high: high, unit: unit)
                let labels = ticks.map(\.label)
                #expect(Set(labels).count == labels.count, "\(low)...\(high) \(unit): \(labels)")
                for tick in ticks where tick.value >= low && tick.value <= high && ticks.count > 1 {
                    #expect(tick.label == SVGLineChart.xLabel(tick.value.rounded(), unit: unit, exact: false),
                            "\(low)...\(high) \(unit): \(tick)")
                }
            }
        }
    }

    @Test("a miss ratio of 0 % or 100 % is drawn inside the frame, not on it")
    func endsInsideTheFrame() {
        for axis in [SVGLineChart.YAxis.percentFull, .percentFitted] {
            let chart = SVGLineChart(title: "ends", xTitle: "x", yTitle: "y", xUnit: .objects, yAxis: axis,
                                     series: [.init(name: "a", points: [(10, 0), (100, 1), (1000, 0.5)], color: 0)])
            let svg = chart.render()
            // The frame: the plot's rectangle without fill.
            let frame = svg.components(separatedBy: "\n").first { $0.hasPrefix("<rect") && $0.contains("fill=\"none\"") } ?? ""
            let top = attribute("y", in: frame).first ?? .nan, height = attribute("height", in: frame).first ?? .nan
            let markers = attribute("cy", in: svg)
            #expect(markers.count == 3 + 1, "\(axis)")   // and the legend's
            for y in markers {
                #expect(y > top + 5 && y < top + height - 5, "\(axis): marker at \(y), frame \(top)...\(top + height)")
            }
        }
    }

    @Test("names with characters XML does not allow (controls, U+FFFE, U+FFFF) still give a well-formed chart")
    func charactersXMLForbids() {
        let name = "trace\u{1}\u{FFFE}\u{FFFF}<&\"'>\u{10FFFD}é.csv"
        let chart = SVGLineChart(title: name, xTitle: name, yTitle: "y", xUnit: .objects, yAxis: .percentFitted,
                                 series: [.init(name: name, points: [(1, 0.5), (2, 0.25)], color: 0)])
        let svg = chart.render()
        let parser = XMLParser(data: Data(svg.utf8))
        #expect(parser.parse(), "\(String(describing: parser.parserError))")
        #expect(svg.contains("trace \u{FFFD}\u{FFFD}&lt;&amp;&quot;&apos;&gt;\u{10FFFD}é.csv"))
    }

    @Test("sweep-report: a policy far worse than the baseline is cut at −100 % with an arrow, not stretch the axis")
    func reductionFloor() throws {
        let capacity = SweepCapacity(.fraction(numerator: 1, denominator: 100))
        func chart(worst: Double) -> String {
            MissRatioReduction(baseline: "fifo", policies: ["lru", "lifo"], capacities: [capacity], distributions: [
                .init(policy: "lru", capacity: capacity, values: [0.05, 0.1, 0.12, 0.2]),
                .init(policy: "lifo", capacity: capacity, values: [worst, worst / 2, -0.5, -0.4]),
            ], traceCount: 4).svg
        }
        let labels = { (svg: String) in
            svg.components(separatedBy: "text-anchor=\"end\">").dropFirst().compactMap { Double($0.prefix { $0 != " " }) }
        }
        let mild = chart(worst: -0.8), extreme = chart(worst: -6)
        // −80 % fits: no arrow; −600 % stops the axis at −100 %, and says so.
        #expect((labels(mild).min() ?? 0) <= -80 && (labels(mild).min() ?? 0) > -100 && !mild.contains("below the axis"))
        #expect(labels(extreme).min() == -100, "\(labels(extreme))")
        #expect(extreme.contains("▼ below the axis"))
        #expect(extreme.components(separatedBy: "<path d=\"M").count - 1 == 2 + 1)   // two means, one arrow
        _ = try XMLDocument(xmlString: extreme)
    }

    @Test("analyze's plots: a long title is cut to the canvas (whole in its tooltip), the legend stands above the frame")
    func analysisPlotLayout() throws {
        let name = String(repeating: "msr-cambridge-web_2-", count: 10) + ".oracleGeneral.bin"
        let plot = AnalysisPlot(title: "Requests per second: \(name), windows of 30 s", xTitle: "time (s)", yTitle: "per second",
                                logX: false, logY: false,
                                series: [.init(name: "requests", points: [(0, 117), (30, 1), (60, 117)]),
                                         .init(name: "unique objects", points: [(0, 50), (30, 1), (60, 60)])])
        let svg = plot.render()
        _ = try XMLDocument(xmlString: svg)
        #expect(svg.contains("<title>Requests per second: \(name), windows of 30 s</title>"))
        let shown = try #require(svg.components(separatedBy: "font-size=\"15\">").dropFirst().first?.prefix { $0 != "<" })
        #expect(shown.hasSuffix("…") && Double(shown.count) * 15 * 0.6 <= 720 - 24)
        // Both legend labels lie above the frame's top (y 48), where no point is drawn.
        for label in ["requests", "unique objects"] {
            let before = try #require(svg.components(separatedBy: ">\(label)</text>").first)
            let y = try #require(attribute("y", in: before).last)
            #expect(y < 48, "\(label) at y \(y)")
        }
    }

    @Test("sweep-report: with few policies the canvas is still wide enough for the title and the subtitle")
    func reductionSubtitleFits() throws {
        let capacity = SweepCapacity(.fraction(numerator: 1, denominator: 100))
        for policies in [["lru"], ["lifo", "mru"], ["lru", "arc", "sieve"]] {
            let svg = MissRatioReduction(baseline: "fifo", policies: policies, capacities: [capacity],
                                         distributions: policies.map { .init(policy: $0, capacity: capacity, values: [-2, 0.1, 0.2]) },
                                         traceCount: 3).svg
            let width = try #require(attribute("width", in: svg).first)
            let subtitle = try #require(svg.components(separatedBy: "fill=\"#555555\">").dropFirst().first?.prefix { $0 != "<" })
            let left = try #require(attribute("x", in: svg.components(separatedBy: "font-weight=\"bold\"").first ?? "").last)
            // At the chart's own estimate of 0.6 em a character, 12 px type.
            #expect(left + Double(subtitle.count) * 12 * 0.6 <= width, "\(policies): \(width)")
        }
    }

    @Test("sweep-report: policy names wider than their group are slanted (cut at 24 characters, whole in a tooltip), not overlapped")
    func reductionLabels() throws {
        let capacity = SweepCapacity(.fraction(numerator: 1, denominator: 100))
        func chart(_ policies: [String]) -> String {
            MissRatioReduction(baseline: "fifo", policies: policies, capacities: [capacity],
                               distributions: policies.map { .init(policy: $0, capacity: capacity, values: [0.1, 0.2]) },
                               traceCount: 2).svg
        }
        func height(_ svg: String) -> Double? {
            Double(svg.components(separatedBy: "height=\"").dropFirst().first?.prefix { $0 != "\"" } ?? "")
        }
        let short = chart(["lru", "arc"])
        #expect(!short.contains("rotate(-40") && short.contains(">lru</text>"))
        let long = "caffeine-wtinylfu-with-a-very-long-name"
        let slanted = chart(["caffeine-wtinylfu", "lirs", long])
        #expect(slanted.components(separatedBy: "rotate(-40").count - 1 == 3)
        #expect(slanted.contains("<title>caffeine-wtinylfu</title>caffeine-wtinylfu</text>"))
        #expect(slanted.contains("<title>\(long)</title>caffeine-wtinylfu-with-…</text>"), "\(slanted)")
        // The canvas grows below the plot for the slanted names.
        #expect((height(slanted) ?? 0) > (height(short) ?? 0))
        _ = try XMLDocument(xmlString: slanted)
        // A long name first, under one box: its slanted label (24 characters at about 7.2 px,
        // reaching back cos 40° of that from its anchor) starts on the canvas.
        let first = chart([long, "lru"])
        let anchor = first.components(separatedBy: "rotate(-40 ").dropFirst().first.flatMap { Double($0.prefix { $0 != " " }) }
        let reach = 24 * 12 * 0.6 * cos(40 * Double.pi / 180)
        #expect((anchor ?? 0) - reach >= 0, "label anchored at \(anchor ?? 0), reaching back \(reach)")
    }

    @Test("a number too large for fixed point is written with six significant digits")
    func hugeFixed() {
        #expect(_fixed(1.5e23, decimals: 0) == "1.5e+23")
        #expect(_fixed(-2.5e30, decimals: 2) == "-2.5e+30")
        #expect(_fixed(12.345, decimals: 2) == "12.35")   // the Double is 12.34500000000000063…
    }

    @Test("fixed point rounds the value the Double holds, not its product with the scale: printf's digits")
    func fixedRoundsTheExactValue() {
        // 5143/800 is 6.42874999… as a Double; × 10⁴ rounds onto 64287.5, which rounded up to
        // 6.4288 where traceAnalyzer (printf) prints 6.4287.
        #expect(_fixed(5143.0 / 800, decimals: 4) == "6.4287")
        #expect(_fixed(-5143.0 / 800, decimals: 4) == "-6.4287")
        #expect(_fixed(12.345, decimals: 2) == String(format: "%.2f", 12.345))
        // A Double exactly on the half rounds away from zero.
        #expect(_fixed(0.125, decimals: 2) == "0.13" && _fixed(2.5, decimals: 0) == "3")
        for value in [0.1, 1.005, 2.675, 1234.5678, 0.000_05, 99.995] {
            #expect(_fixed(value, decimals: 2) == String(format: "%.2f", value), "\(value)")
        }
    }

    @Test("analyze: the request-rate chart leaves out the last window, which the trace's end cuts short")
    func partialWindow() throws {
        // One request a second for 30 s, then one at 30 s: three complete windows of 10 s at 1
        // request per second, and a fourth holding one request.
        var text = "timestamp,key,size\n"
        for t in 0...30 { text += "\(t),\(t % 7),100\n" }
        var reader = try TraceSpec(path: try temporaryFile(text)).open()
        let analysis = try TraceAnalyzer.analyze(&reader, window: 10)
        #expect(analysis.windows.map(\.requests) == [10, 10, 10, 1])
        let rate = try #require(TraceAnalysisReport.plots(analysis, trace: "t.csv").first { $0.name == "request-rate.svg" }?.svg)
        let requests = rate.components(separatedBy: "<polyline").dropFirst().first ?? ""
        let points = (requests.components(separatedBy: "points=\"").dropFirst().first ?? "").prefix { $0 != "\"" }
        let ys = points.split(separator: " ").compactMap { Double($0.split(separator: ",").last ?? "") }
        #expect(ys.count == 3 && Set(ys).count == 1, "\(points)")
        #expect(rate.contains("complete windows of 10 s"))

        // A trace shorter than one window: its only window, over the span of its requests.
        var short = try TraceSpec(path: try temporaryFile("timestamp,key,size\n0,1,100\n4,2,100\n")).open()
        let one = try TraceAnalyzer.analyze(&short, window: 10)
        let oneRate = try #require(TraceAnalysisReport.plots(one, trace: "s.csv").first { $0.name == "request-rate.svg" }?.svg)
        #expect(oneRate.contains("one window, shorter than 10 s") && attribute("cy", in: oneRate).count == 2)
    }
}
