@testable import EvictionPolicies
import TestSupport
import Testing

/// libCacheSim's TwoQ.c (aa0fc40) transcribed onto arrays, newest first; sizes in cost units.
struct TwoQModel: ResearchModel {
    let capacity: Int, inCapacity: Int, outCapacity: Int, mainCapacity: Int
    var a1in: [Int] = [], am: [Int] = [], a1out: [Int] = []
    var costs: [Int: Int] = [:], ghostCosts: [Int: Int] = [:]

    init(capacity: Int, inRatio: Double = 0.25, outRatio: Double = 0.5) {
        self.capacity = capacity
        inCapacity = Int(Double(capacity) * inRatio)
        outCapacity = Int(Double(capacity) * outRatio)
        mainCapacity = capacity - inCapacity
    }

    var count: Int { a1in.count + am.count }
    var totalCost: Int { sumCost(a1in, costs) + sumCost(am, costs) }
    func contains(_ key: Int) -> Bool { a1in.contains(key) || am.contains(key) }
    func cost(of key: Int) -> Int? { costs[key] }

    mutating func access(_ key: Int, cost: Int) -> (hit: Bool, evicted: [Int]) {
        if a1in.contains(key) { return (true, []) }
        if let i = am.firstIndex(of: key) {
            am.insert(am.remove(at: i), at: 0)
            return (true, [])
        }
        guard cost <= capacity else { return (false, []) }
        let ghostHit = a1out.contains(key)
        a1out.removeAll { $0 == key }
        ghostCosts[key] = nil
        guard cost <= inCapacity else { return (false, []) }
        var evicted: [Int] = []
        while totalCost + cost > capacity && count > 0 {
            if sumCost(a1in, costs) > inCapacity || am.isEmpty {
                let old = a1in.removeLast()
                evicted.append(old)
                let oldCost = costs.removeValue(forKey: old)!
                if oldCost <= outCapacity {
                    a1out.insert(old, at: 0)
                    ghostCosts[old] = oldCost
                    while sumCost(a1out, ghostCosts) > outCapacity { ghostCosts[a1out.removeLast()] = nil }
                }
            } else {
                let old = am.removeLast()
                evicted.append(old)
                costs[old] = nil
            }
        }
        if ghostHit {
            guard cost <= mainCapacity else { return (false, evicted) }
            while sumCost(am, costs) + cost > mainCapacity && !am.isEmpty {
                let old = am.removeLast()
                evicted.append(old)
                costs[old] = nil
            }
            am.insert(key, at: 0)
        } else {
            a1in.insert(key, at: 0)
        }
        costs[key] = cost
        return (false, evicted)
    }

    mutating func remove(_ key: Int) -> [Int] {
        a1in.removeAll { $0 == key }
        am.removeAll { $0 == key }
        a1out.removeAll { $0 == key }
        costs[key] = nil
        ghostCosts[key] = nil
        return []
    }
}

@Suite("2Q (libCacheSim aa0fc40)")
struct TwoQCacheTests {
    typealias Cache = TwoQCache<Int, Void>

    func access(_ cache: inout Cache, _ key: Int, _ observer: inout EvictionRecorder<Int, Void>) -> Bool {
        cache.access(key, cost: 1, orInsert: (), observer: &observer)
    }

    @Test("queue sizes: A1in = floor(25 %), A1out = floor(50 %), Am = the rest")
    func sizes() throws {
        let cache = try Cache.make(capacity: 30)
        #expect(cache.inCapacity == 7 && cache.outCapacity == 15 && cache.mainCapacity == 23)
    }

