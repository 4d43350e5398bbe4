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

    func job(_ trace: TraceSpec, policy: String, options: [String: String] = [:]) -> ReplayJob {
        ReplayJob(trace: trace, policy: policy, capacity: cacheSize, ignoreSize: !bytesMode,
                  options: PolicyOptions(options))
    }
}

@Suite("Parity with libCacheSim 0.3.5 (Traces/golden-libcachesim-0.3.5*.tsv)")
struct GoldenParity035Tests {
    static let gdsfRows = (try? Golden035Row.deterministic("gdsf")) ?? []
    static let randomRows = (try? Golden035Row.randomized("random")) ?? []
    /// The random rows `swift test` replays (8 seeds each, so a debug build's minute is spent on
    /// the four smaller traces); `Scripts/parity-randomized.sh random` checks all 27 with a release build.
    static let smallTraces: Set = ["lirs-cs.csv", "lirs-gli.csv", "lirs-ps.csv", "lirs-multi2.csv"]

    @Test("every gdsf and random row of the tables is loaded")
    func tablesLoad() {
        #expect(Self.gdsfRows.count == 27)
        #expect(Self.randomRows.count == 27)
    }

    /// On the binary cloudPhysicsIO only: GoldenParityTests proves its CSV copy reads as the same requests.
    @Test("gdsf miss counts are libCacheSim's exactly", arguments: gdsfRows)
    func gdsf(_ row: Golden035Row) throws {
        let result = try Replay.run(row.job(row.binaryOrCSV, policy: "gdsf"))
        #expect(result.requests == row.requests)
        #expect(Double(result.misses) == row.misses)
        #expect(result.counters.byteRequests - result.counters.byteHits == row.byteMisses)
    }

    @Test("random: the mean over seeds 1–8 falls within libCacheSim's range",
          arguments: randomRows.filter { smallTraces.contains($0.trace) })
    func random(_ row: Golden035Row) throws {
        try row.expectMeanInRange(policy: "random")
    }

    /// libCacheSim's WTinyLFU.c passes main's capacity (99 % of the cache, an `int64_t`) to its
    /// sketch as an `int`, which wraps from 2^31 bytes. Misses from `lcs_exact` 0.3.5 on
    /// Traces/image-feed.csv converted to oracleGeneral (`cachebench convert`): below the wrap,
    /// within it (a negative entry count, the smallest filter), and past 2^32 (a positive one).
    @Test("wtinylfu's sketch size wraps as libCacheSim's int does past 2^31 bytes of main cache",
          arguments: [(2_000_000_000, 32_678), (2_500_000_000, 31_683), (4_000_000_000, 27_341), (5_000_000_000, 24_711)])
    func wtinylfuSketchSizeWraps(capacity: Int, misses: Int) throws {
        let result = try Replay.run(ReplayJob(trace: TraceSpec(path: Repository.trace("image-feed.csv")),
                                              policy: "wtinylfu", capacity: capacity))
        #expect(result.misses == misses)
    }
}
