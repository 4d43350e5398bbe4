import Foundation
import Testing

#if canImport(FoundationXML)
import FoundationXML
import TestSupport
#endif

/// A fresh folder in the temporary directory, removed by the caller.
private func scratchFolder() -> String {
    scratchDirectory.appendingPathComponent("cachebench-sweep-e2e-\(UUID().uuidString)").path
}

/// Small Zipf traces from `cachebench generate`, each of its own size and seed, in `folder`.
private func writeTraces(in folder: String, count: Int, rows: Int, seed: UInt64) throws {
    try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    for index in 0..<count {
        let generated = try CLI.run(["generate", "zipf", "--seed", String(seed + UInt64(index)), "--alpha", "0.8",
                                     "--objects", String(50 + index * 40), "--requests", String(rows + index * 500),
                                     "--min-size", "100", "--max-size", "900", "--output", "\(folder)/t\(index).csv"])
        #expect(generated.status == 0, "\(generated.stderr)")
    }
}

/// The merged report's results without the fields that time a run, which differ between runs.
private func untimed(_ report: [String: Any]?) -> [NSDictionary] {
    let timing: Set<String> = ["seconds", "requestsPerSecond", "totalNanoseconds", "p50Nanoseconds", "p99Nanoseconds", "maxNanoseconds"]
    func strip(_ value: Any) -> Any {
        if let object = value as? [String: Any] {
            return object.filter { !timing.contains($0.key) }.mapValues(strip)
        }
        return value
    }
    return ((report?["results"] as? [[String: Any]]) ?? []).map { NSDictionary(dictionary: strip($0) as? [String: Any] ?? [:]) }
}

@Suite("sweep, merge and sweep-report from the command line")
struct SweepCommandTests {
    static func sweepArguments(_ traces: String, output: String) -> [String] {
        ["sweep", "--traces", "\(traces)/*.csv", "--policies", "fifo,lru,sieve,s3fifo", "--capacities", "0.01,0.1,0.3",
         "--output", output, "--threads", "1"]
    }

    @Test("a shard killed at a random moment and rerun leaves no missing, duplicated or torn cell")
    func killAndResume() throws {
        let traces = scratchFolder(), reference = scratchFolder()
        var folders = [traces, reference]
        defer { for folder in folders { try? FileManager.default.removeItem(atPath: folder) } }
        try writeTraces(in: traces, count: 6, rows: 2000, seed: 19)
        let started = Date()
        let whole = try CLI.run(Self.sweepArguments(traces, output: reference))
        let duration = Date().timeIntervalSince(started)
        #expect(whole.status == 0, "\(whole.stderr)")
        let referenceMerge = try CLI.run(["merge", reference, "--format", "json"]).json
        let expected = untimed(referenceMerge)
        #expect(expected.count == 6 * 4 * 3)
        // The replays' warnings (S3-FIFO caches nothing at the smallest capacities) are its notes.
        let referenceNotes = (referenceMerge?["notes"] as? [String]) ?? ["no notes array"]
        #expect(referenceNotes.allSatisfy { $0.contains(" cached nothing: ") })

        var random = SystemRandomNumberGenerator()
        for round in 0..<4 {
            let output = scratchFolder()
            folders.append(output)
            let process = Process()
            process.executableURL = CLI.executable
            process.arguments = Self.sweepArguments(traces, output: output)
            process.currentDirectoryURL = CLI.root
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            try process.run()
            // Each round kills within its own quarter of the uninterrupted run, so the rounds span it.
            let quarter = max(0.05, duration) / 4
            let delay = Double.random(in: Double(round) * quarter...Double(round + 1) * quarter, using: &random)
            Thread.sleep(forTimeInterval: delay)
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()

            let resumed = try CLI.run(Self.sweepArguments(traces, output: output))
            #expect(resumed.status == 0, "round \(round): \(resumed.stderr)")
            let merged = try CLI.run(["merge", output, "--format", "json"])
            #expect(merged.status == 0, "round \(round), killed after \(delay) s: \(merged.stderr)")
            let json = merged.json
            #expect((json?["missing"] as? [Any])?.isEmpty == true)
            #expect((json?["duplicated"] as? [Any])?.isEmpty == true)
            // Nothing damaged or recorded twice: the notes are the uninterrupted sweep's.
            #expect((json?["notes"] as? [String]) == referenceNotes, "round \(round): \(json?["notes"] ?? "")")
            #expect(untimed(json) == expected, "round \(round), killed after \(delay) s")
        }
    }

