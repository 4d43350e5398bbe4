#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A line chart written as a standalone SVG document (no scripts, no external fonts), with a
/// logarithmic x axis: cache capacity spans orders of magnitude, and equal ratios of capacity
/// should look equally far apart.
public struct SVGLineChart: Sendable {
    /// One line.
    public struct Series: Sendable {
        /// The legend label.
        public var name: String
        /// The points; sorted by x when drawn. Points that cannot be drawn (y <= 0 on a log axis,
        /// non-finite values) are left out.
        public var points: [(x: Double, y: Double)]
        /// Index into the palette; series sharing a colour (p50 and p99 of one policy) share it.
        public var color: Int
        /// Dashed rather than solid.
        public var dashed: Bool

        /// Creates a series.
        public init(name: String, points: [(x: Double, y: Double)], color: Int, dashed: Bool = false) {
            self.name = name
            self.points = points
            self.color = color
            self.dashed = dashed
        }
    }

    /// What the x values are, which decides the tick labels.
    public enum XUnit: Sendable {
        /// Bytes: ticks at powers of two, labelled `1 MiB`, `16 MiB`.
        case bytes
        /// Object counts: ticks at powers of ten (and 2 and 5 between them on short ranges).
        case objects
    }

    /// The y axis.
    public enum YAxis: Sendable {
        /// A ratio shown as a percentage, from 0 % to 100 %.
        case percentFull
        /// A ratio shown as a percentage, on a range fitted to the data at round steps.
        case percentFitted
        /// Nanoseconds on a logarithmic axis, labelled `100 ns`, `1 µs`, `10 ms`.
        case logNanoseconds
    }

    /// The heading.
    public var title: String
    /// A second, smaller line under the title.
    public var subtitle: String
    /// The x axis label.
    public var xTitle: String
    /// The y axis label.
    public var yTitle: String
    /// The x unit.
    public var xUnit: XUnit
    /// The y axis.
    public var yAxis: YAxis
    /// The lines, in legend order.
    public var series: [Series]
    /// Extra legend rows that explain line styles, e.g. ("p99", dashed).
    public var styleKey: [(name: String, dashed: Bool)]
    /// A second line under the subtitle, for what the lines leave out (runs a policy refused).
    public var note: String = ""

    /// Creates a chart.
    public init(title: String, subtitle: String = "", xTitle: String, yTitle: String, xUnit: XUnit, yAxis: YAxis,
                series: [Series], styleKey: [(name: String, dashed: Bool)] = []) {
        self.title = title
        self.subtitle = subtitle
        self.xTitle = xTitle
        self.yTitle = yTitle
        self.xUnit = xUnit
        self.yAxis = yAxis
        self.series = series
        self.styleKey = styleKey
    }

    /// Distinct on white: Tableau 10, then six darker hues for charts with many policies.
    static let palette = ["#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f",
                          "#edc948", "#b07aa1", "#ff9da7", "#9c755f", "#7f7f7f",
                          "#1b3a5c", "#8c2d04", "#006d2c", "#54278f", "#b8860b", "#000000"]

    /// The colour of item `index` of `count` ordered items (sizes, smallest first): the palette
    /// while it lasts, otherwise a ramp from light to dark (viridis' hues), so no two items share
    /// a colour and the order shows.
    static func orderedColor(_ index: Int, of count: Int) -> String {
        guard count > palette.count else { return palette[index % palette.count] }
        let stops: [(Double, Double, Double)] = [(253, 231, 37), (94, 201, 98), (33, 145, 140), (59, 82, 139), (68, 1, 84)]
        let t = Double(index) / Double(max(1, count - 1)) * Double(stops.count - 1)
        let i = min(stops.count - 2, Int(t)), f = t - Double(i)
        func channel(_ a: Double, _ b: Double) -> String {
            let value = Int((a + (b - a) * f).rounded())
            let hex = String(value, radix: 16)
            return hex.count == 1 ? "0" + hex : hex
        }
        let (a, b) = (stops[i], stops[i + 1])
        return "#" + channel(a.0, b.0) + channel(a.1, b.1) + channel(a.2, b.2)
    }

    // MARK: Rendering

