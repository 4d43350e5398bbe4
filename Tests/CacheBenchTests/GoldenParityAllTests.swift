import CacheBench
import Testing

/// Every deterministic policy libCacheSim 0.3.5 and cachebench both have, by libCacheSim's
/// name (resolved through the registry's aliases, as a user types it), exact on every row of
/// Traces/golden-libcachesim-0.3.5.tsv. `gdsf` has its own test in GoldenParity035Tests.
enum DeterministicParity {
    static let algorithms = [
        "lru", "fifo", "clock", "sieve", "lfu", "arc", "twoq", "lirs",
        "belady", "mru", "s3fifo", "s3fifov0", "slru", "slruv0", "size", "lfuda", "lfucpp", "lru-k", "qdlp", "mq", "clock2qplus",
        "s3fifod", "arcv0", "car", "wtinylfu", "clockpro",
    ]
    /// libCacheSim's LFUDA was too slow to finish on the larger traces; the table has what it finished.
    static let rowCounts = ["lfuda": 21]

    static let rows = algorithms.flatMap { (try? Golden035Row.deterministic($0)) ?? [] }
}

@Suite("Parity with libCacheSim 0.3.5, every deterministic policy")
struct GoldenParityAllTests {
    @Test("the table has every row for every policy under test")
    func rowsLoad() throws {
        for algorithm in DeterministicParity.algorithms {
            let expected = DeterministicParity.rowCounts[algorithm] ?? 27
            #expect(try Golden035Row.deterministic(algorithm).count == expected, "\(algorithm)")
        }
    }

    /// One copy of each trace: GoldenParityTests already proves the CSV and binary cloudPhysicsIO agree.
    @Test("misses and byte misses are libCacheSim's exactly", arguments: DeterministicParity.rows)
    func exact(_ row: Golden035Row) throws {
        let result = try Replay.run(row.job(row.binaryOrCSV, policy: row.algorithm))
        #expect(result.requests == row.requests)
        #expect(Double(result.misses) == row.misses)
        #expect(result.counters.byteRequests - result.counters.byteHits == row.byteMisses)
    }
}
