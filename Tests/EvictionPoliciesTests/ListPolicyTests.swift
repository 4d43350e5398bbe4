import EvictionPolicies
import TestSupport
import Testing

// Hand-worked vectors for the single-list policies. Keys are Ints; "cost" is bytes.

@Suite("LRU")
struct LRUTests {
    @Test("count limit: a hit protects the entry, the least recently used goes")
    func countLimit() throws {
        var cache = try LRUCache<Int, String>.make(countLimit: 3)
        var observer = EvictionRecorder<Int, String>()
        for key in [1, 2, 3] { cache.insert("v\(key)", forKey: key, cost: 1, observer: &observer) }
        #expect(cache.lookup(1, observer: &observer) == "v1")     // order, newest first: 1 3 2
        cache.insert("v4", forKey: 4, cost: 1, observer: &observer)
        #expect(observer.take() == [2])
        cache.insert("v5", forKey: 5, cost: 1, observer: &observer)
        #expect(observer.take() == [3])
        #expect(cache.contains(1) && cache.contains(4) && cache.contains(5))
        #expect(cache.count == 3 && cache.totalCost == 3)
        #expect(observer.passes == [.caller, .caller])
    }

    @Test("byte limit: evicts from the tail until the new object fits")
    func byteLimit() throws {
        var cache = try LRUCache<Int, Void>.make(capacity: 10)
        var observer = EvictionRecorder<Int, Void>()
        for (key, cost) in [(1, 4), (2, 3), (3, 3)] { cache.insert((), forKey: key, cost: cost, observer: &observer) }
        #expect(cache.totalCost == 10)
        cache.insert((), forKey: 4, cost: 6, observer: &observer)     // needs 6: evict 1 (4) then 2 (3)
        #expect(observer.take() == [1, 2])
        #expect(cache.totalCost == 9 && cache.count == 2)
    }

    @Test("an object larger than the capacity is not inserted and leaves the cache untouched")
    func oversized() throws {
        var cache = try LRUCache<Int, Void>.make(capacity: 10)
        var observer = EvictionRecorder<Int, Void>()
        cache.insert((), forKey: 1, cost: 5, observer: &observer)
        #expect(!cache.access(2, cost: 11, orInsert: (), observer: &observer))
        #expect(!cache.contains(2) && cache.contains(1) && cache.totalCost == 5)
        #expect(observer.evicted.isEmpty && observer.passes.isEmpty)
    }

    @Test("re-inserting a resident key replaces its cost and counts as a use")
    func reinsert() throws {
        var cache = try LRUCache<Int, String>.make(capacity: 10)
        var observer = EvictionRecorder<Int, String>()
        cache.insert("a", forKey: 1, cost: 3, observer: &observer)
        cache.insert("b", forKey: 2, cost: 3, observer: &observer)
        cache.insert("a2", forKey: 1, cost: 5, observer: &observer)    // 1 is now newest, total 8
        #expect(cache.totalCost == 8 && cache.count == 2)
        cache.insert("c", forKey: 3, cost: 4, observer: &observer)     // evicts 2 (oldest), then total 9
        #expect(observer.take() == [2])
        #expect(cache.value(forKey: 1) == "a2")
    }

    @Test("remove is not an eviction")
    func removeIsNotEviction() throws {
        var cache = try LRUCache<String, Int>.make(capacity: 10)
        cache.setValue(7, forKey: "x", cost: 2)
        #expect(cache.removeValue(forKey: "x") == 7)
        #expect(cache.removeValue(forKey: "x") == nil)
        #expect(cache.count == 0 && cache.totalCost == 0)
    }
}

@Suite("FIFO")
struct FIFOTests {
    @Test("hits do not protect an entry: the oldest insertion goes")
    func hitsDoNotReorder() throws {
        var cache = try FIFOCache<Int, Void>.make(countLimit: 3)
        var observer = EvictionRecorder<Int, Void>()
        for key in [1, 2, 3] { cache.insert((), forKey: key, cost: 1, observer: &observer) }
        #expect(cache.lookup(1, observer: &observer) != nil)
        cache.insert((), forKey: 4, cost: 1, observer: &observer)
        #expect(observer.take() == [1])
    }

