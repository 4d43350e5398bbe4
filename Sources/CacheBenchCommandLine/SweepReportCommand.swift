import CacheBench
import Foundation

enum SweepReportCommand {
    static let help = """
    USAGE: cachebench sweep-report DIR [--baseline fifo] [--format markdown|json|csv] [--output FILE]
                                   [--plot FILE.svg] [--allow-missing]

    The figure eviction papers draw from a sweep (S3-FIFO's, SIEVE's): per policy and cache size,
    the distribution across the sweep's traces of the miss-ratio reduction against FIFO,
    (fifo - policy) / fifo of their miss ratios. Prints Markdown tables (median with quartiles,
    and mean) and draws box plots as SVG (box p25-p75, median, whiskers p10-p90, mean).

    OPTIONS:
      --baseline NAME         The policy to measure against (default fifo); the sweep must have it.
      --format F              markdown (default; table is the same), json or csv. JSON and CSV give,
                              per policy and size, the number of traces and the reduction's p10,
                              p25, median, p75, p90 and mean as fractions (0.2: 20 % fewer misses):
                              {"baseline", "traces", "skipped", "results": [{"policy", "capacity",
                              "capacityKey", "traces", "p10", ..., "mean"}]}, null where no trace counted.
      --output FILE           Write the report to FILE (whole, or not at all) instead of stdout.
      --plot FILE.svg         Draw the box plots.
      --allow-missing         Report on the recorded cells when some are missing (as merge's).
      -h, --help              Show this help.

    EXIT STATUS:
      0 ok; 65 when cells are missing (unless --allow-missing); 66 no sweep in DIR; 2 usage
      (e.g. no baseline policy in the sweep); 74 cannot write.
    """

    static let spec = CommandSpec(name: "sweep-report", valueOptions: ["--baseline", "--format", "--output", "--plot"],
                                  flags: ["--allow-missing"], positionals: 1...1, positionalName: "DIR")

    static func run(_ words: [String], registry: PolicyRegistry) throws(CommandLineError) {
        let arguments: Arguments
        let format: ReportFormat
        do throws(UsageError) {
            arguments = try Arguments(words, spec: spec)
            format = try arguments.choice("--format", default: ReportFormat.markdown)
            try Output.requireCharts(arguments, ["--plot"])
            try Output.requireDistinct(arguments, inputs: [], outputs: ["--output", "--plot"])
            if arguments.positionals[0] == "-" {
                throw UsageError("DIR -: a sweep's output folder (sweep --output), not standard input")
            }
            try Output.requireOutsideSweep(arguments, directory: arguments.positionals[0], outputs: ["--output", "--plot"])
        } catch { throw .usage(error) }
        do throws(CacheBenchError) {
            try Output.requireWritable(arguments, ["--output", "--plot"], inputs: [arguments.positionals[0]])
            let merged = try MergeCommand.load(arguments.positionals[0], allowMissing: arguments.flags.contains("--allow-missing"))
            let report: MissRatioReduction
            // The baseline in any case or by an alias: the sweep's own name for that policy.
            func canonical(_ name: String) -> String { registry.canonicalName(name).lowercased() }
            let asked = arguments.value("--baseline") ?? "fifo"
            let baseline = merged.manifest.policies.first { canonical($0) == canonical(asked) } ?? asked
            do { report = try MissRatioReduction(merged, baseline: baseline) } catch { throw .sweep(error) }
            // The tables and the chart are committed together, or neither is.
            let text = switch format {
            case .table, .markdown: report.markdown
            case .json: report.json.serialized(pretty: true) + "\n"
            case .csv: report.csv
            }
            var outputs: [(text: String, path: String?)] = [(text, arguments.value("--output"))]
            if let plot = arguments.value("--plot") { outputs.append((report.svg, plot)) }
            try Output.emit(outputs)
        } catch { throw .run(error) }
    }
}
