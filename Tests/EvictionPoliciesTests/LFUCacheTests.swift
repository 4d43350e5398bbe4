import EvictionPolicies
import TestSupport
import Testing

/// LFU as libCacheSim's LFU.c: `mark` is the count (1 on insert, +1 per hit), `stamp` when the
/// entry reached it; the victim is the lowest count, earliest stamp.
struct LFUModel: EntryListModel {
    var entries: [ModelEntry] = []
    var clock = 0
    let capacity: Int
    let countLimit: Int

    init(capacity: Int, countLimit: Int?, options: [String: String] = [:]) {
        self.capacity = capacity
        self.countLimit = countLimit ?? .max
    }

    func index(_ key: Int) -> Int? { entries.firstIndex { $0.key == key } }
    var cost: Int { entries.reduce(0) { $0 + $1.cost } }

    mutating func hit(_ i: Int) {
        clock += 1
        entries[i].mark += 1
        entries[i].stamp = clock
    }

    mutating func evict(extraCost: Int, extraCount: Int) -> [Int] {
        var evicted: [Int] = []
        while !entries.isEmpty && (cost + extraCost > capacity || entries.count + extraCount > countLimit) {
            let victim = entries.indices.min { (entries[$0].mark, entries[$0].stamp) < (entries[$1].mark, entries[$1].stamp) }
            if let victim { evicted.append(entries.remove(at: victim).key) }
        }
        return evicted
    }

    mutating func access(_ key: Int, cost: Int) -> (hit: Bool, evicted: [Int]) {
        if let i = index(key) { hit(i); return (true, []) }
        return (false, insert(key, cost: cost))
    }

    mutating func insert(_ key: Int, cost: Int) -> [Int] {
        if let i = index(key) {
            guard cost <= capacity else { entries.remove(at: i); return [] }
            hit(i)
            entries[i].cost = cost
            return evict(extraCost: 0, extraCount: 0)
        }
        guard cost <= capacity else { return [] }
        let evicted = evict(extraCost: cost, extraCount: 1)
        clock += 1
        entries.append(.init(key: key, cost: cost, mark: 1, stamp: clock))
        return evicted
    }

    mutating func read(_ key: Int) -> (hit: Bool, evicted: [Int]) {
        guard let i = index(key) else { return (false, []) }
        hit(i)
        return (true, [])
    }

    mutating func remove(_ key: Int) -> [Int] {
        guard let i = index(key) else { return [] }
        entries.remove(at: i)
        return []
    }
}

@Suite("lfu (libCacheSim LFU.c)")
struct LFUCacheTests {
    typealias Cache = LFUCache<String, Int>

    static func run(_ cache: inout Cache, _ keys: [String], cost: Int = 1) -> (String, [[String]]) {
        var observer = EvictionRecorder<String, Int>()
        var pattern = ""
        var evictions: [[String]] = []
        for key in keys {
            pattern += cache.access(key, cost: cost, orInsert: 0, observer: &observer) ? "H" : "M"
            evictions.append(observer.take())
        }
        return (pattern, evictions)
    }

    @Test("LF1: lowest count goes; on a tie, the object that reached that count first")
    func tieBreak() throws {
        // capacity 3: a b c at count 1 (in that order). d evicts a (first to reach 1).
        // b, c, d hit: all at 2, reached in the order b, c, d. e evicts b. f evicts e (count 1).
        var cache = try Cache.make(capacity: 3)
        let (pattern, evictions) = Self.run(&cache, ["a", "b", "c", "d", "b", "c", "d", "e", "f"])
        #expect(pattern == "MMMMHHHMM")
        #expect(evictions == [[], [], [], ["a"], [], [], [], ["b"], ["e"]])
        #expect(cache.frequency(of: "c") == 2 && cache.frequency(of: "d") == 2 && cache.frequency(of: "f") == 1)
    }

    @Test("LF2: a count is forgotten when its object is evicted; no ageing")
    func countsDroppedOnEviction() throws {
        // capacity 1: a reaches 3; b evicts it; a comes back with count 1, not 4.
        var cache = try Cache.make(capacity: 1)
        _ = Self.run(&cache, ["a", "a", "a"])
        #expect(cache.frequency(of: "a") == 3)
        let (_, evictions) = Self.run(&cache, ["b", "a"])
        #expect(evictions == [["a"], ["b"]])
        #expect(cache.frequency(of: "a") == 1)
        // Re-inserting a resident key counts as a use.
        cache.setValue(5, forKey: "a")
        #expect(cache.frequency(of: "a") == 2 && cache.value(forKey: "a") == 5)
    }

    @Test("LF3: sizes: evicts by count and arrival until the newcomer fits")
    func sizes() throws {
        // capacity 10: a (4) hit → count 2; b (3), c (3) at count 1. d (4) needs 6 free: b, then c.
        var cache = try Cache.make(capacity: 10)
        var observer = EvictionRecorder<String, Int>()
        for key in ["a", "a", "b", "c"] { _ = cache.access(key, cost: key == "a" ? 4 : 3, orInsert: 0, observer: &observer) }
        _ = cache.access("d", cost: 4, orInsert: 0, observer: &observer)
        #expect(observer.take() == ["b", "c"])
        #expect(observer.passes == [.caller])
        #expect(!cache.access("e", cost: 11, orInsert: 0, observer: &observer))
        #expect(cache.totalCost == 8 && cache.count == 2)
    }

    @Test("LF4: frequency buckets stay consistent when counts empty out and are reused")
    func bucketsReused() throws {
        // capacity 2. x climbs to 5 while y churns at 1; each newcomer evicts the count-1 object,
        // then x is removed explicitly and the cache refills from empty.
        var cache = try Cache.make(capacity: 2)
        let (pattern, evictions) = Self.run(&cache, ["x", "x", "y", "x", "z", "x", "w", "x"])
        #expect(pattern == "MHMHMHMH")
        #expect(evictions == [[], [], [], [], ["y"], [], ["z"], []])
        #expect(cache.frequency(of: "x") == 5 && cache.frequency(of: "w") == 1)
        #expect(cache.removeValue(forKey: "x") != nil)
        let (_, more) = Self.run(&cache, ["v", "u"])
        #expect(more == [[], ["w"]])
    }

    @Test("differential: matches the reference model on random sequences", arguments: 1...12)
    func differential(seed: UInt64) throws {
        let scenario = Scenario.drawn(seed: seed)
        try expectSameDecisions(LFUCache<Int, Int>.self, LFUModel(capacity: scenario.capacity, countLimit: scenario.countLimit),
                                scenario, label: "lfu seed \(seed)")
    }
}
