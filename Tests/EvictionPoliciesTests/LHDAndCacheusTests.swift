import EvictionPolicies
import Foundation
import TestSupport
import Testing

// LHD and Cacheus (libCacheSim 0.3.5's rules): hand-worked vectors from each paper's rule, a plain
// reference model of each (arrays and dictionaries, the same generator drawn in the same order)
// on seeded random sequences, and reproducibility by seed. Parity with libCacheSim's counts is
// in GoldenParityRandomizedTests and Scripts/parity-randomized.sh.

// MARK: - Shared checks

/// A plain model of a policy's documented rule, to be compared decision by decision.
private protocol PlainPolicyModel {
    /// Requests `key` with `cost`; whether it hit.
    mutating func access(_ key: Int, cost: Int) -> Bool
    /// The keys evicted so far, in order.
    var evicted: [Int] { get }
    /// The residents' total cost.
    var total: Int { get }
}

/// `P` and `reference` see the same `requests` keys (drawn by `nextKey` from a generator seeded
/// by `seed`; each key keeps one cost, 1 or drawn up to `maxCost` when `bytes`): every hit and
/// every eviction must agree, and at least `minimumEvictions` must happen.
private func expectSameAsReference<P: EvictionPolicy>(_ type: P.Type, _ reference: inout some PlainPolicyModel,
                                              capacity: Int, seed: UInt64, bytes: Bool, maxCost: Int,
                                              requests: Int, minimumEvictions: Int,
                                              nextKey: (Int, inout SeededRandom) -> Int) throws
    where P.Key == Int, P.Value == Int {
    var cache = try P.make(capacity: capacity, options: ["seed": "\(seed)"])
    var observer = EvictionRecorder<Int, Int>()
    var random = SeededRandom(seed: seed)
    var sizes: [Int: Int] = [:]
    for i in 0..<requests {
        let key = nextKey(i, &random)
        let cost = bytes ? sizes[key, default: Int.random(in: 1...maxCost, using: &random)] : 1
        sizes[key] = cost
        let hit = cache.access(key, cost: cost, orInsert: i, observer: &observer)
        let expected = reference.access(key, cost: cost)
        #expect(hit == expected, "request \(i)")
        if hit != expected || observer.evicted != reference.evicted { break }
    }
    #expect(observer.evicted == reference.evicted)
    #expect(reference.evicted.count > minimumEvictions)
    #expect(cache.totalCost == reference.total)
}

/// The same keys and seed twice give the same evictions; another seed other ones.
private func expectReproducibleBySeed<P: EvictionPolicy>(_ type: P.Type) throws where P.Key == Int, P.Value == Int {
    func evictions(_ seed: Int) throws -> [Int] {
        var cache = try P.make(capacity: 50, options: ["seed": "\(seed)"])
        var observer = EvictionRecorder<Int, Int>()
        var random = SeededRandom(seed: 7)
        for i in 0..<5_000 {
            let key = min(Int.random(in: 0..<400, using: &random), Int.random(in: 0..<400, using: &random))
            _ = cache.access(key, cost: 1, orInsert: i, observer: &observer)
        }
        return observer.evicted
    }
    #expect(try evictions(1) == evictions(1))
    #expect(try evictions(1) != evictions(2))
}

// MARK: - LHD reference

/// LHD as its documentation states the rule, written plainly: a vector of resident keys drawn by
/// index (swap-remove on leaving), the initial hit-density model (17 + class) / (age + 1), the
/// explorer budget and the ring of recent low-density admissions. Valid before the first
/// reconfiguration (2^20 accesses).
private struct ReferenceLHD: PlainPolicyModel {
    struct Tag { var stamp: UInt64; var lastHit: UInt64; var lastLast: UInt64; var size: Int; var explorer: Bool }
    var keys: [Int] = []
    var tags: [Int: Tag] = [:]
    var ring: [Int?] = Array(repeating: nil, count: 8)
    var ringHead = 0
    var ewma: Float = 0
    var now: UInt64 = 0
    var budget: Int
    var generator: SeededGenerator
    let capacity: Int
    var evicted: [Int] = []

    init(capacity: Int, seed: UInt64) {
        self.capacity = capacity
        budget = Int(Double(capacity) * 0.01)
        generator = SeededGenerator(seed: seed)
    }

    var total: Int { keys.reduce(0) { $0 + tags[$1]!.size } }

    static func hitAgeClass(_ sum: UInt64) -> Int {
        if sum == 0 { return 15 }
        var age = sum, log = 0
        while age < 20_000 && log < 15 { age *= 2; log += 1 }
        return log
    }

    func age(_ tag: Tag) -> UInt64 { min((now - tag.stamp) >> 10, 19_999) }

