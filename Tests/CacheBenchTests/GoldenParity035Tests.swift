import CacheBench
import EvictionPolicies
import Foundation
import Testing
import TestSupport

/// One row of Traces/golden-libcachesim-0.3.5.tsv (deterministic algorithms, exact counts) or of
/// Traces/golden-libcachesim-0.3.5-randomized.tsv (randomized ones: misses over seeds 1–8).
struct Golden035Row: Sendable, CustomTestStringConvertible {
    var trace: String
    var bytesMode: Bool
    var cacheSize: Int
    var algorithm: String
    var requests: Int
    /// Deterministic rows: the misses and byte misses. Randomized rows: the mean misses.
    var misses: Double
    var byteMisses: Int
    /// Randomized rows: the fewest and most misses over the seeds.
    var range: ClosedRange<Int>

    var testDescription: String { "\(algorithm) \(trace) \(bytesMode ? "bytes" : "objects") \(cacheSize)" }

    static func deterministic(_ algorithm: String) throws -> [Golden035Row] {
        try load("golden-libcachesim-0.3.5.tsv", algorithm) { f in
            guard f.count == 9, let requests = Int(f[4]), let misses = Int(f[5]), let bytes = Int(f[8]) else { return nil }
            return (requests, Double(misses), bytes, misses...misses)
        }
    }

    static func randomized(_ algorithm: String) throws -> [Golden035Row] {
        try load("golden-libcachesim-0.3.5-randomized.tsv", algorithm) { f in
            guard f.count == 10, let requests = Int(f[5]), let mean = Double(f[6]), let low = Int(f[8]),
                  let high = Int(f[9]), low <= high else { return nil }
            return (requests, mean, 0, low...high)
        }
    }

    private static func load(_ file: String, _ algorithm: String,
                             _ parse: ([String]) -> (Int, Double, Int, ClosedRange<Int>)?) throws -> [Golden035Row] {
        let text = try String(contentsOfFile: Repository.trace(file), encoding: .utf8)
        return text.split(separator: "\n").dropFirst().compactMap { line in
            let f = line.split(separator: "\t").map(String.init)
            guard f.count >= 4, f[3] == algorithm, let size = Int(f[2]), let (requests, misses, bytes, range) = parse(f)
            else { return nil }
            return Golden035Row(trace: f[0], bytesMode: f[1] == "bytes", cacheSize: size, algorithm: f[3],
                                requests: requests, misses: misses, byteMisses: bytes, range: range)
        }
    }

    /// The binary trace for cloudPhysicsIO, the CSV otherwise.
    var binaryOrCSV: TraceSpec { TraceSpec(path: Repository.trace(trace)) }

    /// For cloudPhysicsIO both the binary and its CSV copy, as GoldenParityTests reads them.
    var everyCopy: [TraceSpec] {
        guard trace.hasPrefix("cloudPhysicsIO") else { return [binaryOrCSV] }
        return [binaryOrCSV, TraceSpec(path: Repository.trace("cloudPhysicsIO.og.csv"),
                                       columns: CSVColumns(time: 0, key: 1, size: 2, operation: nil))]
    }

    func job(_ trace: TraceSpec, policy: String, options: [String: String] = [:]) -> ReplayJob {
        ReplayJob(trace: trace, policy: policy, capacity: cacheSize, ignoreSize: !bytesMode,
                  options: PolicyOptions(options))
    }
}

@Suite("Parity with libCacheSim 0.3.5 (Traces/golden-libcachesim-0.3.5*.tsv)")
struct GoldenParity035Tests {
    static let gdsfRows = (try? Golden035Row.deterministic("gdsf")) ?? []
    static let randomRows = (try? Golden035Row.randomized("random")) ?? []

    @Test("every gdsf and random row of the tables is loaded")
    func tablesLoad() {
        #expect(Self.gdsfRows.count == 27)
        #expect(Self.randomRows.count == 27)
    }

    @Test("gdsf miss counts are libCacheSim's exactly", arguments: gdsfRows)
    func gdsf(_ row: Golden035Row) throws {
        for trace in row.everyCopy {
            let result = try Replay.run(row.job(trace, policy: "gdsf"))
            #expect(result.requests == row.requests, "\(trace.path)")
            #expect(Double(result.misses) == row.misses, "\(trace.path)")
            #expect(result.counters.byteRequests - result.counters.byteHits == row.byteMisses, "\(trace.path)")
        }
    }

    @Test("random: the mean over seeds 1–8 falls within libCacheSim's range", arguments: randomRows)
    func random(_ row: Golden035Row) throws {
        try row.expectMeanInRange(policy: "random")
    }
}