    /// The SVG document.
    public func render() -> String {
        let drawable = series.map { s in
            Series(name: s.name,
                   points: s.points.filter { $0.x > 0 && $0.x.isFinite && $0.y.isFinite && (yAxis != .logNanoseconds || $0.y > 0) }
                    .sorted { $0.x < $1.x },
                   color: s.color, dashed: s.dashed)
        }
        let xs = drawable.flatMap { $0.points.map(\.x) }
        let ys = drawable.flatMap { $0.points.map(\.y) }

        // Layout: the legend's width follows the longest label (about 7 px per character at 12 px).
        let legendLabels = drawable.map { $0.points.isEmpty ? $0.name + " (no points)" : $0.name } + styleKey.map(\.name)
        let legendWidth = Double(max(60, (legendLabels.map(\.count).max() ?? 0) * 7 + 40))
        let width = 760.0 + legendWidth
        let left = 78.0, top = subtitle.isEmpty ? 56.0 : note.isEmpty ? 72.0 : 88.0, bottom = 62.0
        // Taller than 520 px when the legend (20 px a row, from the plot's top) needs it.
        // One row per name (a policy's p50 and p99 series share theirs).
        let legendRows = Double(Set(drawable.map(\.name)).count + styleKey.count)
        let height = max(520.0, top + 6 + legendRows * 20 + (styleKey.isEmpty ? 0 : 8) + 16)
        let plotWidth = width - left - legendWidth - 24
        // The plot keeps its size; a long legend only extends the canvas below it.
        let plotHeight = 520.0 - top - bottom

        // X scale (log10), padded 3 % each side so end points do not sit on the frame.
        var xLow = xs.min() ?? 1, xHigh = xs.max() ?? 10
        if xLow == xHigh { xLow /= 2; xHigh *= 2 }
        let xPad = (log10(xHigh) - log10(xLow)) * 0.03
        let lx0 = log10(xLow) - xPad, lx1 = log10(xHigh) + xPad
        func px(_ x: Double) -> Double { left + (log10(x) - lx0) / (lx1 - lx0) * plotWidth }

        // Y scale.
        let yTicks: [(value: Double, label: String)]
        let y0: Double, y1: Double
        let yLog: Bool
        switch yAxis {
        case .percentFull:
            yLog = false
            (y0, y1) = (0, 1)
            yTicks = stride(from: 0, through: 10, by: 1).map { (Double($0) / 10, "\($0 * 10) %") }
        case .percentFitted:
            yLog = false
            let (low, high, step) = Self.fittedRange(ys.min() ?? 0, ys.max() ?? 1)
            (y0, y1) = (low, high)
            var ticks: [(Double, String)] = []
            var v = low
            while v <= high + step / 2 {
                ticks.append((v, Self.percentLabel(v, step: step)))
                v += step
            }
            yTicks = ticks
        case .logNanoseconds:
            yLog = true
            let lo = floor(log10(ys.min() ?? 10)), hi = max(ceil(log10(ys.max() ?? 1000)), lo + 1)
            (y0, y1) = (pow(10, lo), pow(10, hi))
            yTicks = stride(from: lo, through: hi, by: 1).map { (pow(10, $0), Self.durationLabel(pow(10, $0))) }
        }
        // The axis's ends lie 2.5 % inside the frame, so a line at an end (0 % or 100 % misses,
        // a latency on a decade) stays visible rather than merge with the frame.
        func py(_ y: Double) -> Double {
            let t = yLog ? (log10(y) - log10(y0)) / (log10(y1) - log10(y0)) : (y - y0) / (y1 - y0)
            return top + plotHeight - (0.025 + 0.95 * t) * plotHeight
        }

        var svg = """
        <?xml version="1.0" encoding="UTF-8"?>
        <svg xmlns="http://www.w3.org/2000/svg" width="\(Self.n(width))" height="\(Self.n(height))" viewBox="0 0 \(Self.n(width)) \(Self.n(height))" font-family="Helvetica, Arial, sans-serif" font-size="12">
        <title>\(Self.escape(title))</title>
        <rect x="0" y="0" width="\(Self.n(width))" height="\(Self.n(height))" fill="#ffffff"/>
        <text x="\(Self.n(left))" y="28" font-size="17" font-weight="bold" fill="#222222">\(Self.escape(Self.fitted(title, width: width - left - 12, fontSize: 17, bold: true)))</text>

        """
        if !subtitle.isEmpty {
            svg += "<text x=\"\(Self.n(left))\" y=\"48\" font-size=\"12\" fill=\"#555555\">\(Self.escape(Self.fitted(subtitle, width: width - left - 12, fontSize: 12)))</text>\n"
            if !note.isEmpty {
                svg += "<text x=\"\(Self.n(left))\" y=\"64\" font-size=\"12\" fill=\"#555555\">\(Self.escape(Self.fitted(note, width: width - left - 12, fontSize: 12)))</text>\n"
            }
        }

        // Grid and tick labels.
        svg += "<g stroke=\"#e6e6e6\" stroke-width=\"1\">\n"
        let xTicks = Self.xTicks(low: pow(10, lx0), high: pow(10, lx1), unit: xUnit)
        for tick in xTicks {
            svg += "<line x1=\"\(Self.n(px(tick.value)))\" y1=\"\(Self.n(top))\" x2=\"\(Self.n(px(tick.value)))\" y2=\"\(Self.n(top + plotHeight))\"/>\n"
        }
        for tick in yTicks {
            svg += "<line x1=\"\(Self.n(left))\" y1=\"\(Self.n(py(tick.value)))\" x2=\"\(Self.n(left + plotWidth))\" y2=\"\(Self.n(py(tick.value)))\"/>\n"
        }
        svg += "</g>\n<g fill=\"#444444\">\n"
        for tick in xTicks {
            svg += "<text x=\"\(Self.n(px(tick.value)))\" y=\"\(Self.n(top + plotHeight + 18))\" text-anchor=\"middle\">\(Self.escape(tick.label))</text>\n"
        }
        for tick in yTicks {
            svg += "<text x=\"\(Self.n(left - 8))\" y=\"\(Self.n(py(tick.value) + 4))\" text-anchor=\"end\">\(Self.escape(tick.label))</text>\n"
        }
        svg += "</g>\n"
        svg += "<rect x=\"\(Self.n(left))\" y=\"\(Self.n(top))\" width=\"\(Self.n(plotWidth))\" height=\"\(Self.n(plotHeight))\" fill=\"none\" stroke=\"#999999\"/>\n"
        svg += "<text x=\"\(Self.n(left + plotWidth / 2))\" y=\"\(Self.n(top + plotHeight + bottom - 16))\" text-anchor=\"middle\" fill=\"#222222\">\(Self.escape(xTitle))</text>\n"
        let yMid = top + plotHeight / 2
        svg += "<text x=\"18\" y=\"\(Self.n(yMid))\" text-anchor=\"middle\" fill=\"#222222\" transform=\"rotate(-90 18 \(Self.n(yMid)))\">\(Self.escape(yTitle))</text>\n"

        // Lines, with a marker and a tooltip per point.
        for s in drawable where !s.points.isEmpty {
            let color = Self.palette[s.color % Self.palette.count]
            let path = s.points.map { "\(Self.n(px($0.x))),\(Self.n(py($0.y)))" }.joined(separator: " ")
            svg += "<g>\n<polyline points=\"\(path)\" fill=\"none\" stroke=\"\(color)\" stroke-width=\"2\" stroke-linejoin=\"round\"\(s.dashed ? " stroke-dasharray=\"6 4\"" : "")/>\n"
            for point in s.points {
                let label = "\(s.name), \(Self.xLabel(point.x, unit: xUnit, exact: true)): \(yLog ? Self.durationLabel(point.y) : _ratio(point.y * 100, decimals: 2, of: 100) + " %")"
                svg += Self.marker(shape: s.color / Self.palette.count + s.color, x: px(point.x), y: py(point.y),
                                   color: color, hollow: s.dashed, tooltip: label)
            }
            svg += "</g>\n"
        }

