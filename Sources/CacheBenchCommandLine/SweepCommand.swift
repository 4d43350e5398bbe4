import CacheBench
import Foundation
#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

enum SweepCommand {
    static let help = """
    USAGE: cachebench sweep --traces LIST --policies A,B --output DIR [--shard K/N] [options]
           cachebench sweep --traces LIST --policies A,B --plan [--shard K/N] [--format F]

    Runs every policy at every capacity on every trace (a study), split into shards that need no
    coordinator, each finished cell recorded in DIR the moment its trace is done. Run the same
    command as N tasks with --shard 1/N ... N/N (or in a Slurm job array, which sets the shard);
    rerunning a task skips the cells already recorded, so a killed task resumes. Join the
    records with 'cachebench merge DIR'.

    OPTIONS:
      --traces LIST           Trace files (repeatable, comma-separated): paths, globs
                              ('traces/*.csv', quoted so the shell leaves them; an existing file
                              of that very name is that file), or @FILE, a file listing one path
                              per line (# starts a comment).
      --policies A,B,C        Policies from 'cachebench policies'; the groups all, research and
                              library may appear in the list.
      --capacities LIST       As compare's: sizes, LOW...HIGH:COUNT ranges, or fractions of each
                              trace's working set (0.1 or 10%). Default: libCacheSim's grid
                              0.001,0.003,0.01,0.03,0.1,0.2,0.4,0.8, every fraction for every
                              trace (cachesim drops those under 5 objects, or in bytes under
                              100 objects' share of the working set).
      --count-limit N         An object-count limit, for the policies that have one.
      --ignore-size           Every object has size 1; capacities count objects.
      --trace-format F        auto (default: by content), csv, oracle-general, lcs, vscsi, twr or
                              twr-ns, for every trace. Any case; libCacheSim's names too
                              (oracleGeneral, twrNS; txt is csv, oracleGeneralBin
                              oracle-general).
      --columns MAP           CSV column map for every trace, 1-based: time=1,key=2,size=3,op=4.
      --header MODE           CSV header row: auto (default), present or absent.
      --option KEY=VALUE      A policy parameter (repeatable), for each policy that declares it.
      --no-stack-distance     Simulate LRU at each capacity instead of the one-pass profile.
    \(AdmissionOptions.help)
                              Each cell's result then has an admission object (rule, admitted,
                              rejected); LRU is simulated at each capacity (the one-pass profile
                              takes no admission rule).
      --output DIR            Where the records go (created if needed): DIR/sweep.json names the
                              cells, DIR/cells/*.jsonl hold them. A DIR holding another sweep
                              is refused.
      --shard K/N             Run part K of N (K from 1). Default: from SLURM_ARRAY_TASK_ID,
                              SLURM_ARRAY_TASK_COUNT, _MIN, _MAX and _STEP in a Slurm array job
                              whose IDs are one range (a list such as --array=3,7 is refused:
                              give its tasks --shard), else 1/1. Traces are dealt to shards largest first, so shards
                              read about equal bytes; all the cells of a trace share a shard.
      --plan                  Print the cells and their shards (and, with --output, whether each
                              is recorded) instead of running.
      --format F              For --plan: table (default), json, csv or markdown.
      --threads N             Threads per trace (default: SLURM_CPUS_PER_TASK, else the cores).
      -h, --help              Show this help.

    Each cell's identity is a hash of the trace's bytes, the policy, the capacity and the settings
    above that change results, so the same cell is recognised on any machine and under any path.

    EXIT STATUS:
      0 ok, 2 usage, 65 bad trace, 66 cannot open, 74 cannot write.

    EXAMPLE:
      cachebench sweep --traces 'Traces/*.csv' --policies fifo,lru,sieve,s3fifo --output sweep --shard 2/4
    """

