import CacheBench
import EvictionPolicies
import Foundation

enum MRCCommand {
    static let help = """
    USAGE: cachebench mrc TRACE [--policy NAME] [--points N | --capacities LIST] [options]

    Prints a policy's miss-ratio curve: hit and miss ratio at many capacities.

    LRU's curve (the default) comes from one exact
    stack-distance pass over the trace (Mattson's algorithm with a Fenwick tree over last-access
    times: O(N log M) for N requests over M keys with --ignore-size; in byte mode, where an object
    larger than a cache never enters it, a boundary per capacity, O(N x capacities) with a small
    constant). The counts equal 'replay --policy lru' at each capacity. A trace where a
    key changes size (byte mode) or a requested key is deleted cannot be profiled exactly; LRU is
    then simulated at each capacity on a second read (a note says so).

    Any other policy's curve (--policy NAME), and LRU's with a window option, comes from
    miniature simulations, as libCacheSim's MINISIM: the trace is sampled spatially (SHARDS:
    keys whose hash is below RATIO·2^64, with all their requests) and the policy runs once per
    capacity on the sample at the capacity times RATIO, the runs spread over the cores. The
    sample is read once; each run costs about RATIO of a full one. --sample 1 simulates every
    capacity on the whole trace (exact, for checking the estimate).

    ARGUMENTS:
      TRACE                   A trace file, or - for standard input (read once; a temporary copy
                              serves the working-set pass).

    OPTIONS:
      --policy NAME           A policy from 'cachebench policies' (default lru).
      --option KEY=VALUE      A parameter of that policy (repeatable; "a=1,b=2" gives several, as
                              libCacheSim's -e), as for replay.
      --sample RATIO          The sampling ratio of the miniature simulations (0.01 or 1%; 1 is
                              exact). Default for a policy other than lru: 0.01, raised so the
                              sample keeps about 10,000 objects (1 on traces with fewer).
      --sample-seed N         Which sample --sample draws (default 0); see 'replay --help'.
      --min-miniature N       The fewest objects a miniature cache holds: a capacity whose
                              scaled size would be smaller samples more (a larger, nested
                              sample). 0 runs every capacity at RATIO exactly. Default: 200
                              when the working set has fewer than 100,000 objects (probed from
                              the trace's beginning); on a larger one the policy's own floor
                              (0 for lru, fifo, lifo and clock, alike at any size; 32
                              for the others, so a tenth of the cache is three objects).
      --estimator E           How a sampled run's misses become the whole trace's (with
                              RATIO < 1). cv (default): SHARDS' scaled misses corrected by a
                              control variate, a model of the misses from each key's request
                              count evaluated on every key at the full capacity minus the same
                              on the sampled keys at the miniature's capacity, scaled up. The
                              model blends Che's LRU form, h = 1 - exp(-rT), and FIFO's,
                              h = rT/(1+rT), by the weight that best fits the miniatures' own
                              misses (a note gives it). Every key's requests are counted while
                              the trace is read (see --census-ratio). cv-lru and
                              cv-fifo use one form; shards divides by the ratio alone.
      --census-ratio R        Which keys the cv estimators' model counts. auto (default): every
                              key until 262,144 are counted, then the largest power-of-two
                              fraction of the keys that keeps the count under that (a nested
                              sample holding the miniatures'; 1/4 on a million keys), its model
                              evaluated at that fraction of each capacity and scaled up: a table
                              of at most 8 MB, which adds the model's own sampling error at that
                              fraction. A ratio (0.25 or 25%; 1 counts every key, 23 to 46 bytes
                              per distinct key) fixes it. Either is raised to the largest
                              miniature's ratio (so the census holds every sampled key), which
                              need not be a power of two; the note gives the ratio used.
      --warmup SPAN           As 'replay': rows (100000req) or trace time (30s, 2h) that fill
                              each cache before counting starts.
      --max-requests N        Read only the trace's first N rows, gets, sets and deletes alike
                              (size-0 rows, which are skipped, and event rows not counted:
                              libCacheSim's -n).
      --points N              N log-spaced capacities from 1/1000 of the working set to all of
                              it (default 32).
      --capacities LIST       Explicit capacities, as in 'compare': 64MiB,1GiB; 1MiB...1GiB:12;
                              0.01,0.1 or 1%,10% (fractions of the working set).
      --ignore-size           Every object has size 1; capacities count objects.
      --trace-format F        auto (default: by content), csv, oracle-general, lcs, vscsi, twr or twr-ns.
                              Any case; libCacheSim's names too (oracleGeneral, twrNS; txt is
                              csv, oracleGeneralBin oracle-general).
      --columns MAP           CSV column map, 1-based: time=1,key=2,size=3,op=4.
      --header MODE           CSV header row: auto (default), present or absent.
      --format F              table (default), json (as 'compare'), csv or markdown.
      --output FILE           Write the curve to FILE instead of stdout.
      --plot FILE.svg         Chart of the miss ratio against capacity.
      --threads N             Concurrent runs (default: the number of cores).
    \(AdmissionOptions.help)
                              LRU's exact stack-distance pass cannot model a rule that refuses
                              misses: with --admission, LRU is simulated at each capacity on the
                              whole trace (a note says so), and any other policy's miniatures
                              run behind the rule (their counts scaled up with the misses).
      -h, --help              Show this help.


    EXIT STATUS:
      0 ok, 2 usage, 65 bad trace, 66 cannot open, 74 cannot write.
    EXAMPLE:
      cachebench mrc Traces/lirs-sprite.csv --ignore-size --points 24 --plot sprite-mrc.svg
      cachebench mrc big.oracleGeneral.zst --policy s3fifo --sample 0.01 --points 16
    """

