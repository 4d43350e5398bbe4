@testable import EvictionPolicies
import Testing
import TestSupport

/// libCacheSim 0.3.5's MQ.c over arrays (newest first), written from the C source.
struct MQModel: ResearchModel {
    var queues: [[Int]]
    var costs: [Int: Int] = [:]
    var requests: [Int: Int] = [:]
    var expiry: [Int: Int] = [:]
    var ghost: [(key: Int, requests: Int, cost: Int)] = []
    var now = 0
    let capacity, lifetime, ghostCapacity: Int

    init(capacity: Int, queues: Int = 8, lifetime: Int = 10_000, ghostRatio: Int = 4) {
        self.capacity = capacity
        self.queues = Array(repeating: [], count: queues)
        self.lifetime = lifetime
        ghostCapacity = capacity * ghostRatio
    }

    func queue(for count: Int) -> Int {
        var (count, queue) = (count, 0)
        while count > 1 && queue < queues.count - 1 { count >>= 1; queue += 1 }
        return queue
    }

    mutating func place(_ key: Int, in queue: Int) {
        queues[queue].insert(key, at: 0)
        expiry[key] = now + lifetime
    }

    mutating func adjust() {
        now += 1
        for k in queues.indices.dropFirst() {
            if let tail = queues[k].last, (expiry[tail] ?? 0) < now {
                queues[k].removeLast()
                place(tail, in: k - 1)
            }
        }
    }

    mutating func access(_ key: Int, cost: Int) -> (hit: Bool, evicted: [Int]) {
        if costs[key] != nil {
            for k in queues.indices { queues[k].removeAll { $0 == key } }
            requests[key, default: 0] += 1
            place(key, in: queue(for: requests[key] ?? 1))
            adjust()
            return (true, [])
        }
        var revived = 0
        if let index = ghost.firstIndex(where: { $0.key == key }) { revived = ghost.remove(at: index).requests }
        guard cost <= capacity else { return (false, []) }
        var evicted: [Int] = []
        while !costs.isEmpty && totalCost + cost > capacity {
            guard let k = queues.firstIndex(where: { !$0.isEmpty }), let victim = queues[k].popLast() else { break }
            let victimCost = costs[victim] ?? 0
            if victimCost <= ghostCapacity {
                while !ghost.isEmpty && ghost.reduce(0, { $0 + $1.cost }) + victimCost > ghostCapacity { ghost.removeLast() }
                ghost.insert((victim, requests[victim] ?? 1, victimCost), at: 0)
            }
            costs[victim] = nil; requests[victim] = nil; expiry[victim] = nil
            evicted.append(victim)
        }
        costs[key] = cost
        requests[key] = revived > 0 ? revived + 1 : 1
        place(key, in: queue(for: requests[key] ?? 1))
        adjust()
        return (false, evicted)
    }

    /// `MQ_remove`: the key leaves the ghost FIFO (Qout) as well as the queues.
    mutating func remove(_ key: Int) -> [Int] {
        ghost.removeAll { $0.key == key }
        for k in queues.indices { queues[k].removeAll { $0 == key } }
        costs[key] = nil; requests[key] = nil; expiry[key] = nil
        return []
    }
    func contains(_ key: Int) -> Bool { costs[key] != nil }
    func cost(of key: Int) -> Int? { costs[key] }
    var count: Int { costs.count }
    var totalCost: Int { costs.values.reduce(0, +) }
}

/// libCacheSim 0.3.5's Clock2QPlus.c over arrays (newest first), written from the C source.
struct Clock2QPlusModel: ResearchModel {
    var small: [Int] = [], main: [Int] = [], ghost: [Int] = []
    var costs: [Int: Int] = [:]
    var ghostCosts: [Int: Int] = [:]
    var counter: [Int: Int] = [:]
    var admittedAt: [Int: Int] = [:]
    var admissions = 0
    var hasEvicted = false
    let capacity, smallCapacity, mainCapacity, ghostCapacity, threshold: Int
    let window: Double

    init(capacity: Int, smallRatio: Double = 0.1, ghostRatio: Double = 0.9, threshold: Int = 1, windowRatio: Double = 0.5) {
        self.capacity = capacity
        smallCapacity = Int((Double(capacity) * smallRatio).rounded(.towardZero))
        mainCapacity = capacity - smallCapacity
        ghostCapacity = Int((Double(capacity) * ghostRatio).rounded(.towardZero))
        self.threshold = threshold
        window = Double(smallCapacity) * windowRatio
    }

