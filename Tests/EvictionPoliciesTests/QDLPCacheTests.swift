@testable import EvictionPolicies
import Testing
import TestSupport

/// libCacheSim 0.3.5's QDLP.c with its Clock2 main cache, over arrays (newest first).
struct QDLPModel: ResearchModel {
    var small: [Int] = []
    var main: [Int] = []
    var ghost: [Int] = []
    var costs: [Int: Int] = [:]
    var ghostCosts: [Int: Int] = [:]
    /// Requests while in small, or main's CLOCK counter.
    var counter: [Int: Int] = [:]
    let capacity, smallCapacity, mainCapacity, ghostCapacity, threshold: Int

    init(capacity: Int, smallRatio: Double, ghostRatio: Double, threshold: Int) {
        self.capacity = capacity
        smallCapacity = Int((Double(capacity) * smallRatio).rounded(.towardZero))
        mainCapacity = capacity - smallCapacity
        ghostCapacity = Int((Double(capacity) * ghostRatio).rounded(.towardZero))
        self.threshold = threshold
    }

    func sum(_ keys: [Int]) -> Int { keys.reduce(0) { $0 + (costs[$1] ?? 0) } }

    mutating func access(_ key: Int, cost: Int) -> (hit: Bool, evicted: [Int]) {
        if small.contains(key) { counter[key, default: 0] += 1; return (true, []) }
        if main.contains(key) { counter[key] = min((counter[key] ?? 0) + 1, 3); return (true, []) }
        let ghostHit = ghost.contains(key)
        if ghostHit { ghost.removeAll { $0 == key }; ghostCosts[key] = nil }
        guard cost <= capacity, cost <= smallCapacity else { return (false, []) }
        var evicted: [Int] = []
        while !costs.isEmpty && totalCost + cost > capacity { step(&evicted) }
        if ghostHit {
            if makeRoomInMain(cost, &evicted) { main.insert(key, at: 0); costs[key] = cost; counter[key] = 0 }
        } else if cost < smallCapacity {
            small.insert(key, at: 0); costs[key] = cost; counter[key] = 0
        }
        return (false, evicted)
    }

    mutating func step(_ evicted: inout [Int]) {
        guard let tail = small.last else { evictFromMain(&evicted); return }
        let cost = costs[tail] ?? 0
        if (counter[tail] ?? 0) >= threshold {
            let fits = makeRoomInMain(cost, &evicted)
            small.removeLast()
            if fits { main.insert(tail, at: 0); counter[tail] = 0 } else { leave(tail, &evicted) }
            return
        }
        small.removeLast()
        leave(tail, &evicted)
        guard ghostCapacity > 0 && cost <= ghostCapacity else { return }
        while !ghost.isEmpty && ghostCosts.values.reduce(0, +) + cost > ghostCapacity { ghostCosts[ghost.removeLast()] = nil }
        ghost.insert(tail, at: 0)
        ghostCosts[tail] = cost
    }

    mutating func makeRoomInMain(_ cost: Int, _ evicted: inout [Int]) -> Bool {
        guard cost <= mainCapacity else { return false }
        while !main.isEmpty && sum(main) + cost > mainCapacity { evictFromMain(&evicted) }
        return true
    }

    mutating func evictFromMain(_ evicted: inout [Int]) {
        while let tail = main.last, (counter[tail] ?? 0) >= 1 {
            counter[tail]! -= 1
            main.insert(main.removeLast(), at: 0)
        }
        leave(main.removeLast(), &evicted)
    }

    mutating func leave(_ key: Int, _ evicted: inout [Int]) {
        costs[key] = nil
        counter[key] = nil
        evicted.append(key)
    }

    mutating func remove(_ key: Int) -> [Int] {
        small.removeAll { $0 == key }
        main.removeAll { $0 == key }
        ghost.removeAll { $0 == key }
        costs[key] = nil
        ghostCosts[key] = nil
        counter[key] = nil
        return []
    }
    func contains(_ key: Int) -> Bool { costs[key] != nil }
    func cost(of key: Int) -> Int? { costs[key] }
    var count: Int { costs.count }
    var totalCost: Int { costs.values.reduce(0, +) }
}

@Suite("QD-LP (libCacheSim 0.3.5 QDLP.c, Clock2 main)")
struct QDLPCacheTests {
    @Test("capacity 4, small-ratio 0.5 (small 2, main 2, ghost 3): demotion, ghost admission, the CLOCK's second chance")
    func vector() throws {
        var cache = try QDLPCache<Int, Void>.make(capacity: 4, options: ["small-ratio": "0.5"])
        var observer = EvictionRecorder<Int, Void>()
        func run(_ keys: [Int]) -> [Int] {
            for key in keys { _ = cache.access(key, cost: 1, orInsert: (), observer: &observer) }
            return observer.take()
        }
        // Small fills to the capacity; 1 is requested there, so at the tail it moves to main; 2 leaves for the ghost.
        #expect(run([1, 2, 3, 4, 1, 5]) == [2])
        #expect(run([2]) == [3])           // ghost hit: 3 leaves small, 2 enters main
        #expect(run([6]) == [4])
        #expect(run([1, 7]) == [5])        // 1's counter in main is now 1
        #expect(run([3]) == [6, 2])        // ghost hit: 6 leaves small; main is full: 1 gets a second chance, 2 goes
        #expect(listKeys(cache.lists.main, cache.store) == [3, 1])
    }

    @Test("matches the array model on random sequences", arguments: [1, 2, 3, 4, 5, 6] as [UInt64])
    func differential(seed: UInt64) throws {
        var rng = SeededRandom(seed: seed &* 31_337)
        let capacity = Int.random(in: 4...80, using: &rng)
        let smallRatio = [0.1, 0.25, 0.5].randomElement(using: &rng) ?? 0.1
        let ghostRatio = [0.0, 0.5, 0.9].randomElement(using: &rng) ?? 0.9
        let threshold = Int.random(in: 0...2, using: &rng)
        var cache = try QDLPCache<Int, Int>.make(capacity: capacity, options: [
            "small-ratio": "\(smallRatio)", "ghost-ratio": "\(ghostRatio)", "move-to-main-threshold": "\(threshold)"])
        var model = QDLPModel(capacity: capacity, smallRatio: smallRatio, ghostRatio: ghostRatio, threshold: threshold)
        let operations = Scenario.uniform(keySpace: Int.random(in: 8...3 * capacity, using: &rng), maxCost: seed % 2 == 0 ? max(1, capacity / 8) : 1, mixedOperations: false, seed: seed)
        expectSameDecisions(&cache, &model, operations, label: "qdlp c=\(capacity)")
    }
}
