import CacheBench

enum AnalyzeCommand {
    static let help = """
    USAGE: cachebench analyze TRACE [--window SECONDS] [--format table|json|csv|markdown] [--output FILE] [trace options]

    The statistics libCacheSim's traceAnalyzer prints in its summary, computed the same way:
    requests and objects (with bytes: the working set), the compulsory miss ratio, mean sizes and
    frequency, the time span, the operation mix, size changes, the request rate per window (min
    and max over complete windows), the Zipf alpha fitted to rank-frequency (with R2), one-hit
    wonders, objects by request count and the most requested objects. Requests are get rows of
    non-zero size; an object's size is its first. Memory: about 40 bytes per distinct object.

    OPTIONS:
      --window SECONDS        The request-rate window in trace seconds (default 300).
      --format F              table (default), json, csv or markdown.
      --output FILE           Write the report to FILE (whole, or not at all).
      --trace-format F        auto (default: by content), csv, oracle-general, lcs, vscsi, twr or twr-ns.
      --columns MAP           CSV column map, 1-based: time=1,key=2,size=3,op=4.
      --header MODE           CSV header row: auto (default), present or absent.
      -h, --help              Show this help.

    EXAMPLE:
      cachebench analyze Traces/cloudPhysicsIO.oracleGeneral.bin --format json
    """

    static let spec = CommandSpec(name: "analyze", valueOptions: ["--window", "--format", "--output", "--trace-format", "--columns", "--header"],
                                  positionals: 1...1)

    static func run(_ words: [String]) throws(CacheBenchError) {
        let arguments: Arguments
        let trace: TraceSpec
        let format: ReportFormat
        let window: Double
        do throws(UsageError) {
            arguments = try Arguments(words, spec: spec)
            try Output.requireDistinct(arguments, inputs: [arguments.positionals[0]], outputs: ["--output"])
            trace = try TraceOptions.traceSpec(arguments, path: arguments.positionals[0])
            format = try arguments.choice("--format", default: ReportFormat.table)
            let text = arguments.value("--window") ?? "300"
            guard let seconds = Double(text), seconds.isFinite, seconds > 0 else {
                throw UsageError("--window \(text): expected a number of seconds greater than 0")
            }
            window = seconds
        } catch { throw .usage(error) }
        let analysis: TraceAnalysis
        do throws(TraceError) {
            var reader = try trace.open()
            analysis = try TraceAnalyzer.analyze(&reader, window: window)
        } catch { throw .trace(error) }
        try Output.emit(TraceAnalysisReport.render(analysis, trace: trace.path, as: format), to: arguments.value("--output"))
    }
}