    func sum(_ keys: [Int]) -> Int { keys.reduce(0) { $0 + (costs[$1] ?? 0) } }

    mutating func access(_ key: Int, cost: Int) -> (hit: Bool, evicted: [Int]) {
        if small.contains(key) {
            if Double(admissions - (admittedAt[key] ?? 0)) >= window { counter[key, default: 0] += 1 }
            return (true, [])
        }
        if main.contains(key) { counter[key, default: 0] += 1; return (true, []) }
        let ghostHit = ghost.contains(key)
        if ghostHit { ghost.removeAll { $0 == key }; ghostCosts[key] = nil }
        guard cost <= capacity, cost <= smallCapacity else { return (false, []) }
        var evicted: [Int] = []
        while !costs.isEmpty && totalCost + cost > capacity { step(&evicted) }
        if !ghostHit && cost >= smallCapacity { return (false, evicted) }
        costs[key] = cost
        counter[key] = 0
        if ghostHit || (!hasEvicted && sum(small) >= smallCapacity) {
            main.insert(key, at: 0)
        } else {
            admissions += 1
            admittedAt[key] = admissions
            small.insert(key, at: 0)
        }
        return (false, evicted)
    }

    mutating func step(_ evicted: inout [Int]) {
        hasEvicted = true
        if sum(main) > mainCapacity || small.isEmpty {
            while let tail = main.last, (counter[tail] ?? 0) >= 1 {
                counter[tail] = 0
                main.insert(main.removeLast(), at: 0)
            }
            leave(main.removeLast(), &evicted)
            return
        }
        while let tail = small.popLast() {
            if (counter[tail] ?? 0) >= threshold {
                counter[tail] = 0
                main.insert(tail, at: 0)
                continue
            }
            let cost = costs[tail] ?? 0
            leave(tail, &evicted)
            guard ghostCapacity > 0 && cost <= ghostCapacity else { return }
            while !ghost.isEmpty && ghost.reduce(0, { $0 + (ghostCosts[$1] ?? 0) }) + cost > ghostCapacity {
                ghostCosts[ghost.removeLast()] = nil
            }
            ghost.insert(tail, at: 0)
            ghostCosts[tail] = cost
            return
        }
    }

    mutating func leave(_ key: Int, _ evicted: inout [Int]) {
        evicted.append(key); costs[key] = nil; counter[key] = nil
    }

    mutating func remove(_ key: Int) -> [Int] {
        small.removeAll { $0 == key }
        main.removeAll { $0 == key }
        ghost.removeAll { $0 == key }
        costs[key] = nil; ghostCosts[key] = nil; counter[key] = nil
        return []
    }
    func contains(_ key: Int) -> Bool { costs[key] != nil }
    func cost(of key: Int) -> Int? { costs[key] }
    var count: Int { costs.count }
    var totalCost: Int { costs.values.reduce(0, +) }
}

@Suite("MQ and CLOCK-2Q+ (libCacheSim 0.3.5 MQ.c, Clock2QPlus.c)")
struct MQAndClock2QPlusCacheTests {
    static func run<P: EvictionPolicy>(_ cache: inout P, _ keys: [Int]) -> [Int] where P.Key == Int, P.Value == Void {
        var observer = EvictionRecorder<Int, Void>()
        for key in keys { _ = cache.access(key, cost: 1, orInsert: (), observer: &observer) }
        return observer.take()
    }

    /// Capacity 2, lifetime 2: queue k holds counts in [2^k, 2^(k+1)); `now` counts requests.
    @Test("MQ, capacity 2, lifetime 2: a count of 2 lifts to queue 1, expiry drifts it back, a ghost hit revives its count")
    func mqVector() throws {
        var cache = try MQCache<Int, Void>.make(capacity: 2, options: ["lifetime": "2"])
        #expect(Self.run(&cache, [1, 1, 2]) == [])        // 1: count 2 in queue 1, expires at 3
        #expect(Self.run(&cache, [3]) == [2])             // queue 0's tail 2 goes (count 1 to the ghost); now 4 > 3: 1 drifts to queue 0
        #expect(listKeys(cache.queues[0], cache.store) == [1, 3])
        #expect(Self.run(&cache, [4]) == [3])
        #expect(Self.run(&cache, [2]) == [1])             // ghost hit: count 1 + 1 = 2, so queue 1; 1 is queue 0's tail
        #expect(listKeys(cache.queues[0], cache.store) == [4])
        #expect(listKeys(cache.queues[1], cache.store) == [2])
    }