    @Test("byte limit and an oversized object")
    func bytes() throws {
        var cache = try FIFOCache<Int, Void>.make(capacity: 100)
        var observer = EvictionRecorder<Int, Void>()
        for (key, cost) in [(1, 40), (2, 40), (3, 20)] { cache.insert((), forKey: key, cost: cost, observer: &observer) }
        cache.insert((), forKey: 4, cost: 50, observer: &observer)     // evict 1 (40), 2 (40) → 20 + 50
        #expect(observer.take() == [1, 2])
        cache.insert((), forKey: 5, cost: 101, observer: &observer)
        #expect(!cache.contains(5) && cache.totalCost == 70)
    }

    @Test("re-inserting a resident key keeps its queue position")
    func reinsertKeepsPosition() throws {
        var cache = try FIFOCache<Int, Void>.make(countLimit: 2)
        var observer = EvictionRecorder<Int, Void>()
        cache.insert((), forKey: 1, cost: 1, observer: &observer)
        cache.insert((), forKey: 2, cost: 1, observer: &observer)
        cache.insert((), forKey: 1, cost: 1, observer: &observer)
        cache.insert((), forKey: 3, cost: 1, observer: &observer)
        #expect(observer.take() == [1])
    }
}

@Suite("LIFO")
struct LIFOTests {
    @Test("makes room by evicting the newest resident entry, then inserts")
    func newestGoes() throws {
        var cache = try LIFOCache<Int, Void>.make(countLimit: 3)
        var observer = EvictionRecorder<Int, Void>()
        for key in [1, 2, 3] { cache.insert((), forKey: key, cost: 1, observer: &observer) }
        cache.insert((), forKey: 4, cost: 1, observer: &observer)
        #expect(observer.take() == [3])
        cache.insert((), forKey: 5, cost: 1, observer: &observer)
        #expect(observer.take() == [4])
        #expect(cache.contains(1) && cache.contains(2) && cache.contains(5))
    }

    @Test("byte limit evicts newest entries until the object fits")
    func bytes() throws {
        var cache = try LIFOCache<Int, Void>.make(capacity: 10)
        var observer = EvictionRecorder<Int, Void>()
        for (key, cost) in [(1, 4), (2, 3), (3, 3)] { cache.insert((), forKey: key, cost: cost, observer: &observer) }
        cache.insert((), forKey: 4, cost: 5, observer: &observer)      // evict 3 (3), then 2 (3): 4 + 5
        #expect(observer.take() == [3, 2])
        #expect(cache.totalCost == 9)
        cache.insert((), forKey: 9, cost: 11, observer: &observer)
        #expect(!cache.contains(9) && observer.evicted.isEmpty)
    }
}

// MARK: - Differential tests against an obviously-correct reference

/// A single-list cache written the slow, obvious way: an array of (key, cost), newest first.
struct ReferenceListCache: ResearchModel {
    enum Rule { case lru, fifo, lifo }
    let rule: Rule
    let capacity: Int
    let countLimit: Int
    var entries: [(key: Int, cost: Int)] = []

    init(rule: Rule, capacity: Int, countLimit: Int) {
        self.rule = rule
        self.capacity = capacity
        self.countLimit = countLimit
    }

    var count: Int { entries.count }
    var totalCost: Int { entries.reduce(0) { $0 + $1.cost } }
    func contains(_ key: Int) -> Bool { entries.contains { $0.key == key } }
    func cost(of key: Int) -> Int? { entries.first { $0.key == key }?.cost }

    mutating func access(_ key: Int, cost: Int) -> (hit: Bool, evicted: [Int]) {
        guard let i = entries.firstIndex(where: { $0.key == key }) else { return (false, insert(key, cost: cost)) }
        if rule == .lru { entries.insert(entries.remove(at: i), at: 0) }
        return (true, [])
    }

