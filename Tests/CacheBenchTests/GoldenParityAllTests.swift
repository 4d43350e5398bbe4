import CacheBench
import Testing

/// Every deterministic policy libCacheSim 0.3.5 and cachebench both have, by libCacheSim's
/// name (resolved through the registry's aliases, as a user types it), exact on the rows of
/// Traces/golden-libcachesim-0.3.5.tsv. `swift test` replays the rows of the four smaller traces
/// (a debug build spends five minutes on all nine); `Scripts/parity.sh`, which CI runs, checks
/// every row with a release build. `gdsf` has its own test in GoldenParity035Tests.
enum DeterministicParity {
    static let algorithms = [
        "lru", "fifo", "clock", "sieve", "lfu", "arc", "twoq", "lirs",
        "belady", "mru", "s3fifo", "s3fifov0", "slru", "slruv0", "size", "lfuda", "lfucpp", "lru-k", "qdlp", "mq", "clock2qplus",
        "s3fifod", "arcv0", "car", "wtinylfu", "clockpro",
    ]
    /// libCacheSim's LFUDA was too slow to finish on the larger traces; the table has what it finished.
    static let rowCounts = ["lfuda": 21]

    static let rows = algorithms.flatMap { (try? Golden035Row.deterministic($0)) ?? [] }
    /// The traces whose rows `swift test` replays: 12 of each policy's 27 rows.
    static let smallTraces: Set = ["lirs-cs.csv", "lirs-gli.csv", "lirs-ps.csv", "lirs-multi2.csv"]
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

    /// One copy of each trace: GoldenParityTests proves the CSV and binary cloudPhysicsIO read alike.
    /// Each (trace, mode) is read once and the policy simulated at every capacity of its rows
    /// (`compare` runs each as `replay` would, which "compare equals separate replays" proves;
    /// LRU's one-pass profile is off, so every row is a simulation).
    @Test("misses and byte misses are libCacheSim's exactly", arguments: DeterministicParity.algorithms)
    func exact(_ algorithm: String) throws {
        let rows = DeterministicParity.rows.filter {
            $0.algorithm == algorithm && DeterministicParity.smallTraces.contains($0.trace)
        }
        #expect(rows.count == 12)
        let groups = Dictionary(grouping: rows) { "\($0.trace) \($0.bytesMode)" }
        for key in groups.keys.sorted() {
            let group = groups[key] ?? []
            guard let first = group.first else { continue }
            let job = CompareJob(trace: first.binaryOrCSV, policies: [algorithm],
                                 capacities: CapacityList(group.map { .size($0.cacheSize) }),
                                 ignoreSize: !first.bytesMode, lruStackDistance: false, threads: 1)
            let results = try Compare.run(job).results
            #expect(results.count == group.count, "\(key)")
            for row in group {
                let result = try #require(results.first { $0.capacity == row.cacheSize }, "\(row.testDescription)")
                #expect(result.requests == row.requests, "\(row.testDescription)")
                #expect(Double(result.misses) == row.misses, "\(row.testDescription)")
                #expect(result.counters.byteRequests - result.counters.byteHits == row.byteMisses, "\(row.testDescription)")
            }
        }
    }
}
