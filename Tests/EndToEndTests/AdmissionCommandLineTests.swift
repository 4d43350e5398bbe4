import Foundation
import Testing

@Suite("--admission on the command line")
struct AdmissionCommandLineTests {
    static let trace = CLI.root.appendingPathComponent("Traces/lirs-gli.csv").path

    /// libCacheSim 0.3.5: `lru`, 25 objects, `-a bloomfilter` misses 5958 of 6015 (the admission golden table).
    @Test("replay reports the rule's counts in JSON, CSV and markdown")
    func report() throws {
        let json = try CLI.run(["replay", Self.trace, "--policy", "LRU", "--capacity", "25", "--ignore-size",
                                "--admission", "Bloom-Filter", "--format", "json"])
        #expect(json.status == 0, "\(json.stderr)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        #expect(object["misses"] as? Int == 5958)
        let admission = try #require(object["admission"] as? [String: Any])
        #expect(admission["rule"] as? String == "bloomfilter")
        #expect((admission["admitted"] as? Int ?? 0) + (admission["rejected"] as? Int ?? 0) == 5958)
        for format in ["csv", "markdown"] {
            let rows = try CLI.run(["replay", Self.trace, "--policy", "lru", "--capacity", "25", "--ignore-size",
                                    "--admission", "prob", "--admission-option", "prob=0.5,seed=1", "--format", format])
            #expect(rows.status == 0, "\(rows.stderr)")
            #expect(rows.stdout.contains("admission"), "\(format)")
            #expect(rows.stdout.contains("admitted"), "\(format)")
        }
        let plain = try CLI.run(["replay", Self.trace, "--policy", "lru", "--capacity", "25", "--ignore-size", "--format", "csv"])
        #expect(!plain.stdout.contains("admitted"), "no new columns without --admission")
    }

    @Test("compare runs every policy behind the rule")
    func compare() throws {
        let result = try CLI.run(["compare", Self.trace, "--policies", "lru,fifo", "--capacities", "25,250", "--ignore-size",
                                  "--admission", "bloomfilter", "--format", "csv"])
        #expect(result.status == 0, "\(result.stderr)")
        // libCacheSim 0.3.5: lru 25 → 5958, fifo 250 → 5957 misses with -a bloomfilter.
        #expect(result.stdout.split(separator: "\n").count == 5)
        #expect(result.stdout.contains(",bloomfilter,"))
    }

    /// `replay`'s misses and admission counts for one cell: what sweep and mrc must report for it.
    static func replayed(_ policy: String, _ capacity: Int, _ rule: [String]) throws -> [Int] {
        let result = try CLI.run(["replay", trace, "--policy", policy, "--capacity", String(capacity), "--ignore-size",
                                  "--format", "json"] + rule)
        #expect(result.status == 0, "\(result.stderr)")
        let admission = result.json?["admission"] as? [String: Any]
        return [result.json?["misses"] as? Int ?? -1, admission?["admitted"] as? Int ?? -1, admission?["rejected"] as? Int ?? -1]
    }

    /// Each result's policy, capacity, misses and admission counts.
    static func cells(_ report: [String: Any]?) -> [String: [Int]] {
        var cells: [String: [Int]] = [:]
        for result in report?["results"] as? [[String: Any]] ?? [] {
            let admission = result["admission"] as? [String: Any]
            cells["\(result["policy"] as? String ?? "?") \(result["capacity"] as? Int ?? -1)"] =
                [result["misses"] as? Int ?? -1, admission?["admitted"] as? Int ?? -1, admission?["rejected"] as? Int ?? -1]
        }
        return cells
    }