        // Legend.
        let legendX = left + plotWidth + 20
        var legendY = top + 6
        svg += "<g font-size=\"12\" fill=\"#222222\">\n"
        var seen = Set<String>()
        for s in drawable where seen.insert(s.name).inserted {
            let color = Self.palette[s.color % Self.palette.count]
            svg += "<line x1=\"\(Self.n(legendX))\" y1=\"\(Self.n(legendY))\" x2=\"\(Self.n(legendX + 22))\" y2=\"\(Self.n(legendY))\" stroke=\"\(color)\" stroke-width=\"2.5\"\(s.dashed ? " stroke-dasharray=\"6 4\"" : "")/>\n"
            svg += Self.marker(shape: s.color / Self.palette.count + s.color, x: legendX + 11, y: legendY, color: color,
                               hollow: s.dashed, tooltip: nil)
            // A name none of whose series has a point (a policy that never timed a pass) says so,
            // rather than stand in the legend for a line that is not there.
            let plotted = drawable.contains { $0.name == s.name && !$0.points.isEmpty }
            svg += "<text x=\"\(Self.n(legendX + 30))\" y=\"\(Self.n(legendY + 4))\"\(plotted ? "" : " fill=\"#888888\"")>\(Self.escape(s.name + (plotted ? "" : " (no points)")))</text>\n"
            legendY += 20
        }
        if !styleKey.isEmpty { legendY += 8 }
        for key in styleKey {
            svg += "<line x1=\"\(Self.n(legendX))\" y1=\"\(Self.n(legendY))\" x2=\"\(Self.n(legendX + 22))\" y2=\"\(Self.n(legendY))\" stroke=\"#444444\" stroke-width=\"2\"\(key.dashed ? " stroke-dasharray=\"6 4\"" : "")/>\n"
            svg += "<text x=\"\(Self.n(legendX + 30))\" y=\"\(Self.n(legendY + 4))\">\(Self.escape(key.name))</text>\n"
            legendY += 20
        }
        svg += "</g>\n"
        if xs.isEmpty {
            svg += "<text x=\"\(Self.n(left + plotWidth / 2))\" y=\"\(Self.n(yMid))\" text-anchor=\"middle\" fill=\"#888888\">no data to plot</text>\n"
        }
        svg += "</svg>\n"
        return svg
    }

    /// A data point's marker. Shapes cycle (circle, square, triangle, diamond) with the series, so
    /// lines that coincide, as policies often do at large capacities, stay distinguishable.
    static func marker(shape: Int, x: Double, y: Double, color: String, hollow: Bool, tooltip: String?) -> String {
        let fill = hollow ? "#ffffff" : color
        let style = "class=\"marker\" fill=\"\(fill)\" stroke=\"\(color)\" stroke-width=\"1.5\""
        let body = tooltip.map { "><title>\(escape($0))</title>" } ?? ">"
        switch shape % 4 {
        case 1:
            return "<rect x=\"\(n(x - 3))\" y=\"\(n(y - 3))\" width=\"6\" height=\"6\" \(style)\(body)</rect>\n"
        case 2:
            return "<path d=\"M\(n(x)) \(n(y - 4))L\(n(x + 3.6)) \(n(y + 2.6))L\(n(x - 3.6)) \(n(y + 2.6))Z\" \(style)\(body)</path>\n"
        case 3:
            return "<path d=\"M\(n(x)) \(n(y - 4))L\(n(x + 4)) \(n(y))L\(n(x)) \(n(y + 4))L\(n(x - 4)) \(n(y))Z\" \(style)\(body)</path>\n"
        default:
            return "<circle cx=\"\(n(x))\" cy=\"\(n(y))\" r=\"3\" \(style)\(body)</circle>\n"
        }
    }

    // MARK: Ticks and labels

    /// Tick values and labels across `[low, high]`: at most about nine.
    static func xTicks(low: Double, high: Double, unit: XUnit) -> [(value: Double, label: String)] {
        var values: [Double] = []
        switch unit {
        case .bytes:
            let e0 = Int(ceil(log2(low) - 1e-9)), e1 = Int(floor(log2(high) + 1e-9))
            if e1 >= e0 {
                let span = e1 - e0
                let step = [1, 2, 3, 4, 5, 10, 20].first { span / $0 <= 8 } ?? 20
                // Prefer exponents that are multiples of the step, so labels land on round units.
                // No tick below one byte: a fraction of a byte has no label (0.5 B would read "1 B").
                let lowest = max(e0, 0)
                if e1 >= lowest {
                    values = (lowest...e1).filter { $0 % step == 0 }.map { pow(2, Double($0)) }
                    if values.count < 2 { values = stride(from: lowest, through: e1, by: step).map { pow(2, Double($0)) } }
                }
            }
        case .objects:
            let d0 = Int(floor(log10(low))), d1 = Int(ceil(log10(high)))
            let multipliers: [Double] = d1 - d0 <= 3 ? [1, 2, 5] : [1]
            let step = max(1, (d1 - d0 + 8) / 9)
            for d in stride(from: d0, through: d1, by: 1) where (d - d0) % step == 0 {
                for m in multipliers {
                    let v = m * pow(10, Double(d))
                    if v >= low * (1 - 1e-9) && v <= high * (1 + 1e-9) && v >= 1 { values.append(v) }
                }
            }
        }
        if values.count < 2 { values = [low * pow(high / low, 0.03 / 1.06), high / pow(high / low, 0.03 / 1.06)] }
        return values.map { ($0, xLabel($0, unit: unit, exact: false)) }
    }

    /// `64 MiB`, `1.5 KiB`, `512 B`; `1k`, `20k`, `1.2M` objects (exact counts in tooltips).
    static func xLabel(_ value: Double, unit: XUnit, exact: Bool) -> String {
        switch unit {
        case .bytes:
            let units: [(Double, String)] = [(0x1p60, "EiB"), (0x1p50, "PiB"), (0x1p40, "TiB"), (0x1p30, "GiB"), (0x1p20, "MiB"), (1024, "KiB")]
            for (size, name) in units where value >= size {
                // An exact label (a table's capacity, a tooltip) never rounds to a size it is not.
                return (exact ? SizeFormat.figure(value / size, decimals: 2) : trimmed(value / size, decimals: 1)) + " " + name
            }
            return trimmed(value, decimals: 0) + " B"
        case .objects:
            // Int.max as a Double rounds up to 2^63, which no Int holds: the largest count is Int.max.
            if exact { return SizeFormat.grouped(Int(exactly: value.rounded()) ?? (value > 0 ? .max : 0)) + " objects" }
            let units: [(Double, String)] = [(1e9, "G"), (1e6, "M"), (1e3, "k")]
            for (size, name) in units where value >= size { return trimmed(value / size, decimals: 1) + name }
            return trimmed(value, decimals: 0)
        }
    }

    /// `40 ns`, `1 µs`, `2.5 ms`.
    static func durationLabel(_ nanoseconds: Double) -> String {
        let units: [(Double, String)] = [(1e9, "s"), (1e6, "ms"), (1e3, "µs")]
        for (size, name) in units where nanoseconds >= size { return trimmed(nanoseconds / size, decimals: 1) + " " + name }
        return trimmed(nanoseconds, decimals: 0) + " ns"
    }

    /// A percentage axis that fits `[low, high]` at a round step, within 0…100 %.
    static func fittedRange(_ low: Double, _ high: Double) -> (Double, Double, Double) {
        let span = max(high - low, 0.01)
        let step = [0.005, 0.01, 0.02, 0.05, 0.1, 0.2].first { span / $0 <= 8 } ?? 0.2
        var lo = max(0, floor(low / step - 1e-9) * step)
        var hi = min(1, ceil(high / step + 1e-9) * step)
        if hi <= lo { lo = max(0, lo - step); hi = min(1, hi + step) }
        if hi - lo < step { hi = min(1, lo + step) }
        return (lo, hi, step)
    }

    /// Ticks on a linear axis from `low` to `high`: multiples of a round step (1, 2 or 5 times a
    /// power of ten, at least `minimumStep` when that is positive) giving at most about six, and
    /// the decimals their labels need.
    static func roundTicks(_ low: Double, _ high: Double, atLeast minimumStep: Double = 0) -> (ticks: [Double], decimals: Int) {
        guard low.isFinite, high.isFinite, high > low else { return ([low], 0) }
        let rough = (high - low) / 5
        let power = pow(10, floor(log10(rough)))
        var step = [1.0, 2, 5, 10].map { $0 * power }.first { $0 >= rough } ?? 10 * power
        if minimumStep > 0 { step = max(step, minimumStep) }
        let decimals = max(0, Int(-floor(log10(step) + 1e-9)))
        var ticks: [Double] = []
        var k = ceil(low / step - 1e-9)
        while k * step <= high + step * 1e-9 && ticks.count < 12 {
            ticks.append(k * step)
            k += 1
        }
        return (ticks, decimals)
    }

    static func percentLabel(_ ratio: Double, step: Double) -> String {
        trimmed(ratio * 100, decimals: step < 0.01 ? 1 : 0) + " %"
    }

    /// Fixed decimals without trailing zeros: `1.5`, `16`.
    static func trimmed(_ value: Double, decimals: Int) -> String {
        var text = _fixed(value, decimals: decimals)
        if text.contains(".") {
            while text.hasSuffix("0") { text.removeLast() }
            if text.hasSuffix(".") { text.removeLast() }
        }
        return text
    }

    /// The width in px a character of `fontSize` is taken to need: 0.6 em, 0.64 bold (generous
    /// for Helvetica's Latin letters). Every chart lays out its text by it.
    static func characterWidth(fontSize: Double, bold: Bool = false) -> Double { fontSize * (bold ? 0.64 : 0.6) }

    /// The width in px `text` is taken to need at `fontSize` (``characterWidth(fontSize:bold:)``).
    static func textWidth(_ text: String, fontSize: Double, bold: Bool = false) -> Double {
        Double(text.count) * characterWidth(fontSize: fontSize, bold: bold)
    }

    /// `text`, cut to what fits in `width` px at `fontSize` (``characterWidth(fontSize:bold:)``)
    /// and ended with an ellipsis when cut, so a long trace or policy name never runs off the
    /// canvas (the document's `<title>` keeps it whole).
    static func fitted(_ text: String, width: Double, fontSize: Double, bold: Bool = false) -> String {
        let fits = max(4, Int(width / characterWidth(fontSize: fontSize, bold: bold)))
        guard text.count > fits else { return text }
        return String(text.prefix(fits - 1)) + "…"
    }

    /// A coordinate with two decimals.
    static func n(_ value: Double) -> String { trimmed(value, decimals: 2) }

    /// Text content and attribute values, escaped for XML. Characters XML 1.0 does not allow at
    /// all (C0 controls other than tab and line feed, and the noncharacters U+FFFE and U+FFFF, which
    /// a file name may hold) are replaced, so the chart stays well-formed.
    static func escape(_ text: String) -> String {
        var out = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&apos;"
            case let s where s.value < 0x20 && s != "\t" && s != "\n": out += " "
            case "\u{FFFE}", "\u{FFFF}": out += "\u{FFFD}"
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out
    }
}