    static let spec = CommandSpec(
        name: "mrc",
        valueOptions: Set(["--points", "--capacities", "--trace-format", "--columns", "--header", "--format", "--output", "--plot",
                           "--policy", "--sample", "--sample-seed", "--min-miniature", "--estimator", "--census-ratio", "--warmup", "--max-requests", "--threads"])
            .union(AdmissionOptions.valueOptions),
        repeatableOptions: Set(["--option"]).union(AdmissionOptions.repeatableOptions),
        flags: ["--ignore-size"], positionals: 1...1)

    static func run(_ words: [String], registry: PolicyRegistry) throws(CommandLineError) {
        let arguments: Arguments
        let trace: TraceSpec
        let format: ReportFormat
        let capacities: CapacityList?
        let points: Int?
        let window: RequestWindow
        let threads: Int
        let minimumMiniature: Int?
        let admission: LibCacheSimAdmission<UInt64>?
        let estimator: MiniatureSimulation.Estimator
        let census: MiniatureSimulation.Census
        let options: PolicyOptions
        do throws(UsageError) {
            arguments = try Arguments(words, spec: spec)
            if arguments.value("--points") != nil && arguments.value("--capacities") != nil {
                throw UsageError("mrc: give --points or --capacities, not both")
            }
            try Output.requireCharts(arguments, ["--plot"])
            try Output.requireDistinct(arguments, inputs: [arguments.positionals[0]], outputs: ["--output", "--plot"])
            trace = try TraceOptions.traceSpec(arguments, path: arguments.positionals[0])
            format = try arguments.choice("--format", default: ReportFormat.table)
            capacities = try arguments.value("--capacities").map { (text) throws(UsageError) in
                try parseValue(text, of: "--capacities") { (text) throws(InvalidValueError) in try CapacityList.parse(text) }
            }
            points = try arguments.integer("--points")
            options = try TraceOptions.policyOptions(arguments.all("--option"))
            window = try WindowOptions.parse(arguments)
            threads = try arguments.integer("--threads") ?? ProcessInfo.processInfo.activeProcessorCount
            guard threads >= 1 && threads <= 256 else { throw UsageError("--threads \(threads): must be from 1 to 256") }
            minimumMiniature = try arguments.integer("--min-miniature")
            if let minimumMiniature, minimumMiniature < 0 { throw UsageError("--min-miniature \(minimumMiniature): must be 0 or more") }
            admission = try AdmissionOptions.parse(arguments)
            if let name = arguments.value("--estimator") {
                guard let chosen = MiniatureSimulation.Estimator(name: name) else {
                    throw UsageError("--estimator \(name): expected one of \(MiniatureSimulation.Estimator.names.joined(separator: ", "))")
                }
                estimator = chosen
            } else {
                estimator = .default
            }
            switch arguments.value("--census-ratio").map({ Arguments._choiceSpelling($0.trimmingCharacters(in: .whitespaces)) == "auto" ? "auto" : $0 }) {
            case nil, "auto"?: census = .automatic
            case let text?:
                census = .ratio(try parseValue(text, of: "--census-ratio") { (text) throws(InvalidValueError) in
                    try RequestWindow.parseSampleRatio(text, setting: "census ratio")
                })
            }
            if arguments.value("--census-ratio") != nil, case .shards = estimator {
                throw UsageError("--census-ratio: only the cv estimators count keys; --estimator shards takes none")
            }
        } catch { throw .usage(error) }
        do throws(CacheBenchError) {
            try Output.requireWritable(arguments, ["--output", "--plot"], inputs: [arguments.positionals[0]])
            let slow = SlowByDesign.label([arguments.value("--policy") ?? "lru"], in: registry)
            let progress = ProgressReporter.isTerminal ? ProgressReporter(label: "mrc \(trace.path)" + slow) : nil
            let result = try MissRatioCurve.run(trace: trace, capacities: capacities, points: points,
                                                ignoreSize: arguments.flags.contains("--ignore-size"),
                                                threads: threads, progress: progress,
                                                policy: arguments.value("--policy") ?? "lru", window: window,
                                                minimumMiniature: minimumMiniature, admission: admission,
                                                estimator: estimator, census: census, options: options, registry: registry)
            // The sampled curve's settings change nothing on an exact one: say so rather than ignore them.
            let sampledOnly = ["--estimator", "--census-ratio", "--min-miniature"].filter { arguments.value($0) != nil }
            if !sampledOnly.isEmpty && !result.results.contains(where: { $0.method == .miniatureSimulation }) {
                let verb = sampledOnly.count == 1 ? "applies" : "apply", pronoun = sampledOnly.count == 1 ? "it was" : "they were"
                Output.error("note: \(sampledOnly.joined(separator: ", ")) \(verb) to miniature simulations; this curve is exact, so \(pronoun) not used")
            }
            // CSV has no place for notes (whether the rows are estimates, and how): standard error.
            if format == .csv { for note in result.notes { Output.error("note: \(note)") } }
            // Rendered first, then the curve and its chart are committed together.
            var outputs: [(text: String, path: String?)] = [(CompareReport.renderCurve(result, as: format), arguments.value("--output"))]
            if let path = arguments.value("--plot") { outputs.append((CompareCharts.missRatioCurve(result), path)) }
            try Output.emit(outputs)
        } catch { throw arguments.value("--capacities") != nil ? .runOverCapacities(error) : .runOverChosenCapacities(error) }
    }
}