    @Test("sweep records each cell's admission counts, replay's for the same cell")
    func sweep() throws {
        let output = FileManager.default.temporaryDirectory.appendingPathComponent("cachebench-adm-sweep-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: output) }
        let rule = ["--admission", "prob", "--admission-option", "seed=2"]
        let sweep = try CLI.run(["sweep", "--traces", Self.trace, "--policies", "lru,fifo", "--capacities", "25,250",
                                 "--ignore-size", "--output", output, "--threads", "1"] + rule)
        #expect(sweep.status == 0, "\(sweep.stderr)")
        let merged = try CLI.run(["merge", output, "--format", "json"])
        #expect(merged.status == 0, "\(merged.stderr)")
        let cells = Self.cells(merged.json)
        #expect(cells.count == 4)
        for policy in ["lru", "fifo"] {
            for capacity in [25, 250] {
                let expected = try Self.replayed(policy, capacity, rule)
                #expect(cells["\(policy) \(capacity)"] == expected, "\(policy) \(capacity)")
                #expect(expected[1] > 0 && expected[2] > 0, "prob=0.5 admits some misses and refuses others")
            }
        }
        let csv = try CLI.run(["merge", output, "--format", "csv"])
        #expect(csv.stdout.contains("admitted"))
        // The rule is part of every cell's identity: the same folder without it is another sweep.
        let plain = try CLI.run(["sweep", "--traces", Self.trace, "--policies", "lru,fifo", "--capacities", "25,250",
                                 "--ignore-size", "--output", output, "--threads", "1"])
        #expect(plain.status == 2)
        #expect(plain.stderr.contains("holds another sweep"), "\(plain.stderr)")
    }

    @Test("mrc simulates LRU behind the rule, and runs any policy's miniatures behind it")
    func mrc() throws {
        let rule = ["--admission", "bloomfilter"]
        let lru = try CLI.run(["mrc", Self.trace, "--capacities", "25,250", "--ignore-size", "--format", "json"] + rule)
        #expect(lru.status == 0, "\(lru.stderr)")
        let curve = Self.cells(lru.json)
        for capacity in [25, 250] {
            #expect(curve["lru \(capacity)"] == (try Self.replayed("lru", capacity, rule)), "lru \(capacity)")
        }
        let table = try CLI.run(["mrc", Self.trace, "--capacities", "25,250", "--ignore-size"] + rule)
        #expect(table.stdout.contains("simulated at each capacity behind admission bloomfilter"), "\(table.stdout)")
        let seeded = ["--admission", "prob", "--admission-option", "seed=3"]
        let fifo = try CLI.run(["mrc", Self.trace, "--policy", "fifo", "--sample", "1", "--capacities", "25,250",
                                "--ignore-size", "--format", "json"] + seeded)
        #expect(fifo.status == 0, "\(fifo.stderr)")
        let fifoCurve = Self.cells(fifo.json)
        for capacity in [25, 250] {
            #expect(fifoCurve["fifo \(capacity)"] == (try Self.replayed("fifo", capacity, seeded)), "fifo \(capacity)")
        }
        // Estimated from a sample: the admission counts still add up to the (corrected) misses.
        let sampled = try CLI.run(["mrc", Self.trace, "--policy", "s3fifo", "--sample", "0.3", "--capacities", "40,250",
                                   "--ignore-size", "--format", "json"] + rule)
        #expect(sampled.status == 0, "\(sampled.stderr)")
        for (cell, counts) in Self.cells(sampled.json) {
            #expect(counts[0] > 0 && counts[1] + counts[2] == counts[0], "\(cell): misses, admitted, rejected \(counts)")
        }
    }

    static let badSweepAndMRC: [[String]] = [
        ["sweep", "--traces", trace, "--policies", "lru", "--capacities", "25", "--output", "/nonexistent-cachebench",
         "--admission", "prob", "--admission-option", "prob=0"],
        ["sweep", "--traces", trace, "--policies", "lru", "--capacities", "25", "--output", "/nonexistent-cachebench",
         "--admission", "nope"],
        ["mrc", trace, "--capacities", "25,250", "--admission", "sizeprob", "--admission-option", "exponent=x"],
        ["mrc", trace, "--capacities", "25,250", "--admission-option", "prob=0.5"],
    ]

    @Test("sweep and mrc refuse bad rules and parameters with exit 2 and no output", arguments: 0..<badSweepAndMRC.count)
    func badElsewhere(_ index: Int) throws {
        let result = try CLI.run(Self.badSweepAndMRC[index])
        #expect(result.status == 2, "\(result.stderr)")
        #expect(result.stdout.isEmpty)
        #expect(result.stderr.contains("--admission"), "\(result.stderr)")
        #expect(!FileManager.default.fileExists(atPath: "/nonexistent-cachebench"))
    }

    static let bad: [([String], String)] = [
        (["--admission", "lfu"], "--admission lfu: unknown admission algorithm"),
        (["--admission", "prob", "--admission-option", "prob=1.5"], "--admission-option prob=1.5: expected a probability in (0, 1]"),
        (["--admission", "size", "--admission-option", "threshold=5"], "--admission-option threshold: unknown parameter for admission size"),
        (["--admission", "adaptsize", "--admission-option", "reconf-interval=0"], "--admission-option reconf-interval=0"),
        (["--admission-option", "prob=0.5"], "--admission-option needs --admission"),
        (["--admission", "prob", "--admission-option", "prob"], "--admission-option prob: expected KEY=VALUE"),
        (["--admission", "prob", "--threads", "2"], "--admission cannot be combined with --tier or --threads"),
    ]

    @Test("bad rules and parameters exit 2 with one line and no output", arguments: 0..<bad.count)
    func badParameters(_ index: Int) throws {
        let (extra, message) = Self.bad[index]
        let result = try CLI.run(["replay", Self.trace, "--policy", "lru", "--capacity", "25", "--ignore-size"] + extra)
        #expect(result.status == 2)
        #expect(result.stdout.isEmpty)
        #expect(result.stderr.contains(message), "\(result.stderr)")
    }
}
