@testable import EvictionPolicies
import TestSupport
import Testing

/// libCacheSim's ARC.c (aa0fc40) transcribed onto arrays, newest first; sizes in cost units.
struct ARCModel: ResearchModel {
    let capacity: Int
    var t1: [Int] = [], t2: [Int] = [], b1: [Int] = [], b2: [Int] = []
    var costs: [Int: Int] = [:]
    var p = 0.0

    init(capacity: Int) { self.capacity = capacity }

    func size(_ list: [Int]) -> Int { list.reduce(0) { $0 + costs[$1]! } }
    var count: Int { t1.count + t2.count }
    var totalCost: Int { size(t1) + size(t2) }
    func contains(_ key: Int) -> Bool { t1.contains(key) || t2.contains(key) }
    func cost(of key: Int) -> Int? { contains(key) ? costs[key] : nil }

    mutating func access(_ key: Int, cost: Int) -> (hit: Bool, evicted: [Int]) {
        if let i = t1.firstIndex(of: key) {
            t2.insert(t1.remove(at: i), at: 0)
            return (true, [])
        }
        if let i = t2.firstIndex(of: key) {
            t2.insert(t2.remove(at: i), at: 0)
            return (true, [])
        }
        guard cost <= capacity else { return (false, []) }
        var ghostHit = false, hitB2 = false
        if let i = b1.firstIndex(of: key) {
            p = min(p + max(Double(size(b2)) / Double(size(b1)), 1), Double(capacity))
            b1.remove(at: i)
            ghostHit = true
        } else if let i = b2.firstIndex(of: key) {
            p = max(p - max(Double(size(b1)) / Double(size(b2)), 1), 0)
            b2.remove(at: i)
            ghostHit = true
            hitB2 = true
        }
        var evicted: [Int] = []
        while totalCost + cost > capacity && count > 0 {
            if ghostHit {
                replace(hitB2: hitB2, &evicted)
            } else if size(t1) + size(b1) + cost > capacity {
                if size(b1) > 0 {
                    b1.removeLast()
                    replace(hitB2: false, &evicted)
                } else {
                    evicted.append(t1.removeLast())
                }
            } else {
                if size(t1) + size(b1) + size(t2) + size(b2) >= 2 * capacity && size(b2) > 0 { b2.removeLast() }
                replace(hitB2: false, &evicted)
            }
        }
        costs[key] = cost
        if ghostHit { t2.insert(key, at: 0) } else { t1.insert(key, at: 0) }
        return (false, evicted)
    }

    mutating func replace(hitB2: Bool, _ evicted: inout [Int]) {
        let sizeT1 = Double(size(t1))
        if (size(t1) > 0 && (sizeT1 > p || (sizeT1 == p && hitB2))) || size(t2) == 0 {
            let key = t1.removeLast()
            evicted.append(key)
            b1.insert(key, at: 0)
        } else {
            let key = t2.removeLast()
            evicted.append(key)
            b2.insert(key, at: 0)
        }
    }

    mutating func remove(_ key: Int) -> [Int] {
        for i in 0..<4 {
            switch i {
            case 0: t1.removeAll { $0 == key }
            case 1: t2.removeAll { $0 == key }
            case 2: b1.removeAll { $0 == key }
            default: b2.removeAll { $0 == key }
            }
        }
        return []
    }
}

/// ARC exactly as the paper's Figure 4 states it, for unit-size pages: |X| counts pages, the
/// ghost trimming of case IV runs once per miss, and REPLACE runs on every ghost hit and on a
/// full miss whenever |T1| + |T2| + |B1| + |B2| >= c. No removals: the paper has none.
struct ARCPaperModel {
    let c: Int
    var t1: [Int] = [], t2: [Int] = [], b1: [Int] = [], b2: [Int] = []
    var p = 0.0

