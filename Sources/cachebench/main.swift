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
    "analyze": (AnalyzeCommand.help, AnalyzeCommand.run),
]

@MainActor
func main(_ words: [String]) -> Int32 {
    guard let first = words.first else {
        print(usage)
        return 2
    }
    if first == "--help" || first == "-h" { print(usage); return 0 }
    if first == "help" {
        if words.count > 1, let command = commands[words[1]] { print(command.help); return 0 }
        print(usage)
        return words.count > 1 ? 2 : 0
    }
    guard let command = commands[first] else {
        Output.error("unknown command '\(first)' (commands: \(commands.keys.sorted().joined(separator: ", ")))")
        return 2
    }
    let rest = Array(words.dropFirst())
    if rest.contains("--help") || rest.contains("-h") { print(command.help); return 0 }
    do {
        try command.run(rest)
        return 0
    } catch {
        // One line per problem (the regression gate reports one per regressed run).
        for line in error.description.split(separator: "\n", omittingEmptySubsequences: false) { Output.error(String(line)) }
        return error.exitCode
    }
}

exit(main(Array(CommandLine.arguments.dropFirst())))
