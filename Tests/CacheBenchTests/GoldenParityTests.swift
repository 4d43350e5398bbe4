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

@Suite("Parity with libCacheSim (Traces/golden-libcachesim.tsv)")
struct GoldenParityTests {
    @Test("the golden table is present and complete")
    func goldenTableLoads() throws {
        let rows = try GoldenRow.load()
        #expect(rows.count == 297)
        let unchecked = Set(rows.map(\.policy)).subtracting(Parity.exact)
        #expect(unchecked.isEmpty, "golden rows for policies held to no parity: \(unchecked.sorted())")
    }

    @Test("miss counts", arguments: Parity.rows)
    func missCounts(_ row: GoldenRow) throws {
        for trace in row.traces {
            let result = try Replay.run(ReplayJob(trace: trace, policy: row.policy, capacity: row.cacheSize,
                                                  ignoreSize: !row.bytesMode))
            #expect(result.requests == row.requests, "\(trace.path)")
            #expect(result.misses == row.misses, "\(trace.path)")
            #expect(result.counters.byteRequests - result.counters.byteHits == row.byteMisses, "\(trace.path)")
        }
    }
}
