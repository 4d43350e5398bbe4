import CacheBench
import Testing

/// The policies whose every row of Traces/golden-libcachesim-0.3.5.tsv must match exactly, by
/// libCacheSim's algorithm names (resolved through the registry's aliases, as a user would type them).
enum Parity035 {
    static let exact: Set<String> = [
        "lru", "fifo", "clock", "sieve", "lfu", "arc", "twoq", "lirs",
        "s3fifo", "s3fifov0", "slru", "slruv0",
    ]

    static var rows: [GoldenRow] {
        ((try? GoldenRow.load("golden-libcachesim-0.3.5.tsv")) ?? []).filter { exact.contains($0.algorithm) }
    }
}

@Suite("Parity with libCacheSim 0.3.5 (Traces/golden-libcachesim-0.3.5.tsv)")
struct GoldenParity035Tests {
    @Test("the 0.3.5 table is present and has every policy under test")
    func tableLoads() throws {
        let rows = try GoldenRow.load("golden-libcachesim-0.3.5.tsv")
        #expect(rows.count == 723)
        #expect(Set(rows.map(\.algorithm)).isSuperset(of: Parity035.exact))
    }

    @Test("misses and byte misses", arguments: Parity035.rows)
    func missCounts(_ row: GoldenRow) throws {
        for trace in row.traces {
            let result = try Replay.run(ReplayJob(trace: trace, policy: row.algorithm, capacity: row.cacheSize,
                                                  ignoreSize: !row.bytesMode))
            #expect(result.requests == row.requests, "\(trace.path)")
            #expect(result.misses == row.misses, "\(trace.path)")
            #expect(result.counters.byteRequests - result.counters.byteHits == row.byteMisses, "\(trace.path)")
        }
    }
}