extension SVGLineChart.YAxis: Equatable {}

/// The charts `compare` and `mrc` draw from their results.
public enum CompareCharts {
    /// Hit ratio against capacity, one line per policy.
    public static func hitRatio(_ result: CompareResult, fullRange: Bool = false) -> String {
        ratioChart(result, title: "Hit ratio by cache capacity", yTitle: "hit ratio", fullRange: fullRange) { $0.hitRatio }
    }

    /// A policy's miss-ratio curve (`mrc --plot`): miss ratio against capacity, titled with the
    /// policy and, for a curve from miniature simulations, saying it is an estimate.
    public static func missRatioCurve(_ result: CompareResult) -> String {
        let policy = result.results.first.map { $0.policy == "lru" ? "LRU" : $0.policy } ?? "LRU"
        let estimated = result.results.contains { $0.method == .miniatureSimulation }
        return ratioChart(result, title: "\(policy) miss-ratio curve" + (estimated ? " (estimated from miniature caches)" : ""),
                          yTitle: "miss ratio", fullRange: false) { $0.missRatio }
    }

    static func ratioChart(_ result: CompareResult, title: String, yTitle: String, fullRange: Bool,
                           _ value: (ReplayResult) -> Double?) -> String {
        let policies = orderedPolicies(result)
        let series = policies.enumerated().map { index, name in
            SVGLineChart.Series(name: name, points: result.results.filter { $0.policy == name }.compactMap { r in
                guard let capacity = r.capacity, let ratio = value(r) else { return nil }
                return (Double(capacity), ratio)
            }, color: index)
        }
        let objects = result.results.first?.ignoreSize ?? false
        var chart = SVGLineChart(
            title: "\(title): \(traceName(result.trace))",
            subtitle: subtitle(result, objects: objects),
            xTitle: objects ? "capacity (objects, log scale)" : "capacity (bytes, log scale)",
            yTitle: yTitle, xUnit: objects ? .objects : .bytes, yAxis: fullRange ? .percentFull : .percentFitted,
            series: series)
        chart.note = refusalNote(result, objects: objects)
        return chart.render()
    }

