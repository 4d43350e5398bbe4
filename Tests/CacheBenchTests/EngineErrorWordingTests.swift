import CacheBench
@testable import CacheBenchCommandLine
import EvictionPolicies
import Testing

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
                            ["SLURM_ARRAY_TASK_ID": "9", "SLURM_ARRAY_TASK_COUNT": "4"]] {
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
        // Every case above throws: 4 sizes, 8 capacity lists, 4 spans, 3 ratios, 3 shards, 3 Slurm
        // environments, 10 generator runs, 7 sweeps and 1 curve.
        #expect(errors.count == 43)
        for (engine, _) in errors {
            #expect(!engine.description.contains("--"), "\(engine)")
        }
    }

    @Test("the command line names the flags the engine's settings come from")
    func commandLineWording() {
        let messages = Self.engineErrors().map(\.commandLine)
        for expected in [
            "--alpha 30: expected a number from 0.0 to 20.0",
            "--requests -1: must not be negative",
            "--max-size 1 is below --min-size 5",
            "--hot-weight, --loop-weight and --scan-weight cannot all be 0",
            "--set-ratio and --delete-ratio add up to more than 1",
            "--ratio does not apply to 'zipf' (it takes --alpha, --max-size, --min-size, --objects)",
            "--min-size 1Q: unknown size suffix 'q' (use KB, MB, GB, KiB, MiB, GiB or K, M, G)",
            "option nope: none of the sweep's policies takes it; see 'cachebench policies'",
            "--points 1: must be from 2 to \(CapacityList.maximumCount)",
            "SLURM_ARRAY_TASK_ID=9 is not one of 4 tasks from 0 in steps of 1",
        ] {
            #expect(messages.contains(expected), "\(expected)")
        }
    }

    @Test("a value's problem is reported against the flag that gave it")
    func valueAgainstFlag() throws {
        #expect(throws: UsageError("--capacity 64Q: unknown size suffix 'q' (use KB, MB, GB, KiB, MiB, GiB or K, M, G)")) {
            try parseValue("64Q", of: "--capacity") { (text) throws(InvalidValueError) in try SizeFormat.parse(text) }
        }
        #expect(throws: UsageError("--warmup 0s: must be above 0")) {
            try parseValue("0s", of: "--warmup") { (text) throws(InvalidValueError) in try TraceSpan.parse(text) }
        }
        #expect(try parseValue("1MiB", of: "--capacity") { (text) throws(InvalidValueError) in try SizeFormat.parse(text) } == 1 << 20)
    }

    @Test("configuration errors name no flag either", arguments: [
        RunConfigurationError.noPolicies, .policyNamedTwice("lru"), .optionTakenByNone("k", policies: ["lru"]),
        .countLimitTakenByNone, .capacityNotPositive(0), .offlineTier("belady"), .tierWithThreads, .windowWithTier,
        .windowWithThreads, .policy(.invalidLimit(.capacity, value: 0, expected: "greater than 0")),
    ])
    func configuration(_ error: RunConfigurationError) {
        #expect(!error.description.contains("--"))
        #expect(error.commandLineMessage.contains("--"))
    }
}
