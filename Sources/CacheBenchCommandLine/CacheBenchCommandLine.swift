import CacheBench
import Foundation

/// The `cachebench` command line as a library: every subcommand, over the policies of a registry.
///
/// A researcher's own executable runs their policy through `replay`, `compare`, `mrc`, the
/// regression gate, the charts, `sweep` and `policies` in a few lines:
///
/// ```swift
/// import CacheBench
/// import CacheBenchCommandLine
/// import Foundation
///
/// exit(CacheBenchCommandLine.main(registry: .standard.adding(LIPCache<UInt64, Void>.self)))
/// ```
public enum CacheBenchCommandLine {
    /// Runs the command `arguments` name (by default the process's own arguments) over the
    /// policies of `registry`, printing results on standard output and problems on standard error.
    ///
    /// - Returns: the contract's exit code: 0 ok, 2 usage, 3 regression gate, 65 bad input,
    ///   66 cannot open, 74 cannot write.
    @MainActor
    public static func main(registry: PolicyRegistry = .standard,
                            arguments: [String] = Array(CommandLine.arguments.dropFirst())) -> Int32 {
        AtomicFile.protectStandardDescriptors()
        AtomicFile.handleTerminatingSignals()
        // A reader that goes away (`| head`) or a file-size limit (`ulimit -f`) then fails the
        // write that meets it (EPIPE, EFBIG): the command exits 74 and removes its temporary
        // files, rather than dying of the signal with them left behind.
        signal(SIGPIPE, SIG_IGN)
        signal(SIGXFSZ, SIG_IGN)
        // The usage names the executable that runs it: a researcher's own, or cachebench.
        let name = CommandLine.arguments.first.map { URL(fileURLWithPath: $0).lastPathComponent } ?? "cachebench"
        let program = name.isEmpty ? "cachebench" : name
        Output.program = program
        if arguments == Array(CommandLine.arguments.dropFirst()), let position = firstArgumentNotUTF8() {
            // Swift hands the arguments over as text, a byte that is not UTF-8 replaced: a file
            // named so would be opened, or written, under another name.
            Output.error("argument \(position) is not valid UTF-8 (as a file name, it would be read or written under another name): rename the file, or pass a trace on standard input as - and take results from standard output")
            return 2
        }
        return run(arguments, registry: registry, program: program)
    }

    /// The position (from 1) of the first of the process's arguments whose bytes are not UTF-8.
    static func firstArgumentNotUTF8() -> Int? {
        for i in 1..<Int(CommandLine.argc) {
            guard let argument = CommandLine.unsafeArgv[i] else { continue }
            if String(validatingCString: argument) == nil { return i }
        }
        return nil
    }
}

let usage = """
USAGE: cachebench COMMAND [options]

Replays cache request traces against eviction policies: research algorithms (LRU, SIEVE,
S3-FIFO, ...) and faithful models of app caches (NSCache, AFNetworking, YYCache, ...).

COMMANDS:
  replay TRACE --policy NAME    Drive one policy with a trace; report hit ratios, throughput
                                and trim latency.
  compare TRACE --policies A,B  Many policies at many capacities from one read of the trace;
                                charts (--plot) and a CI regression gate (--baseline).
  mrc TRACE [--policy NAME]     A miss-ratio curve: LRU's exact, from one stack-distance pass;
                                any other policy's from miniature simulations (MINISIM).
  policies                      List every policy, what it reproduces and its parameters.
  generate KIND                 Write a synthetic trace (zipf, scan, loop, mix, image-feed) as
                                CSV.
  convert TRACE --output FILE   Write a trace as libCacheSim's oracleGeneral or lcs binary, as
                                its traceConv does.
  analyze TRACE                 Trace statistics, as libCacheSim's traceAnalyzer computes them.
  sweep --traces LIST           Many traces x policies x capacities, sharded (--shard K/N, Slurm
                                arrays) and resumable.
  merge DIR                     Join a sweep's records into compare's report.
  sweep-report DIR              Miss-ratio reductions against FIFO over a sweep: tables and SVG.
  help [COMMAND]                Show help for a command.

Run 'cachebench COMMAND --help' for a command's options.
"""

