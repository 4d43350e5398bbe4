import CacheBench
import EvictionPolicies
import Foundation

enum CompareCommand {
    static let help = """
    USAGE: cachebench compare TRACE --policies A,B,C [--capacities LIST] [options]

    Runs every policy at every capacity from one read of the trace (each decoded batch is fed
    to every run, on all cores), with results identical to separate 'replay' runs. LRU at
    several capacities comes from one exact stack-distance pass when the trace allows it (a
    trace without size changes in byte mode or deletes of requested keys, standard input
    included; otherwise LRU is simulated at each capacity).

    ARGUMENTS:
      TRACE                   A trace file, or - for standard input (read once; a temporary copy
                              serves any second pass).

    OPTIONS:
      --policies A,B,C        Policies from 'cachebench policies' (required); the groups all,
                              research (libCacheSim-style algorithms) and library (models of
                              app caches) may appear in the list, e.g. library,lru; a policy
                              a group also names runs once (research,lru), one the list names
                              twice is an error (lru,LRU).
      --capacities LIST       Comma-separated sizes (64MiB,128MiB; objects with --ignore-size),
                              log-spaced ranges LOW...HIGH:COUNT (1MiB...1GiB:12, both ends
                              included), or fractions of the working set (0.01,0.1,0.3 or
                              1%,10%,30%; from a first pass). Default: each policy's own default, as
                              'replay'. A run whose capacity its policy refuses (LIRS below 3
                              objects) is left out with a note; every run refused is an error.
      --capacity SIZE         One capacity (same as --capacities SIZE).
      --count-limit N         An object-count limit, for the policies that have one.
      --ignore-size           Every object has size 1; capacities count objects.
      --trace-format F        auto (default: by content), csv, oracle-general, lcs, vscsi, twr or twr-ns.
                              Any case; libCacheSim's names too (oracleGeneral, twrNS; txt is
                              csv, oracleGeneralBin oracle-general).
      --columns MAP           CSV column map, 1-based: time=1,key=2,size=3,op=4.
      --header MODE           CSV header row: auto (default), present or absent.
      --option KEY=VALUE      A policy parameter (repeatable), given to each selected policy
                              that declares it; an option no selected policy takes is an error.
      --memory-warning R      What a memory-warning row does after the policy's own reaction,
                              as a Cache with that response (replays a RecordingCache session
                              with its hits): policy (default: the reaction alone; research
                              policies ignore events), remove-all (Cache's default), ignore,
                              or trim:F (keep the fraction F, e.g. trim:0.5 or trim:50%).
                              Not with --tier or --admission.
      --tier memory=A,disk=B  Also run a two-level cache (repeatable; --policies may then be
                              omitted), at each capacity, which is the memory tier's: a get asks
                              A, then B; a disk hit is copied into memory; a miss is stored in
                              both. --option reaches A when A declares it.
      --disk-capacity SIZE    Every --tier's disk cost limit (default as for --capacity).
      --disk-count-limit N    Every --tier's disk count limit.
      --disk-option KEY=VALUE A disk-tier parameter (repeatable).
      --tier-promote-cost C   The cost of memory copies: size (SDImageCache, default) or zero
                              (YYCache's facade).
    \(AdmissionOptions.help)
    \(WindowOptions.help)
                              A window turns off LRU's one-pass profile (every run is simulated)
                              and cannot be combined with --tier.
      --plot-intervals FILE.svg
                              Chart of the miss ratio per --report-interval, one line per run.
      --format F              table (default), json, csv or markdown.
      --output FILE           Write the report to FILE (whole, or not at all) instead of stdout.
      --plot FILE.svg         Chart of hit ratio against capacity, one line per policy.
      --plot-latency FILE.svg Chart of trim-pass latency (p50, p99) against capacity. Implies
                              --no-stack-distance, so LRU's passes are timed.
      --baseline FILE.json    Regression gate: compare hit ratios with a saved
                              'compare --format json' report; exit 3 if any (policy, capacity)
                              falls more than the tolerance below it. Pairs missing from the
                              baseline are noted on stderr, not failed; but the gate also
                              fails (exit 3) when it compared nothing, or when the baseline's
                              trace (file name), mode (--ignore-size), admission rule
                              (--admission) or request count differ.
      --allow-partial         Let those comparisons pass, with a note on stderr.
      --tolerance X           Allowed drop: a hit-ratio difference (0.01) or points (1%).
                              Default 0.
      --no-stack-distance     Simulate LRU at each capacity instead of the one-pass profile.
      --threads N             Threads driving the policies (default: the number of cores).
      --max-memory SIZE       Memory the runs may use together (default: a quarter of physical
                              memory). A larger grid runs in waves, each reading the trace once
                              more (a note on stderr says so). Without it, grids of fewer than 64
                              runs are not measured.
      -h, --help              Show this help.

    EXIT STATUS:
      0 ok, 2 usage, 3 regression gate failed, 65 bad trace or baseline, 66 cannot open,
      74 cannot write.

    EXAMPLE:
      cachebench compare Traces/cache2k-web12.csv --policies lru,fifo --capacities 100...10000:9 \\
          --ignore-size --plot web12.svg
    """

