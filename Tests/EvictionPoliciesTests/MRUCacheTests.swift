import EvictionPolicies
import TestSupport
import Testing

/// MRU as libCacheSim's MRU.c: `entries` ordered by recency, the last one the most recently used
/// or inserted, which is the victim.
struct MRUModel: EntryListModel {
    var entries: [ModelEntry] = []
    let capacity: Int
    let countLimit: Int

    init(capacity: Int, countLimit: Int?, options: [String: String] = [:]) {
        self.capacity = capacity
        self.countLimit = countLimit ?? .max
    }

    func index(_ key: Int) -> Int? { entries.firstIndex { $0.key == key } }
    var cost: Int { entries.reduce(0) { $0 + $1.cost } }

    mutating func evict(extraCost: Int, extraCount: Int) -> [Int] {
        var evicted: [Int] = []
        while !entries.isEmpty && (cost + extraCost > capacity || entries.count + extraCount > countLimit) {
            evicted.append(entries.removeLast().key)
        }
        return evicted
    }

    mutating func access(_ key: Int, cost: Int) -> (hit: Bool, evicted: [Int]) {
        if let i = index(key) { entries.append(entries.remove(at: i)); return (true, []) }
        return (false, insert(key, cost: cost))
    }

    mutating func insert(_ key: Int, cost: Int) -> [Int] {
        guard cost <= capacity else { _ = remove(key); return [] }
        // A resident key is taken out, room is made among the others, and it comes back newest.
        _ = remove(key)
        let evicted = evict(extraCost: cost, extraCount: 1)
        entries.append(.init(key: key, cost: cost))
        return evicted
    }

    mutating func read(_ key: Int) -> (hit: Bool, evicted: [Int]) {
        guard let i = index(key) else { return (false, []) }
        entries.append(entries.remove(at: i))
        return (true, [])
    }

    mutating func remove(_ key: Int) -> [Int] {
        guard let i = index(key) else { return [] }
        entries.remove(at: i)
        return []
    }
}

@Suite("mru (libCacheSim MRU.c)")
struct MRUCacheTests {
    typealias Cache = MRUCache<String, Int>

    @Test("MR1: the most recently used or inserted object goes; the newcomer is never its own victim")
    func mostRecentGoes() throws {
        // capacity 3: a b c. d evicts c (the last inserted). `a` hits and becomes the most recent,
        // so e evicts a. f evicts e.
        var cache = try Cache.make(capacity: 3)
        var observer = EvictionRecorder<String, Int>()
        var pattern = ""
        var evictions: [[String]] = []
        for key in ["a", "b", "c", "d", "a", "e", "f"] {
            pattern += cache.access(key, cost: 1, orInsert: 0, observer: &observer) ? "H" : "M"
            evictions.append(observer.take())
        }
        #expect(pattern == "MMMMHMM")
        #expect(evictions == [[], [], [], ["c"], [], ["a"], ["e"]])
        #expect(cache.contains("b") && cache.contains("d") && cache.contains("f"))
    }

    @Test("MR2: sizes: evicts from the most recent end until the newcomer fits")
    func sizes() throws {
        // capacity 10: a b c of 3 each (9). d (5) needs 5 free: c, then b.
        var cache = try Cache.make(capacity: 10)
        var observer = EvictionRecorder<String, Int>()
        for key in ["a", "b", "c"] { _ = cache.access(key, cost: 3, orInsert: 0, observer: &observer) }
        _ = cache.access("d", cost: 5, orInsert: 0, observer: &observer)
        #expect(observer.take() == ["c", "b"])
        #expect(observer.passes == [.caller])
        #expect(!cache.access("e", cost: 11, orInsert: 0, observer: &observer))
        #expect(cache.totalCost == 8 && observer.evicted.isEmpty)
    }

    @Test("MR3: growing a resident entry evicts the most recent of the others, not the entry itself")
    func replaceGrows() throws {
        // capacity 10: a b c of 3. b grows to 6: without b, 6 + 6 > 10 → c (most recent other) goes.
        var cache = try Cache.make(capacity: 10)
        var observer = EvictionRecorder<String, Int>()
        for key in ["a", "b", "c"] { _ = cache.access(key, cost: 3, orInsert: 0, observer: &observer) }
        cache.insert(7, forKey: "b", cost: 6, observer: &observer)
        #expect(observer.take() == ["c"])
        #expect(cache.value(forKey: "b") == 7 && cache.totalCost == 9)
    }

    @Test("differential: matches the reference model on random sequences", arguments: 1...12)
    func differential(seed: UInt64) throws {
        let scenario = Scenario.drawn(seed: seed)
        try expectSameDecisions(MRUCache<Int, Int>.self, MRUModel(capacity: scenario.capacity, countLimit: scenario.countLimit),
                                scenario, label: "mru seed \(seed)")
    }
}