    @Test("two shards cover the plan once; merge names missing cells and exits 65 unless --allow-missing")
    func shardsPlanAndMissing() throws {
        let traces = scratchFolder(), output = scratchFolder()
        defer { for folder in [traces, output] { try? FileManager.default.removeItem(atPath: folder) } }
        try writeTraces(in: traces, count: 3, rows: 800, seed: 7)
        let plan = try CLI.run(Self.sweepArguments(traces, output: output).filter { $0 != "--threads" && $0 != "1" }
                               + ["--plan", "--shard", "1/2", "--format", "csv"])
        #expect(plan.status == 0, "\(plan.stderr)")
        let planRows = plan.stdout.split(separator: "\n").dropFirst()
        #expect(!planRows.isEmpty && planRows.allSatisfy { $0.hasSuffix(",1/2,no") })

        let first = try CLI.run(Self.sweepArguments(traces, output: output) + ["--shard", "1/2"])
        #expect(first.status == 0, "\(first.stderr)")
        let missing = try CLI.run(["merge", output])
        #expect(missing.status == 65)
        #expect(missing.stdout.isEmpty)
        #expect(missing.stderr.contains("cells have no record") && missing.stderr.contains("missing: "))
        let partial = try CLI.run(["merge", output, "--allow-missing", "--format", "json"])
        #expect(partial.status == 0)
        let missingCells = (partial.json?["missing"] as? [Any])?.count ?? 0
        #expect(missingCells > 0 && (partial.json?["results"] as? [Any])?.count == planRows.count)
        #expect(missingCells + planRows.count == 3 * 4 * 3)

        let second = try CLI.run(Self.sweepArguments(traces, output: output) + ["--shard", "2/2"])
        #expect(second.stdout.contains("shard 2/2") && second.stdout.contains("\(missingCells) cells recorded"))
        let complete = try CLI.run(["merge", output, "--format", "csv"])
        #expect(complete.status == 0)
        #expect(complete.stdout.split(separator: "\n").count == 1 + 36)
        let table = try CLI.run(["merge", output])
        #expect(table.stdout.contains("hit ratio (%)") && table.stdout.contains("t2.csv"))

        // sweep-report: Markdown tables and an SVG that parses.
        let svg = output + "/report.svg"
        let report = try CLI.run(["sweep-report", output, "--plot", svg])
        #expect(report.status == 0, "\(report.stderr)")
        #expect(report.stdout.contains("| lru |") && report.stdout.contains("across 3 traces"))
        _ = try XMLDocument(contentsOf: URL(fileURLWithPath: svg))
        let noBaseline = try CLI.run(["sweep-report", output, "--baseline", "arc"])
        #expect(noBaseline.status == 2 && noBaseline.stdout.isEmpty)

        // The same figures for scripts: one JSON result and one CSV row per (policy, size),
        // whose medians are the Markdown's.
        let json = try CLI.run(["sweep-report", output, "--format", "json"])
        #expect(json.status == 0, "\(json.stderr)")
        let results = json.json?["results"] as? [[String: Any]] ?? []
        #expect(json.json?["baseline"] as? String == "fifo" && json.json?["traces"] as? Int == 3)
        #expect(results.count == 3 * 3)
        #expect(Set(results.compactMap { $0["policy"] as? String }) == ["lru", "sieve", "s3fifo"])
        for result in results {
            guard let median = result["median"] as? Double, let low = result["p25"] as? Double,
                  let high = result["p75"] as? Double, let policy = result["policy"] as? String else {
                Issue.record("a result without its quantiles: \(result)")
                continue
            }
            #expect(low <= median && median <= high)
            let percent = String(format: "%.1f", abs(median * 100))
            #expect(report.stdout.contains("| \(policy) |") && report.stdout.contains(percent), "\(percent) of \(policy)")
        }
        let csv = try CLI.run(["sweep-report", output, "--format", "csv"])
        let rows = csv.stdout.split(separator: "\n")
        #expect(csv.status == 0 && rows.count == 1 + 9)
        #expect(rows.first == "policy,capacity,traces,p10,p25,median,p75,p90,mean")
        #expect(try CLI.run(["sweep-report", output, "--format", "yaml"]).status == 2)
    }

