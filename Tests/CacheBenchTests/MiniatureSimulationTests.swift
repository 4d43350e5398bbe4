import CacheBench
import EvictionPolicies
import Foundation
import TestSupport
import Testing

/// Skewed requests over `keys` keys, size 1.
private func skewedTrace(seed: UInt64, rows: Int, keys: Int) throws -> String {
    var random = SeededRandom(seed: seed)
    var text = "timestamp,key,size,op\n"
    text.reserveCapacity(rows * 16)
    for row in 0..<rows {
        // The minimum of three uniform draws: key k has probability about 3(1-k/n)^2/n.
        let key = min(Int.random(in: 0..<keys, using: &random), Int.random(in: 0..<keys, using: &random),
                      Int.random(in: 0..<keys, using: &random))
        text += "\(row),\(key),1,get\n"
    }
    return try temporaryFile(text)
}

@Suite("mrc --policy: miniature simulations on a spatial sample")
struct MiniatureSimulationTests {
    @Test("the default ratio is 1 %, raised to keep 10,000 objects")
    func defaultRatio() {
        #expect(MiniatureSimulation.defaultRatio(objects: 5_000_000) == 0.01)
        #expect(MiniatureSimulation.defaultRatio(objects: 100_000) == 0.1)
        #expect(MiniatureSimulation.defaultRatio(objects: 5_000) == 1)
        #expect(MiniatureSimulation.defaultRatio(objects: 0) == 1)
    }

    @Test("--sample 1 is exact: every capacity simulated on the whole trace, as compare")
    func exactAtOne() throws {
        let path = try skewedTrace(seed: 1, rows: 20_000, keys: 4_000)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let capacities = CapacityList([.size(50), .size(400), .size(2000)])
        for policy in ["fifo", "s3fifo", "lru"] {
            let curve = try MissRatioCurve.run(trace: TraceSpec(path: path), capacities: capacities, points: nil, ignoreSize: true,
                                               policy: policy, window: RequestWindow(sampleRatio: 1))
            let exact = try Compare.run(CompareJob(trace: TraceSpec(path: path), policies: [policy], capacities: capacities,
                                                   ignoreSize: true, lruStackDistance: false))
            #expect(curve.results.map(\.counters) == exact.results.map(\.counters), "\(policy)")
            #expect(curve.results.allSatisfy { $0.method == .simulation })
        }
    }

    @Test("each point is the policy on the sample at the scaled capacity (a windowed replay), misses scaled up by the ratio")
    func pointsAreSampledReplays() throws {
        let path = try skewedTrace(seed: 2, rows: 20_000, keys: 8_000)
        defer { try? FileManager.default.removeItem(atPath: path) }
        // 1,000 and 4,000 objects at 25 % are miniatures of 250 and 1,000 objects; 400 objects
        // would be 100, under the floor of 200, so that run samples 50 % (200 / 400).
        let curve = try MissRatioCurve.run(trace: TraceSpec(path: path), capacities: CapacityList([.size(400), .size(1000), .size(4000)]),
                                           points: nil, ignoreSize: true, policy: "clock", window: RequestWindow(sampleRatio: 0.25))
        #expect(curve.results.map { $0.window?.window.sampleRatio } == [0.5, 0.25, 0.25])
        for result in curve.results {
            let ratio = try #require(result.window?.window.sampleRatio)
            let window = RequestWindow(sampleRatio: ratio)
            var job = ReplayJob(trace: TraceSpec(path: path), policy: "clock", capacity: result.capacity, ignoreSize: true)
            job.window = window
            let replayed = try Replay.run(job)
            #expect(result.window?.sampledRequests == replayed.requests && result.window?.sampledHits == replayed.hits)
            #expect(result.window?.sampledCapacity == window.scaled(result.capacity ?? 0) && result.method == .miniatureSimulation)
            // The estimate: the sample's misses over the ratio, of the trace's 20,000 requests.
            #expect(result.requests == 20_000)
            #expect(result.misses == Int((Double(replayed.misses) / ratio).rounded()))
        }
        #expect(curve.notes.contains { $0.contains("miniature simulations on a 25 % spatial sample") })
    }

    @Test("a 20 % sample of 100,000 requests tracks the exact curve within 2 points on average", arguments: ["fifo", "s3fifo"])
    func accuracy(_ policy: String) throws {
        let path = try skewedTrace(seed: 3, rows: 100_000, keys: 20_000)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let capacities = CapacityList([.size(300), .size(1000), .size(4000), .size(10000)])
        let estimate = try MissRatioCurve.run(trace: TraceSpec(path: path), capacities: capacities, points: nil, ignoreSize: true,
                                              policy: policy, window: RequestWindow(sampleRatio: 0.2))
        let exact = try MissRatioCurve.run(trace: TraceSpec(path: path), capacities: capacities, points: nil, ignoreSize: true,
                                           policy: policy, window: RequestWindow(sampleRatio: 1))
        let errors = zip(estimate.results, exact.results).map { abs(($0.missRatio ?? 0) - ($1.missRatio ?? 0)) }
        let mean = errors.reduce(0, +) / Double(errors.count)
        #expect(mean <= 0.02, "\(policy): errors \(errors)")
        // A sample this size is not exact either: the estimate is not the exact curve copied.
        #expect(estimate.results.map(\.counters) != exact.results.map(\.counters))
    }
}
