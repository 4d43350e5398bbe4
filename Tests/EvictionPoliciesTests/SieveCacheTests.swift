import EvictionPolicies
import TestSupport
import Testing

/// SIEVE as the NSDI'24 paper and libCacheSim's Sieve.c: `entries[0]` is the oldest, new entries
/// go to the end and nothing ever moves; `mark` is the visited bit; the hand is a key.
struct SieveModel: EntryListModel {
    var entries: [ModelEntry] = []
    var hand: Int?
    let capacity: Int
    let countLimit: Int

    init(capacity: Int, countLimit: Int?, options: [String: String] = [:]) {
        self.capacity = capacity
        self.countLimit = countLimit ?? .max
    }

    func index(_ key: Int) -> Int? { entries.firstIndex { $0.key == key } }
    var cost: Int { entries.reduce(0) { $0 + $1.cost } }

    /// The key just newer than the entry at `i`, or nil if it is the newest.
    func newer(_ i: Int) -> Int? { i + 1 < entries.count ? entries[i + 1].key : nil }

    mutating func evict(extraCost: Int, extraCount: Int) -> [Int] {
        var evicted: [Int] = []
        while !entries.isEmpty && (cost + extraCost > capacity || entries.count + extraCount > countLimit) {
            var i = hand.flatMap(index) ?? 0
            while entries[i].mark != 0 {
                entries[i].mark = 0
                i = i + 1 < entries.count ? i + 1 : 0
            }
            hand = newer(i)
            evicted.append(entries.remove(at: i).key)
        }
        return evicted
    }

    mutating func access(_ key: Int, cost: Int) -> (hit: Bool, evicted: [Int]) {
        if let i = index(key) { entries[i].mark = 1; return (true, []) }
        return (false, insert(key, cost: cost))
    }

    mutating func insert(_ key: Int, cost: Int) -> [Int] {
        if let i = index(key) {
            guard cost <= capacity else { _ = remove(key); return [] }
            entries[i].cost = cost
            entries[i].mark = 1
            return evict(extraCost: 0, extraCount: 0)
        }
        guard cost <= capacity else { return [] }
        let evicted = evict(extraCost: cost, extraCount: 1)
        entries.append(.init(key: key, cost: cost))
        return evicted
    }

    mutating func read(_ key: Int) -> (hit: Bool, evicted: [Int]) {
        guard let i = index(key) else { return (false, []) }
        entries[i].mark = 1
        return (true, [])
    }

    mutating func remove(_ key: Int) -> [Int] {
        guard let i = index(key) else { return [] }
        if hand == key { hand = newer(i) }
        entries.remove(at: i)
        return []
    }
}

@Suite("sieve (NSDI'24, libCacheSim Sieve.c)")
struct SieveCacheTests {
    typealias Cache = SieveCache<String, Int>

    static func run(_ cache: inout Cache, _ keys: [String]) -> (String, [[String]]) {
        var observer = EvictionRecorder<String, Int>()
        var pattern = ""
        var evictions: [[String]] = []
        for key in keys {
            pattern += cache.access(key, cost: 1, orInsert: 0, observer: &observer) ? "H" : "M"
            evictions.append(observer.take())
        }
        return (pattern, evictions)
    }

    @Test("SV1: the hand stays where it stopped; a retained object keeps its place at the tail")
    func handPersists() throws {
        // capacity 3; oldest→newest a b c; `a` hits (visited).
        // d: hand unset → tail a: visited, cleared; b unvisited → evict b; hand → c.  (a c d)
        // e: hand c unvisited → evict c; hand → d.                                    (a d e)
        // f: evict d; hand → e.                                                       (a e f)
        // `e` hits. g: hand e visited → cleared; f unvisited → evict f; f was the newest, so the
        // hand is unset.                                                              (a e g)
        // h: from the tail: a (cleared at d) → evict a; hand → e.
        var cache = try Cache.make(capacity: 3)
        let (pattern, evictions) = Self.run(&cache, ["a", "b", "c", "a", "d", "e", "f", "e", "g", "h"])
        #expect(pattern == "MMMHMMMHMM")
        #expect(evictions == [[], [], [], [], ["b"], ["c"], ["d"], [], ["f"], ["a"]])
    }

    @Test("SV2: the hand wraps from the newest back to the oldest")
    func wraps() throws {
        // capacity 2; a b both hit. c: a cleared, b cleared, wrap to a → evict a; hand → b.
        // d: b (cleared) → evict b.
        var cache = try Cache.make(capacity: 2)
        let (pattern, evictions) = Self.run(&cache, ["a", "b", "a", "b", "c", "d"])
        #expect(pattern == "MMHHMM")
        #expect(evictions.suffix(2) == [["a"], ["b"]])
    }

    @Test("SV3: removing the object under the hand moves the hand to its newer neighbour")
    func removeUnderHand() throws {
        // capacity 3; a b c, `a` hits; d evicts b (clearing a's bit) and leaves the hand on c
        // (a c d). remove c → hand on d. e fills the free place (a d e). f: the hand is on d,
        // unvisited → evict d (restarting from the tail would evict a).
        var cache = try Cache.make(capacity: 3)
        _ = Self.run(&cache, ["a", "b", "c", "a", "d"])
        #expect(cache.removeValue(forKey: "c") != nil)
        let (_, evictions) = Self.run(&cache, ["e", "f"])
        #expect(evictions == [[], ["d"]])
        #expect(cache.contains("a"))
    }

    @Test("SV4: sizes: evicts until the newcomer fits; oversized objects are not inserted")
    func sizes() throws {
        var cache = try Cache.make(capacity: 10)
        var observer = EvictionRecorder<String, Int>()
        _ = cache.access("a", cost: 4, orInsert: 0, observer: &observer)
        _ = cache.access("b", cost: 4, orInsert: 0, observer: &observer)
        _ = cache.access("a", cost: 4, orInsert: 0, observer: &observer)
        #expect(!cache.access("c", cost: 11, orInsert: 0, observer: &observer))
        #expect(observer.evicted.isEmpty && cache.totalCost == 8)
        // c (7) needs 5 free: a is visited (cleared, spared), b goes, then a goes too.
        _ = cache.access("c", cost: 7, orInsert: 0, observer: &observer)
        #expect(observer.take() == ["b", "a"])
        #expect(observer.passes == [.caller])
        #expect(cache.count == 1 && cache.totalCost == 7)
    }

    @Test("differential: matches the reference model on random sequences", arguments: 1...12)
    func differential(seed: UInt64) throws {
        let scenario = Scenario.drawn(seed: seed)
        try expectSameDecisions(SieveCache<Int, Int>.self, SieveModel(capacity: scenario.capacity, countLimit: scenario.countLimit),
                                scenario, label: "sieve seed \(seed)")
    }
}