    @Test("a malformed trace does not stop its shard: the others are recorded, then exit 65 naming it; the rerun retries only it")
    func badTraceDoesNotStopTheShard() throws {
        let traces = scratchFolder(), output = scratchFolder()
        defer { for folder in [traces, output] { try? FileManager.default.removeItem(atPath: folder) } }
        try writeTraces(in: traces, count: 2, rows: 600, seed: 11)
        // `a.csv` sorts first, so the good traces come after it.
        try Data("timestamp,key,size\n1,k,10\n2,k,x\n".utf8).write(to: URL(fileURLWithPath: "\(traces)/a.csv"))
        let run = try CLI.run(Self.sweepArguments(traces, output: output))
        #expect(run.status == 65 && run.stderr.contains("a.csv:3:"), "\(run.stderr)")
        let merged = try CLI.run(["merge", output, "--allow-missing", "--format", "json"])
        let results = merged.json?["results"] as? [[String: Any]] ?? []
        #expect(results.count == 2 * 4 * 3 && results.allSatisfy { ($0["trace"] as? String)?.hasSuffix("a.csv") == false })
        #expect((merged.json?["missing"] as? [Any])?.count == 4 * 3)
        // Fixed, the trace runs on the rerun; the others are not run again.
        try Data("timestamp,key,size\n1,k,10\n2,k,10\n".utf8).write(to: URL(fileURLWithPath: "\(traces)/a.csv"))
        let rerun = try CLI.run(Self.sweepArguments(traces, output: output))
        #expect(rerun.status == 0 && rerun.stdout.contains("12 cells recorded"), "\(rerun.stdout)\(rerun.stderr)")
        #expect(try CLI.run(["merge", output]).status == 0)
    }

    @Test("a trace that cannot be opened (missing, a folder) does not stop its shard either: exit 66 naming it after the others ran")
    func unopenableTraceDoesNotStopTheShard() throws {
        let traces = scratchFolder(), output = scratchFolder()
        defer { for folder in [traces, output] { try? FileManager.default.removeItem(atPath: folder) } }
        try writeTraces(in: traces, count: 2, rows: 600, seed: 12)
        // `a.csv` is missing, `b.csv` is a folder.
        try FileManager.default.createDirectory(atPath: "\(traces)/b.csv", withIntermediateDirectories: false)
        let list = ["a.csv", "b.csv", "t0.csv", "t1.csv"].map { "\(traces)/\($0)" }.joined(separator: ",")
        let arguments = ["sweep", "--traces", list, "--policies", "fifo,lru,sieve,s3fifo", "--capacities", "0.01,0.1,0.3",
                         "--output", output, "--threads", "1"]
        let run = try CLI.run(arguments)
        #expect(run.status == 66 && run.stderr.contains("a.csv") && run.stderr.contains("and 1 more"), "\(run.stderr)")
        let merged = try CLI.run(["merge", output, "--allow-missing", "--format", "json"])
        let results = merged.json?["results"] as? [[String: Any]] ?? []
        #expect(results.count == 2 * 4 * 3, "\(merged.stderr)")
        // Once both can be read, the rerun runs them alone.
        try FileManager.default.removeItem(atPath: "\(traces)/b.csv")
        for name in ["a.csv", "b.csv"] {
            try FileManager.default.copyItem(atPath: "\(traces)/t0.csv", toPath: "\(traces)/\(name)")
        }
        let rerun = try CLI.run(arguments)
        #expect(rerun.status == 0 && rerun.stdout.contains("24 cells recorded"), "\(rerun.stdout)\(rerun.stderr)")
    }