    static let spec = CommandSpec(
        name: "sweep",
        valueOptions: Set(["--policies", "--capacities", "--count-limit", "--trace-format", "--columns", "--header",
                           "--output", "--shard", "--format", "--threads"]).union(AdmissionOptions.valueOptions),
        repeatableOptions: Set(["--option", "--traces"]).union(AdmissionOptions.repeatableOptions),
        flags: ["--ignore-size", "--no-stack-distance", "--plan"], positionals: 0...0)

    static func run(_ words: [String], registry: PolicyRegistry) throws(CommandLineError) {
        let environment = ProcessInfo.processInfo.environment
        let arguments: Arguments
        let sweep: SweepSpec
        let shard: SweepShard
        let format: ReportFormat
        do throws(UsageError) { arguments = try Arguments(words, spec: spec) } catch { throw .usage(error) }
        // Before the other options: a list of traces that cannot be read is an input that cannot
        // be opened (66), not a usage mistake.
        let (traces, lists) = try expandTraces(arguments.all("--traces"))
        do throws(UsageError) {
            sweep = try sweepSpec(arguments, traces: traces, environment: environment, registry: registry)
            if let text = arguments.value("--shard") {
                shard = try parseValue(text, of: "--shard") { (text) throws(InvalidValueError) in try SweepShard.parse(text) }
            } else {
                do { shard = try SweepShard.slurm(environment) ?? .whole } catch { throw UsageError(error.commandLineMessage) }
            }
            format = try arguments.choice("--format", default: ReportFormat.table)
            if arguments.value("--format") != nil && !arguments.flags.contains("--plan") {
                throw UsageError("--format applies to --plan; records are JSON lines")
            }
            if arguments.value("--output") == nil && !arguments.flags.contains("--plan") {
                throw UsageError("sweep: --output DIR is required (where the records go)")
            }
            if arguments.value("--output") == "-" {
                throw UsageError("--output -: a sweep writes a folder of records, not standard output; name a folder")
            }
            // Nor into a list of traces (`--plan >> list.txt`), which the next sweep would read as names.
            if Output.standardOutputIsAFile, let list = lists.first(where: { AtomicFile.isFile($0, openAs: STDOUT_FILENO) }) {
                throw UsageError("standard output is \(Output.escapingControls(list)), the list of traces (--traces @\(Output.escapingControls(list))): writing there would add the report's lines to it as trace names")
            }
            // The plan or the summary line goes to standard output: not into a trace or the records.
            try Output.requireStandardOutputOutside(traces: traces, of: arguments.value("--output"))
            if let directory = arguments.value("--output") { try Output.requireStandardOutputOutsideSweep(directory) }
        } catch { throw .usage(error) }
        do throws(CacheBenchError) {
            try Sweep.validate(sweep, registry: registry)
            let plan = SweepPlan.make(sweep, shardCount: shard.count)

            if arguments.flags.contains("--plan") {
                try Output.emit(try SweepPlanReport.render(plan, shard: arguments.value("--shard") != nil || environment["SLURM_ARRAY_TASK_ID"] != nil ? shard : nil,
                                               directory: arguments.value("--output"), as: format), to: nil)
                return
            }
            guard let directory = arguments.value("--output") else { return }
            let label = "sweep" + SlowByDesign.label(sweep.policies, in: registry)
            let progress: ((String) -> Void)? = ProgressReporter.isTerminal ? { Output.error("\(label): \($0)") } : nil
            let summary = try Sweep.run(plan, shard: shard, directory: directory, registry: registry, progress: progress)
            try Output.emit("shard \(shard): \(summary.traces) traces (\(summary.tracesRun) replayed), \(summary.cellsRun) cells recorded, "
                            + "\(summary.cellsSkipped) already recorded, \(_seconds(summary.seconds)) s\n", to: nil)
            if summary.cellsOfOtherBuilds > 0 {
                Output.error("sweep: warning: \(summary.cellsOfOtherBuilds) of the cells already recorded in \(directory) were recorded by "
                             + "another build of this program; they were kept, not rerun. If a policy's code changed since, "
                             + "sweep into a new folder (or delete \(directory)) to redo them.")
            }
        } catch { throw .run(error) }
    }

