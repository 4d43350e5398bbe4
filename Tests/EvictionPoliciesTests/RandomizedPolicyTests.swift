import EvictionPolicies
import TestSupport
import Testing

// The randomized libCacheSim policies: hand-worked vectors (exact where the rule is, as
// probabilities where a draw decides), degenerate parameters against the single-list reference
// model, and reproducibility by seed.

/// In a cache of two entries, the share of evictions that take the older (less recently used)
/// one, over `rounds` misses on fresh keys.
private func shareEvictingOlder<P: EvictionPolicy>(_ type: P.Type, options: [String: String], rounds: Int = 4_000)
    throws -> Double where P.Key == Int, P.Value == Int {
    var cache = try P.make(countLimit: 2, options: options)
    var observer = EvictionRecorder<Int, Int>()
    _ = cache.access(0, cost: 1, orInsert: 0, observer: &observer)
    _ = cache.access(1, cost: 1, orInsert: 1, observer: &observer)
    var (older, newer) = (0, 1)
    var olderEvicted = 0
    for key in 2..<(rounds + 2) {
        _ = cache.access(key, cost: 1, orInsert: key, observer: &observer)
        let evicted = observer.take()
        #expect(evicted.count == 1 && (evicted[0] == older || evicted[0] == newer))
        if evicted.first == older { olderEvicted += 1; older = newer }
        newer = key
    }
    return Double(olderEvicted) / Double(rounds)
}

/// The same keys, operations and seed, twice, give the same evictions; another seed other ones.
private func expectReproducible<P: EvictionPolicy>(_ type: P.Type, options: [String: String] = [:])
    throws where P.Key == Int, P.Value == Int {
    func evictions(seed: Int) throws -> [Int] {
        var cache = try P.make(countLimit: 50, options: options.merging(["seed": "\(seed)"]) { $1 })
        var observer = EvictionRecorder<Int, Int>()
        var random = SeededRandom(seed: 7)
        for i in 0..<5_000 {
            let key = min(Int.random(in: 0..<400, using: &random), Int.random(in: 0..<400, using: &random))
            _ = cache.access(key, cost: 1, orInsert: i, observer: &observer)
            #expect(cache.count <= 50)
        }
        return observer.evicted
    }
    let first = try evictions(seed: 1)
    #expect(first.count > 1_000)
    #expect(first == (try evictions(seed: 1)))
    #expect(first != (try evictions(seed: 2)))
}

/// Scenarios against the single-list reference (gets, sets, lookups, removes, costs, count limits).
private func expectLikeList<P: EvictionPolicy>(_ type: P.Type, _ rule: ReferenceListCache.Rule,
                                               options: [String: String], label: String) throws
    where P.Key == Int, P.Value == Int {
    for seed: UInt64 in 1...12 {
        let scenario = Scenario.drawn(seed: seed, length: 1_500)
        let model = ReferenceListCache(rule: rule, capacity: scenario.capacity, countLimit: scenario.countLimit ?? .max)
        try expectSameDecisions(P.self, model, scenario, options: options, label: label)
    }
}

@Suite("RandomTwo")
struct RandomTwoTests {
    @Test("of two residents the older goes 3 times in 4: both draws must pick the newer to spare it")
    func twoChoices() throws {
        let share = try shareEvictingOlder(RandomTwoCache<Int, Int>.self, options: [:])
        #expect((0.72...0.78).contains(share), "\(share)")
    }

    @Test("a seed fixes the evictions") func seeded() throws { try expectReproducible(RandomTwoCache<Int, Int>.self) }
}

@Suite("RandomLRU")
struct RandomLRUTests {
    @Test("of two residents the older goes with probability 1 - 2^-k for k samples", arguments: [1, 2, 3])
    func samples(_ k: Int) throws {
        let share = try shareEvictingOlder(RandomLRUCache<Int, Int>.self, options: ["n-samples": "\(k)"])
        let expected = 1 - 1 / Double(1 << k)
        #expect(abs(share - expected) < 0.03, "\(share) for \(k) samples, expected \(expected)")
    }

    @Test("a seed fixes the evictions") func seeded() throws { try expectReproducible(RandomLRUCache<Int, Int>.self) }

    @Test("libCacheSim's n-sample alias and a bad sample count")
    func parameters() throws {
        #expect(RandomLRUCache<Int, Int>.descriptor.parameters.contains { $0.aliases.contains("n-sample") })
        #expect(throws: PolicyConfigurationError.self) { try RandomLRUCache<Int, Int>.make(countLimit: 2, options: ["n-samples": "0"]) }
    }
}

@Suite("LRU-prob")
struct LRUProbTests {
    @Test("prob=1 promotes every hit: exactly LRU")
    func alwaysPromotes() throws {
        try expectLikeList(LRUProbCache<Int, Int>.self, .lru, options: ["prob": "1"], label: "lru-prob prob=1")
    }

    @Test("a vanishing prob never promotes: exactly FIFO")
    func neverPromotes() throws {
        try expectLikeList(LRUProbCache<Int, Int>.self, .fifo, options: ["prob": "0.000000001"], label: "lru-prob prob=1e-9")
    }