    static let spec = CommandSpec(
        name: "compare",
        valueOptions: Set(["--policies", "--capacities", "--capacity", "--count-limit", "--trace-format", "--columns", "--header",
                           "--format", "--output", "--plot", "--plot-latency", "--baseline", "--tolerance", "--threads", "--max-memory",
                           "--plot-intervals", "--memory-warning"])
            .union(TierOptions.valueOptions).union(WindowOptions.valueOptions).union(AdmissionOptions.valueOptions),
        repeatableOptions: Set(["--option", "--tier"]).union(TierOptions.repeatableOptions).union(AdmissionOptions.repeatableOptions),
        flags: ["--ignore-size", "--no-stack-distance", "--allow-partial"], positionals: 1...1)

    static func run(_ words: [String], registry: PolicyRegistry) throws(CommandLineError) {
        let arguments: Arguments
        let job: CompareJob
        let format: ReportFormat
        let tolerance: Double?
        do throws(UsageError) {
            arguments = try Arguments(words, spec: spec)
            let tiers = try TierOptions.pairs(arguments, registry: registry)
            var compare = try compareJob(arguments, policies: arguments.value("--policies") == nil && !tiers.isEmpty
                                                   ? [] : try policyNames(arguments, registry: registry))
            compare.tiers = tiers
            compare.admission = try AdmissionOptions.parse(arguments)
            compare.memoryWarning = try arguments.value("--memory-warning").flatMap { (text) throws(UsageError) in
                try MemoryWarningOverride.parse(text)
            }
            compare.registry = registry
            compare.memoryBudget = try arguments.value("--max-memory").map { (text) throws(UsageError) in
                let size = try parseValue(text, of: "--max-memory") { (text) throws(InvalidValueError) in try SizeFormat.parse(text) }
                guard size > 0 else { throw UsageError("--max-memory \(text): must be greater than 0") }
                return size
            }
            compare.noteHandler = { Output.error($0) }
            compare.window = try WindowOptions.parse(arguments)
            if arguments.value("--plot-intervals") != nil && compare.window.reportInterval == nil {
                throw UsageError("--plot-intervals needs --report-interval")
            }
            job = compare
            format = try arguments.choice("--format", default: ReportFormat.table)
            tolerance = try arguments.value("--tolerance").map { (text) throws(UsageError) in try RegressionGate.parseTolerance(text) }
            try Output.requireCharts(arguments, ["--plot", "--plot-latency", "--plot-intervals"])
            let outputs = ["--output", "--plot", "--plot-latency", "--plot-intervals"]
            try Output.requireDistinct(arguments, inputs: [arguments.positionals[0]], outputs: outputs)
            try Output.requireDistinct(arguments, inputs: arguments.all("--baseline"), outputs: outputs, inputName: "the baseline")
            if Output.readsStandardInput(arguments.positionals[0]) && arguments.all("--baseline").contains(where: Output.readsStandardInput) {
                throw UsageError("the trace and --baseline both read standard input; save one of them to a file")
            }
            if tolerance != nil && arguments.value("--baseline") == nil {
                throw UsageError("--tolerance applies to --baseline, which is not given")
            }
            if arguments.flags.contains("--allow-partial") && arguments.value("--baseline") == nil {
                throw UsageError("--allow-partial applies to --baseline, which is not given")
            }
        } catch { throw .usage(error) }
        do throws(CacheBenchError) {
            try Output.requireWritable(arguments, ["--output", "--plot", "--plot-latency", "--plot-intervals"],
                                       inputs: [arguments.positionals[0]] + arguments.all("--baseline"))
            // Read the baseline first: a broken one fails before the long run, not after.
            let gate = try arguments.value("--baseline").map { (path) throws(CacheBenchError) in
                try RegressionGate.load(path: path, tolerance: tolerance ?? 0, registry: registry)
            }
            let progress = ProgressReporter.isTerminal
                ? ProgressReporter(label: "compare \(job.trace.path)" + SlowByDesign.label(job.policies, in: job.registry)) : nil
            let result = try Compare.run(job, progress: progress)
            // CSV has no place for notes (the other formats carry them): they go to standard error.
            if format == .csv { for note in result.notes { Output.error("note: \(note)") } }
            // Everything is rendered before anything is written, then committed together.
            try Output.emit([(CompareReport.render(result, as: format), arguments.value("--output"))]
                + plots(arguments, hitRatio: { CompareCharts.hitRatio(result) }, latency: { CompareCharts.trimLatency(result) })
                + (arguments.value("--plot-intervals").map { [(IntervalChart.render(result.results), $0)] } ?? []))

            if let gate {
                let outcome = gate.check(result, allowPartial: arguments.flags.contains("--allow-partial"))
                for note in outcome.notes { Output.error("note: \(note)") }
                if !outcome.passed { throw .regression(outcome.mismatches + outcome.regressions) }
            }
        } catch { throw arguments.value("--capacities") != nil ? .runOverCapacities(error) : .run(error) }
    }