    /// The sweep the arguments describe.
    static func sweepSpec(_ arguments: Arguments, traces: [String], environment: [String: String],
                          registry: PolicyRegistry) throws(UsageError) -> SweepSpec {
        guard !traces.isEmpty else {
            // Given, but naming nothing (an @LIST of blank or comment lines): say so, not that it is missing.
            let given = arguments.all("--traces")
            if !given.isEmpty {
                throw UsageError("--traces \(given.joined(separator: ",")): names no trace (an @LIST of only blank or comment lines?)")
            }
            throw UsageError("sweep: --traces is required (files, globs or @LIST)")
        }
        // Each name as the registry spells it (any case, any alias): the manifest, the records and
        // the reports then name a policy one way, and a rerun typed differently resumes the sweep.
        let policies = try CompareCommand.policyNames(arguments, registry: registry).map(registry.canonicalName)
        let capacities = try arguments.value("--capacities").map { (text) throws(UsageError) in
            try parseValue(text, of: "--capacities") { (text) throws(InvalidValueError) in try CapacityList.parse(text) }.items
        } ?? SweepSpec.defaultCapacities
        var threads = ProcessInfo.processInfo.activeProcessorCount
        if arguments.value("--threads") == nil, let slurm = environment["SLURM_CPUS_PER_TASK"] {
            // Slurm sets it to the task's CPUs: any other value is a mistake in the job script, said
            // as SLURM_ARRAY_TASK_ID's are, rather than a sweep quietly run on every core.
            guard let cpus = Int(slurm), cpus >= 1 else {
                throw UsageError("SLURM_CPUS_PER_TASK=\(slurm): must be a whole number of CPUs, at least 1 (or give --threads)")
            }
            threads = min(cpus, 256)
        }
        threads = try arguments.integer("--threads") ?? threads
        guard threads >= 1 && threads <= 256 else { throw UsageError("--threads \(threads): must be from 1 to 256") }
        let countLimit = try arguments.integer("--count-limit")
        if let countLimit, countLimit <= 0 { throw UsageError("--count-limit \(countLimit): must be greater than 0") }
        return SweepSpec(traces: traces, policies: policies, capacities: capacities, countLimit: countLimit,
                         ignoreSize: arguments.flags.contains("--ignore-size"),
                         options: try TraceOptions.policyOptions(arguments.all("--option")),
                         reading: try TraceOptions.traceSpec(arguments, path: ""),
                         lruStackDistance: !arguments.flags.contains("--no-stack-distance"), threads: threads,
                         admission: try AdmissionOptions.choice(arguments))
    }

