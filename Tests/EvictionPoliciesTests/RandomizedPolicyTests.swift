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
private func expectReproducible<P: EvictionPolicy>(_ type: P.Type, options: [String: String] = [:], byCost: Bool = false)
    throws where P.Key == Int, P.Value == Int {
    func evictions(seed: Int) throws -> [Int] {
        let options = options.merging(["seed": "\(seed)"]) { $1 }
        var cache = try byCost ? P.make(capacity: 50, options: options) : P.make(countLimit: 50, options: options)
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
                                               options: [String: String], countLimits: Bool = true,
                                               label: String) throws
    where P.Key == Int, P.Value == Int {
    for seed: UInt64 in 1...12 {
        let scenario = Scenario.drawn(seed: seed, length: 1_500, countLimits: countLimits)
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

    @Test("prob=0.5 (threshold 2), prob=0.4 (threshold 2, as libCacheSim truncates 1/prob) and prob=0.2 (threshold 4: libCacheSim's float 0.2 is above 1/5) spare a hit entry as often as the threshold says",
          arguments: [("0.5", 2.0), ("0.4", 2.0), ("0.2", 4.0), ("0.25", 4.0), ("0.1", 9.0)])
    func promotedShare(prob: String, threshold: Double) throws {
        do {
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
            // Each draw promotes with chance 1/threshold; 4000 draws put the share within 3 % of it.
            #expect(abs(Double(spared) / 4_000 - 1 / threshold) < 0.03, "prob \(prob): \(spared) of 4000")
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

@Suite("Hyperbolic")
struct HyperbolicTests {
    @Test("hand-worked: the lowest (hits + 1) / age goes, so a new entry can outlive an old one")
    func rates() throws {
        // 1000 draws among three residents sample every one of them (all but surely).
        var cache = try HyperbolicCache<Int, Int>.make(countLimit: 3, options: ["n-sample": "1000"])
        var observer = EvictionRecorder<Int, Int>()
        for (request, key) in [1, 2, 3, 1, 1, 2].enumerated() {
            _ = cache.access(key, cost: 1, orInsert: request, observer: &observer)
        }
        // Request 7: 1 has 3 requests in 6, 2 has 2 in 5, 3 has 1 in 4: 3 goes.
        _ = cache.access(4, cost: 1, orInsert: 7, observer: &observer)
        #expect(observer.take() == [3])
        // Request 8: 1 has 3/7, 2 has 2/6, 4 has 1/1: 2 goes, not the newcomer.
        _ = cache.access(5, cost: 1, orInsert: 8, observer: &observer)
        #expect(observer.take() == [2])
        #expect(cache.contains(1) && cache.contains(4) && cache.contains(5))
    }

    @Test("a seed fixes the evictions") func seeded() throws { try expectReproducible(HyperbolicCache<Int, Int>.self) }
}

@Suite("BeladySize")
struct BeladySizeTests {
    /// Replays `requests` (key, cost, next request) with their next-request times.
    func replay(_ cache: inout BeladySizeCache<Int, Int>, _ requests: [(Int, Int, Int64)],
                _ observer: inout EvictionRecorder<Int, Int>) -> [Bool] {
        requests.enumerated().map { index, request in
            cache.noteNextAccess(request.2)
            return cache.access(request.0, cost: request.1, orInsert: index, observer: &observer)
        }
    }

    @Test("objects: the farthest next request goes; a hit never requested again leaves")
    func objects() throws {
        var cache = try BeladySizeCache<Int, Int>.make(countLimit: 2, options: ["n-sample": "1000"])
        var observer = EvictionRecorder<Int, Int>()
        let hits = replay(&cache, [(1, 1, 4), (2, 1, 5), (3, 1, 6), (1, 1, .max), (2, 1, 7), (3, 1, .max), (2, 1, .max)],
                          &observer)
        // Request 3: 1 is next wanted at 4, 2 at 5: 2 goes. Request 4 hits 1, never wanted again: it leaves.
        #expect(hits == [false, false, false, true, false, true, true])
        #expect(observer.evicted == [2])
        #expect(cache.count == 0)
    }

    @Test("bytes: size × distance decides, and a miss never requested again still makes room")
    func bytes() throws {
        var cache = try BeladySizeCache<Int, Int>.make(capacity: 10, options: ["n-sample": "1000"])
        var observer = EvictionRecorder<Int, Int>()
        // Request 3 needs 4 more: 1 scores 6 × 97, 2 scores 2 × 47: 1 goes.
        _ = replay(&cache, [(1, 6, 100), (2, 2, 50), (3, 4, 60)], &observer)
        #expect(observer.take() == [1])
        // Request 4 (never again, 9 bytes) evicts 2 then 3 (or 3 then 2) and is not stored.
        _ = replay(&cache, [(4, 9, .max)], &observer)
        #expect(Set(observer.take()) == [2, 3] && cache.count == 0 && cache.totalCost == 0)
    }

    @Test("a seed fixes the evictions")
    func seeded() throws {
        func evictions(seed: Int) throws -> [Int] {
            var cache = try BeladySizeCache<Int, Int>.make(countLimit: 50, options: ["seed": "\(seed)", "n-sample": "4"])
            var observer = EvictionRecorder<Int, Int>()
            var random = SeededRandom(seed: 7)
            let keys = (0..<5_000).map { _ in Int.random(in: 0..<400, using: &random) }
            var next = [Int: Int64]()
            let nextRequest: [Int64] = keys.indices.reversed().map { i in
                defer { next[keys[i]] = Int64(i + 1) }
                return next[keys[i]] ?? .max
            }.reversed()
            for (i, key) in keys.enumerated() {
                cache.noteNextAccess(nextRequest[i])
                _ = cache.access(key, cost: 1, orInsert: i, observer: &observer)
                #expect(cache.count <= 50)
            }
            return observer.evicted
        }
        let (first, again, other) = (try evictions(seed: 1), try evictions(seed: 1), try evictions(seed: 2))
        #expect(first.count > 1_000 && first == again && first != other)
    }
}

@Suite("flashProb")
struct FlashProbTests {
    @Test("every RAM victim written to disk: RAM fills the capacity, then feeds the disk's FIFO")
    func alwaysAdmitted() throws {
        var cache = try FlashProbCache<Int, Int>.make(capacity: 20, options: ["disk-admit-prob": "1", "ram-size-ratio": "0.5"])
        var observer = EvictionRecorder<Int, Int>()
        for key in 1...20 { _ = cache.access(key, cost: 1, orInsert: key, observer: &observer) }
        #expect(observer.evicted.isEmpty && cache.totalCost == 20)
        // 21: moving 1...10 to disk frees nothing; moving 11 pushes 1 out of the disk (10 bytes).
        _ = cache.access(21, cost: 1, orInsert: 21, observer: &observer)
        #expect(observer.take() == [1])
        #expect(cache.access(5, cost: 1, orInsert: -1, observer: &observer))   // a disk hit
        _ = cache.access(22, cost: 1, orInsert: 22, observer: &observer)       // 12 to disk, 2 out
        #expect(observer.take() == [2])
        #expect(cache.contains(5) && cache.contains(12) && cache.extraMetrics.contains(PolicyMetric("diskAdmits", 12)))
    }

    @Test("never written to disk: the RAM list is the whole cache, LRU or FIFO as configured")
    func neverAdmitted() throws {
        let never = "0.000000001"
        try expectLikeList(FlashProbCache<Int, Int>.self, .lru, options: ["disk-admit-prob": never], countLimits: false,
                           label: "flashprob lru")
        try expectLikeList(FlashProbCache<Int, Int>.self, .fifo, options: ["disk-admit-prob": never, "ram-cache": "fifo"],
                           countLimits: false, label: "flashprob fifo")
    }

    @Test("a seed fixes the evictions")
    func seeded() throws { try expectReproducible(FlashProbCache<Int, Int>.self, byCost: true) }
}

@Suite("LeCaR")
struct LeCaRTests {
    /// Entries 1 2 3, then hits on 1 1 2 3: the LRU tail is 1 (frequency 3), the oldest entry of the
    /// lowest frequency (2) is 2.
    func candidatesDiffer(options: [String: String]) throws -> [Int] {
        var cache = try LeCaRCache<Int, Int>.make(capacity: 3, options: options)
        var observer = EvictionRecorder<Int, Int>()
        for (i, key) in [1, 2, 3, 1, 1, 2, 3, 4].enumerated() { _ = cache.access(key, cost: 1, orInsert: i, observer: &observer) }
        return observer.evicted
    }

    @Test("hand-worked: weight 1 on LRU evicts the LRU tail, weight 0 the oldest of the lowest frequency")
    func experts() throws {
        #expect(try candidatesDiffer(options: ["update-weight": "0", "lru-weight": "1"]) == [1])
        #expect(try candidatesDiffer(options: ["update-weight": "0", "lru-weight": "0"]) == [2])
    }

    @Test("fixed weight 1 on LRU: exactly LRU")
    func lruOnly() throws {
        try expectLikeList(LeCaRCache<Int, Int>.self, .lru, options: ["update-weight": "0", "lru-weight": "1"],
                           countLimits: false, label: "lecar lru-weight=1")
    }

    @Test("a seed fixes the evictions") func seeded() throws { try expectReproducible(LeCaRCache<Int, Int>.self, byCost: true) }
}

@Suite("LeCaRv0")
struct LeCaRv0Tests {
    @Test("with objects no larger than half the capacity it decides as LeCaR, draw for draw")
    func sameAsLeCaR() throws {
        var v0 = try LeCaRv0Cache<Int, Int>.make(capacity: 40, options: ["seed": "5"])
        var lecar = try LeCaRCache<Int, Int>.make(capacity: 40, options: ["seed": "5"])
        var (a, b) = (EvictionRecorder<Int, Int>(), EvictionRecorder<Int, Int>())
        var random = SeededRandom(seed: 11)
        for i in 0..<20_000 {
            let key = min(Int.random(in: 0..<300, using: &random), Int.random(in: 0..<300, using: &random))
            let cost = Int.random(in: 1...3, using: &random)
            #expect(v0.access(key, cost: cost, orInsert: i, observer: &a) == lecar.access(key, cost: cost, orInsert: i, observer: &b))
        }
        #expect(a.evicted.count > 1_000 && a.evicted == b.evicted)
    }

    @Test("a seed fixes the evictions") func seeded() throws { try expectReproducible(LeCaRv0Cache<Int, Int>.self, byCost: true) }
}
