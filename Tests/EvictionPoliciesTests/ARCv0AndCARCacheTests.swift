@testable import EvictionPolicies
import Testing
import TestSupport

/// libCacheSim 0.3.5's ARCv0.c over arrays (newest first), written from the C source.
struct ARCv0Model: ResearchModel {
    var t1: [Int] = [], t2: [Int] = [], b1: [Int] = [], b2: [Int] = []
    var costs: [Int: Int] = [:]
    var ghostCosts: [Int: Int] = [:]
    var p = 0.0
    var lastFoundInB2 = false
    let capacity: Int

    init(capacity: Int) { self.capacity = capacity }

    func sum(_ keys: [Int]) -> Int { keys.reduce(0) { $0 + (costs[$1] ?? ghostCosts[$1] ?? 0) } }
    static func atLeastOne(_ x: Double) -> Double { x > 1 ? x : 1 }

    mutating func access(_ key: Int, cost: Int) -> (hit: Bool, evicted: [Int]) {
        var evicted: [Int] = []
        if let index = t1.firstIndex(of: key) {
            let cost = costs[key] ?? cost
            lastFoundInB2 = false
            t1.remove(at: index)
            guard cost <= capacity else { costs[key] = nil; return (true, []) }
            costs[key] = nil
            while sum(t2) + cost > capacity && !t2.isEmpty { evicted.append(t2.removeLast()); costs[evicted.last!] = nil }
            costs[key] = cost
            t2.insert(key, at: 0)
            return (true, evicted)
        }
        if let index = t2.firstIndex(of: key) {
            lastFoundInB2 = false
            t2.insert(t2.remove(at: index), at: 0)
            return (true, [])
        }
        var ghostHit = false
        if let index = b1.firstIndex(of: key) {
            lastFoundInB2 = false
            p = min(p + Self.atLeastOne(Double(sum(b2)) / Double(sum(b1))), Double(capacity))
            b1.remove(at: index); ghostCosts[key] = nil; ghostHit = true
        } else if let index = b2.firstIndex(of: key) {
            lastFoundInB2 = true
            p = max(p - Self.atLeastOne(Double(sum(b1)) / Double(sum(b2))), 0)
            b2.remove(at: index); ghostCosts[key] = nil; ghostHit = true
        }
        guard cost <= capacity else { return (false, []) }
        while sum(t1) + sum(t2) + cost > capacity && !(t1.isEmpty && t2.isEmpty) {
            if ghostHit { replace(&evicted) } else { fullMiss(cost, &evicted) }
        }
        costs[key] = cost
        if ghostHit { lastFoundInB2 = false; t2.insert(key, at: 0) } else { t1.insert(key, at: 0) }
        return (false, evicted)
    }

    mutating func fullMiss(_ cost: Int, _ evicted: inout [Int]) {
        if sum(t1) + sum(b1) + cost > capacity {
            if sum(b1) > 0 {
                ghostCosts[b1.removeLast()] = nil
                replace(&evicted)
            } else if let oldest = t1.popLast() {
                evicted.append(oldest); costs[oldest] = nil
            } else {
                replace(&evicted)
            }
            return
        }
        while sum(t1) + sum(b1) + sum(t2) + sum(b2) >= 2 * capacity && !b2.isEmpty { ghostCosts[b2.removeLast()] = nil }
        replace(&evicted)
    }

    mutating func replace(_ evicted: inout [Int]) {
        let size = Double(sum(t1))
        let fromT1 = (sum(t1) > 0 && (size > p || (size == p && lastFoundInB2))) || sum(t2) == 0
        let toB1 = (fromT1 && !t1.isEmpty) || t2.isEmpty
        let victim = toB1 ? t1.removeLast() : t2.removeLast()
        let cost = costs[victim] ?? 0
        evicted.append(victim); costs[victim] = nil
        if toB1 {
            while sum(b1) + cost > capacity && !b1.isEmpty { ghostCosts[b1.removeLast()] = nil }
            b1.insert(victim, at: 0)
        } else {
            while sum(b2) + cost > capacity && !b2.isEmpty { ghostCosts[b2.removeLast()] = nil }
            b2.insert(victim, at: 0)
        }
        ghostCosts[victim] = cost
    }