    func density(_ key: Int) -> Float {
        let tag = tags[key]!
        let age = age(tag)
        if age == 19_999 { return -Float.greatestFiniteMagnitude }
        let modelled = Float(Double(16 + Self.hitAgeClass(tag.lastHit + tag.lastLast) + 1) / Double(age + 1))
        return modelled / Float(tag.size) + (tag.explorer ? 1 : 0)
    }

    mutating func access(_ key: Int, cost: Int) -> Bool {
        if var tag = tags[key] {
            if tag.explorer { budget += tag.size }
            tag.lastLast = tag.lastHit
            tag.lastHit = age(tag)
            tags[key] = tag
            renew(key, cost: cost, isNew: false)
            return true
        }
        guard cost <= capacity else { return false }
        while total + cost > capacity { evict() }
        keys.append(key)
        tags[key] = Tag(stamp: 0, lastHit: 0, lastLast: 20_000, size: cost, explorer: false)
        renew(key, cost: cost, isNew: true)
        return false
    }

    mutating func renew(_ key: Int, cost: Int, isNew: Bool) {
        tags[key]!.stamp = now
        tags[key]!.size = cost
        let explore = generator.next() % 32 == 0
        tags[key]!.explorer = explore && budget > 0
        if tags[key]!.explorer { budget -= cost }
        if isNew && !explore && density(key) < ewma {
            ring[ringHead % 8] = key
            ringHead += 1
        }
        now += 1
    }

    mutating func evict() {
        var victim = -1
        var lowest = Float.greatestFiniteMagnitude
        for _ in 0..<8 {
            // A uniform position: the high half of the number times the count.
            let key = keys[Int(generator.next().multipliedFullWidth(by: UInt64(keys.count)).high)]
            if density(key) < lowest { victim = key; lowest = density(key) }
        }
        for case let key? in ring where density(key) < lowest { victim = key; lowest = density(key) }
        ewma = 0.9 * ewma + (1 - 0.9) * lowest
        if tags[victim]!.explorer { budget += tags[victim]!.size }
        let index = keys.firstIndex(of: victim)!
        keys[index] = keys[keys.count - 1]
        keys.removeLast()
        tags[victim] = nil
        for i in ring.indices where ring[i] == victim { ring[i] = nil }
        evicted.append(victim)
    }
}

@Suite("LHD")
struct LHDTests {
    /// Residents 1, 2, 3 (2 and 3 hit once), then 4: 1 has density 17, the others 32 (class 15
    /// after a hit at age 0); the lowest of 8 uniform draws goes, so 1 goes unless no draw
    /// picks it: probability 1 − (2/3)^8 ≈ 0.961.
    @Test("hand-worked: the least hit density among 8 draws goes; a hit raises an object's class")
    func sampledLowestDensity() throws {
        var oneEvicted = 0
        let trials = 600
        for seed in 1...trials {
            var cache = try LHDCache<Int, Int>.make(capacity: 3, options: ["seed": "\(seed)"])
            var observer = EvictionRecorder<Int, Int>()
            for key in [1, 2, 3, 2, 3, 4] { _ = cache.access(key, cost: 1, orInsert: key, observer: &observer) }
            #expect(observer.evicted.count == 1)
            if observer.evicted == [1] { oneEvicted += 1 }
        }
        let share = Double(oneEvicted) / Double(trials)
        #expect(abs(share - (1 - pow(2.0 / 3, 8))) < 0.025, "\(share)")
    }

    /// Byte mode, capacity 10: A (1 byte) and B (8 bytes), both new: densities 17 and 17/8, so B
    /// goes to make room for C (2 bytes) unless all 8 draws pick A (probability 2^-8).
    @Test("hand-worked: density is per byte, so the larger of two equal objects goes")
    func perByte() throws {
        var bEvicted = 0
        for seed in 1...256 {
            var cache = try LHDCache<Int, Int>.make(capacity: 10, options: ["seed": "\(seed)"])
            var observer = EvictionRecorder<Int, Int>()
            _ = cache.access(1, cost: 1, orInsert: 1, observer: &observer)
            _ = cache.access(2, cost: 8, orInsert: 2, observer: &observer)
            _ = cache.access(3, cost: 2, orInsert: 3, observer: &observer)
            if observer.evicted == [2] { bEvicted += 1 }
        }
        #expect(bEvicted >= 250, "\(bEvicted) of 256")
    }

    @Test("the same decisions as the plain reference on seeded random sequences (objects and bytes)",
          arguments: [(false, UInt64(1)), (false, 2), (true, 3), (true, 4)])
    func matchesReference(_ bytes: Bool, _ seed: UInt64) throws {
        let capacity = bytes ? 2_000 : 60
        var reference = ReferenceLHD(capacity: capacity, seed: seed)
        try expectSameAsReference(LHDCache<Int, Int>.self, &reference, capacity: capacity, seed: seed, bytes: bytes,
                                  maxCost: 150, requests: 10_000, minimumEvictions: 500) { _, random in
            min(Int.random(in: 0..<400, using: &random), Int.random(in: 0..<400, using: &random))
        }
    }

