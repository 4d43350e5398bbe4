import CacheBench
import CacheBenchCommandLine
import Foundation
import TestSupport
import Testing

/// The rows `kind` generates, read back through the trace reader.
private func generated(_ kind: String, seed: UInt64 = 1, requests: Int, _ options: [String: String] = [:]) throws -> (text: String, rows: [Request]) {
    let path = scratchDirectory.appendingPathComponent("cachebench-kind-\(UUID().uuidString).csv").path
    defer { try? FileManager.default.removeItem(atPath: path) }
    try TraceGeneration.run(kind: kind, seed: seed, requests: requests, options: GeneratorOptions(options), output: path)
    var reader = try TraceSpec(path: path).open()
    var rows: [Request] = []
    var batch: [Request] = []
    while try reader.nextBatch(&batch) { rows += batch }
    return (try String(contentsOfFile: path, encoding: .utf8), rows)
}

@Suite("generate scan, loop and mix")
struct WorkloadGeneratorTests {
    @Test("loop: objects 1…N in order, repeatedly, one size per object within bounds")
    func loop() throws {
        let (_, rows) = try generated("loop", requests: 23, ["objects": "10", "min-size": "5", "max-size": "9"])
        // Closures typed in full: inferred, this test took 15 s to type-check.
        let expectedKeys = (0..<23).map { (i: Int) -> UInt64 in UInt64(i % 10 + 1) }
        #expect(rows.map(\.key) == expectedKeys)
        #expect(rows.allSatisfy { $0.operation == .get && (5...9).contains($0.size) })
        let expectedTimes = (0..<23).map { (i: Int) -> Double in Double(i) }
        #expect(rows.map(\.time) == expectedTimes)
        for (a, b) in zip(rows, rows.dropFirst(10)) { #expect(a.key == b.key && a.size == b.size) }
    }

    @Test("loop: LRU and FIFO miss everything below the loop's length and hit everything after the first lap at it")
    func loopDefeatsLRU() throws {
        let path = try temporaryFile(try generated("loop", requests: 5000, ["objects": "100"]).text)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let result = try Compare.run(CompareJob(trace: TraceSpec(path: path), policies: ["lru", "fifo", "mru"],
                                                capacities: CapacityList([.size(50), .size(99), .size(100)]), ignoreSize: true))
        let hits = Dictionary(uniqueKeysWithValues: result.results.map { ("\($0.policy)@\($0.capacity ?? 0)", $0.hits) })
        #expect(hits["lru@99"] == 0 && hits["fifo@99"] == 0 && hits["lru@50"] == 0)
        #expect(hits["lru@100"] == 4900 && hits["fifo@100"] == 4900)
        #expect((hits["mru@99"] ?? 0) > 4000, "MRU keeps most of the loop")
    }

    @Test("scan: periods of hot-set requests then a scan of fresh keys, each requested once")
    func scan() throws {
        let (_, rows) = try generated("scan", requests: 1000, ["objects": "50", "scan-every": "70", "scan-length": "30"])
        #expect(rows.count == 1000 && rows.allSatisfy { $0.operation == .get })
        var scanKeys: [UInt64] = []
        for (i, row) in rows.enumerated() {
            if i % 100 < 70 {
                #expect((1...50).contains(row.key), "row \(i)")
            } else {
                #expect(row.key >= ScanGenerator.firstScanKey, "row \(i)")
                scanKeys.append(row.key)
            }
        }
        let expectedScanKeys = (0..<UInt64(scanKeys.count)).map { (i: UInt64) -> UInt64 in ScanGenerator.firstScanKey + i }
        #expect(scanKeys == expectedScanKeys)
        #expect(scanKeys.count == 300)
        // Zipf: the hot set's most popular object is requested far more than its least popular.
        var counts: [UInt64: Int] = [:]
        for row in rows where row.key <= 50 { counts[row.key, default: 0] += 1 }
        #expect((counts[1] ?? 0) > 5 * (counts[50] ?? 0) + 5)
    }

    @Test("mix: gets from three sources in the given shares, loop keys in order, sets and deletes before gets")
    func mix() throws {
        let options = ["objects": "200", "loop-objects": "30", "phase": "1000", "hot-weight": "0.5", "loop-weight": "0.3",
                       "scan-weight": "0.2", "set-ratio": "0.1", "delete-ratio": "0.05"]
        let (_, rows) = try generated("mix", requests: 20_000, options)
        let gets = rows.filter { $0.operation == .get }
        #expect(gets.count == 20_000)
        let hot = gets.filter { $0.key <= 200 }.count
        let loop = gets.filter { $0.key >= MixGenerator.firstLoopKey && $0.key < MixGenerator.firstScanKey }
        let scans = gets.filter { $0.key >= MixGenerator.firstScanKey }
        // Binomial shares: 5 standard deviations of 20,000 draws is under 2 %. (A function rather
        // than literal arithmetic in each #expect, which took seconds to type-check.)
        func offShare(_ count: Int, _ share: Double) -> Double { abs(Double(count) / 20_000 - share) }
        #expect(offShare(hot, 0.5) < 0.02)
        #expect(offShare(loop.count, 0.3) < 0.02)
        #expect(offShare(scans.count, 0.2) < 0.02)
        let loopKeys = (0..<loop.count).map { (i: Int) -> UInt64 in MixGenerator.firstLoopKey + UInt64(i % 30) }
        #expect(loop.map(\.key) == loopKeys)
        #expect(Set(scans.map(\.key)).count == scans.count, "scan keys are never repeated")
        let sets = rows.filter { $0.operation == .set }, deletes = rows.filter { $0.operation == .delete }
        #expect(offShare(sets.count, 0.1) < 0.015)
        #expect(offShare(deletes.count, 0.05) < 0.01)
        #expect((sets + deletes).allSatisfy { $0.key <= 200 })
        // Each write is followed by a get at the same time.
        for (i, row) in rows.enumerated() where row.operation != .get {
            #expect(i + 1 < rows.count && rows[i + 1].operation == .get && rows[i + 1].time == row.time)
        }
        #expect(zip(rows, rows.dropFirst()).allSatisfy { $0.time <= $1.time })
    }

    @Test("mix: the hot set's ranking changes from one phase to the next")
    func mixPhases() throws {
        let (_, rows) = try generated("mix", requests: 40_000, ["objects": "1000", "phase": "20000", "alpha": "1.2",
                                                                 "hot-weight": "1", "loop-weight": "0", "scan-weight": "0"])
        func top(_ slice: ArraySlice<Request>) -> UInt64? {
            var counts: [UInt64: Int] = [:]
            for row in slice { counts[row.key, default: 0] += 1 }
            return counts.max { $0.value < $1.value }?.key
        }
        let first = try #require(top(rows[0..<20_000])), second = try #require(top(rows[20_000..<40_000]))
        #expect(first == 1, "before any reshuffle, rank 1 is object 1")
        #expect(second != first)
    }

    @Test("every new kind is deterministic per seed and differs across seeds", arguments: ["scan", "loop", "mix"])
    func deterministic(_ kind: String) throws {
        let options = kind == "loop" ? ["max-size": "100"] : [:]
        let a = try generated(kind, seed: 5, requests: 3000, options).text
        #expect(a == (try generated(kind, seed: 5, requests: 3000, options).text))
        #expect(a != (try generated(kind, seed: 6, requests: 3000, options).text))
    }

    @Test("bad options are usage errors", arguments: [
        ("scan", ["scan-every": "0"]), ("scan", ["alpha": "-1"]), ("loop", ["objects": "0"]),
        ("loop", ["min-size": "10", "max-size": "5"]), ("mix", ["hot-weight": "0", "loop-weight": "0", "scan-weight": "0"]),
        ("mix", ["set-ratio": "0.7", "delete-ratio": "0.5"]), ("mix", ["phase": "x"]), ("loop", ["alpha": "1"]),
    ])
    func badOptions(_ kind: String, _ options: [String: String]) {
        do {
            _ = try generated(kind, requests: 10, options)
            Issue.record("accepted \(options)")
        } catch let error as CacheBenchError {
            #expect(error.exitCode == 2, "\(error)")
        } catch {
            Issue.record("\(error)")
        }
    }

    @Test("the generated traces in Traces/ are exactly what their commands write")
    func committedTraces() throws {
        // Keep in step with Traces/README.md and Scripts/make-results.sh.
        let traces: [(String, String, Int, [String: String])] = [
            ("zipf.csv", "zipf", 50_000, ["alpha": "0.9", "objects": "10000", "min-size": "1KiB", "max-size": "64KiB"]),
            ("scan.csv", "scan", 60_000, ["objects": "2000", "scan-every": "10000", "scan-length": "3000"]),
            ("loop.csv", "loop", 30_000, ["objects": "1500"]),
            ("mix.csv", "mix", 60_000, ["objects": "5000", "phase": "15000", "loop-objects": "1500", "set-ratio": "0.05",
                                        "delete-ratio": "0.01"]),
        ]
        for (name, kind, requests, options) in traces {
            let committed = try String(contentsOfFile: Repository.trace(name), encoding: .utf8)
            #expect(committed == (try generated(kind, seed: 1, requests: requests, options).text), "Traces/\(name)")
        }
    }
}