    /// Trim-pass latency (p50 solid, p99 dashed) against capacity, one colour per policy, log y.
    /// Results without timed passes (stack-distance LRU, runs that never evicted) are left out.
    public static func trimLatency(_ result: CompareResult) -> String {
        let policies = orderedPolicies(result)
        var series: [SVGLineChart.Series] = []
        for (index, name) in policies.enumerated() {
            let runs = result.results.filter { $0.policy == name && $0.method == .simulation && $0.trim.count > 0 && $0.capacity != nil }
            let p50 = runs.map { (x: Double($0.capacity ?? 0), y: Double($0.trim.p50Nanoseconds)) }
            let p99 = runs.map { (x: Double($0.capacity ?? 0), y: Double($0.trim.p99Nanoseconds)) }
            series.append(SVGLineChart.Series(name: name, points: p50, color: index))
            series.append(SVGLineChart.Series(name: name, points: p99, color: index, dashed: true))
        }
        let objects = result.results.first?.ignoreSize ?? false
        var chart = SVGLineChart(
            title: "Trim-pass latency by cache capacity: \(traceName(result.trace))",
            subtitle: subtitle(result, objects: objects, detail: "one pass = one call that evicts"),
            xTitle: objects ? "capacity (objects, log scale)" : "capacity (bytes, log scale)",
            yTitle: "trim pass duration (log scale)", xUnit: objects ? .objects : .bytes, yAxis: .logNanoseconds,
            series: series, styleKey: [("p50", false), ("p99", true)])
        chart.note = refusalNote(result, objects: objects)
        return chart.render()
    }

