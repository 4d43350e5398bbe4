@testable import CacheBench
import EvictionPolicies
import Foundation
import TestSupport
import Testing

@Suite("The key census counted beside the reader")
struct CensusFeedTests {
    @Test("rows gathered without a branch keep exactly the rows marked, in order, through the storage's growth")
    func gatherKeepsTheMarkedRows() {
        var random = SeededRandom(seed: 21)
        var rows = _CensusRows()
        var expected: [(UInt64, UInt32)] = []
        for _ in 0..<30 {
            let batch = (0..<Int.random(in: 0...3_000, using: &random)).map { _ in
                (hash: UInt64.random(in: 0 ... .max, using: &random), size: Int.random(in: 0...Int(UInt32.max) + 9, using: &random),
                 keep: Bool.random(using: &random))
            }
            rows.gather(upTo: batch.count) { hashes, sizes, count in
                for row in batch {
                    hashes[count] = row.hash
                    sizes[count] = UInt32(clamping: row.size)
                    count += row.keep ? 1 : 0
                }
            }
            expected += batch.filter(\.keep).map { ($0.hash, UInt32(clamping: $0.size)) }
            if Bool.random(using: &random) {
                rows.append(hash: 7, size: 3)
                expected.append((7, 3))
            }
        }
        #expect(rows.count == expected.count)
        rows.withRows { hashes, sizes in
            #expect(Array(hashes) == expected.map(\.0))
            #expect(Array(sizes) == expected.map(\.1))
        }
        rows.removeAll()
        #expect(rows.count == 0)
        rows.withRows { hashes, _ in #expect(hashes.isEmpty) }
    }

    @Test("a census fed a batch behind, under the threshold of the last hand-over, ends as the census that counted every row at once: same keys, threshold and counts, through its halvings",
          arguments: [(budget: 200, streamRatio: 0.01), (budget: 1_000, streamRatio: 0.3), (budget: 100_000, streamRatio: 0.05)])
    func fedCensusMatchesDirectCounting(_ budget: Int, _ streamRatio: Double) {
        var random = SeededRandom(seed: UInt64(budget))
        let stream = RequestWindow(sampleRatio: streamRatio)
        let direct = _KeyCensus(ratio: 1, maximumKeys: budget)
        let fedCensus = _KeyCensus(ratio: 1, maximumKeys: budget)
        _ = direct.claim(covering: stream)
        guard let claimed = fedCensus.claim(covering: stream) else { Issue.record("claimed twice"); return }
        let feed = _CensusFeed(claimed)
        let lane = feed.makeLane()
        let keys = (0..<4_000).map { _ in UInt64.random(in: 0 ... .max, using: &random) }
        var all: (hashes: [UInt64], sizes: [Int]) = ([], [])
        for _ in 0..<50 {
            // As the driver: hand over, then the reader gathers the next batch while the lane counts the last.
            lane.handOver?()
            let batch = (0..<Int.random(in: 0...1_200, using: &random)).map { _ in
                (hash: keys[min(Int.random(in: 0..<keys.count, using: &random), Int.random(in: 0..<keys.count, using: &random))],
                 size: Int.random(in: 1...9, using: &random))
            }
            let threshold = feed.threshold
            feed.filling.gather(upTo: batch.count) { hashes, sizes, count in
                for row in batch {
                    hashes[count] = row.hash
                    sizes[count] = UInt32(row.size)
                    count += row.hash <= threshold ? 1 : 0
                }
            }
            lane.apply([])
            all.hashes += batch.map(\.hash)
            all.sizes += batch.map(\.size)
        }
        lane.takeLastHandOver()
        direct.add(hashes: all.hashes, sizes: all.sizes)
        #expect(fedCensus.keys == direct.keys)
        #expect(fedCensus.maxHash == direct.maxHash)
        if budget < 4_000 { #expect(direct.ratio < 1, "the budget should have made the census halve") }
        let (fed, counted) = (fedCensus.groups(keepBelow: nil), direct.groups(keepBelow: nil))
        #expect(fed.map(\.requests) == counted.map(\.requests))
        #expect(fed.map(\.keys) == counted.map(\.keys))
        #expect(fed.map(\.bytes) == counted.map(\.bytes))
    }

    @Test("cv's curve is the same to the request with one thread or two, and through the reader's row-by-row path (a cap past the trace's end) as through its whole-batch path",
          arguments: ["fifo", "s3fifo"])
    func sameCurveWhateverThePath(_ policy: String) throws {
        var random = SeededRandom(seed: 8)
        var text = "timestamp,key,size,op\n"
        for row in 0..<60_000 {
            let key = min(Int.random(in: 0..<30_000, using: &random), Int.random(in: 0..<30_000, using: &random))
            text += "\(row),\(key),\(1 + key % 7),get\n"
        }
        let path = try temporaryFile(text)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let capacities = CapacityList([.size(200), .size(1_000), .size(5_000)])
        let curves = try [(1, nil), (2, nil), (2, 1_000_000)].map { (threads: Int, cap: Int?) in
            try MissRatioCurve.run(trace: TraceSpec(path: path), capacities: capacities, points: nil, ignoreSize: true,
                                   threads: threads, policy: policy,
                                   window: RequestWindow(maxRequests: cap, sampleRatio: 0.05), minimumMiniature: 16)
        }
        for curve in curves.dropFirst() {
            #expect(curve.results.map(\.misses) == curves[0].results.map(\.misses))
            #expect(curve.notes == curves[0].notes)
        }
        #expect(curves[0].notes.contains { $0.contains("control variate") })
    }
}
