import Foundation
@testable import EvictionPolicies
import Testing
import TestSupport

/// libCacheSim 0.3.5's WTinyLFU.c with its SLRU 1:4 main over arrays (newest first), and its
/// counting Bloom filter as a plain array, written from the C source.
struct LibCacheSimWTinyLFUModel: ResearchModel {
    var window: [Int] = [], probation: [Int] = [], protected: [Int] = []
    var costs: [Int: Int] = [:]
    var counters: [UInt32]
    let hashes = 10
    let capacity, windowCapacity, mainCapacity, probationCapacity, protectedCapacity: Int
    var mainHits = 0

    init(capacity: Int, windowRatio: Double) {
        self.capacity = capacity
        windowCapacity = Int((Double(capacity) * windowRatio).rounded(.towardZero))
        mainCapacity = capacity - windowCapacity
        probationCapacity = Int((1.0 / 5.0 * Double(mainCapacity)).rounded(.towardZero))
        protectedCapacity = Int((4.0 / 5.0 * Double(mainCapacity)).rounded(.towardZero))
        let bitsPerEntry = -log(0.001) / 0.480453013918201
        let wanted = Int((bitsPerEntry * Double(mainCapacity)).rounded(.up))
        counters = Array(repeating: 0, count: wanted < 10 ? 20 : wanted)
    }

    func indices(_ key: Int) -> [Int] {
        let a = UInt32(truncatingIfNeeded: _xxh64(UInt64(bitPattern: Int64(key)), seed: 0x1234_5678))
        let b = UInt32(truncatingIfNeeded: _xxh64(UInt64(bitPattern: Int64(key)), seed: 0x1234_4321))
        return (0..<UInt32(hashes)).map { Int((a &+ $0 &* b) % UInt32(counters.count)) }
    }
    func estimate(_ key: Int) -> UInt32 { indices(key).map { counters[$0] }.min() ?? 0 }
    mutating func add(_ key: Int) { for index in indices(key) { counters[index] += 1 } }

    func sum(_ keys: [Int]) -> Int { keys.reduce(0) { $0 + (costs[$1] ?? 0) } }
    var mainCost: Int { sum(probation) + sum(protected) }

    mutating func access(_ key: Int, cost: Int) -> (hit: Bool, evicted: [Int]) {
        var evicted: [Int] = []
        if let index = window.firstIndex(of: key) {
            window.insert(window.remove(at: index), at: 0)
            return (true, [])
        }
        if let index = protected.firstIndex(of: key) {
            protected.insert(protected.remove(at: index), at: 0)
        } else if let index = probation.firstIndex(of: key) {
            protected.insert(probation.remove(at: index), at: 0)
            while sum(protected) > protectedCapacity {
                probation.insert(protected.removeLast(), at: 0)
                while sum(probation) > probationCapacity && !probation.isEmpty { leave(probation.removeLast(), &evicted) }
            }
        } else {
            guard cost <= capacity, cost <= windowCapacity, cost <= probationCapacity else { return (false, []) }
            while sum(window) + mainCost + cost > capacity && !costs.isEmpty { step(&evicted) }
            window.insert(key, at: 0)
            costs[key] = cost
            add(key)
            return (false, evicted)
        }
        add(key)
        mainHits += 1
        if mainHits >= 32 * mainCapacity {
            mainHits = 0
            counters = counters.map { $0 >> 1 }
        }
        return (true, evicted)
    }

    mutating func step(_ evicted: inout [Int]) {
        while true {
            guard let candidate = window.last, sum(window) > 0 || mainCost == 0 else { evictFromMain(&evicted); return }
            let cost = costs[candidate] ?? 0
            if mainCost + cost <= mainCapacity {
                window.removeLast()
                enterMain(candidate, &evicted)
                add(candidate)
                continue
            }
            let victim = sum(probation) > 0 || protected.isEmpty ? probation.last : protected.last
            if let victim, estimate(candidate) > estimate(victim) {
                evictFromMain(&evicted)
                window.removeLast()
                enterMain(candidate, &evicted)
            } else {
                leave(window.removeLast(), &evicted)
            }
            add(candidate)
            return
        }
    }

    mutating func enterMain(_ key: Int, _ evicted: inout [Int]) {
        let cost = costs[key] ?? 0
        if sum(probation) + cost <= probationCapacity {
            probation.insert(key, at: 0)
        } else if sum(protected) + cost <= protectedCapacity {
            protected.insert(key, at: 0)
        } else {
            while mainCost + cost > mainCapacity && mainCost > 0 { evictFromMain(&evicted) }
            probation.insert(key, at: 0)
        }
    }

    mutating func evictFromMain(_ evicted: inout [Int]) {
        if sum(probation) > 0 || protected.isEmpty { leave(probation.removeLast(), &evicted) } else { leave(protected.removeLast(), &evicted) }
    }

    mutating func leave(_ key: Int, _ evicted: inout [Int]) {
        evicted.append(key)
        costs[key] = nil
    }

    mutating func remove(_ key: Int) -> [Int] {
        window.removeAll { $0 == key }
        probation.removeAll { $0 == key }
        protected.removeAll { $0 == key }
        costs[key] = nil
        return []
    }
    func contains(_ key: Int) -> Bool { costs[key] != nil }
    func cost(of key: Int) -> Int? { costs[key] }
    var count: Int { costs.count }
    var totalCost: Int { costs.values.reduce(0, +) }
}

