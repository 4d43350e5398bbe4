/// The miss ratio over time (`--plot-intervals`): one solid line per run for the miss ratio and
/// a dashed one for the byte miss ratio, against each interval's start on a linear axis (rows or
/// seconds of trace time), so drifts and phase changes of a workload show where they happen.
public enum IntervalChart {
    /// A standalone SVG document for the intervals of `results` (those without intervals are left out).
    public static func render(_ results: [ReplayResult]) -> String {
        let runs = results.compactMap { result -> (String, WindowReport)? in
            guard let window = result.window, window.window.reportInterval != nil else { return nil }
            let capacity = result.capacity.map { " @ " + SizeFormat.describe($0, objects: result.ignoreSize) } ?? ""
            return (result.policy + capacity, window)
        }
        let unit: String
        switch runs.first?.1.window.reportInterval {
        case .seconds?: unit = "trace time (s)"
        default: unit = "trace row"
        }
        let points = runs.flatMap { $0.1.intervals }
        let xs = points.map(\.start)
        let ys = points.flatMap { [$0.missRatio, $0.byteMissRatio].compactMap { $0 } }
        var xLow = xs.min() ?? 0, xHigh = xs.max() ?? 1
        if xHigh <= xLow { xHigh = xLow + 1 }
        let (yLow, yHigh, yStep) = SVGLineChart.fittedRange(ys.min() ?? 0, ys.max() ?? 1)
        if xLow > 0 && xLow < (xHigh - xLow) * 0.05 { xLow = 0 }

        // Taller than 520 px when the legend (18 px a run, from the plot's top) needs it.
        // The legend column is as wide as its longest name (from 220 px, at most 600 px, where
        // a name is cut, whole in its tooltip): runs of one policy differ only at their end
        // (`caffeine-wtinylfu @ 150 objects`, `@ 151 objects`). The plot keeps its width.
        let longestName = runs.map { SVGLineChart.textWidth($0.0, fontSize: 12) }.max() ?? 0
        let right = min(600, max(220, 52 + longestName + 8))
        let width = 680.0 + right, left = 78.0, top = 56.0, bottom = 62.0
        let height = max(520.0, top + 16 + Double(runs.count) * 18 + 16)
        // The plot keeps its size; a long legend only extends the canvas below it.
        let plotWidth = width - left - right, plotHeight = 520.0 - top - bottom
        func px(_ x: Double) -> Double { left + (x - xLow) / (xHigh - xLow) * plotWidth }
        func py(_ y: Double) -> Double { top + plotHeight - (y - yLow) / max(yHigh - yLow, 1e-9) * plotHeight }
        let n = SVGLineChart.n

        var svg = """
        <?xml version="1.0" encoding="UTF-8"?>
        <svg xmlns="http://www.w3.org/2000/svg" width="\(n(width))" height="\(n(height))" viewBox="0 0 \(n(width)) \(n(height))" font-family="Helvetica, Arial, sans-serif" font-size="12">
        <rect width="100%" height="100%" fill="white"/>
        <text x="\(n(left))" y="28" font-size="16" font-weight="bold">\(SVGLineChart.escape(SVGLineChart.fitted("Miss ratio per interval: " + (results.first.map { CompareCharts.traceName($0.trace) } ?? ""), width: width - left - 12, fontSize: 16, bold: true)))</text>
        <rect x="\(n(left))" y="\(n(top))" width="\(n(plotWidth))" height="\(n(plotHeight))" fill="none" stroke="#999"/>

        """
        var y = yLow
        while y <= yHigh + 1e-9 {
            svg += "<line x1=\"\(n(left))\" y1=\"\(n(py(y)))\" x2=\"\(n(left + plotWidth))\" y2=\"\(n(py(y)))\" stroke=\"#eee\"/>"
            svg += "<text x=\"\(n(left - 6))\" y=\"\(n(py(y) + 4))\" text-anchor=\"end\">\(SVGLineChart.percentLabel(y, step: yStep))</text>\n"
            y += yStep
        }
        // Round steps (1, 2 or 5 times a power of ten, whole rows at least), so no two labels
        // read the same.
        let (ticks, decimals) = SVGLineChart.roundTicks(xLow, xHigh, atLeast: unit == "trace row" ? 1 : 0)
        for x in ticks {
            svg += "<text x=\"\(n(px(x)))\" y=\"\(n(top + plotHeight + 18))\" text-anchor=\"middle\">\(SVGLineChart.trimmed(x, decimals: decimals))</text>\n"
        }
        svg += "<text x=\"\(n(left + plotWidth / 2))\" y=\"\(n(top + plotHeight + bottom - 16))\" text-anchor=\"middle\">interval start, \(unit)</text>\n"
        svg += "<text transform=\"translate(20 \(n(top + plotHeight / 2))) rotate(-90)\" text-anchor=\"middle\">miss ratio (dashed: byte miss ratio)</text>\n"
        for (index, (name, window)) in runs.enumerated() {
            // Colour and marker shape as the other charts pair them, so that runs past the
            // palette's length stay apart, and a run of one interval still shows its point.
            let color = SVGLineChart.palette[index % SVGLineChart.palette.count]
            let shape = index / SVGLineChart.palette.count + index
            for (byte, ratio) in [(false, \IntervalStatistics.missRatio), (true, \IntervalStatistics.byteMissRatio)] {
                let points = window.intervals.compactMap { p in p[keyPath: ratio].map { (x: p.start, y: $0) } }
                guard !points.isEmpty else { continue }
                let line = points.map { "\(n(px($0.x))),\(n(py($0.y)))" }
                svg += "<polyline fill=\"none\" stroke=\"\(color)\" stroke-width=\"1.8\"\(byte ? " stroke-dasharray=\"5 4\"" : "") points=\"\(line.joined(separator: " "))\"/>\n"
                for point in points {
                    let tooltip = "\(name), from \(SVGLineChart.trimmed(point.x, decimals: 3)): \(byte ? "byte miss ratio" : "miss ratio") \(_ratio(point.y * 100, decimals: 2, of: 100)) %"
                    svg += SVGLineChart.marker(shape: shape, x: px(point.x), y: py(point.y), color: color, hollow: byte, tooltip: tooltip)
                }
            }
            let legendY = top + 16 + Double(index) * 18
            svg += "<line x1=\"\(n(width - right + 16))\" y1=\"\(n(legendY - 4))\" x2=\"\(n(width - right + 40))\" y2=\"\(n(legendY - 4))\" stroke=\"\(color)\" stroke-width=\"2\"/>"
            svg += SVGLineChart.marker(shape: shape, x: width - right + 28, y: legendY - 4, color: color, hollow: false, tooltip: nil)
            svg += "<text x=\"\(n(width - right + 46))\" y=\"\(n(legendY))\"><title>\(SVGLineChart.escape(name))</title>\(SVGLineChart.escape(SVGLineChart.fitted(name, width: right - 52, fontSize: 12)))</text>\n"
        }
        return svg + "</svg>\n"
    }
}
