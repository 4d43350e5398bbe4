@testable import EvictionPolicies
import Testing
import TestSupport

/// libCacheSim 0.3.5's SLRU.c (`v0 == false`) and SLRUv0.c (`v0 == true`) over arrays: segment
/// 0 is the lowest, each array newest first. O(n) per request.
struct SLRUModel: ResearchModel {
    var segments: [[Int]]
    var costs: [Int: Int] = [:]
    let capacity: Int
    let segmentCapacity: Int
    let v0: Bool

    init(capacity: Int, segments n: Int, v0: Bool) {
        self.capacity = capacity
        segmentCapacity = capacity / n
        segments = Array(repeating: [], count: n)
        self.v0 = v0
    }

    func segmentCost(_ i: Int) -> Int { sumCost(segments[i], costs) }
    func segment(of key: Int) -> Int? { segments.firstIndex { $0.contains(key) } }

    /// The tail of the lowest non-empty segment leaves the cache.
    mutating func evictLowest(_ evicted: inout [Int]) {
        guard let i = segments.firstIndex(where: { !$0.isEmpty }) else { return }
        let key = segments[i].removeLast()
        costs[key] = nil
        evicted.append(key)
    }

    /// SLRU.c: while segment `i` is over its share, its tail goes down one; segment 0 evicts.
    mutating func cool(_ i: Int, _ evicted: inout [Int]) {
        while segmentCost(i) > segmentCapacity {
            if i == 0 { evictLowest(&evicted); continue }
            segments[i - 1].insert(segments[i].removeLast(), at: 0)
            cool(i - 1, &evicted)
        }
    }

    /// SLRUv0.c: segment `i` pushes tails down (segment 0 evicts) until `cost` more fits.
    mutating func makeRoom(_ i: Int, for cost: Int, _ evicted: inout [Int]) {
        while !segments[i].isEmpty && segmentCost(i) + cost > segmentCapacity {
            if i == 0 { evictLowest(&evicted); continue }
            let tail = segments[i].removeLast()
            makeRoom(i - 1, for: costs[tail] ?? 0, &evicted)
            segments[i - 1].insert(tail, at: 0)
        }
    }

    mutating func access(_ key: Int, cost: Int) -> (hit: Bool, evicted: [Int]) {
        var evicted: [Int] = []
        if let i = segment(of: key) {
            if i == segments.count - 1 {
                // SLRU.c refreshes the entry; SLRUv0.c leaves the top segment untouched.
                if !v0 { segments[i].removeAll { $0 == key }; segments[i].insert(key, at: 0) }
            } else if v0 {
                segments[i].removeAll { $0 == key }
                makeRoom(i + 1, for: costs[key] ?? 0, &evicted)
                segments[i + 1].insert(key, at: 0)
            } else {
                segments[i].removeAll { $0 == key }
                segments[i + 1].insert(key, at: 0)
                cool(i + 1, &evicted)
            }
            return (true, evicted)
        }
        guard cost <= capacity, cost <= segmentCapacity else { return (false, []) }
        while totalCost > 0 && totalCost + cost > capacity { evictLowest(&evicted) }
        let target = segments.indices.first { segmentCost($0) + cost <= segmentCapacity } ?? 0
        // SLRUv0.c makes room in segment 0 when no segment has any; SLRU.c lets segment 0 run over.
        while v0 && count > 0 && segmentCost(target) + cost > segmentCapacity { evictLowest(&evicted) }
        segments[target].insert(key, at: 0)
        costs[key] = cost
        return (false, evicted)
    }

    mutating func remove(_ key: Int) -> [Int] {
        for i in segments.indices { segments[i].removeAll { $0 == key } }
        costs[key] = nil
        return []
    }

    func contains(_ key: Int) -> Bool { costs[key] != nil }
    func cost(of key: Int) -> Int? { costs[key] }
    var count: Int { costs.count }
    var totalCost: Int { costs.values.reduce(0, +) }
}

