import CacheBench
import Foundation
import TestSupport
import Testing

/// One row of Traces/golden-libcachesim.tsv: libCacheSim's miss counts (commit aa0fc40).
struct GoldenRow: Sendable, CustomTestStringConvertible {
    var trace: String
    var bytesMode: Bool
    var cacheSize: Int
    var algorithm: String
    var requests: Int
    var misses: Int
    var missRatio: Double
    var byteMisses: Int

    var testDescription: String { "\(algorithm) \(trace) \(bytesMode ? "bytes" : "objects") \(cacheSize)" }

    static func load(_ table: String = "golden-libcachesim.tsv") throws -> [GoldenRow] {
        let text = try String(contentsOfFile: Repository.trace(table), encoding: .utf8)
        return text.split(separator: "\n").dropFirst().compactMap { line in
            let f = line.split(separator: "\t").map(String.init)
            guard f.count == 9, let size = Int(f[2]), let requests = Int(f[4]), let misses = Int(f[5]),
                  let ratio = Double(f[6]), let byteMisses = Int(f[8]) else { return nil }
            return GoldenRow(trace: f[0], bytesMode: f[1] == "bytes", cacheSize: size, algorithm: f[3],
                             requests: requests, misses: misses, missRatio: ratio, byteMisses: byteMisses)
        }
    }

    /// Our policy name for libCacheSim's algorithm name at aa0fc40, whose S3FIFO.c is today's
    /// S3FIFOv0.c. Every other name resolves as libCacheSim spells it (`twoq` is an alias of 2q).
    var policy: String { algorithm == "s3fifo" ? "s3fifov0" : algorithm }

    /// The traces this row runs on: the CSV, and for cloudPhysicsIO both the binary and the CSV copy.
    var traces: [TraceSpec] {
        if trace.hasPrefix("cloudPhysicsIO") {
            return [TraceSpec(path: Repository.trace("cloudPhysicsIO.oracleGeneral.bin")),
                    TraceSpec(path: Repository.trace("cloudPhysicsIO.og.csv"),
                              columns: CSVColumns(time: 0, key: 1, size: 2, operation: nil))]
        }
        return [TraceSpec(path: Repository.trace(trace))]
    }
}

/// The policies whose miss counts must equal libCacheSim's exactly: every row of the golden table.
enum Parity {
    static let exact: Set<String> = ["lru", "fifo", "mru", "clock", "sieve", "lfu", "belady", "s3fifov0", "arc", "twoq", "lirs"]

    /// Every golden row; a table that cannot be read gives no rows, which `goldenTableLoads` fails on.
    static var rows: [GoldenRow] { (try? GoldenRow.load()) ?? [] }
}

/// libCacheSim at aa0fc40 and 0.3.5 agree on every row this table holds (its S3FIFO is 0.3.5's
/// S3FIFOv0), so the replays are run once, on the 0.3.5 table (GoldenParityAllTests in `swift
/// test`, every row by `Scripts/parity.sh` in CI); this suite proves the tables agree, and that
/// the CSV copy of cloudPhysicsIO is the same trace as the binary the 0.3.5 replays read.
@Suite("Parity with libCacheSim (Traces/golden-libcachesim.tsv)")
struct GoldenParityTests {
    @Test("the golden table is present and complete")
    func goldenTableLoads() throws {
        let rows = try GoldenRow.load()
        #expect(rows.count == 297)
        let unchecked = Set(rows.map(\.policy)).subtracting(Parity.exact)
        #expect(unchecked.isEmpty, "golden rows for policies held to no parity: \(unchecked.sorted())")
    }

    @Test("every row is a row of the 0.3.5 table with the same counts, which the 0.3.5 parity replays exactly")
    func everyRowIsReplayedExactly() throws {
        let replayed = DeterministicParity.rows
        #expect(replayed.count > 600)
        for row in try GoldenRow.load() {
            let match = replayed.first {
                $0.trace == row.trace && $0.bytesMode == row.bytesMode && $0.cacheSize == row.cacheSize
                    && $0.algorithm == row.policy
            }
            #expect(match?.requests == row.requests, "\(row.testDescription)")
            #expect(match.map { Int($0.misses) } == row.misses, "\(row.testDescription)")
            #expect(match?.byteMisses == row.byteMisses, "\(row.testDescription)")
        }
    }

    @Test("the CSV copy of cloudPhysicsIO reads as the binary's requests: time, key, size and operation, row for row")
    func csvCopyIsTheBinary() throws {
        var binary = try OracleGeneralReader(path: Repository.trace("cloudPhysicsIO.oracleGeneral.bin"))
        var csv = try TraceSpec(path: Repository.trace("cloudPhysicsIO.og.csv"),
                                columns: CSVColumns(time: 0, key: 1, size: 2, operation: nil)).open()
        let fromBinary = try readAll(&binary)
        let fromCSV = try readAll(&csv)
        #expect(fromBinary.count == 113_872 && fromCSV.count == fromBinary.count)
        #expect(zip(fromBinary, fromCSV).allSatisfy {
            $0.time == $1.time && $0.key == $1.key && $0.size == $1.size && $0.operation == $1.operation
        })
    }

    /// The whole pipeline on the CSV copy (its reader, and for belady the next-access pass a CSV
    /// needs): every policy at one capacity in each mode gives the table's counts.
    @Test("miss counts on the CSV copy of cloudPhysicsIO", arguments: Parity.exact.sorted())
    func csvCopy(_ policy: String) throws {
        let csv = TraceSpec(path: Repository.trace("cloudPhysicsIO.og.csv"),
                            columns: CSVColumns(time: 0, key: 1, size: 2, operation: nil))
        let rows = Parity.rows.filter {
            $0.policy == policy && $0.trace.hasPrefix("cloudPhysicsIO") && [5000, 134_217_728].contains($0.cacheSize)
        }
        #expect(rows.count == 2)
        for row in rows {
            let result = try Replay.run(ReplayJob(trace: csv, policy: row.policy, capacity: row.cacheSize,
                                                  ignoreSize: !row.bytesMode))
            #expect(result.requests == row.requests, "\(row.testDescription)")
            #expect(result.misses == row.misses, "\(row.testDescription)")
            #expect(result.counters.byteRequests - result.counters.byteHits == row.byteMisses, "\(row.testDescription)")
        }
    }
}
