@testable import EvictionPolicies
import Testing
import TestSupport

/// libCacheSim 0.3.5's S3FIFOd.c over arrays (newest first): small FIFO, Clock2 main, ghost FIFO,
/// the two evicted-key FIFOs and the sizing rule, written from the C source, not from the policy.
struct S3FIFOdModel: ResearchModel {
    var small: [Int] = []
    var main: [Int] = []
    var ghost: [Int] = []
    var evictedFromSmall: [Int] = []
    var evictedFromMain: [Int] = []
    var costs: [Int: Int] = [:]
    var shadowCosts: [Int: Int] = [:] // costs of keys in the ghost and evicted-key FIFOs
    var counter: [Int: Int] = [:]
    let capacity, threshold, evictedCapacity: Int
    var smallCapacity, mainCapacity, ghostCapacity: Int
    var smallHits = 0, mainHits = 0

    init(capacity: Int, smallRatio: Double = 0.1, threshold: Int = 1) {
        self.capacity = capacity
        self.threshold = threshold
        smallCapacity = Int((Double(capacity) * smallRatio).rounded(.towardZero))
        mainCapacity = capacity - smallCapacity
        ghostCapacity = mainCapacity
        evictedCapacity = capacity / 10
    }

    func sum(_ keys: [Int], _ table: [Int: Int]) -> Int { keys.reduce(0) { $0 + (table[$1] ?? 0) } }

    mutating func resize() {
        let step = max(1, min(smallCapacity, mainCapacity) / 1000)
        if sum(evictedFromMain, shadowCosts) == 0 { smallHits = 0; mainHits = 0; return }
        guard smallHits + mainHits > 100 else { return }
        if smallHits > 2 * mainHits, mainCapacity > capacity / 100 {
            smallCapacity += step; ghostCapacity += step; mainCapacity -= step
        } else if mainHits > 2 * smallHits, smallCapacity > capacity / 100 {
            smallCapacity -= step; ghostCapacity -= step; mainCapacity += step
        }
        smallHits = smallHits * 8 / 10
        mainHits = mainHits * 8 / 10
    }

    mutating func access(_ key: Int, cost: Int) -> (hit: Bool, evicted: [Int]) {
        resize()
        if small.contains(key) { counter[key, default: 0] += 1; return (true, []) }
        let ghostHit = ghost.contains(key)
        ghost.removeAll { $0 == key }
        let mainHit = main.contains(key)
        if mainHit { counter[key] = min((counter[key] ?? 0) + 1, 3) }
        if evictedFromSmall.contains(key) { evictedFromSmall.removeAll { $0 == key }; smallHits += 1 }
        if evictedFromMain.contains(key) { evictedFromMain.removeAll { $0 == key }; mainHits += 1 }
        if mainHit { return (true, []) }
        guard cost <= smallCapacity, cost <= capacity else { return (false, []) }
        var evicted: [Int] = []
        while sum(small, costs) + sum(main, costs) + cost > capacity && !costs.isEmpty { step(&evicted) }
        if ghostHit {
            if cost <= mainCapacity {
                while sum(main, costs) + cost > mainCapacity && !main.isEmpty { evictFromMain(record: false, &evicted) }
                main.insert(key, at: 0); costs[key] = cost; counter[key] = 0
            }
        } else {
            small.insert(key, at: 0); costs[key] = cost; counter[key] = 0
        }
        return (false, evicted)
    }

    mutating func step(_ evicted: inout [Int]) {
        guard sum(small, costs) > 0 || main.isEmpty, let tail = small.last else { evictFromMain(record: true, &evicted); return }
        small.removeLast()
        let cost = costs[tail] ?? 0
        if (counter[tail] ?? 0) >= threshold {
            main.insert(tail, at: 0); counter[tail] = 0
            while sum(main, costs) > mainCapacity && !main.isEmpty { evictFromMain(record: true, &evicted) }
            return
        }
        evicted.append(tail); costs[tail] = nil; counter[tail] = nil
        Self.remember(tail, cost, in: &evictedFromSmall, costs: &shadowCosts, capacity: evictedCapacity)
        Self.remember(tail, cost, in: &ghost, costs: &shadowCosts, capacity: ghostCapacity)
    }

    static func remember(_ key: Int, _ cost: Int, in fifo: inout [Int], costs: inout [Int: Int], capacity: Int) {
        guard !fifo.contains(key), cost <= capacity else { return }
        while !fifo.isEmpty && fifo.reduce(0, { $0 + (costs[$1] ?? 0) }) + cost > capacity { fifo.removeLast() }
        fifo.insert(key, at: 0)
        costs[key] = cost
    }

    mutating func evictFromMain(record: Bool, _ evicted: inout [Int]) {
        while let tail = main.last, (counter[tail] ?? 0) >= 1 {
            counter[tail]! -= 1
            main.insert(main.removeLast(), at: 0)
        }
        let victim = main.removeLast()
        if record { Self.remember(victim, costs[victim] ?? 0, in: &evictedFromMain, costs: &shadowCosts, capacity: evictedCapacity) }
        evicted.append(victim); costs[victim] = nil; counter[victim] = nil
    }