@Suite("W-TinyLFU as libCacheSim 0.3.5 ports it (WTinyLFU.c)")
struct LibCacheSimWTinyLFUCacheTests {
    /// Known answers from libCacheSim's own xxhash.h (XXH_INLINE_ALL), truncated to 32 bits as
    /// minimalIncrementCBF.c does, computed once with a C program outside the repository.
    @Test("the sketch's hashes are libCacheSim's XXH64, low 32 bits, under its two seeds")
    func xxh64() {
        let expected: [(UInt64, UInt32, UInt32)] = [
            (0, 972_412_019, 3_092_930_169), (1, 2_721_530_007, 3_411_563_711), (2, 3_587_778_993, 4_101_528_125),
            (12_345, 3_790_860_778, 3_071_800_597), (.max, 1_830_715_049, 2_996_653_383),
            (987_654_321_012, 2_518_106_885, 3_644_645_152),
        ]
        for (key, a, b) in expected {
            #expect(_CountingBloomFilter.seeds(key) == (a, b), "\(key)")
        }
    }

    @Test("the sketch is sized as libCacheSim's: ⌈14.38 × entries⌉ counters, 10 hashes, all of a key's counters incremented")
    func sketch() {
        var sketch = _CountingBloomFilter(entries: 18)
        #expect(sketch.counters == 259 && sketch.hashes == 10)
        sketch.add(7)
        sketch.add(7)
        #expect(sketch.estimate(7) == 2)
        sketch.decay()
        #expect(sketch.estimate(7) == 1)
        #expect(_CountingBloomFilter(entries: 536_870_912).counters == UInt32(Int32.max))
    }

    @Test("differential: the sparse counters equal a dictionary through increments, halvings and growth", arguments: [1, 2, 3])
    func sparseCounters(seed: UInt64) {
        var random = SeededRandom(seed: seed)
        var table = _SparseCounters(capacity: 4)
        var model: [UInt32: UInt32] = [:]
        for step in 0..<20_000 {
            // Indices from a small range (many repeats) and the top of the 2³¹ range.
            let index = random.next() % 2 == 0 ? UInt32(random.next() % 500) : UInt32(Int32.max) - UInt32(random.next() % 500)
            table.increment(index)
            model[index, default: 0] &+= 1
            if step % 3_000 == 2_999 {
                table.halve()
                model = model.compactMapValues { $0 >> 1 == 0 ? nil : $0 >> 1 }
            }
            if step % 500 == 0 {
                for probe in [index, index &+ 1, 0, UInt32(Int32.max)] { #expect(table[probe] == (model[probe] ?? 0)) }
            }
        }
        #expect(table.used == model.count)
        for (index, count) in model { #expect(table[index] == count) }
    }

    /// Capacity 20, window-size 0.1: window 2, main 18 (probation 3, protected 14). The window
    /// is bounded only by the whole capacity, so the first 20 keys all sit in it.
    @Test("capacity 20: main's free room fills without comparison, then the sketch refuses a key seen once; a probation hit cools into an eviction")
    func vector() throws {
        var cache = try LibCacheSimWTinyLFUCache<Int, Void>.make(capacity: 20, options: ["window-size": "0.1"])
        var observer = EvictionRecorder<Int, Void>()
        func run(_ keys: [Int]) -> [Int] {
            for key in keys { _ = cache.access(key, cost: 1, orInsert: (), observer: &observer) }
            return observer.take()
        }
        // 21 does not fit: 1–18 move into main (probation 1–3, protected 4–17, probation again
        // for 18 when no segment has room); 19 (seen once) loses to probation's tail 1 (seen twice).
        #expect(run(Array(1...21)) == [19])
        #expect(listKeys(cache.lists.probation, cache.store) == [18, 3, 2, 1])
        // A hit on 1 in probation moves it to protected, whose tail 4 goes back to probation,
        // which is over its share: its tail 2 leaves.
        #expect(run([1]) == [2])
        #expect(listKeys(cache.lists.protected, cache.store).first == 1)
        // 22 fits; 23 moves 20 into main's last free unit, then 21 loses to 3.
        #expect(run([22, 23]) == [21])
        #expect(listKeys(cache.lists.window, cache.store) == [23, 22])
        #expect(listKeys(cache.lists.probation, cache.store) == [20, 4, 18, 3])
    }

    @Test("matches the array model on random sequences", arguments: [1, 2, 3, 4, 5, 6] as [UInt64])
    func differential(seed: UInt64) throws {
        var rng = SeededRandom(seed: seed &* 15_485_863)
        let capacity = Int.random(in: 10...80, using: &rng)
        let windowRatio = [0.1, 0.2, 0.3].randomElement(using: &rng) ?? 0.1
        var cache = try LibCacheSimWTinyLFUCache<Int, Int>.make(capacity: capacity, options: ["window-size": "\(windowRatio)"])
        var model = LibCacheSimWTinyLFUModel(capacity: capacity, windowRatio: windowRatio)
        let operations = Scenario.uniform(steps: 4_000, keySpace: Int.random(in: 8...3 * capacity, using: &rng),
                                          maxCost: seed % 2 == 0 ? 2 : 1, mixedOperations: seed % 3 == 0, seed: seed)
        expectSameDecisions(&cache, &model, operations, label: "wtinylfu c=\(capacity)")
    }
}
