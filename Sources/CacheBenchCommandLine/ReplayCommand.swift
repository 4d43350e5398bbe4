import CacheBench
import EvictionPolicies

enum ReplayCommand {
    static let help = """
    USAGE: cachebench replay TRACE --policy NAME [options]
           cachebench replay TRACE --tier memory=NAME,disk=NAME [options]

    Drives one policy with a trace and reports hit ratio, byte hit ratio, throughput and trim
    latency (how long each eviction pass took).

    ARGUMENTS:
      TRACE                   A trace file, or - for standard input (read once; a temporary copy
                              serves any second pass). The content decides the format: CSV text
                              (comma or tab separated; Twitter's published CSV traces by their
                              seven fields), oracleGeneral, lcs, vscsi, twr or twr-ns binary,
                              zstd or gzip compressed (decoded as read).
                              Keys that are numbers below 2^64 are numbers (7, 007, "7" and " 7"
                              are one key); other keys are their exact bytes.

    OPTIONS:
      --policy NAME           A policy from 'cachebench policies' (required without --tier).
      --capacity SIZE         The cost limit: bytes (objects with --ignore-size), or with a suffix
                              KB MB GB TB (powers of 1000), KiB MiB GiB TiB or libCacheSim's
                              K M G T (powers of 1024: 64M is 64 MiB); or a fraction of the
                              trace's working set, a decimal below 1 or a percentage (0.1 or
                              10%; from a first pass over the trace).
                              Default: the library's own default where it ships one in bytes
                              (not with --ignore-size), otherwise 10% of the trace's working set,
                              from a first pass (standard input too: its temporary copy is read
                              again). With only --count-limit, none (the library's own), except
                              where the library's default is a share of the device's memory
                              (kingfisher, nuke-*): 10% of the working set.
      --count-limit N         An object-count limit, for policies that have one.
      --ignore-size           Every object has size 1; capacities count objects.
      --trace-format F        auto (default: by content), csv, oracle-general, lcs, vscsi, twr or twr-ns.
                              Any case; libCacheSim's names too (oracleGeneral, twrNS; txt is
                              csv, oracleGeneralBin oracle-general).
      --columns MAP           CSV column map, 1-based: time=1,key=2,size=3,op=4 (key required).
      --header MODE           CSV header row: auto (default), present or absent.
      --option KEY=VALUE      A policy parameter (repeatable; "a=1,b=2" gives several, as
                              libCacheSim's -e); see 'cachebench policies'.
      --memory-warning R      What a memory-warning row does after the policy's own reaction,
                              as a Cache with that response (replays a RecordingCache session
                              with its hits): policy (default: the reaction alone; research
                              policies ignore events), remove-all (Cache's default), ignore,
                              or trim:F (keep the fraction F, e.g. trim:0.5 or trim:50%).
                              Not with --tier, --threads or --admission.
      --threads N             Replay from N threads sharing one cache behind a mutex, to measure
                              lock contention (default 1; hit ratios then vary with interleaving).
                              Not with --tier, --admission, --memory-warning, the window options
                              below, or a policy that needs the future (belady, beladysize).
    \(AdmissionOptions.help)
    \(TierOptions.help)
    \(WindowOptions.help)
      --plot-intervals FILE.svg
                              Chart of the miss ratio and byte miss ratio per --report-interval.
      --format F              table (default), json, csv or markdown.
      --output FILE           Write the report to FILE (whole, or not at all) instead of stdout.
      -h, --help              Show this help.


    EXIT STATUS:
      0 ok, 2 usage, 65 bad trace, 66 cannot open, 74 cannot write.
    EXAMPLE:
      cachebench replay Traces/cloudPhysicsIO.og.csv --policy lru --capacity 64MiB --columns time=1,key=2,size=3
      cachebench replay Traces/image-feed.csv --tier memory=sd-memory,disk=sd-disk --capacity 100MiB --disk-capacity 1GiB
      # YYCache's, whose facade writes memory at cost 0:
      cachebench replay Traces/image-feed.csv --tier memory=yy-lru,disk=yy-disk --tier-promote-cost zero --capacity 100MiB --disk-capacity 1GiB
    """

    static let spec = CommandSpec(
        name: "replay",
        valueOptions: Set(["--policy", "--capacity", "--count-limit", "--trace-format", "--columns", "--header", "--format",
                           "--output", "--threads", "--tier", "--plot-intervals", "--memory-warning"]).union(TierOptions.valueOptions)
            .union(WindowOptions.valueOptions).union(AdmissionOptions.valueOptions),
        repeatableOptions: Set(["--option"]).union(TierOptions.repeatableOptions).union(AdmissionOptions.repeatableOptions), flags: ["--ignore-size"], positionals: 1...1)

