import CacheBench
import EvictionPolicies
import Foundation

enum AnalyzeCommand {
    static let help = """
    USAGE: cachebench analyze TRACE [--window SECONDS] [--format table|json|csv|markdown] [--output FILE]
                              [--plot DIR] [trace options]

    The statistics libCacheSim's traceAnalyzer prints and writes, computed the same way:
    requests and objects (with bytes: the working set), the compulsory miss ratio, sizes (mean,
    smallest, largest, most requested, and log2 histograms by request and by object), frequency,
    the time span, the operation mix, size changes (a request whose size differs from the
    object's previous one), TTL use (lcs v3+ and Twitter's binary and CSV traces carry TTLs;
    requests and sets with one are counted apart), the request rate per window (min and max
    over complete windows, or over the whole trace when it is shorter than one; per window in
    JSON and plots), popularity (rank-frequency with a fitted Zipf alpha and R2), one-hit
    wonders (whole trace and per window), objects by request count, the most requested
    objects, reuse time (5 s bins, widened in doublings past 500,000 s; reuseTimeBin gives the
    width) and requests since the previous request (traceAnalyzer's
    log-1.5 bins), and the reuse distance (distinct objects in between; log2 bins;
    traceAnalyzer has none). Requests are get rows of non-zero size; an object's size is its
    first. JSON holds every histogram.
    Memory: about 90 bytes per distinct object, plus one record per window.

    OPTIONS:
      --window SECONDS        The request-rate window in trace seconds (default 300).
      --format F              table (default), json, csv or markdown.
      --output FILE           Write the report to FILE (whole, or not at all).
      --plot DIR              Also write SVG plots into the folder DIR (made if missing):
                              popularity.svg, reuse-distance.svg, reuse-time.svg, sizes.svg,
                              request-rate.svg and one-hit-wonders.svg (the report and every
                              plot, or none of them).
      --trace-format F        auto (default: by content), csv, oracle-general, lcs, vscsi, twr or twr-ns.
                              Any case; libCacheSim's names too (oracleGeneral, twrNS; txt is
                              csv, oracleGeneralBin oracle-general).
      --columns MAP           CSV column map, 1-based: time=1,key=2,size=3,op=4.
      --header MODE           CSV header row: auto (default), present or absent.
      -h, --help              Show this help.


    EXIT STATUS:
      0 ok, 2 usage, 65 bad trace, 66 cannot open, 74 cannot write.
    EXAMPLE:
      cachebench analyze Traces/cloudPhysicsIO.oracleGeneral.bin --format json
      cachebench analyze Traces/cloudPhysicsIO.oracleGeneral.bin --plot plots
    """

    static let spec = CommandSpec(name: "analyze", valueOptions: ["--window", "--format", "--output", "--plot", "--trace-format", "--columns", "--header"],
                                  positionals: 1...1)

    static func run(_ words: [String]) throws(CommandLineError) {
        let arguments: Arguments
        let trace: TraceSpec
        let format: ReportFormat
        let window: Double
        do throws(UsageError) {
            arguments = try Arguments(words, spec: spec)
            // The plots too: none may be the trace or the report (`--plot .` beside a trace named
            // sizes.svg, or `--output plots/sizes.svg`).
            // `--output` absent is standard output, which may be redirected to the trace (`>> trace.csv`).
            var written = [("--output", arguments.value("--output") ?? "-")]
            if let folder = arguments.value("--plot") {
                written += TraceAnalysisReport.plotNames.map { ("--plot \(folder) (its \($0))", (folder as NSString).appendingPathComponent($0)) }
            }
            try Output.requireDistinct(inputs: [arguments.positionals[0]], written: written)
            trace = try TraceOptions.traceSpec(arguments, path: arguments.positionals[0])
            format = try arguments.choice("--format", default: ReportFormat.table)
            try Output.requireFiles(arguments, ["--plot"])
            let text = arguments.value("--window") ?? "300"
            // Decimal only, as every other number is read (`Double` alone takes `0x10` as 16).
            guard let seconds = PolicyOptions.decimal(text), seconds > 0 else {
                throw UsageError("--window \(text): expected a number of seconds greater than 0")
            }
            // A subnormal window is no window: its count over any span is not a number.
            guard seconds >= Double.leastNormalMagnitude else {
                throw UsageError("--window \(text): expected at least \(Double.leastNormalMagnitude) seconds")
            }
            window = seconds
        } catch { throw .usage(error) }
        do throws(CacheBenchError) {
            // The plots' folder may not exist yet (it is made with them, and a report may go in it):
            // with --plot, the report's file is checked when it is written.
            if arguments.value("--plot") == nil { try Output.requireWritable(arguments, ["--output"], inputs: [arguments.positionals[0]]) }
            let analysis: TraceAnalysis
            do throws(TraceError) {
                var reader = try trace.open()
                analysis = try TraceAnalyzer.analyze(&reader, window: window) { row, reason in
                    // A fresh reader finds the row's line or byte (standard input: its kept copy).
                    do throws(TraceError) {
                        var locator = try trace.open()
                        return locator.error(atRow: row, reason: reason)
                    } catch {
                        return TraceError(.malformed, file: trace.path, reason: reason)
                    }
                }
            } catch { throw .trace(error) }
            var outputs: [(text: String, path: String?)] = [(TraceAnalysisReport.render(analysis, trace: trace.path, as: format), arguments.value("--output"))]
            let plotFolder = arguments.value("--plot")
            if let folder = plotFolder {
                for plot in TraceAnalysisReport.plots(analysis, trace: trace.path) {
                    outputs.append((plot.svg, (folder as NSString).appendingPathComponent(plot.name)))
                }
            }
            // A missing folder is made (once the analysis succeeded), and taken away again if
            // the outputs cannot be written: all of them or none. The outermost missing folder
            // is what this run creates, and removes on failure. With signals held, so that an
            // interruption cannot leave the folder made and empty.
            try AtomicFile.holdingSignals { () throws(CacheBenchError) in
                var createdFolder: String? = nil
                if let folder = plotFolder {
                    do throws(OutputError) { createdFolder = try Folders.make(folder) } catch {
                        throw CacheBenchError(error)
                    }
                }
                do throws(CacheBenchError) { try Output.emit(outputs) } catch {
                    if let createdFolder { try? FileManager.default.removeItem(atPath: createdFolder) }
                    throw error
                }
            }
        } catch { throw .run(error) }
    }
}