    @Test("prob=0.5 (threshold 2) and prob=0.4 (threshold 2, as libCacheSim truncates 1/prob) spare a hit entry half the time")
    func halfTheHits() throws {
        for prob in ["0.5", "0.4"] {
            // Two residents: hit the older, then miss. Promoted, the newer goes; otherwise the hit one.
            var cache = try LRUProbCache<Int, Int>.make(countLimit: 2, options: ["prob": prob])
            var observer = EvictionRecorder<Int, Int>()
            var (older, newer) = (0, 1)
            _ = cache.access(older, cost: 1, orInsert: 0, observer: &observer)
            _ = cache.access(newer, cost: 1, orInsert: 1, observer: &observer)
            var spared = 0
            for key in 2..<4_002 {
                #expect(cache.access(older, cost: 1, orInsert: -1, observer: &observer))
                _ = cache.access(key, cost: 1, orInsert: key, observer: &observer)
                if observer.take() == [newer] { spared += 1 } else { older = newer }
                newer = key
            }
            #expect(abs(Double(spared) / 4_000 - 0.5) < 0.03, "prob \(prob): \(spared) of 4000")
        }
    }

    @Test("a seed fixes the evictions") func seeded() throws { try expectReproducible(LRUProbCache<Int, Int>.self) }
}

@Suite("FIFO-Merge")
struct FIFOMergeTests {
    @Test("n-exam 4, n-keep 1: a round scores four objects by frequency and evicts the lowest two")
    func rounds() throws {
        var cache = try FIFOMergeCache<Int, Int>.make(countLimit: 5, options: ["n-exam": "4", "n-keep": "1"])
        var observer = EvictionRecorder<Int, Int>()
        for key in 1...5 { _ = cache.access(key, cost: 1, orInsert: key, observer: &observer) }
        for (key, hits) in [(1, 3), (2, 2), (4, 1)] {
            for _ in 0..<hits { #expect(cache.access(key, cost: 1, orInsert: -1, observer: &observer)) }
        }
        // Round 1 examines 1 2 3 4 (frequencies 3 2 0 1): evicts 3, then 4; the round then ends
        // (libCacheSim checks the position after incrementing it).
        _ = cache.access(6, cost: 1, orInsert: 6, observer: &observer)
        #expect(observer.take() == [3])
        _ = cache.access(7, cost: 1, orInsert: 7, observer: &observer)
        #expect(observer.take() == [4])
        // Round 2 goes on from 5 toward the head (5 6 7), wraps to the tail (1): two of 5 6 7 go.
        _ = cache.access(8, cost: 1, orInsert: 8, observer: &observer)
        _ = cache.access(9, cost: 1, orInsert: 9, observer: &observer)
        let evicted = observer.take()
        #expect(evicted.count == 2 && Set(evicted).count == 2 && Set(evicted).isSubset(of: [5, 6, 7]), "\(evicted)")
        #expect(cache.contains(1) && cache.contains(2) && cache.contains(8) && cache.contains(9) && cache.count == 5)
    }

    @Test("no more residents than n-exam: exactly FIFO")
    func smallIsFIFO() throws {
        try expectLikeList(FIFOMergeCache<Int, Int>.self, .fifo, options: ["n-exam": "1000"], label: "fifo-merge")
    }

    @Test("removed examined objects are skipped, never evicted twice, and the limits hold")
    func removesDuringRounds() throws {
        var cache = try FIFOMergeCache<Int, Int>.make(countLimit: 30, options: ["n-exam": "8", "n-keep": "2"])
        var observer = EvictionRecorder<Int, Int>()
        var random = SeededRandom(seed: 3)
        var resident = Set<Int>()
        for i in 0..<20_000 {
            let key = Int.random(in: 0..<90, using: &random)
            if Int.random(in: 0..<5, using: &random) == 0 {
                #expect((cache.remove(key, observer: &observer) != nil) == resident.contains(key))
                resident.remove(key)
            } else if !cache.access(key, cost: 1, orInsert: i, observer: &observer) {
                resident.insert(key)
            }
            for gone in observer.take() { #expect(resident.remove(gone) != nil, "evicted \(gone), not resident") }
            #expect(cache.count == resident.count && cache.count <= 30)
        }
        #expect(observer.contractViolations.isEmpty)
    }

    @Test("retain-policy recency and none run; belady is refused")
    func retainPolicies() throws {
        for policy in ["recency", "none", "FREQUENCY"] {
            var cache = try FIFOMergeCache<Int, Int>.make(countLimit: 20, options: ["retain-policy": policy, "n-exam": "10"])
            var observer = EvictionRecorder<Int, Int>()
            for i in 0..<500 { _ = cache.access(i % 60, cost: 1, orInsert: i, observer: &observer) }
            #expect(cache.count == 20 && observer.evicted.count >= 40, "\(policy)")
        }
        #expect(throws: PolicyConfigurationError.self) {
            try FIFOMergeCache<Int, Int>.make(countLimit: 2, options: ["retain-policy": "belady"])
        }
    }

    @Test("a seed fixes the evictions") func seeded() throws { try expectReproducible(FIFOMergeCache<Int, Int>.self, options: ["n-exam": "10"]) }
}
