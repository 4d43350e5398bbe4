import CacheBench
import Foundation

let usage = """
USAGE: cachebench COMMAND [options]

Replays cache request traces against eviction policies: research algorithms (LRU, SIEVE,
S3-FIFO, ...) and faithful models of app caches (NSCache, AFNetworking, YYCache, ...).

COMMANDS:
  replay TRACE --policy NAME    Drive one policy with a trace; report hit ratios, throughput
                                and trim latency.
  compare TRACE --policies A,B  Many policies at many capacities from one read of the trace;
                                charts (--plot) and a CI regression gate (--baseline).
  mrc TRACE                     LRU's exact miss-ratio curve from one stack-distance pass.
  policies                      List every policy, what it reproduces and its parameters.
  generate KIND                 Write a synthetic trace (zipf, image-feed) as CSV.
  convert TRACE --output FILE   Write a trace as libCacheSim's oracleGeneral binary.
  analyze TRACE                 Trace statistics, as libCacheSim's traceAnalyzer computes them.
  sweep --traces LIST           Many traces x policies x capacities, sharded (--shard K/N, Slurm
                                arrays) and resumable; 'merge DIR' joins the records, and
                                'sweep-report DIR' draws miss-ratio reductions against FIFO.
  help [COMMAND]                Show help for a command.

Run 'cachebench COMMAND --help' for a command's options.
"""

let commands: [String: (help: String, run: ([String]) throws(CacheBenchError) -> Void)] = [
    "replay": (ReplayCommand.help, ReplayCommand.run),
    "compare": (CompareCommand.help, CompareCommand.run),
    "mrc": (MRCCommand.help, MRCCommand.run),
    "policies": (PoliciesCommand.help, PoliciesCommand.run),
    "generate": (GenerateCommand.help, GenerateCommand.run),
    "convert": (ConvertCommand.help, ConvertCommand.run),
    "sweep": (SweepCommand.help, SweepCommand.run),
    "merge": (MergeCommand.help, MergeCommand.run),
    "sweep-report": (SweepReportCommand.help, SweepReportCommand.run),
    "analyze": (AnalyzeCommand.help, AnalyzeCommand.run),
]

/// Prints help on standard output: exit 0, or 74 when standard output cannot be written.
func printHelp(_ text: String) -> Int32 {
    do { try Output.emit(text + "\n", to: "-") } catch {
        Output.error(error.description)
        return error.exitCode
    }
    return 0
}

/// Usage mistakes print the usage on standard error (stdout is for results only): exit 2.
func usageError(_ text: String) -> Int32 {
    Output.writeStandardError(text + "\n")
    return 2
}

@MainActor
func main(_ words: [String]) -> Int32 {
    guard let first = words.first else { return usageError(usage) }
    if first == "--help" || first == "-h" { return printHelp(usage) }
    if first == "help" {
        if words.count > 1, let command = commands[words[1]] { return printHelp(command.help) }
        if words.count > 1 { return usageError("cachebench: unknown command '\(words[1])'\n\n" + usage) }
        return printHelp(usage)
    }
    guard let command = commands[first] else {
        Output.error("unknown command '\(first)' (commands: \(commands.keys.sorted().joined(separator: ", ")))")
        return 2
    }
    let rest = Array(words.dropFirst())
    if rest.contains("--help") || rest.contains("-h") { return printHelp(command.help) }
    do {
        try command.run(rest)
        return 0
    } catch {
        // One line per problem (the regression gate reports one per regressed run).
        for line in error.description.split(separator: "\n", omittingEmptySubsequences: false) { Output.error(String(line)) }
        return error.exitCode
    }
}

AtomicFile.protectStandardDescriptors()
exit(main(Array(CommandLine.arguments.dropFirst())))