    /// `MQ_remove` removes the key from Qout too: a removed ghost no longer revives its count.
    @Test("MQ, capacity 2: removing a ghost key forgets its count", arguments: [false, true])
    func mqRemoveForgetsGhost(remove: Bool) throws {
        var cache = try MQCache<Int, Void>.make(capacity: 2)
        #expect(Self.run(&cache, [1, 1, 2, 3]) == [2])     // 2 leaves queue 0 for the ghost with count 1
        var observer = EvictionRecorder<Int, Void>()
        if remove { #expect(cache.remove(2, observer: &observer) == nil) }
        #expect(!cache.contains(2))
        #expect(Self.run(&cache, [2]) == [3])             // queue 0's tail 3 goes
        let queue0 = listKeys(cache.queues[0], cache.store), queue1 = listKeys(cache.queues[1], cache.store)
        // Forgotten, 2 comes back with count 1 (queue 0); revived, with count 2 (queue 1).
        #expect(queue0 == (remove ? [2] : []))
        #expect(queue1 == (remove ? [1] : [2, 1]))
    }

    /// Capacity 20: small 2, main 18, ghost 18, correlation window 1 admission.
    @Test("CLOCK-2Q+, capacity 20: warm-up to main, the correlation window, small's counted tail to main, the ghost to main")
    func clock2QPlusVector() throws {
        var cache = try Clock2QPlusCache<Int, Void>.make(capacity: 20)
        // 1 and 2 fill small; before any eviction 3–20 find it full and enter main.
        #expect(Self.run(&cache, Array(1...20)) == [])
        #expect(listKeys(cache.lists.small, cache.store) == [2, 1])
        // 1 was admitted 1 admission ago (counts); 2 was admitted last (inside the window).
        #expect(Self.run(&cache, [1, 2, 21]) == [2])      // 1 moves to main, 2 leaves for the ghost
        #expect(Self.run(&cache, [22]) == [3])            // main holds 19 > 18: its CLOCK evicts 3
        #expect(Self.run(&cache, [2]) == [21])            // ghost hit: small's tail 21 leaves; 2 enters main
        #expect(listKeys(cache.lists.small, cache.store) == [22])
        #expect(Array(listKeys(cache.lists.main, cache.store).prefix(3)) == [2, 1, 20])
        #expect(listKeys(cache.lists.ghost, cache.store) == [21])
    }

    @Test("MQ matches the array model on random sequences", arguments: [1, 2, 3, 4, 5, 6] as [UInt64])
    func mqDifferential(seed: UInt64) throws {
        var rng = SeededRandom(seed: seed &* 49_157)
        let capacity = Int.random(in: 2...40, using: &rng)
        let lifetime = [3, 20, 10_000].randomElement(using: &rng) ?? 20
        var cache = try MQCache<Int, Int>.make(capacity: capacity, options: ["lifetime": "\(lifetime)", "ghost-ratio": "1"])
        var model = MQModel(capacity: capacity, lifetime: lifetime, ghostRatio: 1)
        let operations = Scenario.uniform(steps: 3_000, keySpace: Int.random(in: 4...4 * capacity, using: &rng),
                                          maxCost: seed % 2 == 0 ? max(1, capacity / 5) : 1, mixedOperations: false, seed: seed)
        expectSameDecisions(&cache, &model, operations, label: "mq c=\(capacity) lifetime \(lifetime)")
    }

    @Test("CLOCK-2Q+ matches the array model on random sequences", arguments: [1, 2, 3, 4, 5, 6] as [UInt64])
    func clock2QPlusDifferential(seed: UInt64) throws {
        var rng = SeededRandom(seed: seed &* 86_243)
        let capacity = Int.random(in: 10...100, using: &rng)
        let smallRatio = [0.1, 0.2, 0.3].randomElement(using: &rng) ?? 0.1
        var cache = try Clock2QPlusCache<Int, Int>.make(capacity: capacity, options: ["small-ratio": "\(smallRatio)"])
        var model = Clock2QPlusModel(capacity: capacity, smallRatio: smallRatio)
        let operations = Scenario.uniform(steps: 3_000, keySpace: Int.random(in: 4...3 * capacity, using: &rng),
                                          maxCost: seed % 2 == 0 ? 2 : 1, mixedOperations: false, seed: seed)
        expectSameDecisions(&cache, &model, operations, label: "clock2qplus c=\(capacity)")
    }
}