    /// The names in `--policies`, with the groups `all`, `research` and `library` expanded in
    /// place. A policy both a group and the list name (`research,lru` or `lru,research`, in any
    /// spelling) is listed once, where it first appears; a policy the list names twice itself
    /// (`lru,LRU`) is still an error.
    static func policyNames(_ arguments: Arguments, registry: PolicyRegistry) throws(UsageError) -> [String] {
        guard let list = arguments.value("--policies") else {
            throw UsageError("compare: --policies is required (see 'cachebench policies')")
        }
        var names: [String] = []
        // Registered names already listed, and which of them the list named itself.
        var listed: Set<String> = [], named: Set<String> = []
        for item in list.split(separator: ",", omittingEmptySubsequences: false).map({ $0.trimmingCharacters(in: .whitespaces) }) {
            let group: [String]?
            switch item.lowercased() {
            case "all": group = registry.descriptors.map(\.name)
            case "research": group = registry.descriptors.filter { $0.family == .research }.map(\.name)
            case "library": group = registry.descriptors.filter { $0.family == .library }.map(\.name)
            default: group = nil
            }
            if let group {
                for name in group where listed.insert(name).inserted { names.append(name) }
            } else {
                let name = registry.canonicalName(item)
                // Named twice by the list itself: kept, so the run refuses it by name.
                if !named.insert(name).inserted || listed.insert(name).inserted { names.append(item) }
            }
        }
        return names
    }

    /// The options `compare` shares with `replay`, plus its own.
    static func compareJob(_ arguments: Arguments, policies: [String]) throws(UsageError) -> CompareJob {
        if arguments.value("--capacities") != nil && arguments.value("--capacity") != nil {
            throw UsageError("give --capacities or --capacity, not both")
        }
        let capacities = try (arguments.value("--capacities") ?? arguments.value("--capacity")).map { (text) throws(UsageError) in
            try parseValue(text, of: arguments.value("--capacities") != nil ? "--capacities" : "--capacity") { (text) throws(InvalidValueError) in
                try CapacityList.parse(text)
            }
        }
        let threads = try arguments.integer("--threads") ?? ProcessInfo.processInfo.activeProcessorCount
        guard threads >= 1 && threads <= 256 else { throw UsageError("--threads \(threads): must be from 1 to 256") }
        let countLimit = try arguments.integer("--count-limit")
        if let countLimit, countLimit <= 0 { throw UsageError("--count-limit \(countLimit): must be greater than 0") }
        return CompareJob(
            trace: try TraceOptions.traceSpec(arguments, path: arguments.positionals[0]), policies: policies,
            capacities: capacities, countLimit: countLimit, ignoreSize: arguments.flags.contains("--ignore-size"),
            options: try TraceOptions.policyOptions(arguments.all("--option")),
            lruStackDistance: !arguments.flags.contains("--no-stack-distance") && arguments.value("--plot-latency") == nil,
            threads: threads)
    }

    /// The charts `--plot` and `--plot-latency` ask for, rendered, with their paths.
    static func plots(_ arguments: Arguments, hitRatio: () -> String, latency: () -> String) -> [(text: String, path: String?)] {
        var outputs: [(text: String, path: String?)] = []
        if let path = arguments.value("--plot") { outputs.append((hitRatio(), path)) }
        if let path = arguments.value("--plot-latency") { outputs.append((latency(), path)) }
        return outputs
    }
}
