import CacheBench
@testable import CacheBenchCommandLine
import EvictionPolicies
import Foundation
import Testing
import TestSupport

/// The engine reports problems in its own words (which setting, which value, what was expected)
/// and never names a command-line flag; the command line maps each error back to its flags.
@Suite("Engine errors name no command-line flag")
struct EngineErrorWordingTests {
    /// Every error a bad value or combination makes the engine throw, with the message the
    /// command line prints for it.
    static func engineErrors() -> [(engine: CacheBenchError, commandLine: String)] {
        var errors: [CacheBenchError] = []
        func record(_ body: () throws(CacheBenchError) -> Void) {
            do { try body() } catch { errors.append(error) }
        }
        func value(_ body: () throws(InvalidValueError) -> Void) {
            do { try body() } catch { errors.append(.invalidValue(error)) }
        }
        for text in ["64Q", "MiB", "1.5", "99999999999TiB"] { value { () throws(InvalidValueError) in _ = try SizeFormat.parse(text) } }
        for text in ["1,,2", "0", "2...1:3", "1...0.5:3", "1...2:1", "1...2", "0.1.2", "1.5"] {
            value { () throws(InvalidValueError) in _ = try CapacityList.parse(text) }
        }
        for text in ["10", "0s", "0req", "5y"] { value { () throws(InvalidValueError) in _ = try TraceSpan.parse(text) } }
        for text in ["0", "2", "x"] { value { () throws(InvalidValueError) in _ = try RequestWindow.parseSampleRatio(text) } }
        for text in ["3", "5/4", "0/1"] { value { () throws(InvalidValueError) in _ = try SweepShard.parse(text) } }
        for environment in [["SLURM_ARRAY_TASK_ID": "1"], ["SLURM_ARRAY_TASK_ID": "x", "SLURM_ARRAY_TASK_COUNT": "2"],
                            ["SLURM_ARRAY_TASK_ID": "9", "SLURM_ARRAY_TASK_COUNT": "4"],
                            ["SLURM_ARRAY_TASK_ID": "3", "SLURM_ARRAY_TASK_COUNT": "2", "SLURM_ARRAY_TASK_MIN": "3", "SLURM_ARRAY_TASK_MAX": "7"]] {
            do { _ = try SweepShard.slurm(environment) } catch { errors.append(.sweep(error)) }
        }
        let generated: [(String, Int?, [String: String])] = [
            ("nope", nil, [:]), ("zipf", nil, ["ratio": "1"]), ("zipf", -1, [:]), ("zipf", nil, ["alpha": "30"]),
            ("zipf", nil, ["objects": "x"]), ("zipf", nil, ["min-size": "5", "max-size": "1"]), ("zipf", nil, ["min-size": "1Q"]),
            ("mix", nil, ["hot-weight": "0", "loop-weight": "0", "scan-weight": "0"]),
            ("mix", nil, ["set-ratio": "0.6", "delete-ratio": "0.6"]), ("loop", nil, ["min-size": "5", "max-size": "1"]),
        ]
        for (kind, requests, options) in generated {
            record { () throws(CacheBenchError) in
                try TraceGeneration.run(kind: kind, seed: 1, requests: requests, options: GeneratorOptions(options),
                                        output: "/nonexistent-folder/never-written.csv")
            }
        }
        let trace = "/nonexistent-folder/trace.csv"
        let capacity = [CapacityList.Item.size(10)]
        for spec in [SweepSpec(traces: [], policies: ["fifo"], capacities: capacity),
                     SweepSpec(traces: [trace], policies: [], capacities: capacity),
                     SweepSpec(traces: [trace], policies: ["fifo"], capacities: []),
                     SweepSpec(traces: [trace], policies: ["fifo", "fifo"], capacities: capacity),
                     SweepSpec(traces: [trace], policies: ["fifo"], capacities: capacity, options: PolicyOptions(["nope": "1"])),
                     SweepSpec(traces: [trace], policies: ["arc"], capacities: capacity, countLimit: 5),
                     SweepSpec(traces: [trace, trace], policies: ["fifo"], capacities: capacity)] {
            record { () throws(CacheBenchError) in try Sweep.validate(spec) }
        }
        record { () throws(CacheBenchError) in _ = try MissRatioCurve.run(trace: TraceSpec(path: trace), capacities: nil, points: 1, ignoreSize: true) }
        for error in errors where error.exitCode != 2 { Issue.record("not a usage problem (exit \(error.exitCode)): \(error)") }
        return errors.map { ($0, $0.commandLineDescription) }
    }

