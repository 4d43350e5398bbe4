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
