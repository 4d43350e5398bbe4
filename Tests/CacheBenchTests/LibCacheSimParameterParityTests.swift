import CacheBench
import EvictionPolicies
import Testing
import TestSupport

/// libCacheSim 0.3.5 parameter strings taken as they are, with libCacheSim's miss counts. The
/// counts were derived with `lcs_exact` (built by `../shared/tools/build-libcachesim.sh` from the
/// PyPI `libcachesim` 0.3.5 source distribution) on Traces/cloudPhysicsIO.oracleGeneral.bin,
/// objects mode: `lcs_exact TRACE ALGO SIZE 1 PARAMS`.
@Suite("libCacheSim parameters (init-freq, p, seg-size, main-cache) with libCacheSim's miss counts")
struct LibCacheSimParameterParityTests {
    struct Row: Sendable, CustomTestStringConvertible {
        var policy: String
        var parameters: [String: String]
        var capacity: Int
        var misses: Int
        var testDescription: String { "\(policy) \(parameters) \(capacity)" }
    }

    static let rows: [Row] = [
        Row(policy: "clock", parameters: ["init-freq": "1"], capacity: 500, misses: 95_592),
        Row(policy: "clock", parameters: ["init-freq": "1"], capacity: 5_000, misses: 91_486),
        Row(policy: "clock", parameters: ["init-freq": "3", "n-bit-counter": "2"], capacity: 500, misses: 95_748),
        Row(policy: "clock", parameters: ["init-freq": "3", "n-bit-counter": "2"], capacity: 5_000, misses: 91_489),
        Row(policy: "clock", parameters: ["init-freq": "5"], capacity: 500, misses: 96_221),
        Row(policy: "clock", parameters: ["init-freq": "5"], capacity: 5_000, misses: 91_535),
        Row(policy: "car", parameters: ["p": "100"], capacity: 500, misses: 94_188),
        Row(policy: "car", parameters: ["p": "100"], capacity: 5_000, misses: 87_875),
        Row(policy: "car", parameters: ["p": "2000"], capacity: 5_000, misses: 88_083),
        Row(policy: "slru", parameters: ["seg-size": "1:4"], capacity: 500, misses: 94_509),
        Row(policy: "slru", parameters: ["seg-size": "1:4"], capacity: 5_000, misses: 89_705),
        Row(policy: "slru", parameters: ["seg-size": "1:1:2"], capacity: 500, misses: 94_579),
        Row(policy: "slru", parameters: ["seg-size": "1:1:2"], capacity: 5_000, misses: 89_648),
        Row(policy: "slru", parameters: ["seg-size": "3:1"], capacity: 500, misses: 94_740),
        Row(policy: "slru", parameters: ["seg-size": "3:1"], capacity: 5_000, misses: 91_599),
        Row(policy: "qdlp", parameters: ["main-cache": "clock2"], capacity: 5_000, misses: 84_738),
        Row(policy: "s3fifod", parameters: ["main-cache": "Clock2"], capacity: 500, misses: 94_330),
        Row(policy: "wtinylfu", parameters: ["main-cache": "slru"], capacity: 5_000, misses: 88_109),
    ]

    @Test("misses are libCacheSim's exactly", arguments: rows)
    func parity(_ row: Row) throws {
        let job = ReplayJob(trace: TraceSpec(path: Repository.trace("cloudPhysicsIO.oracleGeneral.bin")), policy: row.policy,
                            capacity: row.capacity, ignoreSize: true,
                            options: try PolicyOptions(row.parameters).resolvingAliases(of: try PolicyRegistry.policy(named: row.policy).descriptor))
        let result = try Replay.run(job)
        #expect(result.requests == 113_872)
        #expect(result.misses == row.misses)
    }

    @Test("a main cache libCacheSim has but cachebench does not provide, a CAR target above the capacity: refused")
    func refused() throws {
        for (policy, parameters) in [("qdlp", ["main-cache": "ARC"]), ("wtinylfu", ["main-cache": "LRU"]),
                                     ("car", ["p": "5001"]), ("slru", ["seg-size": "1:0"]), ("slru", ["seg-size": "1:4", "segments": "3"])] {
            let descriptor = try PolicyRegistry.policy(named: policy).descriptor
            let job = ReplayJob(trace: TraceSpec(path: Repository.trace("cloudPhysicsIO.oracleGeneral.bin")), policy: policy,
                                capacity: 5_000, ignoreSize: true, options: try PolicyOptions(parameters).resolvingAliases(of: descriptor))
            #expect(throws: (any Error).self, "\(policy) \(parameters)") { try Replay.run(job) }
        }
    }
}