    /// `--traces` values: comma-separated paths, globs (sorted matches) and `@LIST` files, in the
    /// order named, spelled plainly (``plainPath(_:)``), so that `./eq/*.csv` and `eq/*.csv` name
    /// one sweep's traces. A path named twice (`a.csv,a.csv`, or a glob that matches a listed
    /// path) is kept twice, for ``Sweep/validate(_:registry:)`` to refuse as it refuses two
    /// spellings or a link of one file: a sweep never drops a trace it was given in silence.
    ///
    /// - Returns: the paths, and the `@LIST` files they were read from.
    static func expandTraces(_ values: [String]) throws(CommandLineError) -> (paths: [String], lists: [String]) {
        var paths: [String] = [], lists: [String] = []
        func add(_ path: String) { paths.append(plainPath(path)) }
        for value in values {
            for item in value.split(separator: ",").map({ $0.trimmingCharacters(in: .whitespaces) }) where !item.isEmpty {
                if item == "-" {
                    // A sweep reads a trace twice (its identity, then its cells) and a rerun again.
                    throw .usage(UsageError("--traces -: a sweep cannot read standard input (it reads each trace more than once, and again when rerun); save it to a file"))
                }
                if item.hasPrefix("@") {
                    let list = String(item.dropFirst())
                    lists.append(list)
                    // Read once with read(2): a list may be a pipe (`@<(ls traces/*.csv)`), a FIFO
                    // or /dev/stdin, which FileManager's contents(atPath:) does not read.
                    let data: [UInt8]
                    do throws(TraceError) { data = try ByteSource.contents(ofPath: list) } catch {
                        throw .run(.trace(TraceError(.cannotOpen, file: list, reason: "cannot read this list of traces (--traces \(item))")))
                    }
                    // A list saved by an editor that starts files with a byte-order mark: not part of the first path.
                    let bom: [UInt8] = [0xEF, 0xBB, 0xBF]
                    let body = data.starts(with: bom) ? data.dropFirst(3) : data[...]
                    // Lines end at line feeds (and CRLF), as their numbers count them; a form feed or
                    // U+2028 is part of a name.
                    for (number, bytes) in body.split(separator: 0x0A, omittingEmptySubsequences: false).enumerated() {
                        let line = String(decoding: bytes.last == 0x0D ? bytes.dropLast() : bytes, as: UTF8.self)
                        let path = line.trimmingCharacters(in: .whitespaces)
                        if path.contains("\0") {
                            // A file name cannot hold one: the list is not a list of names (`find -print0`).
                            throw .run(.trace(TraceError(.malformed, file: list, line: number + 1,
                                                         reason: "a NUL byte in a trace's name (one name per line, not find -print0's NUL-separated names)")))
                        }
                        if !path.isEmpty && !path.hasPrefix("#") { add(path) }
                    }
                } else if item.contains(where: { "*?[".contains($0) }) && !FileManager.default.fileExists(atPath: item) {
                    // A pattern, unless a file has that very name (`day[1].csv`): that file is what was meant.
                    let matches = glob(item)
                    guard !matches.isEmpty else { throw .usage(UsageError("--traces \(Output.escapingControls(item)): no file matches")) }
                    matches.forEach(add)
                } else {
                    add(item)
                }
            }
        }
        // A pipe, FIFO or device (`<(cat a.csv)`, /dev/stdin) can be read once, and a sweep reads
        // each trace more than once: refused before anything is opened (a FIFO with no writer
        // would block) or written.
        // A missing file or a folder does not stop the others: the sweep runs them and exits 66
        // naming it, and the rerun with the same traces runs it once it can be read.
        for path in paths where TraceSpec.canBeReadOnlyOnce(path) {
            throw .usage(UsageError("--traces \(Output.escapingControls(path)): not a regular file (a pipe, FIFO or device can be read only once, or reads as nothing, and a sweep reads each trace more than once, and again when rerun); save it to a file"))
        }
        return (paths, lists)
    }

    /// `path` without what names nothing: `.` components and repeated or trailing slashes
    /// (`./eq//a.csv` is `eq/a.csv`). `..` stays (through a symbolic link it is not the folder
    /// above), and so does a relative path's relativity.
    static func plainPath(_ path: String) -> String {
        let absolute = path.hasPrefix("/")
        let parts = path.split(separator: "/").filter { $0 != "." }
        guard !parts.isEmpty else { return absolute ? "/" : "." }
        return (absolute ? "/" : "") + parts.joined(separator: "/")
    }

    /// The regular files `pattern` matches, sorted.
    static func glob(_ pattern: String) -> [String] {
        var result = glob_t()
        defer { globfree(&result) }
        // The C library's glob, named by its module: this function's own name hides it.
        #if canImport(Darwin)
        let status = Darwin.glob(pattern, 0, nil, &result)
        #elseif canImport(Glibc)
        let status = Glibc.glob(pattern, 0, nil, &result)
        #elseif canImport(Musl)
        let status = Musl.glob(pattern, 0, nil, &result)
        #endif
        guard status == 0 else { return [] }
        var paths: [String] = []
        for i in 0..<Int(result.gl_pathc) {
            guard let pointer = result.gl_pathv[i] else { continue }
            let path = String(cString: pointer)
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), !isDirectory.boolValue { paths.append(path) }
        }
        return paths.sorted()
    }
}

/// Seconds with two decimals.
func _seconds(_ value: Double) -> String { String(format: "%.2f", value) }