    @Test("no engine message names a flag; each is a usage problem the command line words with its flags")
    func noFlagInEngineMessages() {
        let errors = Self.engineErrors()
        // Every case above throws: 4 sizes, 8 capacity lists, 4 spans, 3 ratios, 3 shards, 4 Slurm
        // environments, 10 generator runs, 7 sweeps and 1 curve.
        #expect(errors.count == 44)
        for (engine, _) in errors {
            #expect(!engine.description.contains("--"), "\(engine)")
        }
    }

    @Test("the command line names the flags the engine's settings come from")
    func commandLineWording() {
        let messages = Self.engineErrors().map(\.commandLine)
        for expected in [
            "--alpha 30: expected a number from 0.0 to 20.0",
            "--requests -1: must be at least 1",
            "--max-size 1 is below --min-size 5",
            "--hot-weight, --loop-weight and --scan-weight cannot all be 0",
            "--set-ratio and --delete-ratio add up to more than 1",
            "--ratio does not apply to 'zipf' (it takes --alpha, --max-size, --min-size, --objects)",
            "--min-size 1Q: unknown size suffix 'q' (use KB, MB, GB, TB, KiB, MiB, GiB, TiB or K, M, G, T)",
            "--option nope: none of the sweep's policies takes it; see 'cachebench policies'",
            "--count-limit: none of the sweep's policies has one",
            "--points 1: must be from 2 to \(CapacityList.maximumCount)",
            "SLURM_ARRAY_TASK_ID=9 is not one of 4 tasks from 0 in steps of 1",
        ] {
            #expect(messages.contains(expected), "\(expected)")
        }
    }

    @Test("a capacity the command chose itself (mrc's points) is not named by a flag the user did not give")
    func chosenCapacity() {
        let refusal = CacheBenchError.configuration(.policy(.invalidLimit(.capacity, value: 1921, expected: "even")))
        #expect(CommandLineError.runOverChosenCapacities(refusal).message == "the curve's capacity 1921: must be even (name the capacities with --capacities)")
        #expect(CommandLineError.runOverCapacities(refusal).message == "--capacities 1921: must be even")
        let named = CacheBenchError.configuration(.inPolicy("lirs", .policy(.invalidLimit(.capacity, value: 1, expected: "at least 3"))))
        #expect(CommandLineError.runOverCapacities(named).message == "--capacities 1: must be at least 3 (policy lirs)")
        #expect(named.description.contains("policy lirs: capacity 1") && !named.description.contains("--"), "\(named)")
    }