    @Test("a seed fixes the evictions")
    func seeded() throws { try expectReproducibleBySeed(LHDCache<Int, Int>.self) }
}

// MARK: - Cacheus reference

/// Cacheus as its documentation states libCacheSim's rule, written plainly: R, SR and H as arrays
/// (index 0 the most recent), marks and counts in dictionaries, CR-LFU's candidate found by a
/// scan (lowest count, latest to reach it), the same generator drawn in the same order.
private struct ReferenceCacheus: PlainPolicyModel {
    var recent: [Int] = [], screen: [Int] = [], history: [Int] = []
    var size: [Int: Int] = [:]
    var demoted: Set<Int> = [], new: Set<Int> = []
    var count: [Int: Int] = [:], arrival: [Int: Int] = [:], historyCount: [Int: Int] = [:]
    var lruGhost: [Int] = [], lfuGhost: [Int] = []
    var tick = 0
    var demotedTotal = 0, newTotal = 0
    var recentCapacity: Int, screenCapacity: Int
    var wLRU = 0.5, wLFU = 0.5
    var rate: Double, previousRate = 0.0, previousHitRate = 0.0, unlearn = 0, hits = 0, requests = 0
    var generator: SeededGenerator
    let capacity: Int
    var evicted: [Int] = []

    init(capacity: Int, seed: UInt64, rate: Double) {
        self.capacity = capacity
        recentCapacity = capacity / 2
        screenCapacity = capacity / 2
        generator = SeededGenerator(seed: seed)
        self.rate = rate
    }

    func cost(_ keys: [Int]) -> Int { keys.reduce(0) { $0 + size[$1]! } }
    var total: Int { cost(recent) + cost(screen) }

    mutating func bump(_ key: Int, to value: Int) { count[key] = value; tick += 1; arrival[key] = tick }

    mutating func access(_ key: Int, cost c: Int) -> Bool {
        requests += 1
        defer { if requests % capacity == 0 { updateRate() } }
        if let i = recent.firstIndex(of: key) {
            recent.remove(at: i); recent.insert(key, at: 0)
            bump(key, to: count[key]! + 1); hits += 1
            return true
        }
        if let i = screen.firstIndex(of: key) {
            screen.remove(at: i); demoted.remove(key); new.remove(key)
            recent.insert(key, at: 0)
            while cost(recent) > recentCapacity { demoteRecentTail() }
            bump(key, to: count[key]! + 1); hits += 1
            return true
        }
        if let i = lruGhost.firstIndex(of: key) { wLRU *= exp(-rate); lruGhost.remove(at: i) }
        if let i = lfuGhost.firstIndex(of: key) { wLFU *= exp(-rate); lfuGhost.remove(at: i) }
        wLRU /= wLRU + wLFU
        wLFU = 1 - wLRU
        guard c <= capacity else { return false }
        while total + c > capacity && total > 0 { evictOne() }
        let inHistory = history.contains(key)
        guard c <= (inHistory ? recentCapacity : screenCapacity) else { return false }
        size[key] = c
        if inHistory {
            let wasNew = new.contains(key)
            bump(key, to: historyCount[key]! + 1)
            history.removeAll { $0 == key }
            new.remove(key)
            while cost(recent) + c > recentCapacity && !recent.isEmpty { demoteRecentTail() }
            recent.insert(key, at: 0)
            if wasNew {
                let ratio = newTotal > 0 ? demotedTotal / newTotal : 0
                let delta = max(1.0, Double(ratio) + 0.5)
                let occupied = total
                screenCapacity = Double(screenCapacity) + delta > Double(occupied - 1)
                    ? max(occupied - 1, 0) : Int(Double(screenCapacity) + delta)
                recentCapacity = capacity - screenCapacity
            }
        } else {
            bump(key, to: 1)
            screen.insert(key, at: 0)
            new.insert(key)
        }
        while cost(screen) > screenCapacity { retire(screen.last!) }
        return false
    }

    mutating func demoteRecentTail() {
        let key = recent.removeLast()
        screen.insert(key, at: 0)
        demoted.insert(key)
        demotedTotal += 1
    }

    mutating func evictOne() {
        let lru = screen.isEmpty ? recent.last! : screen.last!
        let residents = recent + screen
        let lowest = residents.map { count[$0]! }.min()!
        let lfu = residents.filter { count[$0]! == lowest }.max { arrival[$0]! < arrival[$1]! }!
        let draw = Double(generator.next() % 100) / 100
        if lru == lfu { retire(lru); return }
        let victim = draw < wLRU ? lru : lfu
        let c = size[victim]!
        retire(victim)
        guard c <= capacity / 2 else { return }
        if victim == lru {
            lruGhost.insert(victim, at: 0)
            while cost(lruGhost) > capacity / 2 { lruGhost.removeLast() }
        } else {
            lfuGhost.insert(victim, at: 0)
            while cost(lfuGhost) > capacity / 2 { lfuGhost.removeLast() }
        }
    }