    // c = 4: A1in 1, A1out 2, Am 3. Lists newest first.
    @Test("Q1: A1in is a FIFO whose evictees are remembered in A1out; an A1out hit enters Am")
    func flow() throws {
        var cache = try Cache.make(capacity: 4)
        var o = EvictionRecorder<Int, Void>()
        for key in 1...4 { _ = access(&cache, key, &o) }       // A1in [4 3 2 1]: A1in may exceed its share
        #expect(o.evicted.isEmpty)
        _ = access(&cache, 5, &o)                               // A1in over its share: 1 → A1out
        #expect(o.take() == [1] && listKeys(cache.a1out, cache.store) == [1])
        _ = access(&cache, 1, &o)                               // A1out hit: 2 → A1out, 1 → Am
        _ = access(&cache, 2, &o)                               // A1out hit: 3 → A1out, 2 → Am
        _ = access(&cache, 3, &o)                               // A1out hit: 4 → A1out, 3 → Am
        #expect(o.take() == [2, 3, 4])
        #expect(listKeys(cache.am, cache.store) == [3, 2, 1] && listKeys(cache.a1in, cache.store) == [5])
        #expect(access(&cache, 5, &o))                          // A1in hit: nothing moves
        #expect(access(&cache, 1, &o))                          // Am hit: Am [1 3 2]
        _ = access(&cache, 6, &o)                               // A1in at its share (1): Am's LRU 2 goes
        #expect(o.take() == [2] && listKeys(cache.a1in, cache.store) == [6, 5])
        _ = access(&cache, 7, &o)                               // A1in over: 5 → A1out [5 4]
        #expect(o.take() == [5] && listKeys(cache.a1out, cache.store) == [5, 4])
        _ = access(&cache, 4, &o)                               // A1out hit: 6 → A1out [6 5]; Am [4 1 3]
        #expect(o.take() == [6] && listKeys(cache.am, cache.store) == [4, 1, 3])
        _ = access(&cache, 5, &o)                               // A1out hit, A1in at share: Am's 3 goes
        #expect(o.take() == [3] && listKeys(cache.am, cache.store) == [5, 4, 1])
        #expect(cache.count == 4 && cache.totalCost == 4)
    }

    // c = 4: A1in 1, A1out 2, Am 3.
    @Test("Q2: an A1out hit goes through Am's own LRU get, which evicts even when the cache has room")
    func amKeepsItsShare() throws {
        var cache = try Cache.make(capacity: 4)
        var o = EvictionRecorder<Int, Void>()
        for key in [1, 2, 3, 4, 5, 1, 2, 3] { _ = access(&cache, key, &o) }   // as Q1: Am [3 2 1], A1in [5]
        #expect(o.take() == [1, 2, 3, 4] && listKeys(cache.a1out, cache.store) == [4])
        cache.remove(5, observer: &o)                           // total 3, A1in empty, Am at its share
        _ = access(&cache, 4, &o)                               // A1out hit: 3 + 1 fits the cache, yet Am's
        #expect(o.take() == [1])                                // get evicts its LRU 1 (the paper would not)
        #expect(listKeys(cache.am, cache.store) == [4, 3, 2] && cache.totalCost == 3)
    }

    @Test("Q3: objects larger than A1in are never inserted, not even on an A1out hit, and the hit is spent")
    func largerThanA1in() throws {
        var cache = try Cache.make(capacity: 100)                // A1in 25, A1out 50, Am 75
        var o = EvictionRecorder<Int, Void>()
        _ = cache.access(1, cost: 26, orInsert: (), observer: &o)
        #expect(!cache.contains(1) && o.evicted.isEmpty)
        for key in 2...5 { _ = cache.access(key, cost: 25, orInsert: (), observer: &o) }  // A1in [5 4 3 2], 100
        _ = cache.access(6, cost: 25, orInsert: (), observer: &o)                       // 2 → A1out
        #expect(o.take() == [2] && listKeys(cache.a1out, cache.store) == [2])
        _ = cache.access(2, cost: 30, orInsert: (), observer: &o)                       // A1out entry spent, refused
        #expect(!cache.contains(2) && cache.a1out.isEmpty && o.evicted.isEmpty)
        _ = cache.access(7, cost: 101, orInsert: (), observer: &o)                      // larger than the cache
        #expect(cache.totalCost == 100 && o.evicted.isEmpty)
    }

    @Test("matches the array model of libCacheSim's TwoQ.c on random sequences", arguments: [1, 2, 3, 4, 5, 6, 7, 8] as [UInt64])
    func differential(seed: UInt64) throws {
        var rng = SeededRandom(seed: seed &* 32_452_843)
        let capacity = Int.random(in: 4...120, using: &rng)
        let inRatio = [0.25, 0.1, 0.5, 0.75].randomElement(using: &rng)!
        let outRatio = [0.5, 0.0, 1.0].randomElement(using: &rng)!
        var cache = try TwoQCache<Int, Int>.make(capacity: capacity, options: ["ain-ratio": "\(inRatio)", "aout-ratio": "\(outRatio)"])
        var model = TwoQModel(capacity: capacity, inRatio: inRatio, outRatio: outRatio)
        let operations = Scenario.uniform(keySpace: Int.random(in: 4...3 * capacity, using: &rng), maxCost: seed % 2 == 0 ? max(1, capacity / 8) : 1, seed: seed)
        expectSameDecisions(&cache, &model, operations, label: "2q c=\(capacity) seed \(seed)")
    }
}