    mutating func remove(_ key: Int) -> [Int] {
        small.removeAll { $0 == key }
        main.removeAll { $0 == key }
        ghost.removeAll { $0 == key }
        costs[key] = nil
        counter[key] = nil
        return []
    }
    func contains(_ key: Int) -> Bool { costs[key] != nil }
    func cost(of key: Int) -> Int? { costs[key] }
    var count: Int { costs.count }
    var totalCost: Int { costs.values.reduce(0, +) }
}

@Suite("S3-FIFO-d (libCacheSim 0.3.5 S3FIFOd.c)")
struct S3FIFOdCacheTests {
    /// Capacity 20: small 2, main 18, ghost 18, the evicted-key FIFOs 2 each.
    @Test("capacity 20: quick demotion to the ghost, promotion on one hit, ghost admission to main")
    func vector() throws {
        var cache = try S3FIFOdCache<Int, Void>.make(capacity: 20)
        var observer = EvictionRecorder<Int, Void>()
        func run(_ keys: [Int]) -> [Int] {
            for key in keys { _ = cache.access(key, cost: 1, orInsert: (), observer: &observer) }
            return observer.take()
        }
        // The cache fills through small (it never exceeds the capacity, small alone may).
        #expect(run(Array(1...20)) == [])
        #expect(listKeys(cache.lists.small, cache.store).count == 20)
        // 21 misses: small's tail 1 was never hit, so it leaves for the ghost and E_S.
        #expect(run([2, 21]) == [1])
        // 22: small's tail is 2, hit once: it moves to main (no eviction), then 3 leaves.
        #expect(run([22]) == [3])
        #expect(listKeys(cache.lists.main, cache.store) == [2])
        #expect(listKeys(cache.lists.ghost, cache.store) == [3, 1])
        #expect(listKeys(cache.evictedFromSmall.queue, cache.evictedFromSmall.store) == [3, 1])
        // 1 is a ghost hit: it leaves the ghost and E_S and, after 4 leaves small, enters main.
        #expect(run([1]) == [4])
        #expect(listKeys(cache.lists.main, cache.store) == [1, 2])
        #expect(cache.smallEvictionHits == 1)
        #expect(listKeys(cache.evictedFromSmall.queue, cache.evictedFromSmall.store) == [4, 3])
    }

    @Test("the small queue grows while requests return to keys it has just evicted")
    func sizing() throws {
        var cache = try S3FIFOdCache<Int, Void>.make(capacity: 1_000)
        var observer = IgnoringObserver<Int, Void>()
        #expect(cache.lists.shares.small == 100 && cache.lists.shares.main == 900 && cache.lists.shares.ghost == 900)
        // 2 000 keys requested twice each: every one moves to main, which evicts into E_M, so E_M
        // is not empty (none of them is requested again).
        for key in 0..<2_000 {
            _ = cache.access(key, cost: 1, orInsert: (), observer: &observer)
            _ = cache.access(key, cost: 1, orInsert: (), observer: &observer)
        }
        #expect(cache.evictedFromMain.cost == 100)
        // New keys, each followed by the key from 150 requests back: small (100) has evicted it
        // and E_S (100) still holds it, so every return is a hit on E_S and none on E_M.
        for index in 0..<400 {
            _ = cache.access(10_000 + index, cost: 1, orInsert: (), observer: &observer)
            if index >= 150 { _ = cache.access(10_000 + index - 150, cost: 1, orInsert: (), observer: &observer) }
        }
        // 250 hits on E_S: the first resize at 101 hits (step max(1, 100 / 1000) = 1), then one
        // more after each 21 hits that bring the decayed count (80) back above 100.
        #expect(cache.lists.shares.small > 100)
        #expect(cache.lists.shares.small + cache.lists.shares.main == 1_000)
        #expect(cache.lists.shares.ghost - cache.lists.shares.small == 800)
    }

    @Test("matches the array model on random sequences", arguments: [1, 2, 3, 4, 5, 6, 7, 8] as [UInt64])
    func differential(seed: UInt64) throws {
        var rng = SeededRandom(seed: seed &* 7_919)
        let capacity = Int.random(in: 10...120, using: &rng)
        let smallRatio = [0.1, 0.2, 0.3].randomElement(using: &rng) ?? 0.1
        let threshold = Int.random(in: 1...2, using: &rng)
        var cache = try S3FIFOdCache<Int, Int>.make(capacity: capacity, options: [
            "small-ratio": "\(smallRatio)", "move-to-main-threshold": "\(threshold)"])
        var model = S3FIFOdModel(capacity: capacity, smallRatio: smallRatio, threshold: threshold)
        let operations = Scenario.uniform(steps: 3_000, keySpace: Int.random(in: 8...3 * capacity, using: &rng),
                                          maxCost: seed % 2 == 0 ? max(1, capacity / 20) : 1,
                                          mixedOperations: seed % 3 == 0, seed: seed)
        expectSameDecisions(&cache, &model, operations, label: "s3fifod c=\(capacity)")
    }
}