    static func run(_ words: [String], registry: PolicyRegistry) throws(CommandLineError) {
        let arguments: Arguments
        let job: ReplayJob
        let format: ReportFormat
        do throws(UsageError) {
            arguments = try Arguments(words, spec: spec)
            let tiered = try TierOptions.parse(arguments, registry: registry)
            guard let policy = tiered?.memory ?? arguments.value("--policy") else {
                throw UsageError("replay: --policy (or --tier) is required (see 'cachebench policies')")
            }
            var replay = try TraceOptions.job(arguments, trace: arguments.positionals[0], policy: policy)
            replay.tier = tiered?.tier
            replay.admission = try AdmissionOptions.parse(arguments)
            replay.memoryWarning = try arguments.value("--memory-warning").flatMap { (text) throws(UsageError) in
                try MemoryWarningOverride.parse(text)
            }
            replay.window = try WindowOptions.parse(arguments)
            if arguments.value("--plot-intervals") != nil && replay.window.reportInterval == nil {
                throw UsageError("--plot-intervals needs --report-interval")
            }
            try Output.requireCharts(arguments, ["--plot-intervals"])
            replay.registry = registry
            if let threads = try arguments.integer("--threads") {
                guard (1...256).contains(threads) else { throw UsageError("--threads \(threads): must be from 1 to 256") }
                replay.threads = threads
            }
            // The one replay reads it last: standard input is not copied on that pass.
            replay.trace.isReadByOneJob = true
            job = replay
            try Output.requireDistinct(arguments, inputs: [arguments.positionals[0]], outputs: ["--output", "--plot-intervals"])
            format = try arguments.choice("--format", default: ReportFormat.table)
        } catch { throw .usage(error) }
        do throws(CacheBenchError) {
            try Output.requireWritable(arguments, ["--output", "--plot-intervals"], inputs: [arguments.positionals[0]])
            let slow = SlowByDesign.reason(job.policy, in: job.registry).map { " [slow by design: \($0)]" } ?? ""
            let progress = ProgressReporter.isTerminal ? ProgressReporter(label: "replay \(job.policy) \(job.trace.path)\(slow)") : nil
            let result = try Replay.run(job, progress: progress)
            var outputs: [(text: String, path: String?)] = [(ReplayReport.render(result, as: format), arguments.value("--output"))]
            if let path = arguments.value("--plot-intervals") { outputs.append((IntervalChart.render([result]), path)) }
            for warning in result.warnings { Output.error("warning: \(warning)") }
            try Output.emit(outputs)
        } catch { throw .run(error) }
    }
}

/// The options `replay` and `compare` share: the trace, sizes and policy parameters.
enum TraceOptions {
    /// The value of a capacity option (`--capacity`, `--disk-capacity`): a decimal below 1 or a
    /// percentage is a fraction of the working set (as compare's --capacities), anything else a
    /// size, which must be above 0. Neither when the option is absent.
    static func capacity(_ arguments: Arguments, _ option: String) throws(UsageError) -> (size: Int?, fraction: CapacityList.Item?) {
        guard let text = arguments.value(option) else { return (nil, nil) }
        if let fraction = try parseValue(text, of: option, { (text) throws(InvalidValueError) in try CapacityList.parseFraction(text) }) {
            return (nil, fraction)
        }
        let size = try parseValue(text, of: option) { (text) throws(InvalidValueError) in try SizeFormat.parse(text) }
        guard size > 0 else { throw UsageError("\(option) \(text): must be greater than 0") }
        return (size, nil)
    }

    static func job(_ arguments: Arguments, trace path: String, policy: String) throws(UsageError) -> ReplayJob {
        let (capacity, fraction) = try capacity(arguments, "--capacity")
        var job = ReplayJob(trace: try traceSpec(arguments, path: path), policy: policy, capacity: capacity,
                            countLimit: try arguments.integer("--count-limit"),
                            ignoreSize: arguments.flags.contains("--ignore-size"),
                            options: try policyOptions(arguments.all("--option")))
        job.capacityFraction = fraction
        return job
    }

    static func traceSpec(_ arguments: Arguments, path: String) throws(UsageError) -> TraceSpec {
        // libCacheSim's `-t txt` (one request per line, fields separated by spaces or commas) is
        // text, read as CSV is.
        let format = try arguments.choice("--trace-format", default: TraceFormat.auto, aliases: ["txt": .csv, "oracleGeneralBin": .oracleGeneral])
        let columns = try arguments.value("--columns").map { (text) throws(UsageError) in try CSVColumns.parse(text) }
        if format != .csv && format != .auto && (columns != nil || arguments.value("--header") != nil) {
            throw UsageError("--columns and --header apply to CSV traces, not --trace-format \(format.rawValue)")
        }
        return TraceSpec(path: path, format: format, columns: columns,
                         header: try arguments.choice("--header", default: HeaderMode.auto))
    }

    /// The policy options of `option`'s words (`--option`, or `--disk-option` for a disk tier).
    static func policyOptions(_ words: [String], option: String = "--option") throws(UsageError) -> PolicyOptions {
        var values: [String: String] = [:]
        for (key, value) in try keyValuePairs(words, option: option) {
            guard values[key] == nil else { throw UsageError("\(option) \(key) is given more than once") }
            values[key] = value
        }
        return PolicyOptions(values)
    }

    /// The KEY=VALUE pairs of an option's words, read as libCacheSim reads its `-e` strings:
    /// several pairs in one word, separated by commas, spaces around each pair and a trailing
    /// comma ignored (`"a=1, b=2,"`).
    static func keyValuePairs(_ words: [String], option: String) throws(UsageError) -> [(key: String, value: String)] {
        var pairs: [(key: String, value: String)] = []
        for word in words {
            let pieces = word.split(separator: ",", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
            // Empty pieces (a trailing comma) are skipped, but a word must hold a pair.
            guard pieces.contains(where: { !$0.isEmpty }) else { throw UsageError("\(option) \(word): expected KEY=VALUE") }
            for pair in pieces where !pair.isEmpty {
                guard let equals = pair.firstIndex(of: "="), equals != pair.startIndex else {
                    throw UsageError("\(option) \(pair): expected KEY=VALUE")
                }
                pairs.append((String(pair[..<equals]).trimmingCharacters(in: .whitespaces),
                              String(pair[pair.index(after: equals)...]).trimmingCharacters(in: .whitespaces)))
            }
        }
        return pairs
    }
}