    /// Returns whether `x` was a hit and the pages evicted from the cache.
    mutating func request(_ x: Int) -> (hit: Bool, evicted: [Int]) {
        // Case I.
        if let i = t1.firstIndex(of: x) { t2.insert(t1.remove(at: i), at: 0); return (true, []) }
        if let i = t2.firstIndex(of: x) { t2.insert(t2.remove(at: i), at: 0); return (true, []) }
        var evicted: [Int] = []
        if b1.contains(x) {
            // Case II: δ1 = 1 if |B1| >= |B2|, else |B2| / |B1|.
            let delta = b1.count >= b2.count ? 1 : Double(b2.count) / Double(b1.count)
            p = min(p + delta, Double(c))
            replace(x, inB2: false, &evicted)
            b1.removeAll { $0 == x }
            t2.insert(x, at: 0)
            return (false, evicted)
        }
        if b2.contains(x) {
            // Case III: δ2 = 1 if |B2| >= |B1|, else |B1| / |B2|.
            let delta = b2.count >= b1.count ? 1 : Double(b1.count) / Double(b2.count)
            p = max(p - delta, 0)
            replace(x, inB2: true, &evicted)
            b2.removeAll { $0 == x }
            t2.insert(x, at: 0)
            return (false, evicted)
        }
        // Case IV.
        if t1.count + b1.count == c {
            if t1.count < c {
                b1.removeLast()
                replace(x, inB2: false, &evicted)
            } else {
                evicted.append(t1.removeLast())
            }
        } else if t1.count + t2.count + b1.count + b2.count >= c {
            if t1.count + t2.count + b1.count + b2.count == 2 * c { b2.removeLast() }
            replace(x, inB2: false, &evicted)
        }
        t1.insert(x, at: 0)
        return (false, evicted)
    }

    mutating func replace(_ x: Int, inB2: Bool, _ evicted: inout [Int]) {
        if !t1.isEmpty && ((inB2 && Double(t1.count) == p) || Double(t1.count) > p) {
            let page = t1.removeLast()
            evicted.append(page)
            b1.insert(page, at: 0)
        } else {
            let page = t2.removeLast()
            evicted.append(page)
            b2.insert(page, at: 0)
        }
    }
}

@Suite("ARC (libCacheSim aa0fc40)")
struct ARCCacheTests {
    typealias Cache = ARCCache<Int, Void>

    func access(_ cache: inout Cache, _ key: Int, _ observer: inout EvictionRecorder<Int, Void>) -> Bool {
        cache.access(key, cost: 1, orInsert: (), observer: &observer)
    }

    // c = 4, unit sizes. Lists newest first; p starts at 0.
    @Test("ARC1: T1 to T2 on a hit, REPLACE by p, and p moving on B1 and B2 hits")
    func adaptation() throws {
        var cache = try Cache.make(capacity: 4)
        var o = EvictionRecorder<Int, Void>()
        for key in 1...4 { _ = access(&cache, key, &o) }           // T1 [4 3 2 1]
        #expect(access(&cache, 1, &o))                              // T2 [1], T1 [4 3 2]
        _ = access(&cache, 5, &o)           // case IV-B: |T1| = 3 > p = 0 → 2 to B1
        #expect(o.take() == [2] && listKeys(cache.lists.b1, cache.store) == [2])
        _ = access(&cache, 2, &o)           // B1 hit: p = 0 + max(0/1, 1) = 1; |T1| = 3 > 1 → 3 to B1; 2 → T2
        #expect(o.take() == [3] && cache.target == 1)
        #expect(listKeys(cache.lists.t2, cache.store) == [2, 1] && listKeys(cache.lists.t1, cache.store) == [5, 4])
        _ = access(&cache, 6, &o)           // |T1| + |B1| + 1 = 4, not > 4: |T1| = 2 > 1 → 4 to B1
        #expect(o.take() == [4] && listKeys(cache.lists.b1, cache.store) == [4, 3])
        _ = access(&cache, 7, &o)           // |T1| + |B1| + 1 = 5 > 4: forget B1's 3, then 5 to B1
        #expect(o.take() == [5] && listKeys(cache.lists.b1, cache.store) == [5, 4])
        #expect(access(&cache, 1, &o))      // T2 [1 2]
        _ = access(&cache, 8, &o)           // forget 4, 6 to B1
        #expect(o.take() == [6] && listKeys(cache.lists.b1, cache.store) == [6, 5])
        _ = access(&cache, 6, &o)           // B1 hit: p = 1 + max(0/2, 1) = 2; |T1| = 2 == p, not a B2 hit → 2 to B2
        #expect(o.take() == [2] && cache.target == 2 && listKeys(cache.lists.b2, cache.store) == [2])
        #expect(listKeys(cache.lists.t2, cache.store) == [6, 1] && listKeys(cache.lists.t1, cache.store) == [8, 7])
        _ = access(&cache, 2, &o)           // B2 hit: p = 2 - max(1/1, 1) = 1; |T1| = 2 > 1 → 7 to B1
        #expect(o.take() == [7] && cache.target == 1)
        #expect(listKeys(cache.lists.t2, cache.store) == [2, 6, 1] && listKeys(cache.lists.t1, cache.store) == [8])
        #expect(cache.count == 4 && cache.totalCost == 4)
    }