    mutating func retire(_ key: Int) {
        recent.removeAll { $0 == key }
        screen.removeAll { $0 == key }
        historyCount[key] = count[key]
        count[key] = nil
        if new.contains(key) { newTotal += 1 }
        if demoted.remove(key) != nil { demotedTotal -= 1 }
        history.insert(key, at: 0)
        while cost(history) >= capacity && !history.isEmpty {
            let old = history.removeLast()
            new.remove(old)
        }
        evicted.append(key)
    }

    mutating func updateRate() {
        let hitRate = Double(hits / capacity)
        let hitChange = hitRate - previousHitRate, rateChange = rate - previousRate
        previousRate = rate
        previousHitRate = hitRate
        if rateChange != 0 {
            let next = rate + (hitChange / rateChange > 0 ? 1 : -1) * abs(rate * rateChange)
            rate = next > 0.001 ? next : 0.0001
            unlearn = 0
        } else if hitRate == 0 || hitChange <= 0 {
            unlearn += 1
        } else if unlearn >= 10 {
            unlearn = 0
            rate = 0.001 + Double(generator.next() % 1000) / 1000
        }
        hits = 0
    }
}

@Suite("Cacheus")
struct CacheusTests {
    /// Capacity 4 (R and SR 2 each). 1 2 3: SR holds 2, so 1 goes to history with room left.
    /// 1 again: back from history into R, SR grows to the residents' cost − 1 = 2. 4: SR (4 3 2)
    /// is over 2, so 2 goes. 3 hits in SR and moves to R. 2 comes back from history: R (3 1) is
    /// full, so 1 is demoted to SR, and SR grows to 3. 5: the cache is full; SR-LRU's candidate
    /// (SR's LRU) and CR-LFU's (the only key of count 1) are both 4, which goes without a draw.
    /// libCacheSim 0.3.5 counts the same misses on 1 2 3 1 4 3 2 5 (seven).
    @Test("hand-worked: SR-LRU's scan-resistant list pushes keys to history; a key back from history enters R")
    func screenAndHistory() throws {
        var cache = try CacheusCache<Int, Int>.make(capacity: 4)
        var observer = EvictionRecorder<Int, Int>()
        for key in [1, 2, 3] { #expect(!cache.access(key, cost: 1, orInsert: key, observer: &observer)) }
        #expect(observer.take() == [1])
        #expect(!cache.access(1, cost: 1, orInsert: 1, observer: &observer))
        #expect(observer.take().isEmpty)
        #expect(!cache.access(4, cost: 1, orInsert: 4, observer: &observer))
        #expect(observer.take() == [2])
        #expect(cache.access(3, cost: 1, orInsert: 3, observer: &observer) == true)
        #expect(!cache.access(2, cost: 1, orInsert: 2, observer: &observer))
        #expect(cache.count == 4)
        #expect(!cache.access(5, cost: 1, orInsert: 5, observer: &observer))
        #expect(observer.take() == [4])
    }

    @Test("the same decisions as the plain reference on seeded random sequences (objects and bytes)",
          arguments: [(false, UInt64(1)), (false, 2), (true, 3), (true, 4)])
    func matchesReference(_ bytes: Bool, _ seed: UInt64) throws {
        let capacity = bytes ? 1_500 : 40
        let rate = 0.001 + Double(seed.multipliedFullWidth(by: 0xda94_2042_e4dd_58b5).high % 1000) / 1000
        var reference = ReferenceCacheus(capacity: capacity, seed: seed, rate: rate)
        try expectSameAsReference(CacheusCache<Int, Int>.self, &reference, capacity: capacity, seed: seed, bytes: bytes,
                                  maxCost: 60, requests: 8_000, minimumEvictions: 500) { i, random in
            i % 997 < 300 ? Int.random(in: 0..<150, using: &random) : Int.random(in: 0..<30, using: &random) * 7
        }
    }

    @Test("a seed fixes the evictions")
    func seeded() throws { try expectReproducibleBySeed(CacheusCache<Int, Int>.self) }

    @Test("learning-rate and ghost-list-factor are accepted, and bad values refused")
    func options() throws {
        _ = try CacheusCache<Int, Int>.make(capacity: 10, options: ["learning-rate": "0.5", "ghost-list-factor": "2"])
        #expect(throws: PolicyConfigurationError.self) { try CacheusCache<Int, Int>.make(capacity: 10, options: ["learning-rate": "2"]) }
    }
}