@Suite("SLRU and SLRUv0 (libCacheSim 0.3.5 SLRU.c, SLRUv0.c)")
struct SLRUCacheTests {
    @Test("a hit that demotes a larger entry into a full segment 0 evicts (capacity 8, 4 segments of 2)")
    func hitEvicts() throws {
        var slru = try SLRUCache<Int, Void>.make(capacity: 8)
        var v0 = try SLRUv0Cache<Int, Void>.make(capacity: 8)
        var observer = EvictionRecorder<Int, Void>()
        for (key, cost) in [(1, 1), (2, 2), (3, 1)] {   // y = 1 → S0; z = 2 → S1 (no room in S0); x = 3 → S0
            _ = slru.access(key, cost: cost, orInsert: (), observer: &observer)
            _ = v0.access(key, cost: cost, orInsert: (), observer: &observer)
        }
        #expect(observer.take() == [])
        #expect(listKeys(slru.segments.lists[0], slru.store) == [3, 1] && listKeys(slru.segments.lists[1], slru.store) == [2])
        // Hit x: x goes up to S1, z (cost 2) comes down to S0, which evicts y to fit it.
        #expect(slru.access(3, cost: 1, orInsert: (), observer: &observer))
        #expect(observer.take() == [1])
        #expect(v0.access(3, cost: 1, orInsert: (), observer: &observer))
        #expect(observer.take() == [1])
        for cache in [listKeys(slru.segments.lists[0], slru.store), listKeys(v0.segments.lists[0], v0.store)] { #expect(cache == [2]) }
        #expect(listKeys(slru.segments.lists[1], slru.store) == [3] && listKeys(v0.segments.lists[1], v0.store) == [3])
    }

    @Test("SLRU refreshes a top-segment hit and demotes after promoting; SLRUv0 does neither (capacity 8, 2 segments)")
    func topSegmentAndOrder() throws {
        var slru = try SLRUCache<Int, Void>.make(capacity: 8, options: ["segments": "2"])
        // libCacheSim's parameter name, in any case, reaches the same parameter.
        let options = try PolicyOptions(["N-Seg": "2"]).resolvingAliases(of: SLRUv0Cache<Int, Void>.descriptor)
        #expect(options.values == ["segments": "2"])
        var v0 = try SLRUv0Cache<Int, Void>(limits: CacheLimits(capacity: 8), options: options)
        var observer = EvictionRecorder<Int, Void>()
        for key in 1...8 {  // 1–4 fill S0, 5–8 fill S1 (the lowest segment with room)
            _ = slru.access(key, cost: 1, orInsert: (), observer: &observer)
            _ = v0.access(key, cost: 1, orInsert: (), observer: &observer)
        }
        #expect(listKeys(slru.segments.lists[1], slru.store) == [8, 7, 6, 5])
        _ = slru.access(5, cost: 1, orInsert: (), observer: &observer)  // top hit: 5 to the head
        _ = v0.access(5, cost: 1, orInsert: (), observer: &observer)    // top hit: nothing moves
        #expect(listKeys(slru.segments.lists[1], slru.store) == [5, 8, 7, 6])
        #expect(listKeys(v0.segments.lists[1], v0.store) == [8, 7, 6, 5])
        _ = slru.access(1, cost: 1, orInsert: (), observer: &observer)  // 1 up; then S1's tail 6 down
        _ = v0.access(1, cost: 1, orInsert: (), observer: &observer)    // room first: S1's tail 5 down, then 1 up
        #expect(observer.take() == [])
        #expect(listKeys(slru.segments.lists[0], slru.store) == [6, 4, 3, 2] && listKeys(slru.segments.lists[1], slru.store) == [1, 5, 8, 7])
        #expect(listKeys(v0.segments.lists[0], v0.store) == [5, 4, 3, 2] && listKeys(v0.segments.lists[1], v0.store) == [1, 8, 7, 6])
    }

    @Test("matches the array model on random sequences", arguments: [1, 2, 3, 4, 5, 6, 7, 8] as [UInt64])
    func differential(seed: UInt64) throws {
        var rng = SeededRandom(seed: seed &* 104_729)
        let capacity = Int.random(in: 4...80, using: &rng)
        let n = Int.random(in: 1...5, using: &rng)
        let bytes = seed % 2 == 0
        let operations = Scenario.uniform(keySpace: Int.random(in: 8...3 * capacity, using: &rng), maxCost: bytes ? max(1, capacity / (2 * n)) : 1, mixedOperations: false, seed: seed)
        var slru = try SLRUCache<Int, Int>.make(capacity: capacity, options: ["segments": "\(n)"])
        var model = SLRUModel(capacity: capacity, segments: n, v0: false)
        expectSameDecisions(&slru, &model, operations, label: "slru c=\(capacity) n=\(n)")
        var v0 = try SLRUv0Cache<Int, Int>.make(capacity: capacity, options: ["segments": "\(n)"])
        var v0Model = SLRUModel(capacity: capacity, segments: n, v0: true)
        expectSameDecisions(&v0, &v0Model, operations, label: "slruv0 c=\(capacity) n=\(n)")
    }
}
