import Foundation
import Testing
import TestSupport

/// Numbers at the edges of what the arguments and traces take (sizes near 2^63, subnormal and
/// huge windows, counts far beyond any trace): each run ends with the contract's exit code and
/// a message, never a trap (exit 132 or 134 from a Swift runtime check) or an unbounded
/// allocation.
@Suite("Extreme numbers: answers or clear refusals, never traps")
struct ExtremeNumberTests {
    static let small = "timestamp,key,size\n1,1,100\n2,2,200\n3,1,100\n4,3,50\n5,2,200\n"

    /// Runs `arguments` with `$T` standing for a file holding `trace`.
    static func run(_ arguments: [String], trace: String = small, environment: [String: String] = [:]) throws -> CLI.Result {
        let path = try temporaryFile(trace)
        defer { try? FileManager.default.removeItem(atPath: path) }
        return try CLI.run(arguments.map { $0 == "$T" ? path : $0 }, environment: environment)
    }

    @Test("capacities near 2^63: sampled miniatures, ranges one Double wide, fractions of a working set of 2^63 − 1")
    func capacitiesNearTheTop() throws {
        let sampled = try Self.run(["mrc", "$T", "--policy", "fifo", "--capacities", "9223372036854775807", "--sample", "0.6"])
        #expect(sampled.status == 0, "\(sampled.stderr)")
        for command in ["compare", "mrc"] {
            let range = try Self.run([command, "$T", "--policies", "lru", "--capacities", "9007199254740992...9007199254740993:3"]
                                        .filter { command == "compare" || $0 != "--policies" && $0 != "lru" })
            #expect(range.status == 0, "\(command): \(range.stderr)")
        }
        // 1,023 objects of 2^53 bytes and one of 2^53 − 1: a working set of exactly 2^63 − 1 bytes.
        let huge = "timestamp,key,size\n" + (0..<1023).map { "\($0),\($0),\(1 << 53)\n" }.joined() + "1023,1023,\((1 << 53) - 1)\n"
        for arguments in [["replay", "$T", "--policy", "lru", "--capacity", "100%"],
                          ["compare", "$T", "--policies", "lru,fifo", "--capacities", "1%...100%:3"],
                          ["replay", "$T", "--policy", "lru", "--capacity", "100%", "--sample", "0.6"]] {
            let result = try Self.run(arguments, trace: huge)
            #expect(result.status == 0, "\(arguments): \(result.stderr)")
        }
    }

    @Test("analyze: a span of 2^63 s or more is reported, a subnormal window refused, and a window count past the bound names its line")
    func analyzeTimes() throws {
        let long = "timestamp,key,size\n0,1,10\n1e19,2,10\n"
        let spanned = try Self.run(["analyze", "$T", "--window", "1e19"], trace: long)
        #expect(spanned.status == 0 && spanned.stdout.contains("time span"), "\(spanned.stderr)")
        let subnormal = try Self.run(["analyze", "$T", "--window", "5e-324"], trace: long)
        #expect(subnormal.status == 2 && subnormal.stdout.isEmpty && subnormal.stderr.contains("at least"), "\(subnormal.stderr)")
        // Decimal, as every number: `Double` alone would read 0x10 as 16 seconds.
        for text in ["0x10", "nan", "inf", "0", "-5"] {
            let refused = try Self.run(["analyze", "$T", "--window", text], trace: long)
            #expect(refused.status == 2 && refused.stdout.isEmpty && refused.stderr.contains("--window \(text)"), "\(text): \(refused.stderr)")
        }
        let tooMany = try Self.run(["analyze", "$T", "--window", "1"], trace: long)
        #expect(tooMany.status == 65 && tooMany.stdout.isEmpty && tooMany.stderr.contains(":3:"), "\(tooMany.stderr)")
    }

    @Test("generate image-feed refuses a request count its event schedule cannot hold; AdaptSize's search is bounded")
    func boundedWork() throws {
        let feed = try CLI.run(["generate", "image-feed", "--requests", "100000000000000"])
        #expect(feed.status == 2 && feed.stdout.isEmpty && feed.stderr.contains("at most"), "\(feed.stderr)")
        let search = try Self.run(["replay", "$T", "--policy", "lru", "--capacity", "2", "--ignore-size", "--admission", "adaptsize",
                                   "--admission-option", "max-iteration=100000,reconf-interval=1"])
        #expect(search.status == 2 && search.stderr.contains("max-iteration"), "\(search.stderr)")
    }

    @Test("a compare report with capacities of 2^53 and more serves as its own baseline")
    func baselineIntegersAreExact() throws {
        let path = try temporaryFile(Self.small)
        let report = scratchDirectory.appendingPathComponent("extreme-\(UUID().uuidString).json").path
        defer { for file in [path, report] { try? FileManager.default.removeItem(atPath: file) } }
        let written = try CLI.run(["compare", path, "--policies", "lru", "--capacities", "9007199254740993,9223372036854775807",
                                   "--format", "json", "--output", report])
        #expect(written.status == 0, "\(written.stderr)")
        let gated = try CLI.run(["compare", path, "--policies", "lru", "--capacities", "9007199254740993,9223372036854775807",
                                 "--baseline", report, "--tolerance", "0"])
        #expect(gated.status == 0, "\(gated.stderr)")
    }

    @Test("a Twitter row whose key and value sizes add up past 2^53 is malformed at its line")
    func twitterSizes() throws {
        let row = "0,a,10,9007199254740992,1,get,0\n"
        let result = try Self.run(["replay", "$T", "--policy", "lru", "--capacity", "100"], trace: row)
        #expect(result.status == 65 && result.stdout.isEmpty && result.stderr.contains(":1:"), "\(result.stderr)")
    }

    @Test("Slurm's array size past the shard bound is named as such")
    func slurmCount() throws {
        let result = try Self.run(["sweep", "--traces", "$T", "--policies", "lru", "--capacities", "0.5", "--plan"],
                                  environment: ["SLURM_ARRAY_TASK_ID": "0", "SLURM_ARRAY_TASK_COUNT": "1000001"])
        #expect(result.status == 2 && result.stderr.contains("SLURM_ARRAY_TASK_COUNT=1000001"), "\(result.stderr)")
    }

    @Test("a Slurm array given as a list (--array=3,7) is refused, pointing at --shard, with nothing run")
    func slurmList() throws {
        let result = try Self.run(["sweep", "--traces", "$T", "--policies", "lru", "--capacities", "0.5", "--plan"],
                                  environment: ["SLURM_ARRAY_TASK_ID": "3", "SLURM_ARRAY_TASK_COUNT": "2", "SLURM_ARRAY_TASK_MIN": "3",
                                                "SLURM_ARRAY_TASK_MAX": "7", "SLURM_ARRAY_TASK_STEP": "1"])
        #expect(result.status == 2 && result.stdout.isEmpty && result.stderr.contains("--shard K/N"), "\(result.stderr)")
        let range = try Self.run(["sweep", "--traces", "$T", "--policies", "lru", "--capacities", "0.5", "--plan"],
                                 environment: ["SLURM_ARRAY_TASK_ID": "3", "SLURM_ARRAY_TASK_COUNT": "2", "SLURM_ARRAY_TASK_MIN": "3",
                                               "SLURM_ARRAY_TASK_MAX": "4", "SLURM_ARRAY_TASK_STEP": "1"])
        #expect(range.status == 0 && range.stdout.contains(" 1/2"), "\(range.stderr)")
    }
}
