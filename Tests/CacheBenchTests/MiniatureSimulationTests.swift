@testable import CacheBench
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

    @Test("each point is the policy on the sample at the scaled capacity (a windowed replay), misses scaled up by the ratio (shards)")
    func pointsAreSampledReplays() throws {
        let path = try skewedTrace(seed: 2, rows: 20_000, keys: 8_000)
        defer { try? FileManager.default.removeItem(atPath: path) }
        // 1,000 and 4,000 objects at 25 % are miniatures of 250 and 1,000 objects; 400 objects
        // would be 100, under the floor of 200, so that run samples 50 % (200 / 400).
        let curve = try MissRatioCurve.run(trace: TraceSpec(path: path), capacities: CapacityList([.size(400), .size(1000), .size(4000)]),
                                           points: nil, ignoreSize: true, policy: "clock", window: RequestWindow(sampleRatio: 0.25),
                                           estimator: .shards)
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

    @Test("a loop's cliff falls at the working set: miniatures scale by the sample's own share of it, not the ratio", arguments: ["fifo", "s3fifo", "lru"])
    func loopCliff(_ policy: String) throws {
        // 20,000 keys in a loop, ten times: at the working set only the first pass misses (10 %);
        // 5 % below it FIFO and LRU miss every request. A sample holds 50 % of the keys only on
        // average: a miniature of half the capacity would thrash at the working set about half
        // the time.
        var text = "timestamp,key,size\n"
        for row in 0..<200_000 { text += "\(row),\(row % 20_000),1\n" }
        let path = try temporaryFile(text)
        defer { try? FileManager.default.removeItem(atPath: path) }
        for seed: UInt64 in [0, 1, 2] {
            let curve = try MissRatioCurve.run(trace: TraceSpec(path: path), capacities: CapacityList([.size(19_000), .size(20_000)]),
                                               points: nil, ignoreSize: true, policy: policy,
                                               window: RequestWindow(sampleSeed: seed))
            let ratios = curve.results.map { $0.missRatio ?? -1 }
            #expect(abs(ratios[1] - 0.1) < 0.005, "\(policy) seed \(seed): \(ratios)")
            if policy != "s3fifo" { #expect(ratios[0] > 0.95, "\(policy) seed \(seed): \(ratios)") }
            // LRU's curve is exact (one stack-distance pass): no miniatures.
            if policy != "lru" { #expect(curve.notes.contains { $0.contains("scaled by the sample's share of the working set") }, "\(curve.notes)") }
            // A sampling ratio given, with capacities as fractions of the working set: the working
            // set is read for them, so the miniatures scale by the share too.
            let fractions = try MissRatioCurve.run(trace: TraceSpec(path: path), capacities: CapacityList.parse("100%"),
                                                   points: nil, ignoreSize: true, policy: policy,
                                                   window: RequestWindow(sampleRatio: 0.5, sampleSeed: seed))
            #expect(abs((fractions.results.first?.missRatio ?? -1) - 0.1) < 0.005, "\(policy) seed \(seed): \(fractions.results.map(\.missRatio))")
        }
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

@Suite("mrc --policy: the sampling hash, its seeds and the pure ratio")
struct MiniatureSimulationSeedTests {
    /// The keys of 0..<count that seed `seed` keeps at `ratio`.
    private static func kept(seed: UInt64, ratio: Double, count: Int) throws -> Set<UInt64> {
        let rows = (0..<count).map { Request(time: Double($0), key: UInt64($0), size: 1) }
        var reader = WindowedReader(ArrayTraceReader(rows), window: RequestWindow(sampleRatio: ratio, sampleSeed: seed))
        var batch: [Request] = []
        var kept = Set<UInt64>()
        while try reader.nextBatch(&batch) { for request in batch { kept.insert(request.key) } }
        return kept
    }

    @Test("seed 0 is SplitMix64's finalizer: its first output for state 0 is 0xE220A8397B1DCDAF")
    func defaultHash() {
        // The published first output of SplitMix64 seeded with 0: finalizer(0 + golden gamma).
        #expect(SpatialSample.hash(0) == 0xE220_A839_7B1D_CDAF)
        #expect(SpatialSample.salt(seed: 0) == 0)
        #expect(SpatialSample.hash(12345, salt: SpatialSample.salt(seed: 0)) == SpatialSample.hash(12345))
    }

    @Test("each seed keeps its share of sequential keys, and two seeds' samples overlap as independent draws do")
    func seedsAreIndependentSamples() throws {
        let count = 100_000, ratio = 0.1
        let samples = try (0..<4).map { try Self.kept(seed: UInt64($0), ratio: ratio, count: count) }
        let expected = Double(count) * ratio
        for (seed, sample) in samples.enumerated() {
            // Binomial(count, ratio): within 5 standard deviations.
            #expect(abs(Double(sample.count) - expected) <= 5 * (expected * (1 - ratio)).squareRoot(), "seed \(seed): \(sample.count)")
        }
        // Independent samples share ratio² of the keys (1,000 here), not ratio (10,000) or none.
        let shared = Double(count) * ratio * ratio
        for a in 0..<samples.count {
            for b in (a + 1)..<samples.count {
                let overlap = Double(samples[a].intersection(samples[b]).count)
                #expect(abs(overlap - shared) <= 5 * shared.squareRoot(), "seeds \(a), \(b): \(overlap) keys shared")
            }
        }
    }

    @Test("--min-miniature 0 runs every capacity at the ratio; the default floor raises the small ones")
    func pureRatio() throws {
        let path = try skewedTrace(seed: 4, rows: 20_000, keys: 8_000)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let capacities = CapacityList([.size(100), .size(400), .size(4000)])
        let pure = try MissRatioCurve.run(trace: TraceSpec(path: path), capacities: capacities, points: nil, ignoreSize: true,
                                          policy: "fifo", window: RequestWindow(sampleRatio: 0.25), minimumMiniature: 0)
        #expect(pure.results.map { $0.window?.window.sampleRatio } == [0.25, 0.25, 0.25])
        #expect(pure.results.map { $0.window?.sampledCapacity } == [25, 100, 1000])
        let floored = try MissRatioCurve.run(trace: TraceSpec(path: path), capacities: capacities, points: nil, ignoreSize: true,
                                             policy: "fifo", window: RequestWindow(sampleRatio: 0.25))
        #expect(floored.results.map { $0.window?.window.sampleRatio } == [1, 0.5, 0.25])
        // The largest capacity is the same run either way.
        #expect(pure.results.last?.counters == floored.results.last?.counters)
    }

    @Test("the default floor: 200 objects on a small working set, the policy's own on a large one")
    func defaultFloor() throws {
        let lru = try PolicyRegistry.standard.policy(named: "lru").descriptor
        let arc = try PolicyRegistry.standard.policy(named: "arc").descriptor
        let large = MiniatureSimulation.largeWorkingSet
        #expect(MiniatureSimulation.defaultMinimumMiniature(workingSetObjects: large - 1, descriptor: lru) == 200)
        #expect(MiniatureSimulation.defaultMinimumMiniature(workingSetObjects: large - 1, descriptor: arc) == 200)
        #expect(MiniatureSimulation.defaultMinimumMiniature(workingSetObjects: large, descriptor: lru) == 0)
        #expect(MiniatureSimulation.defaultMinimumMiniature(workingSetObjects: large, descriptor: arc) == 32)
        // Which policies a miniature of any size serves, and the default for the rest.
        for name in ["lru", "fifo", "lifo", "clock"] {
            #expect(try PolicyRegistry.standard.policy(named: name).descriptor.faithfulMiniatureObjects == 0, "\(name)")
        }
        for name in ["s3fifo", "arc", "2q", "lirs", "wtinylfu"] {
            #expect(try PolicyRegistry.standard.policy(named: name).descriptor.faithfulMiniatureObjects == 32, "\(name)")
        }
        #expect(PolicyDescriptor(name: "x", reproduces: "", rule: "", family: .research, faithfulMiniatureObjects: -5)
            .faithfulMiniatureObjects == 0)
    }

    @Test("a large working set, probed from the trace's beginning, takes the policy's floor")
    func probedFloor() throws {
        // Every row a new key: the probe stops once it has seen `largeWorkingSet` of them.
        let rows = MiniatureSimulation.largeWorkingSet * 5 / 4
        var text = "timestamp,key,size,op\n"
        text.reserveCapacity(rows * 20)
        for row in 0..<rows { text += "\(row),\(row),1,get\n" }
        let path = try temporaryFile(text)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let probed = try WorkingSet.measure(TraceSpec(path: path), ignoreSize: true, stoppingAt: MiniatureSimulation.largeWorkingSet)
        #expect(probed.objects >= MiniatureSimulation.largeWorkingSet && probed.objects < rows)
        #expect(try WorkingSet.measure(TraceSpec(path: path), ignoreSize: true).objects == rows)
        let capacities = CapacityList([.size(1_000), .size(10_000)])
        for (policy, ratios) in [("fifo", [0.01, 0.01]), ("arc", [0.032, 0.01])] {
            let curve = try MissRatioCurve.run(trace: TraceSpec(path: path), capacities: capacities, points: nil, ignoreSize: true,
                                               policy: policy, window: RequestWindow(sampleRatio: 0.01))
            let used = curve.results.map { $0.window?.window.sampleRatio ?? 0 }
            #expect(zip(used, ratios).allSatisfy { abs($0 - $1) < 1e-12 }, "\(policy): \(used)")
        }
    }

    @Test("an estimate never has fewer misses (or missed bytes) than a gets-only trace's distinct keys, nor more than its requests")
    func compulsoryMisses() throws {
        for name in ["lirs-gli.csv", "scan.csv", "cache2k-web12.csv"] {
            let trace = TraceSpec(path: Repository.trace(name))
            let objects = try WorkingSet.measure(trace, ignoreSize: true).objects
            for policy in ["lru", "fifo", "arc", "s3fifo"] {
                let curve = try MissRatioCurve.run(trace: trace, capacities: nil, points: 4, ignoreSize: true,
                                                   policy: policy, window: RequestWindow(sampleRatio: 0.01))
                for run in curve.results {
                    #expect(run.misses >= objects && run.misses <= run.requests,
                            "\(name) \(policy) at \(run.capacity ?? 0): \(run.misses) misses, \(objects) keys")
                    // Sizes ignored: bytes are requests, so the floor holds for them alike.
                    #expect(run.counters.byteHits == run.counters.hits && run.counters.byteRequests == run.counters.requests,
                            "\(name) \(policy) at \(run.capacity ?? 0): \(run.counters.byteHits) byte hits, \(run.counters.hits) hits")
                }
            }
        }
    }

    @Test("after sets, a key's first get may hit: no compulsory floor then")
    func setsLiftTheFloor() throws {
        // Each key is set, then got: every get hits a cache that holds them all.
        var text = "timestamp,key,size,op\n"
        for key in 0..<400 { text += "\(key),\(key),1,set\n" }
        for key in 0..<400 { text += "\(400 + key),\(key),1,get\n" }
        let path = try temporaryFile(text)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let curve = try MissRatioCurve.run(trace: TraceSpec(path: path), capacities: CapacityList([.size(1000)]), points: nil,
                                           ignoreSize: true, policy: "fifo", window: RequestWindow(sampleRatio: 0.5),
                                           minimumMiniature: 0)
        let run = try #require(curve.results.first)
        #expect(run.requests == 400)
        #expect(run.misses < 100, "\(run.misses) misses where every get hits")
    }

    @Test("a capacity whose sample holds no measured request has no estimate, and a note says so")
    func emptySample() throws {
        let curve = try MissRatioCurve.run(trace: TraceSpec(path: Repository.trace("zipf.csv")), capacities: CapacityList([.size(1 << 20), .size(1 << 24)]),
                                           points: nil, ignoreSize: false, policy: "fifo",
                                           window: RequestWindow(warmup: .requests(49_990), sampleRatio: 0.01), minimumMiniature: 0)
        for run in curve.results {
            #expect(run.requests == 0 && run.missRatio == nil && run.byteHitRatio == nil)
            #expect(run.window?.traceRequests == 10)
        }
        #expect(curve.notes.contains { $0.contains("2 of 2 capacities have no estimate") }, "\(curve.notes)")
        #expect(curve.notes.contains { $0.contains("(0 of 10 requests)") }, "\(curve.notes)")
    }

    @Test("the working-set counter agrees with a Set, zero included")
    func distinctKeys() {
        var random = SeededRandom(seed: 9)
        for round in 0..<20 {
            var counter = _DistinctKeys(expecting: round * 50)
            var reference = Set<UInt64>()
            let range: UInt64 = round % 2 == 0 ? 300 : .max
            for _ in 0..<(round * 400) {
                let key = UInt64.random(in: 0...range, using: &random)
                #expect(counter.insert(key) == reference.insert(key).inserted)
            }
            #expect(counter.insert(0) == reference.insert(0).inserted)
            #expect(counter.count == reference.count)
        }
    }

    @Test("over many seeds the estimate centres on the exact miss ratio: the error is the sample's variance, not a bias")
    func unbiasedOverSeeds() throws {
        // Independent requests, so the exact curve is smooth and every seed's sample is alike in law.
        let path = try skewedTrace(seed: 5, rows: 60_000, keys: 6_000)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let capacities = CapacityList([.size(600), .size(2400)])
        let trace = TraceSpec(path: path)
        for policy in ["lru", "fifo"] {
            let exact = try MissRatioCurve.run(trace: trace, capacities: capacities, points: nil, ignoreSize: true,
                                               policy: policy, window: RequestWindow(sampleRatio: 1)).results.map { $0.missRatio ?? 0 }
            var estimates: [[Double]] = []
            for seed in 0..<12 as Range<UInt64> {
                let curve = try MissRatioCurve.run(trace: trace, capacities: capacities, points: nil, ignoreSize: true, policy: policy,
                                                   window: RequestWindow(sampleRatio: 0.1, sampleSeed: seed), minimumMiniature: 0)
                estimates.append(curve.results.map { $0.missRatio ?? 0 })
            }
            for point in exact.indices {
                let values = estimates.map { $0[point] }
                let mean = values.reduce(0, +) / Double(values.count)
                let spread = (values.map { ($0 - mean) * ($0 - mean) }.reduce(0, +) / Double(values.count - 1)).squareRoot()
                // The seeds draw different samples, so the estimates differ...
                #expect(spread > 0, "\(policy) at \(point): every seed gave \(mean)")
                // ...and centre on the exact value: the mean of 12 is within 4 of its standard errors (plus 0.2 pp).
                #expect(abs(mean - exact[point]) <= 4 * spread / Double(values.count).squareRoot() + 0.002,
                        "\(policy) at \(point): exact \(exact[point]), mean \(mean), spread \(spread)")
            }
        }
    }
}