    static func orderedPolicies(_ result: CompareResult) -> [String] {
        var seen = Set<String>()
        return result.results.map(\.policy).filter { seen.insert($0).inserted }
    }

    static func traceName(_ path: String) -> String {
        path == "-" ? "standard input" : String(path.split(separator: "/").last ?? Substring(path))
    }

    /// The request count and the unit, and what else the chart should say.
    static func subtitle(_ result: CompareResult, objects: Bool, detail: String? = nil) -> String {
        let requests = result.results.first?.requests ?? 0
        var text = "\(SizeFormat.grouped(requests)) requests; " + (objects ? "every object counts as 1 (sizes ignored)" : "capacities in bytes")
        if let detail { text += "; " + detail }
        return text
    }

    /// The runs a policy refused, which have no point: a policy that refused every capacity has
    /// no line, and is named here. Empty when none was refused.
    static func refusalNote(_ result: CompareResult, objects: Bool) -> String {
        var refused: [(policy: String, capacities: [String])] = []
        for refusal in result.refusals {
            let capacity = refusal.capacity.map { SizeFormat.describe($0, objects: objects) } ?? "no capacity"
            if let last = refused.indices.last, refused[last].policy == refusal.policy {
                refused[last].capacities.append(capacity)
            } else {
                refused.append((refusal.policy, [capacity]))
            }
        }
        guard !refused.isEmpty else { return "" }
        let shown = refused.map { policy, capacities in
            "\(policy) at " + capacities.prefix(3).joined(separator: ", ") + (capacities.count > 3 ? " and \(capacities.count - 3) more" : "")
        }
        return "not run, the policy refuses them: " + shown.joined(separator: "; ")
    }
}