    mutating func remove(_ key: Int) -> [Int] {
        t1.removeAll { $0 == key }
        t2.removeAll { $0 == key }
        costs[key] = nil
        return []
    }
    func contains(_ key: Int) -> Bool { costs[key] != nil }
    func cost(of key: Int) -> Int? { costs[key] }
    var count: Int { costs.count }
    var totalCost: Int { costs.values.reduce(0, +) }
}

/// libCacheSim 0.3.5's CAR.c over arrays (newest first; a CLOCK's hand is the last element).
struct CARModel: ResearchModel {
    var t1: [Int] = [], t2: [Int] = [], b1: [Int] = [], b2: [Int] = []
    var costs: [Int: Int] = [:]
    var ghostCosts: [Int: Int] = [:]
    var referenced: Set<Int> = []
    var p = 0.0
    var wasInB1 = false, wasInB2 = false
    let capacity: Int

    init(capacity: Int) { self.capacity = capacity }

    func sum(_ keys: [Int]) -> Int { keys.reduce(0) { $0 + (costs[$1] ?? ghostCosts[$1] ?? 0) } }
    static func step(_ numerator: Int, _ denominator: Int) -> Int { denominator > 0 ? max(1, numerator / denominator) : 1 }

    mutating func access(_ key: Int, cost: Int) -> (hit: Bool, evicted: [Int]) {
        if costs[key] != nil { referenced.insert(key); return (true, []) }
        if let index = b1.firstIndex(of: key) {
            wasInB1 = true
            p = min(p + Double(Self.step(sum(b2), sum(b1))), Double(capacity))
            b1.remove(at: index); ghostCosts[key] = nil
        } else if let index = b2.firstIndex(of: key) {
            wasInB2 = true
            p = max(p - Double(Self.step(sum(b1), sum(b2))), 0)
            b2.remove(at: index); ghostCosts[key] = nil
        }
        guard cost <= capacity else { return (false, []) }
        var evicted: [Int] = []
        while sum(t1) + sum(t2) + cost > capacity && !(t1.isEmpty && t2.isEmpty) {
            replace(&evicted)
            if !(wasInB1 && wasInB2) && sum(t1) + sum(b1) >= capacity && !b1.isEmpty { ghostCosts[b1.removeLast()] = nil }
        }
        costs[key] = cost
        referenced.remove(key)
        if wasInB1 || wasInB2 {
            (wasInB1, wasInB2) = (false, false)
            t2.insert(key, at: 0)
        } else {
            t1.insert(key, at: 0)
        }
        return (false, evicted)
    }

    mutating func replace(_ evicted: inout [Int]) {
        while true {
            let fromT1 = (Double(sum(t1)) >= max(1, p) && !t1.isEmpty) || t2.isEmpty
            let hand = fromT1 ? t1.removeLast() : t2.removeLast()
            if referenced.remove(hand) != nil {
                t2.insert(hand, at: 0)
                continue
            }
            let cost = costs[hand] ?? 0
            evicted.append(hand); costs[hand] = nil; ghostCosts[hand] = cost
            if fromT1 { b1.insert(hand, at: 0) } else { b2.insert(hand, at: 0) }
            return
        }
    }

    mutating func remove(_ key: Int) -> [Int] {
        t1.removeAll { $0 == key }
        t2.removeAll { $0 == key }
        b1.removeAll { $0 == key }
        b2.removeAll { $0 == key }
        costs[key] = nil; ghostCosts[key] = nil; referenced.remove(key)
        return []
    }
    func contains(_ key: Int) -> Bool { costs[key] != nil }
    func cost(of key: Int) -> Int? { costs[key] }
    var count: Int { costs.count }
    var totalCost: Int { costs.values.reduce(0, +) }
}

@Suite("ARCv0 and CAR (libCacheSim 0.3.5 ARCv0.c, CAR.c)")
struct ARCv0AndCARCacheTests {
    static func run<P: EvictionPolicy>(_ cache: inout P, _ keys: [Int], cost: Int = 1) -> [Int]
    where P.Key == Int, P.Value == Void {
        var observer = EvictionRecorder<Int, Void>()
        for key in keys { _ = cache.access(key, cost: cost, orInsert: (), observer: &observer) }
        return observer.take()
    }

