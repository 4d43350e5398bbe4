#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension MissRatioReduction {
    /// Box plots as a standalone SVG, as the S3-FIFO and SIEVE papers draw them: one group per
    /// policy, one box per size inside it (coloured by size), the box from p25 to p75 with the
    /// median across it, whiskers from p10 to p90 and a diamond at the mean; a line at 0 (no
    /// better than the baseline). Each box has a tooltip with its figures.
    /// The lowest reduction the chart's axis shows: −100 %, twice the baseline's misses.
    static let chartFloor = -1.0

    public var svg: String {
        let boxWidth = 14.0, boxGap = 4.0, groupGap = 26.0
        let groupWidth = Double(capacities.count) * (boxWidth + boxGap) - boxGap
        let top = 72.0, bottom = 70.0, legendWidth = 150.0
        let plotWidth = max(300, Double(policies.count) * (groupWidth + groupGap) + groupGap)
        // Taller than 520 px when the legend (20 px a size, below its title) needs it.
        // The plot keeps its size; a long legend only extends the canvas below it.
        let plotHeight = 520.0 - top - bottom
        // Policy names wider than their group (`caffeine-wtinylfu` under one box) are written
        // slanted, and cut at 24 characters (the tooltip keeps the whole name); the canvas grows
        // below the plot to hold them.
        let labelSlant = 40.0, characterWidth = 12.0 * 0.6
        let slanted = Double(policies.map(\.count).max() ?? 0) * characterWidth > groupWidth + groupGap - 4
        let labels = policies.map { slanted ? SVGLineChart.fitted($0, width: 24 * characterWidth, fontSize: 12) : $0 }
        let labelDepth = slanted ? Double(labels.map(\.count).max() ?? 0) * characterWidth * sin(labelSlant * .pi / 180) + 12 : 0
        // A slanted label reaches back left of its group's centre: the first one must not start
        // off the canvas (a long name under one or two boxes), so the margin grows to hold it.
        let firstReach = slanted ? Double(labels.first?.count ?? 0) * characterWidth * cos(labelSlant * .pi / 180) : 0
        let left = max(78.0, firstReach + 8 - groupGap - groupWidth / 2)
        let height = max(520.0, top + 24 + Double(capacities.count) * 20 + 16, top + plotHeight + 20 + labelDepth + 12)

        // Y range: the whiskers and means of every box, and 0, on round steps.
        var low = 0.0, high = 0.0
        for d in distributions {
            for value in [d.quantile(0.1), d.quantile(0.9), d.mean].compactMap({ $0 }) {
                low = min(low, value)
                high = max(high, value)
            }
        }
        // The axis stops at the floor: a policy that doubles the baseline's misses (LIFO, MRU on
        // most traces) would otherwise stretch it until every other box is a sliver. What lies
        // below is drawn at the floor, its whisker ending in an arrow; the tooltips keep the figures.
        let clipped = low < Self.chartFloor
        low = max(low, Self.chartFloor)
        // Round steps that divide 100 %, so the floor and 0 are ticks; the range is at most 200 %.
        let step = [0.05, 0.1, 0.2, 0.25].first { (high - low) / $0 <= 8 } ?? 0.5
        let y0 = (low / step).rounded(.down) * step, y1 = max(y0 + step, (high / step).rounded(.up) * step)
        func py(_ y: Double) -> Double { top + plotHeight - (max(y, y0) - y0) / (y1 - y0) * plotHeight }
        let n = SVGLineChart.n, escape = SVGLineChart.escape

        let title = "Miss-ratio reduction against \(baseline) across \(traceCount) traces"
        let subtitle = "(\(baseline) − policy) / \(baseline) miss ratio per trace; box p25–p75, bar median, whiskers p10–p90, ◆ mean"
            + (clipped ? "; ▼ below the axis" : "")
        // Wide enough for the title and the subtitle, whose text is not cut: with few policies
        // the plot alone is narrower than they are.
        let textWidth = max(SVGLineChart.textWidth(title, fontSize: 17, bold: true), SVGLineChart.textWidth(subtitle, fontSize: 12))
        let width = max(left + plotWidth + legendWidth + 24, left + textWidth + 12)
        var svg = """
        <?xml version="1.0" encoding="UTF-8"?>
        <svg xmlns="http://www.w3.org/2000/svg" width="\(n(width))" height="\(n(height))" viewBox="0 0 \(n(width)) \(n(height))" font-family="Helvetica, Arial, sans-serif" font-size="12">
        <title>\(escape(title))</title>
        <rect x="0" y="0" width="\(n(width))" height="\(n(height))" fill="#ffffff"/>
        <text x="\(n(left))" y="28" font-size="17" font-weight="bold" fill="#222222">\(escape(title))</text>
        <text x="\(n(left))" y="48" font-size="12" fill="#555555">\(escape(subtitle))</text>

        """
        // Grid, 0 line and labels.
        svg += "<g stroke=\"#e6e6e6\" stroke-width=\"1\">\n"
        var ticks: [Double] = []
        var tick = y0
        while tick <= y1 + step / 2 { ticks.append(tick); tick += step }
        for t in ticks { svg += "<line x1=\"\(n(left))\" y1=\"\(n(py(t)))\" x2=\"\(n(left + plotWidth))\" y2=\"\(n(py(t)))\"/>\n" }
        svg += "</g>\n<g fill=\"#444444\">\n"
        for t in ticks {
            svg += "<text x=\"\(n(left - 8))\" y=\"\(n(py(t) + 4))\" text-anchor=\"end\">\(_fixed(t * 100, decimals: 0)) %</text>\n"
        }
        svg += "</g>\n"
        svg += "<line x1=\"\(n(left))\" y1=\"\(n(py(0)))\" x2=\"\(n(left + plotWidth))\" y2=\"\(n(py(0)))\" stroke=\"#666666\" stroke-width=\"1.2\" stroke-dasharray=\"4 3\"/>\n"
        svg += "<rect x=\"\(n(left))\" y=\"\(n(top))\" width=\"\(n(plotWidth))\" height=\"\(n(plotHeight))\" fill=\"none\" stroke=\"#999999\"/>\n"
        let yMid = top + plotHeight / 2
        svg += "<text x=\"18\" y=\"\(n(yMid))\" text-anchor=\"middle\" fill=\"#222222\" transform=\"rotate(-90 18 \(n(yMid)))\">miss-ratio reduction</text>\n"

        // Boxes.
        for (g, policy) in policies.enumerated() {
            let groupLeft = left + groupGap + Double(g) * (groupWidth + groupGap)
            let labelX = groupLeft + groupWidth / 2, labelY = top + plotHeight + 20
            if slanted {
                svg += "<text x=\"\(n(labelX))\" y=\"\(n(labelY - 4))\" text-anchor=\"end\" fill=\"#222222\" transform=\"rotate(-\(n(labelSlant)) \(n(labelX)) \(n(labelY - 4)))\"><title>\(escape(policy))</title>\(escape(labels[g]))</text>\n"
            } else {
                svg += "<text x=\"\(n(labelX))\" y=\"\(n(labelY))\" text-anchor=\"middle\" fill=\"#222222\">\(escape(policy))</text>\n"
            }
            for (c, capacity) in capacities.enumerated() {
                guard let d = distribution(policy, capacity), let p10 = d.quantile(0.1), let p25 = d.quantile(0.25),
                      let median = d.quantile(0.5), let p75 = d.quantile(0.75), let p90 = d.quantile(0.9), let mean = d.mean else { continue }
                let color = SVGLineChart.orderedColor(c, of: capacities.count)
                let x = groupLeft + Double(c) * (boxWidth + boxGap), mid = x + boxWidth / 2
                let tip = "\(policy) at \(capacity.label): \(d.values.count) traces, median \(_fixed(median * 100, decimals: 1)) %, p25 \(_fixed(p25 * 100, decimals: 1)) %, p75 \(_fixed(p75 * 100, decimals: 1)) %, p10 \(_fixed(p10 * 100, decimals: 1)) %, p90 \(_fixed(p90 * 100, decimals: 1)) %, mean \(_fixed(mean * 100, decimals: 1)) %"
                svg += "<g><title>\(escape(tip))</title>\n"
                svg += "<line x1=\"\(n(mid))\" y1=\"\(n(py(p90)))\" x2=\"\(n(mid))\" y2=\"\(n(py(p10)))\" stroke=\"\(color)\" stroke-width=\"1.2\"/>\n"
                for whisker in [p10, p90] {
                    svg += "<line x1=\"\(n(x + 3))\" y1=\"\(n(py(whisker)))\" x2=\"\(n(x + boxWidth - 3))\" y2=\"\(n(py(whisker)))\" stroke=\"\(color)\" stroke-width=\"1.2\"/>\n"
                }
                svg += "<rect x=\"\(n(x))\" y=\"\(n(py(p75)))\" width=\"\(n(boxWidth))\" height=\"\(n(max(1, py(p25) - py(p75))))\" fill=\"\(color)\" fill-opacity=\"0.55\" stroke=\"\(color)\"/>\n"
                svg += "<line x1=\"\(n(x))\" y1=\"\(n(py(median)))\" x2=\"\(n(x + boxWidth))\" y2=\"\(n(py(median)))\" stroke=\"#222222\" stroke-width=\"1.6\"/>\n"
                if p10 < y0 {
                    // The whisker goes on below the axis: an arrow at its foot.
                    let foot = py(y0)
                    svg += "<path d=\"M\(n(mid)) \(n(foot)) L\(n(mid + 4.5)) \(n(foot - 7)) L\(n(mid - 4.5)) \(n(foot - 7)) Z\" fill=\"\(color)\"/>\n"
                }
                let my = py(mean)
                svg += "<path d=\"M\(n(mid)) \(n(my - 3.5)) L\(n(mid + 3.5)) \(n(my)) L\(n(mid)) \(n(my + 3.5)) L\(n(mid - 3.5)) \(n(my)) Z\" fill=\"#ffffff\" stroke=\"#222222\"/>\n"
                svg += "</g>\n"
            }
        }

        // Legend: one swatch per size.
        let legendX = left + plotWidth + 20
        svg += "<g font-size=\"12\" fill=\"#222222\">\n<text x=\"\(n(legendX))\" y=\"\(n(top + 4))\">cache size</text>\n"
        for (c, capacity) in capacities.enumerated() {
            let y = top + 24 + Double(c) * 20
            let color = SVGLineChart.orderedColor(c, of: capacities.count)
            svg += "<rect x=\"\(n(legendX))\" y=\"\(n(y - 8))\" width=\"14\" height=\"12\" fill=\"\(color)\" fill-opacity=\"0.55\" stroke=\"\(color)\"/>\n"
            svg += "<text x=\"\(n(legendX + 22))\" y=\"\(n(y + 2))\">\(escape(capacity.label))</text>\n"
        }
        svg += "</g>\n</svg>\n"
        return svg
    }
}