    @Test("policy names in any spelling are the registry's: a rerun spelled otherwise resumes; a refused option value is exit 2")
    func namesAndOptions() throws {
        let folder = scratchFolder(), other = scratchFolder()
        defer { for f in [folder, other] { try? FileManager.default.removeItem(atPath: f) } }
        let base = ["sweep", "--traces", "Traces/zipf.csv", "--capacities", "10,50", "--ignore-size", "--threads", "1"]
        let first = try CLI.run(base + ["--policies", "LRU,fifo", "--output", folder])
        #expect(first.status == 0, "\(first.stderr)")
        let again = try CLI.run(base + ["--policies", "lru,FIFO", "--output", folder])
        #expect(again.status == 0 && again.stdout.contains("0 cells recorded, 4 already recorded"), "\(again.stderr)")
        let report = try CLI.run(["sweep-report", folder, "--baseline", "Fifo"])
        #expect(report.status == 0 && report.stdout.contains("| lru |"), "\(report.stderr)")
        #expect(report.stdout.contains("size (as given: bytes, or objects in object mode)"))
        let merged = try CLI.run(["merge", folder, "--format", "csv"])
        #expect(!merged.stdout.contains("LRU") && !merged.stdout.contains("FIFO"))

        let badValue = try CLI.run(base + ["--policies", "s3fifo", "--output", other, "--option", "small-ratio=abc"])
        #expect(badValue.status == 2 && badValue.stderr.contains("--option small-ratio=abc: expected a number (policy s3fifo)"),
                "\(badValue.stderr)")
        #expect(!FileManager.default.fileExists(atPath: other + "/sweep.json"))
        let unknown = try CLI.run(base + ["--policies", "lru", "--output", other, "--option", "bogus=1"])
        #expect(unknown.status == 2 && unknown.stderr.contains("--option bogus: none of the sweep's policies takes it"), "\(unknown.stderr)")
        // Option names as compare takes them: libCacheSim's aliases, any case.
        for spelling in ["fifo-size-ratio=0.2", "FIFO-SIZE-RATIO=0.2", "Small-Ratio=0.2"] {
            let aliased = try CLI.run(base + ["--policies", "s3fifo", "--output", scratchFolder(), "--option", spelling, "--plan"])
            #expect(aliased.status == 0, "\(spelling): \(aliased.stderr)")
        }
        let count = try CLI.run(base + ["--policies", "arc", "--output", other, "--count-limit", "3"])
        #expect(count.status == 2 && count.stderr.contains("--count-limit: none of the sweep's policies has one"), "\(count.stderr)")
    }

    @Test("trace paths spelled with ./ or // name the same sweep; another order or another trace is refused, saying how it differs")
    func pathSpellings() throws {
        let folder = scratchFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let rest = ["--policies", "fifo", "--capacities", "10", "--ignore-size", "--threads", "1", "--output", folder]
        let first = try CLI.run(["sweep", "--traces", "./Traces/zipf.csv,Traces//loop.csv", "--shard", "1/2"] + rest)
        #expect(first.status == 0, "\(first.stderr)")
        let second = try CLI.run(["sweep", "--traces", "Traces/zipf.csv,./Traces/loop.csv", "--shard", "2/2"] + rest)
        #expect(second.status == 0, "\(second.stderr)")
        let merged = try CLI.run(["merge", folder, "--format", "csv"])
        #expect(merged.status == 0 && merged.stdout.contains("Traces/zipf.csv,") && !merged.stdout.contains("./"), "\(merged.stderr)")
        let reordered = try CLI.run(["sweep", "--traces", "Traces/loop.csv,Traces/zipf.csv"] + rest)
        #expect(reordered.status == 2 && reordered.stderr.contains("holds another sweep: it lists the same traces in another order"),
                "\(reordered.stderr)")
        let another = try CLI.run(["sweep", "--traces", "Traces/zipf.csv,Traces/mix.csv"] + rest)
        #expect(another.status == 2 && another.stderr.contains("its traces do not include Traces/mix.csv"), "\(another.stderr)")
    }

    @Test("usage errors: no traces, no output, a bad shard, a folder without a sweep")
    func usageErrors() throws {
        let file = scratchDirectory.appendingPathComponent("sweep-into-a-file-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: file) }
        try Data("not a folder".utf8).write(to: URL(fileURLWithPath: file))
        let intoFile = try CLI.run(["sweep", "--traces", "Traces/lirs-cs.csv", "--policies", "lru", "--output", file])
        #expect(intoFile.status == 74 && intoFile.stderr.contains("it is a file, not a folder"), "\(intoFile.stderr)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: file)) == Data("not a folder".utf8))
        // A file on the way, or in the records folder's place: named, in words (not "error 512").
        let throughFile = try CLI.run(["sweep", "--traces", "Traces/lirs-cs.csv", "--policies", "lru", "--output", file + "/sub"])
        #expect(throughFile.status == 74 && throughFile.stderr.contains("\(file) is a file, not a folder"), "\(throughFile.stderr)")
        let cellsAsFile = scratchFolder()
        defer { try? FileManager.default.removeItem(atPath: cellsAsFile) }
        try FileManager.default.createDirectory(atPath: cellsAsFile, withIntermediateDirectories: true)
        try Data().write(to: URL(fileURLWithPath: cellsAsFile + "/cells"))
        let blocked = try CLI.run(["sweep", "--traces", "Traces/lirs-cs.csv", "--policies", "lru", "--output", cellsAsFile])
        #expect(blocked.status == 74 && blocked.stderr.contains("\(cellsAsFile)/cells is a file, not a folder"), "\(blocked.stderr)")
        // A folder among the records: merge says so.
        let withFolder = scratchFolder()
        defer { try? FileManager.default.removeItem(atPath: withFolder) }
        #expect(try CLI.run(["sweep", "--traces", "Traces/lirs-cs.csv", "--policies", "lru", "--capacities", "100", "--ignore-size",
                             "--output", withFolder]).status == 0)
        try FileManager.default.createDirectory(atPath: withFolder + "/cells/odd.jsonl", withIntermediateDirectories: false)
        let merged = try CLI.run(["merge", withFolder])
        #expect(merged.status == 66 && merged.stderr.contains("odd.jsonl: cannot read: it is a folder"), "\(merged.stderr)")
        #expect(try CLI.run(["sweep", "--policies", "lru", "--output", "/tmp/x"]).status == 2)
        #expect(try CLI.run(["sweep", "--traces", "Traces/lirs-cs.csv", "--policies", "lru"]).status == 2)
        #expect(try CLI.run(["sweep", "--traces", "Traces/lirs-cs.csv", "--policies", "lru", "--output", "/tmp/x", "--shard", "3/2"]).status == 2)
        #expect(try CLI.run(["sweep", "--traces", "Traces/nothing-*.csv", "--policies", "lru", "--output", "/tmp/x"]).status == 2)
        let nowhere = scratchFolder()
        defer { try? FileManager.default.removeItem(atPath: nowhere) }
        #expect(try CLI.run(["sweep", "--traces", "Traces/missing.csv", "--policies", "lru", "--output", nowhere]).status == 66)
        let stdin = try CLI.run(["sweep", "--traces", "-", "--policies", "lru", "--output", "/tmp/x"])
        #expect(stdin.status == 2 && stdin.stderr.contains("cannot read standard input"), "\(stdin.stderr)")
        // A list of traces that cannot be read is an input that cannot be opened, as a trace is.
        let noList = try CLI.run(["sweep", "--traces", "@/nonexistent/list.txt", "--policies", "lru", "--output", "/tmp/x"])
        #expect(noList.status == 66 && noList.stderr.contains("/nonexistent/list.txt: cannot read this list of traces"), "\(noList.stderr)")
        // A list read from a pipe (`@<(ls ...)`, /dev/stdin), once; an empty one names no trace.
        let piped = try CLI.run(["sweep", "--traces", "@/dev/stdin", "--policies", "lru,fifo", "--capacities", "0.1", "--plan"],
                                stdin: Data("# traces\nTraces/lirs-cs.csv\n".utf8))
        #expect(piped.status == 0 && piped.stdout.contains("Traces/lirs-cs.csv"), "\(piped.stderr)")
        let empty = try CLI.run(["sweep", "--traces", "@/dev/null", "--policies", "lru", "--plan"])
        #expect(empty.status == 2 && empty.stderr.contains("--traces @/dev/null: names no trace"), "\(empty.stderr)")
        #expect(try CLI.run(["merge", scratchFolder()]).status == 66)
        #expect(try CLI.run(["sweep", "--help"]).stdout.contains("SLURM_ARRAY_TASK_ID"))
        // A CPU count Slurm would never set is the job script's mistake, as a bad task id is; --threads overrides it.
        let plan = ["sweep", "--traces", "Traces/lirs-cs.csv", "--policies", "lru", "--capacities", "0.1", "--plan"]
        for cpus in ["abc", "0", "-2", ""] {
            let bad = try CLI.run(plan, environment: ["SLURM_CPUS_PER_TASK": cpus])
            #expect(bad.status == 2 && bad.stdout.isEmpty && bad.stderr.contains("SLURM_CPUS_PER_TASK=\(cpus): must be a whole number"),
                    "\(cpus): \(bad.stderr)")
        }
        #expect(try CLI.run(plan + ["--threads", "2"], environment: ["SLURM_CPUS_PER_TASK": "abc"]).status == 0)
        #expect(try CLI.run(plan, environment: ["SLURM_CPUS_PER_TASK": "4"]).status == 0)
    }

    @Test("usage mistakes name their option: --shard out of range, an empty @LIST, standard input as a sweep folder")
    func usageMistakesNameTheirOption() throws {
        let shard = try CLI.run(["sweep", "--traces", "Traces/loop.csv", "--policies", "fifo", "--shard", "0/2", "--output", scratchFolder()])
        #expect(shard.status == 2 && shard.stderr.contains("--shard 0/2: K must be from 1 to N"), "\(shard.stderr)")
        let list = try temporaryFile("# nothing yet\n\n")
        defer { try? FileManager.default.removeItem(atPath: list) }
        let empty = try CLI.run(["sweep", "--traces", "@" + list, "--policies", "fifo", "--output", scratchFolder()])
        #expect(empty.status == 2 && empty.stderr.contains("names no trace"), "\(empty.stderr)")
        for command in ["merge", "sweep-report"] {
            let stdin = try CLI.run([command, "-"])
            #expect(stdin.status == 2 && stdin.stderr.contains("not standard input"), "\(command): \(stdin.stderr)")
        }
    }

    @Test("a sweep whose manifest cannot be written leaves no folder behind")
    func failedStartLeavesNothing() throws {
        let parent = scratchFolder()
        defer { try? FileManager.default.removeItem(atPath: parent) }
        let output = parent + "/deeper/sw"
        let failed = try CLI.run(["sweep", "--traces", "Traces/loop.csv", "--policies", "fifo", "--capacities", "0.1",
                                  "--output", output], environment: ["CACHEBENCH_FAULT_WRITE_AFTER_BYTES": "10"])
        #expect(failed.status == 74, "\(failed.stderr)")
        #expect(!FileManager.default.fileExists(atPath: parent), "left behind: \(parent)")
        // A one-letter folder named from where the command runs (Foundation's
        // deletingLastPathComponent traps on one letter): refused the same way, nothing left.
        try FileManager.default.createDirectory(atPath: parent, withIntermediateDirectories: true)
        let relative = try CLI.run(["sweep", "--traces", CLI.root.path + "/Traces/loop.csv", "--policies", "fifo", "--capacities", "0.1",
                                    "--output", "S"], environment: ["CACHEBENCH_FAULT_WRITE_AFTER_BYTES": "10"],
                                   directory: URL(fileURLWithPath: parent))
        #expect(relative.status == 74, "\(relative.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: parent).isEmpty)
        // And the same folder then takes the sweep.
        let started = try CLI.run(["sweep", "--traces", "Traces/loop.csv", "--policies", "fifo", "--capacities", "0.1",
                                   "--output", output])
        #expect(started.status == 0 && FileManager.default.fileExists(atPath: output + "/sweep.json"), "\(started.stderr)")
    }

    @Test("merge and sweep-report run from another folder never write over a trace the sweep named by a relative path")
    func protectsRelativeTracesFromElsewhere() throws {
        let work = URL(fileURLWithPath: scratchFolder())
        defer { try? FileManager.default.removeItem(at: work) }
        let elsewhere = work.appendingPathComponent("elsewhere")
        try FileManager.default.createDirectory(at: elsewhere, withIntermediateDirectories: true)
        let trace = work.appendingPathComponent("t.csv")
        try FileManager.default.copyItem(at: CLI.root.appendingPathComponent("Traces/loop.csv"), to: trace)
        let before = try Data(contentsOf: trace)
        let sweep = try CLI.run(["sweep", "--traces", "t.csv", "--policies", "fifo,lru", "--capacities", "0.1", "--output", "sw"],
                                directory: work)
        #expect(sweep.status == 0, "\(sweep.stderr)")
        for (command, option) in [("merge", "--output"), ("sweep-report", "--output"), ("sweep-report", "--plot")] {
            let refused = try CLI.run([command, "../sw", option, "../t.csv"], directory: elsewhere)
            #expect(refused.status == 2 && refused.stderr.contains("a trace of the sweep"), "\(command) \(option): \(refused.stderr)")
        }
        #expect(try Data(contentsOf: trace) == before)
    }

    @Test("the sweep's own files are never an output; one trace or policy under two names is refused")
    func protectsItsRecords() throws {
        let folder = scratchFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let sweep = try CLI.run(["sweep", "--traces", "Traces/loop.csv", "--policies", "fifo,lru", "--capacities", "0.1",
                                 "--output", folder])
        #expect(sweep.status == 0, "\(sweep.stderr)")
        let manifest = try Data(contentsOf: URL(fileURLWithPath: folder + "/sweep.json"))
        for (command, option) in [("merge", "--output"), ("sweep-report", "--output"), ("sweep-report", "--plot")] {
            let refused = try CLI.run([command, folder, option, folder + "/sweep.json"])
            #expect(refused.status == 2 && refused.stderr.contains("one of the sweep's own files"), "\(command) \(option)")
        }
        #expect(try CLI.run(["merge", folder, "--output", folder + "/cells/x.jsonl"]).status == 2)
        #expect(try Data(contentsOf: URL(fileURLWithPath: folder + "/sweep.json")) == manifest)
        let report = folder + "-report.md"
        defer { try? FileManager.default.removeItem(atPath: report) }
        let same = try CLI.run(["sweep-report", folder, "--output", report, "--plot", report])
        #expect(same.status == 2 && !FileManager.default.fileExists(atPath: report))
        // A chart that cannot be written takes the tables with it: nothing on standard output.
        let unwritable = try CLI.run(["sweep-report", folder, "--plot", "/nonexistent-folder/x.svg"])
        #expect(unwritable.status == 74 && unwritable.stdout.isEmpty)
        #expect(try CLI.run(["merge", folder]).status == 0)

        let twice = try CLI.run(["sweep", "--traces", "Traces/loop.csv,Traces/../Traces/loop.csv", "--policies", "fifo",
                                 "--capacities", "0.1", "--output", scratchFolder()])
        #expect(twice.status == 2 && twice.stderr.contains("named twice"))
        // The same spelling twice, across two --traces, or a glob over a listed path: named twice too.
        for traces in [["Traces/loop.csv,Traces/loop.csv"], ["Traces/loop.csv", "./Traces/loop.csv"], ["Traces/loop.csv,Traces/loo*.csv"]] {
            let run = try CLI.run(["sweep"] + traces.flatMap { ["--traces", $0] } + ["--policies", "fifo", "--capacities", "0.1",
                                                                                     "--output", scratchFolder()])
            #expect(run.status == 2 && run.stderr.contains("named twice"), "\(traces): \(run.stderr)")
        }
        let policyTwice = try CLI.run(["sweep", "--traces", "Traces/loop.csv", "--policies", "fifo,FIFO",
                                       "--capacities", "0.1", "--output", scratchFolder()])
        #expect(policyTwice.status == 2 && policyTwice.stderr.contains("named twice"))
        #expect(try CLI.run(["compare", "Traces/loop.csv", "--policies", "2q,twoq", "--capacity", "10"]).status == 2)
    }

    @Test("a sweep of 100 %, copies and links of one trace, and capacities that resolve alike all merge as compare reports")
    func edgesOfTheGrid() throws {
        let folder = scratchFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let original = folder + "/a.csv", copy = folder + "/c.csv", link = folder + "/b.csv"
        try FileManager.default.copyItem(atPath: "Traces/loop.csv", toPath: original)
        try FileManager.default.copyItem(atPath: original, toPath: copy)
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: "a.csv")

        // 100 % of the working set is a capacity like any other: recorded once, merged, labelled 1.
        let whole = folder + "/whole"
        let sweep = try CLI.run(["sweep", "--traces", original, "--policies", "fifo", "--capacities", "0.5,100%", "--output", whole])
        #expect(sweep.status == 0, "\(sweep.stderr)")
        let rerun = try CLI.run(["sweep", "--traces", original, "--policies", "fifo", "--capacities", "0.5,100%", "--output", whole])
        #expect((rerun.stdout + rerun.stderr).contains("0 cells recorded, 2 already recorded"), "\(rerun.stdout)")
        let merged = try CLI.run(["merge", whole, "--format", "csv"])
        #expect(merged.status == 0 && merged.stdout.split(separator: "\n").count == 3, "\(merged.stderr)")

        // A link to a listed trace is that trace named twice; a copy is a trace of its own, whose
        // shard records its cells although their identity equals the original's.
        let linked = try CLI.run(["sweep", "--traces", "\(original),\(link)", "--policies", "fifo", "--capacities", "0.1",
                                  "--output", folder + "/linked"])
        #expect(linked.status == 2 && linked.stderr.contains("named twice"), "\(linked.stderr)")
        let copies = folder + "/copies"
        for shard in ["1/2", "2/2"] {
            let run = try CLI.run(["sweep", "--traces", "\(original),\(copy)", "--policies", "fifo", "--capacities", "0.1",
                                   "--output", copies, "--shard", shard])
            #expect(run.status == 0 && (run.stdout + run.stderr).contains("1 cells recorded"), "\(run.stdout)")
        }
        let half = folder + "/half"
        #expect(try CLI.run(["sweep", "--traces", "\(original),\(copy)", "--policies", "fifo", "--capacities", "0.1",
                             "--output", half, "--shard", "1/2"]).status == 0)
        let partial = try CLI.run(["merge", half, "--allow-missing", "--format", "csv"])
        #expect(partial.status == 0 && partial.stderr.contains("missing: \(copy) fifo 0.1"), "\(partial.stderr)")
        let both = try CLI.run(["merge", copies, "--format", "csv"])
        #expect(both.status == 0 && both.stdout.contains("/a.csv,") && both.stdout.contains("/c.csv,"), "\(both.stderr)")

        // Traces of one name in three folders, two of them copies (equal cells): each keeps its
        // records (one task, one run), and the merged report is a baseline for a run on any of
        // them, matched by its path.
        for name in ["d1", "d2", "d3"] {
            try FileManager.default.createDirectory(atPath: folder + "/" + name, withIntermediateDirectories: false)
            try FileManager.default.copyItem(atPath: name == "d3" ? "Traces/lirs-cs.csv" : original, toPath: folder + "/\(name)/t.csv")
        }
        let namesakes = folder + "/namesakes", traces = "\(folder)/d1/t.csv,\(folder)/d2/t.csv,\(folder)/d3/t.csv"
        let sweptNamesakes = try CLI.run(["sweep", "--traces", traces, "--policies", "fifo,lru", "--capacities", "0.1", "--output", namesakes])
        #expect(sweptNamesakes.status == 0, "\(sweptNamesakes.stderr)")
        let mergedNamesakes = try CLI.run(["merge", namesakes, "--format", "json", "--output", folder + "/namesakes.json"])
        #expect(mergedNamesakes.status == 0, "\(mergedNamesakes.stderr)")
        for name in ["d1", "d3"] {
            let gated = try CLI.run(["compare", "\(folder)/\(name)/t.csv", "--policies", "fifo,lru", "--capacities", "0.1",
                                     "--baseline", folder + "/namesakes.json", "--tolerance", "0"])
            #expect(gated.status == 0, "\(name): \(gated.stderr)")
        }

        // Two fractions of a small working set that resolve to one size are one result, as in
        // compare, so the merged report serves as compare's baseline.
        let alike = folder + "/alike"
        let grid = ["--policies", "fifo,lru", "--capacities", "0.0001,0.0002", "--ignore-size"]
        #expect(try CLI.run(["sweep", "--traces", "Traces/lirs-cs.csv", "--output", alike] + grid).status == 0)
        let report = try CLI.run(["merge", alike, "--format", "json"])
        let results = try #require((try JSONSerialization.jsonObject(with: Data(report.stdout.utf8)) as? [String: Any])?["results"] as? [Any])
        #expect(results.count == 2 && report.stderr.contains("reported once"), "\(report.stderr)")
        let baseline = folder + "/alike.json"
        try Data(report.stdout.utf8).write(to: URL(fileURLWithPath: baseline))
        let gated = try CLI.run(["compare", "Traces/lirs-cs.csv", "--baseline", baseline] + grid)
        #expect(gated.status == 0, "\(gated.stderr)")
        // A replay's warning for those cells (S3-FIFO caches nothing in one object) is noted once too.
        let nothing = folder + "/nothing"
        #expect(try CLI.run(["sweep", "--traces", "Traces/lirs-cs.csv", "--output", nothing, "--policies", "s3fifo",
                             "--capacities", "0.0001,0.0002", "--ignore-size"]).status == 0)
        let noted = try CLI.run(["merge", nothing, "--format", "json"])
        #expect(noted.stderr.components(separatedBy: "cached nothing").count == 2, "\(noted.stderr)")

        // merge and sweep-report never write over a trace the sweep read.
        let before = try Data(contentsOf: URL(fileURLWithPath: original))
        for (command, option) in [("merge", "--output"), ("sweep-report", "--plot")] {
            let refused = try CLI.run([command, whole, option, original])
            #expect(refused.status == 2 && refused.stderr.contains("a trace of the sweep"), "\(command): \(refused.stderr)")
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: original)) == before)
    }
}