    @Test("ARCv0, capacity 4: T1 to B1 while p = 0, a B1 hit raises p, then REPLACE takes T2's LRU")
    func arcVector() throws {
        var cache = try ARCv0Cache<Int, Void>.make(capacity: 4)
        #expect(Self.run(&cache, [1, 2, 3, 4, 1]) == [])          // 1 moves to T2
        #expect(Self.run(&cache, [5]) == [2])                     // |T1| = 3 > p = 0: T1's LRU to B1
        #expect(Self.run(&cache, [2]) == [3])                     // B1 hit: p = 1; 3 goes to B1; 2 enters T2
        #expect(Self.run(&cache, [6]) == [4])
        #expect(Self.run(&cache, [7]) == [5])                     // |T1| + |B1| + 1 > 4: B1 drops 3 first
        #expect(Self.run(&cache, [1, 5]) == [2])                  // B1 hit: p = 2 = |T1|: T2's LRU (2) to B2
        #expect(listKeys(cache.lists.t1, cache.store) == [7, 6])
        #expect(listKeys(cache.lists.t2, cache.store) == [5, 1])
        #expect(listKeys(cache.lists.b1, cache.store) == [4])
        #expect(listKeys(cache.lists.b2, cache.store) == [2])
        #expect(cache.target == 2)
    }

    @Test("ARCv0: a hit in T1 re-enters T2 keeping its size")
    func arcHitKeepsSize() throws {
        var cache = try ARCv0Cache<Int, Void>.make(capacity: 10)
        #expect(Self.run(&cache, [1, 2], cost: 3) == [])
        #expect(Self.run(&cache, [1], cost: 6) == [])
        #expect(cache.totalCost == 6 && listKeys(cache.lists.t2, cache.store) == [1])
    }

    @Test("CAR, capacity 4: referenced objects at T1's hand move to T2, a B1 hit raises p, B1 is trimmed at c")
    func carVector() throws {
        var cache = try CARCache<Int, Void>.make(capacity: 4)
        #expect(Self.run(&cache, [1, 2, 3, 4, 1, 2]) == [])
        #expect(Self.run(&cache, [5]) == [3])                     // 1 and 2 (referenced) go to T2; 3 to B1
        #expect(listKeys(cache.lists.t2, cache.store) == [2, 1])
        #expect(Self.run(&cache, [3]) == [4])                     // B1 hit: p = 1; 3 enters T2
        #expect(Self.run(&cache, [6, 7]) == [5, 6])
        #expect(Self.run(&cache, [8]) == [7])                     // |T1| + |B1| = 4 >= c: B1 drops 4
        #expect(listKeys(cache.lists.b1, cache.store) == [7, 6, 5])
        #expect(Self.run(&cache, [1, 9]) == [8])
        #expect(listKeys(cache.lists.t1, cache.store) == [9])
        #expect(listKeys(cache.lists.t2, cache.store) == [3, 2, 1])
        #expect(listKeys(cache.lists.b1, cache.store) == [8, 7, 6])
        #expect(cache.target == 1)
    }

    @Test("ARCv0 matches the array model on random sequences", arguments: [1, 2, 3, 4, 5, 6] as [UInt64])
    func arcDifferential(seed: UInt64) throws {
        var rng = SeededRandom(seed: seed &* 104_729)
        let capacity = Int.random(in: 2...60, using: &rng)
        var cache = try ARCv0Cache<Int, Int>.make(capacity: capacity)
        var model = ARCv0Model(capacity: capacity)
        let operations = Scenario.uniform(steps: 3_000, keySpace: Int.random(in: 4...3 * capacity, using: &rng),
                                          maxCost: seed % 2 == 0 ? max(1, capacity / 6) : 1,
                                          mixedOperations: seed % 3 == 0, seed: seed)
        expectSameDecisions(&cache, &model, operations, label: "arcv0 c=\(capacity)")
    }

    @Test("CAR matches the array model on random sequences", arguments: [1, 2, 3, 4, 5, 6] as [UInt64])
    func carDifferential(seed: UInt64) throws {
        var rng = SeededRandom(seed: seed &* 130_363)
        let capacity = Int.random(in: 2...60, using: &rng)
        var cache = try CARCache<Int, Int>.make(capacity: capacity)
        var model = CARModel(capacity: capacity)
        let operations = Scenario.uniform(steps: 3_000, keySpace: Int.random(in: 4...3 * capacity, using: &rng),
                                          maxCost: seed % 2 == 0 ? max(1, capacity / 6) : 1,
                                          mixedOperations: seed % 3 == 0, seed: seed)
        expectSameDecisions(&cache, &model, operations, label: "car c=\(capacity)")
    }
}
