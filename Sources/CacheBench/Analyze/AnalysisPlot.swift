import Foundation

/// A small standalone SVG plot of one or two series over linear or logarithmic axes, for the
/// distributions `analyze` draws (popularity, reuse, sizes, rates over time). No scripts, no
/// external fonts; points with a non-positive coordinate on a log axis are left out.
struct AnalysisPlot {
    /// One line with markers.
    struct Series {
        var name: String
        var points: [(x: Double, y: Double)]
    }

    var title: String
    var xTitle: String
    var yTitle: String
    var logX: Bool
    var logY: Bool
    var series: [Series]

    private static let colors = ["#4e79a7", "#e15759"]
    private static let (width, height, left, right, top, bottom) = (720.0, 420.0, 80.0, 24.0, 48.0, 56.0)

    /// The SVG document.
    func render() -> String {
        let drawn = series.map { s in
            Series(name: s.name, points: s.points.filter { p in
                p.x.isFinite && p.y.isFinite && (!logX || p.x > 0) && (!logY || p.y > 0)
            }.sorted { $0.x < $1.x })
        }
        let all = drawn.flatMap(\.points)
        func scaled(_ v: Double, _ log: Bool) -> Double { log ? log10(v) : v }
        let xs = all.map { scaled($0.x, logX) }, ys = all.map { scaled($0.y, logY) }
        var (x0, x1) = (xs.min() ?? 0, xs.max() ?? 1)
        var (y0, y1) = (logY ? (ys.min() ?? 0) : min(0, ys.min() ?? 0), ys.max() ?? 1)
        if x1 <= x0 { x1 = x0 + 1 }
        if y1 <= y0 { y1 = y0 + 1 }
        // Headroom on a linear y axis, so the highest point does not sit on the frame.
        if !logY { y1 += (y1 - y0) * 0.05 }
        if logX { x0 = x0.rounded(.down); x1 = x1.rounded(.up) }
        if logY { y0 = y0.rounded(.down); y1 = y1.rounded(.up) }
        let w = Self.width - Self.left - Self.right, h = Self.height - Self.top - Self.bottom
        func px(_ x: Double) -> Double { Self.left + (scaled(x, logX) - x0) / (x1 - x0) * w }
        func py(_ y: Double) -> Double { Self.top + h - (scaled(y, logY) - y0) / (y1 - y0) * h }
        func n(_ v: Double) -> String { SVGLineChart.n(v) }
        var svg = """
        <?xml version="1.0" encoding="UTF-8"?>
        <svg xmlns="http://www.w3.org/2000/svg" width="\(Int(Self.width))" height="\(Int(Self.height))" viewBox="0 0 \(Int(Self.width)) \(Int(Self.height))" font-family="sans-serif" font-size="12">
        <rect width="100%" height="100%" fill="white"/>
        <title>\(SVGLineChart.escape(title))</title>
        <text x="\(n(Self.width / 2))" y="24" text-anchor="middle" font-size="15">\(SVGLineChart.escape(SVGLineChart.fitted(title, width: Self.width - 24, fontSize: 15)))</text>
        <rect x="\(n(Self.left))" y="\(n(Self.top))" width="\(n(w))" height="\(n(h))" fill="none" stroke="#999"/>

        """
        for (value, label) in Self.ticks(x0, x1, log: logX) {
            let x = Self.left + (value - x0) / (x1 - x0) * w
            svg += "<line x1=\"\(n(x))\" y1=\"\(n(Self.top + h))\" x2=\"\(n(x))\" y2=\"\(n(Self.top + h + 5))\" stroke=\"#999\"/>"
            svg += "<text x=\"\(n(x))\" y=\"\(n(Self.top + h + 18))\" text-anchor=\"middle\">\(label)</text>\n"
        }
        for (value, label) in Self.ticks(y0, y1, log: logY) {
            let y = Self.top + h - (value - y0) / (y1 - y0) * h
            svg += "<line x1=\"\(n(Self.left))\" y1=\"\(n(y))\" x2=\"\(n(Self.left + w))\" y2=\"\(n(y))\" stroke=\"#eee\"/>"
            svg += "<text x=\"\(n(Self.left - 6))\" y=\"\(n(y + 4))\" text-anchor=\"end\">\(label)</text>\n"
        }
        svg += "<text x=\"\(n(Self.left + w / 2))\" y=\"\(n(Self.height - 14))\" text-anchor=\"middle\">\(SVGLineChart.escape(xTitle))</text>\n"
        svg += "<text transform=\"translate(18 \(n(Self.top + h / 2))) rotate(-90)\" text-anchor=\"middle\">\(SVGLineChart.escape(yTitle))</text>\n"
        // The legend, when there are two series, stands in a row above the frame, where no data is.
        var legendX = Self.left
        for (i, s) in drawn.enumerated() {
            let color = Self.colors[i % Self.colors.count]
            let path = s.points.map { "\(n(px($0.x))),\(n(py($0.y)))" }.joined(separator: " ")
            svg += "<polyline fill=\"none\" stroke=\"\(color)\" stroke-width=\"1.5\" points=\"\(path)\"/>\n"
            if s.points.count <= 400 {
                for p in s.points { svg += "<circle cx=\"\(n(px(p.x)))\" cy=\"\(n(py(p.y)))\" r=\"2.5\" fill=\"\(color)\"/>" }
                svg += "\n"
            }
            if drawn.count > 1 {
                let y = Self.top - 8
                svg += "<line x1=\"\(n(legendX))\" y1=\"\(n(y - 4))\" x2=\"\(n(legendX + 20))\" y2=\"\(n(y - 4))\" stroke=\"\(color)\" stroke-width=\"2\"/>"
                svg += "<text x=\"\(n(legendX + 26))\" y=\"\(n(y))\">\(SVGLineChart.escape(s.name))</text>\n"
                legendX += 26 + SVGLineChart.textWidth(s.name, fontSize: 12) + 24
            }
        }
        return svg + "</svg>\n"
    }

    /// Ticks on the scaled axis: powers of ten on a log axis, about six round steps otherwise.
    private static func ticks(_ low: Double, _ high: Double, log: Bool) -> [(Double, String)] {
        if log {
            return stride(from: low, through: high, by: max(1, ((high - low) / 8).rounded(.up))).map {
                ($0, label(pow(10, $0), decimals: max(0, Int(-$0.rounded()))))
            }
        }
        // Round steps, with as many decimals as the step needs (0.005 apart reads 0.005, 0.01),
        // so no two labels read the same.
        let (values, decimals) = SVGLineChart.roundTicks(low, high)
        return values.map { ($0, label($0, decimals: decimals)) }
    }

    private static func label(_ value: Double, decimals: Int = 2) -> String {
        let a = abs(value)
        if a >= 1e9 { return SVGLineChart.trimmed(value / 1e9, decimals: 1) + "G" }
        if a >= 1e6 { return SVGLineChart.trimmed(value / 1e6, decimals: 1) + "M" }
        if a >= 1e4 { return SVGLineChart.trimmed(value / 1e3, decimals: 1) + "k" }
        return SVGLineChart.trimmed(value, decimals: decimals)
    }
}
