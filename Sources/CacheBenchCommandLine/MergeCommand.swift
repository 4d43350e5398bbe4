import CacheBench
import Foundation

enum MergeCommand {
    static let help = """
    USAGE: cachebench merge DIR [--format F] [--output FILE] [--allow-missing]

    Joins the records a sweep wrote in DIR (by any number of shards, on any machines, after
    any number of reruns) into one report shaped as compare's: --format json prints
    { "trace" (for a one-trace sweep), "traces", "results": [ <replay objects> ], "cells",
    "missing", "duplicated", "versions", "builds", "notes" }; csv has one row per cell; table and markdown
    show one compare matrix per trace. Each result is the one compare gives for that cell; as in
    compare, two capacities that resolve to one size are reported once (a note says so).

    A cell recorded twice with equal results is kept once and named on stderr; recorded twice
    with different results is an error (65). A record cut short or damaged is ignored and named
    on stderr; rerunning its shard redoes it.

    OPTIONS:
      --format F              table (default), json, csv or markdown.
      --output FILE           Write the report to FILE (whole, or not at all) instead of stdout.
      --allow-missing         Report what is recorded even when cells are missing (they are
                              listed under "missing", after the table, or on stderr with
                              --format csv) and exit 0.
      -h, --help              Show this help.

    EXIT STATUS:
      0 ok; 65 when cells are missing (each named on stderr, no report) unless --allow-missing,
      or a cell has two different results; 66 no sweep in DIR; 2 usage; 74 cannot write.
    """

    static let spec = CommandSpec(name: "merge", valueOptions: ["--format", "--output"], flags: ["--allow-missing"],
                                  positionals: 1...1, positionalName: "DIR")

    static func run(_ words: [String]) throws(CommandLineError) {
        let arguments: Arguments
        let format: ReportFormat
        do throws(UsageError) {
            arguments = try Arguments(words, spec: spec)
            format = try arguments.choice("--format", default: ReportFormat.table)
            if arguments.positionals[0] == "-" {
                throw UsageError("DIR -: a sweep's output folder (sweep --output), not standard input")
            }
            try Output.requireOutsideSweep(arguments, directory: arguments.positionals[0], outputs: ["--output"])
        } catch { throw .usage(error) }
        do throws(CacheBenchError) {
            try Output.requireWritable(arguments, ["--output"], inputs: [arguments.positionals[0]])
            let merged = try load(arguments.positionals[0], allowMissing: arguments.flags.contains("--allow-missing"))
            // CSV rows cannot list the cells without a record (JSON, the table and Markdown do).
            if format == .csv {
                for cell in merged.missing { Output.error("missing: \(cell.description)") }
            }
            try Output.emit(merged.render(as: format), to: arguments.value("--output"))
        } catch { throw .run(error) }
    }

    /// Merges `directory`; unless `allowMissing`, missing cells fail (65) with each named.
    static func load(_ directory: String, allowMissing: Bool) throws(CacheBenchError) -> SweepMerge {
        let merged = try SweepMerge.load(directory: directory)
        for note in merged.notes { Output.error("note: \(note)") }
        if !merged.missing.isEmpty && !allowMissing {
            // One line each: a line feed in a trace's name is shown escaped, not as a new line.
            let shown = merged.missing.prefix(20).map { "missing: \(Output.escapingControls($0.description))" }
            let more = merged.missing.count > shown.count ? ["… and \(merged.missing.count - shown.count) more"] : []
            let reason = "\(merged.missing.count) of \(merged.manifest.cells.count) cells have no record (rerun the shards that hold them, or pass --allow-missing)"
            throw .trace(TraceError(.malformed, file: directory, reason: ([reason] + shown + more).joined(separator: "\n")))
        }
        return merged
    }
}