    @Test("a value's problem is reported against the flag that gave it")
    func valueAgainstFlag() throws {
        #expect(throws: UsageError("--capacity 64Q: unknown size suffix 'q' (use KB, MB, GB, TB, KiB, MiB, GiB, TiB or K, M, G, T)")) {
            try parseValue("64Q", of: "--capacity") { (text) throws(InvalidValueError) in try SizeFormat.parse(text) }
        }
        #expect(throws: UsageError("--warmup 0s: must be above 0")) {
            try parseValue("0s", of: "--warmup") { (text) throws(InvalidValueError) in try TraceSpan.parse(text) }
        }
        #expect(try parseValue("1MiB", of: "--capacity") { (text) throws(InvalidValueError) in try SizeFormat.parse(text) } == 1 << 20)
    }

    @Test("configuration errors name no flag either", arguments: [
        RunConfigurationError.noPolicies, .policyNamedTwice("lru"), .optionTakenByNone("k", policies: ["lru"]),
        .countLimitTakenByNone, .capacityNotPositive(0), .offlineTier("belady"), .tierWithThreads, .offlineWithThreads("belady"), .windowWithTier,
        .windowWithThreads, .policy(.invalidLimit(.capacity, value: 0, expected: "greater than 0")),
    ])
    func configuration(_ error: RunConfigurationError) {
        #expect(!error.description.contains("--"))
        #expect(error.commandLineMessage.contains("--"))
    }

    /// Every error a malformed or unexpected input makes the engine throw with a hint, with the
    /// exit code and the message the command line prints for it (as it did when the engine
    /// named the flags itself).
    static func inputErrors() throws -> [(engine: CacheBenchError, exitCode: Int32, commandLine: String)] {
        var cases: [(CacheBenchError, Int32, String)] = []
        func read(_ text: String, header: HeaderMode = .auto) throws -> (String, CacheBenchError?) {
            let path = try temporaryFile(text)
            do throws(TraceError) {
                var reader = try TraceSpec(path: path, header: header).open()
                var batch: [Request] = []
                while try reader.nextBatch(&batch) {}
                return (path, nil)
            } catch { return (path, .trace(error)) }
        }
        for (text, header, line, message) in [
            ("key,id\n1,2\n", HeaderMode.auto, 1, "the header names the key column twice ('key' in column 1, 'id' in column 2); use --columns"),
            ("time,size\n1,2\n", .auto, 1, "the header names no key column (expected key, id or obj_id); use --columns"),
            ("foo,bar\n1,2\n", .present, 1, "the header names no known column (time, key, size, op); use --columns"),
            ("timestamp,key,size\n1,a\u{0}b,3\n", .auto, 2, "NUL byte in line (is this a binary file? try --trace-format oracle-general)"),
        ] {
            let (path, error) = try read(text, header: header)
            cases.append((try #require(error), 65, "\(path):\(line): \(message)"))
        }
        do throws(CacheBenchError) { _ = try SweepRecordStore(directory: "/nonexistent-folder").manifest() } catch {
            cases.append((error, 66, "/nonexistent-folder/sweep.json: cannot open: no sweep manifest here (is this the folder given to 'sweep --output'?)"))
        }
        for (text, message) in [
            ("{}", "baseline.json: expected an object with a \"results\" array (the output of 'cachebench compare --format json')"),
            ("[", "; expected the output of 'cachebench compare --format json'"),
        ] {
            do throws(CacheBenchError) { _ = try RegressionGate.parse(Data(text.utf8), name: "baseline.json", tolerance: 0) } catch {
                cases.append((error, 65, message))
            }
        }
        let trace = try temporaryFile("1,1,1\n2,2,1\n3,3,1\n")
        var job = ReplayJob(trace: TraceSpec(path: trace), policy: "lru", capacity: 2, ignoreSize: true)
        job.window = RequestWindow(sampleRatio: 0.000001)
        do throws(CacheBenchError) { _ = try Replay.run(job) } catch {
            cases.append((error, 65, "\(trace): no row of the trace is in the sample (--sample 0.000001 kept none of its keys; the trace may be empty, or too small for this ratio)"))
        }
        return cases
    }

    @Test("input errors name no flag; the command line prints them with the flag, and the same exit code, as before")
    func inputErrorsNameNoFlag() throws {
        let cases = try Self.inputErrors()
        // 4 CSV headers and rows, 1 sweep folder, 2 baselines, 1 sample: every one throws.
        #expect(cases.count == 8)
        for (engine, exitCode, commandLine) in cases {
            #expect(!engine.description.contains("--"), "\(engine)")
            #expect(engine.exitCode == exitCode, "\(engine)")
            #expect(engine.commandLineDescription.hasSuffix(commandLine), "\(engine.commandLineDescription)")
            guard case .trace(let error) = engine, let hint = error.hint else {
                Issue.record("no hint: \(engine)")
                continue
            }
            #expect(error.reason.contains(hint.phrase), "\(error)")
            #expect(!error.reason.contains("cachebench"), "\(error)")
        }
    }
}