/// Every command: its help and how it runs. Commands that name policies look them up in the registry.
let commands: [String: (help: String, run: @Sendable ([String], PolicyRegistry) throws(CommandLineError) -> Void)] = [
    "replay": (ReplayCommand.help, ReplayCommand.run),
    "compare": (CompareCommand.help, CompareCommand.run),
    "mrc": (MRCCommand.help, MRCCommand.run),
    "policies": (PoliciesCommand.help, PoliciesCommand.run),
    "generate": (GenerateCommand.help, { (words, _) throws(CommandLineError) in try GenerateCommand.run(words) }),
    "convert": (ConvertCommand.help, { (words, _) throws(CommandLineError) in try ConvertCommand.run(words) }),
    "sweep": (SweepCommand.help, SweepCommand.run),
    "merge": (MergeCommand.help, { (words, _) throws(CommandLineError) in try MergeCommand.run(words) }),
    "sweep-report": (SweepReportCommand.help, { (words, registry) throws(CommandLineError) in try SweepReportCommand.run(words, registry: registry) }),
    "analyze": (AnalyzeCommand.help, { (words, _) throws(CommandLineError) in try AnalyzeCommand.run(words) }),
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

/// The top-level usage, naming `program` as the executable.
func usageText(program: String) -> String { naming(program, in: usage) }

/// A help text with `program` for `cachebench` where it names the executable to run: after
/// `USAGE: `, in quotes (`'cachebench policies'`) and at the start of an example line.
func naming(_ program: String, in help: String) -> String {
    guard program != "cachebench" else { return help }
    let lines = help.split(separator: "\n", omittingEmptySubsequences: false).map { line -> String in
        let indent = line.prefix { $0 == " " }
        let rest = line.dropFirst(indent.count)
        if rest.hasPrefix("cachebench ") { return indent + program + rest.dropFirst("cachebench".count) }
        if rest.hasPrefix("USAGE: cachebench ") { return indent + "USAGE: " + program + rest.dropFirst("USAGE: cachebench".count) }
        return String(line)
    }
    return lines.joined(separator: "\n").replacingOccurrences(of: "'cachebench ", with: "'\(program) ")
}

/// Runs the command `words` name over `registry`'s policies and returns its exit code.
@MainActor
func run(_ words: [String], registry: PolicyRegistry, program: String = "cachebench") -> Int32 {
    let usage = usageText(program: program)
    guard let first = words.first else { return usageError(usage) }
    // `--help replay`, as git's `--help log`: the command's help, as `help replay` gives it.
    if (first == "--help" || first == "-h") && words.count > 1 { return run(["help"] + words.dropFirst(), registry: registry, program: program) }
    if first == "--help" || first == "-h" { return printHelp(usage) }
    if first == "help" {
        // `help COMMAND` takes nothing after the command, as no command takes a stray word.
        if let stray = words.dropFirst(2).first(where: { $0 != "--help" && $0 != "-h" }) {
            return usageError("\(program) help: unexpected argument '\(stray)' (usage: \(program) help [COMMAND])")
        }
        if words.count > 1, let command = commands[words[1]] { return printHelp(naming(program, in: command.help)) }
        // `help --help` and `help help`: the top-level usage, which says how help works.
        if words.count > 1, ["--help", "-h", "help"].contains(words[1]) { return printHelp(usage) }
        if words.count > 1 { return usageError("\(program): unknown command '\(words[1])'\n\n" + usage) }
        return printHelp(usage)
    }
    guard let command = commands[first] else {
        Output.error("unknown command '\(first)' (commands: \(commands.keys.sorted().joined(separator: ", ")))")
        return 2
    }
    let rest = Array(words.dropFirst())
    if rest.contains("--help") || rest.contains("-h") { return printHelp(naming(program, in: command.help)) }
    do {
        try command.run(rest, registry)
        return 0
    } catch {
        // One line per problem (the regression gate reports one per regressed run).
        for line in error.message.split(separator: "\n", omittingEmptySubsequences: false) { Output.error(String(line)) }
        return error.exitCode
    }
}