    @Test("ARC2: on a B2 hit with |T1| == p, REPLACE takes T1's LRU (the paper's tie rule)")
    func tieGoesToT1OnB2Hit() throws {
        var cache = try Cache.make(capacity: 4)
        var o = EvictionRecorder<Int, Void>()
        for key in 1...4 { _ = access(&cache, key, &o) }           // T1 [4 3 2 1]
        #expect(access(&cache, 3, &o) && access(&cache, 4, &o))     // T2 [4 3], T1 [2 1]
        _ = access(&cache, 5, &o)                                   // |T1| 2 > 0: 1 to B1; T1 [5 2]
        cache.lists.p = 4                                                 // make T2 the REPLACE side
        _ = access(&cache, 6, &o)                                   // |T1| 2 < p: T2's 3 to B2; T1 [6 5 2]
        #expect(o.take() == [1, 3] && listKeys(cache.lists.b2, cache.store) == [3])
        cache.lists.p = 4                                                 // B2 hit: p = 4 - max(1/1, 1) = 3
        _ = access(&cache, 3, &o)                                   // |T1| 3 == p and a B2 hit → T1's 2 goes
        #expect(cache.target == 3 && o.take() == [2] && listKeys(cache.lists.b1, cache.store) == [2, 1])
    }

    @Test("ARC3: variable sizes: |T1| + |B1| + cost > c decides case IV-A; an oversized object changes nothing")
    func bytes() throws {
        var cache = try Cache.make(capacity: 10)
        var o = EvictionRecorder<Int, Void>()
        _ = cache.access(1, cost: 6, orInsert: (), observer: &o)
        _ = cache.access(2, cost: 4, orInsert: (), observer: &o)   // T1 [2 1], full
        _ = cache.access(3, cost: 5, orInsert: (), observer: &o)   // 10 + 0 + 5 > 10, B1 empty: 1 leaves outright
        #expect(o.take() == [1] && cache.lists.b1.isEmpty && cache.totalCost == 9)
        _ = cache.access(4, cost: 3, orInsert: (), observer: &o)   // 9 + 0 + 3 > 10: 2 leaves outright, T1 [4 3]
        #expect(o.take() == [2] && cache.totalCost == 8)
        #expect(!cache.access(5, cost: 11, orInsert: (), observer: &o) && cache.totalCost == 8 && o.evicted.isEmpty)
    }

    @Test("matches the paper's ARC (Figure 4) on random unit-size sequences", arguments: [1, 2, 3, 4, 5, 6] as [UInt64])
    func paper(seed: UInt64) throws {
        var rng = SeededRandom(seed: seed &* 104_729)
        let capacity = Int.random(in: 1...60, using: &rng)
        let keySpace = Int.random(in: capacity + 1...4 * capacity + 4, using: &rng)
        var cache = try Cache.make(capacity: capacity)
        var paper = ARCPaperModel(c: capacity)
        var o = EvictionRecorder<Int, Void>()
        for step in 0..<5_000 {
            // A skewed key choice, so that both T2 and the ghosts matter.
            let key = Bool.random(using: &rng) ? Int.random(in: 0..<keySpace, using: &rng)
                                               : Int.random(in: 0..<max(1, capacity / 2 + 1), using: &rng)
            let hit = cache.access(key, cost: 1, orInsert: (), observer: &o)
            let expected = paper.request(key)
            let evicted = o.take()
            #expect(hit == expected.hit && evicted == expected.evicted, "seed \(seed) step \(step) key \(key)")
            #expect(cache.target == paper.p, "seed \(seed) step \(step)")
            if evicted != expected.evicted || cache.target != paper.p { return }
        }
    }

    @Test("matches the array model of libCacheSim's ARC.c with sizes and removals", arguments: [1, 2, 3, 4, 5, 6] as [UInt64])
    func differential(seed: UInt64) throws {
        var rng = SeededRandom(seed: seed &* 15_485_863)
        let capacity = Int.random(in: 2...100, using: &rng)
        var cache = try ARCCache<Int, Int>.make(capacity: capacity)
        var model = ARCModel(capacity: capacity)
        let operations = Scenario.uniform(keySpace: Int.random(in: 4...3 * capacity, using: &rng), maxCost: seed % 2 == 0 ? max(1, capacity / 5) : 1, seed: seed)
        expectSameDecisions(&cache, &model, operations, label: "arc c=\(capacity) seed \(seed)")
    }
}