    /// Returns the evicted keys.
    mutating func insert(_ key: Int, cost: Int) -> [Int] {
        if let i = entries.firstIndex(where: { $0.key == key }) {
            if cost > capacity { entries.remove(at: i); return [] }
            entries[i].cost = cost
            if rule == .lru { entries.insert(entries.remove(at: i), at: 0) }
            return shrink(extraCost: 0, extraCount: 0)
        }
        guard cost <= capacity else { return [] }
        let evicted = shrink(extraCost: cost, extraCount: 1)
        entries.insert((key, cost), at: 0)
        return evicted
    }

    mutating func remove(_ key: Int) -> [Int] {
        entries.removeAll { $0.key == key }
        return []
    }

    private mutating func shrink(extraCost: Int, extraCount: Int) -> [Int] {
        var evicted: [Int] = []
        while !entries.isEmpty && (totalCost + extraCost > capacity || entries.count + extraCount > countLimit) {
            let victim = rule == .lifo ? entries.removeFirst() : entries.removeLast()
            evicted.append(victim.key)
        }
        return evicted
    }
}

@Suite("Single-list policies against the reference model")
struct ListPolicyDifferentialTests {
    static let seeds: [UInt64] = [1, 2, 3, 42, 1234, 99_991]

    func run<P: EvictionPolicy>(_ type: P.Type, rule: ReferenceListCache.Rule, seed: UInt64) throws
    where P.Key == Int, P.Value == Int {
        var rng = SeededRandom(seed: seed)
        let capacity = Int.random(in: 5...200, using: &rng)
        let countLimit = Int.random(in: 1...40, using: &rng)
        let useCount = Bool.random(using: &rng)
        var cache = try P.make(capacity: capacity, countLimit: useCount ? countLimit : nil)
        var reference = ReferenceListCache(rule: rule, capacity: capacity, countLimit: useCount ? countLimit : .max)
        let keySpace = Int.random(in: 5...80, using: &rng)
        // Costs from 0, so that zero-cost entries are covered too.
        let operations: [TestOp] = (0..<5_000).map { _ in
            let key = Int.random(in: 0..<keySpace, using: &rng)
            let cost = Int.random(in: 0...(capacity / 3 + 2), using: &rng)
            switch Int.random(in: 0..<10, using: &rng) {
            case 0..<6: return .get(key, cost: cost)
            case 6..<8: return .set(key, cost: cost)
            case 8: return .delete(key)
            default: return .lookup(key)
            }
        }
        expectSameDecisions(&cache, &reference, operations, label: "\(rule) seed \(seed)",
                            limits: (capacity, useCount ? countLimit : nil))
    }

    @Test("lru", arguments: seeds)
    func lru(seed: UInt64) throws { try run(LRUCache<Int, Int>.self, rule: .lru, seed: seed) }

    @Test("fifo", arguments: seeds)
    func fifo(seed: UInt64) throws { try run(FIFOCache<Int, Int>.self, rule: .fifo, seed: seed) }

    @Test("lifo", arguments: seeds)
    func lifo(seed: UInt64) throws { try run(LIFOCache<Int, Int>.self, rule: .lifo, seed: seed) }
}

@Suite("Configuration")
struct ConfigurationTests {
    @Test("unknown options and bad limits are rejected with the option named")
    func rejects() {
        #expect(throws: PolicyConfigurationError.self) { try LRUCache<Int, Void>.make(capacity: 10, options: ["nope": "1"]) }
        #expect(throws: PolicyConfigurationError.self) { try LRUCache<Int, Void>.make(capacity: 0) }
        #expect(throws: PolicyConfigurationError.self) { try LRUCache<Int, Void>.make(countLimit: -1) }
        let error = #expect(throws: PolicyConfigurationError.self) {
            try FIFOCache<Int, Void>.make(capacity: 10, options: ["small-ratio": "0.1"])
        }
        #expect(error?.message.contains("small-ratio") == true)
    }
}
