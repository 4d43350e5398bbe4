import EvictionPolicies
import TestSupport
import Testing

/// CLOCK as libCacheSim's Clock.c: `entries[0]` is the oldest (where the hand looks), new and
/// reinserted entries go to the end; `mark` is the counter.
struct ClockModel: EntryListModel {
    var entries: [ModelEntry] = []
    let capacity: Int
    let countLimit: Int
    let maximum: Int64
    /// A new entry's counter (libCacheSim's init-freq, which may exceed the maximum).
    let initial: Int64

    init(capacity: Int, countLimit: Int?, options: [String: String] = [:]) {
        self.capacity = capacity
        self.countLimit = countLimit ?? .max
        maximum = (1 << Int64(options["bits"].flatMap { Int($0) } ?? 1)) - 1
        initial = Int64(options["init-freq"].flatMap { Int($0) } ?? 0)
    }

    func index(_ key: Int) -> Int? { entries.firstIndex { $0.key == key } }
    var cost: Int { entries.reduce(0) { $0 + $1.cost } }

    /// libCacheSim's `if (freq < max_freq) freq += 1`: a counter above the ceiling (from
    /// init-freq) stays where it is.
    mutating func hit(_ i: Int) { if entries[i].mark < maximum { entries[i].mark += 1 } }

    mutating func evict(extraCost: Int, extraCount: Int) -> [Int] {
        var evicted: [Int] = []
        while !entries.isEmpty && (cost + extraCost > capacity || entries.count + extraCount > countLimit) {
            if entries[0].mark >= 1 {
                var first = entries.removeFirst()
                first.mark -= 1
                entries.append(first)
            } else {
                evicted.append(entries.removeFirst().key)
            }
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
            entries[i].cost = cost
            hit(i)
            return evict(extraCost: 0, extraCount: 0)
        }
        guard cost <= capacity else { return [] }
        let evicted = evict(extraCost: cost, extraCount: 1)
        entries.append(.init(key: key, cost: cost, mark: initial))
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

@Suite("clock (libCacheSim Clock.c)")
struct ClockCacheTests {
    typealias Cache = ClockCache<String, Int>

    /// Runs cache-aside gets and returns the hit pattern ("H"/"M") and the evictions per request.
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

    @Test("CK1: a set bit buys one trip back to the head; new objects enter with the bit clear")
    func secondChance() throws {
        // capacity 3. a b c fill the cache (oldest→newest: a0 b0 c0). `a` hits → a1.
        // d: the hand finds a1, clears it and moves a to the head (b0 c0 a0), then evicts b.
        // b: the tail is c0 → evict c (c0 a0 d0 → a0 d0 b0). `a` hits → a1.
        // c: a1 is cleared and moved (d0 b0 a0), d0 is evicted.
        var cache = try Cache.make(capacity: 3)
        let (pattern, evictions) = Self.run(&cache, ["a", "b", "c", "a", "d", "b", "a", "c"])
        #expect(pattern == "MMMHMMHM")
        #expect(evictions == [[], [], [], [], ["b"], ["c"], [], ["d"]])
    }

    @Test("CK2: bits=2 counts up to 3 and the hand takes one off per pass")
    func twoBitCounter() throws {
        // capacity 2. a b, then a×4 (a saturates at 3) and b (b1). Queue: a3 b1.
        // c: a3→2 to head (b1 a2); b1→0 to head (a2 b0); a2→1 to head (b0 a1); evict b.
        // d: a1→0 to head (c0 a0); evict c.   e: evict a.
        var cache = try Cache.make(capacity: 2, options: ["bits": "2"])
        let (pattern, evictions) = Self.run(&cache, ["a", "b", "a", "a", "a", "a", "b", "c", "d", "e"])
        #expect(pattern == "MMHHHHHMMM")
        #expect(evictions.suffix(3) == [["b"], ["c"], ["a"]])

        // With one bit the same history evicts `a` first: a1 b1 → both cleared → a is the tail.
        var oneBit = try Cache.make(capacity: 2)
        let (_, oneBitEvictions) = Self.run(&oneBit, ["a", "b", "a", "a", "a", "a", "b", "c"])
        #expect(oneBitEvictions.last == ["a"])
    }

    @Test("CK-init: init-freq starts new objects with references, so the hand passes them over")
    func initialCounter() throws {
        // capacity 2: a b, a hit on a, then c. Counters from 0: a1 b0, so b goes.
        // With init-freq 1: a1 b1 (the hit cannot raise a past 1): both are cleared, a goes.
        var plain = try Cache.make(capacity: 2)
        #expect(Self.run(&plain, ["a", "b", "a", "c"]).1.last == ["b"])
        var referenced = try Cache.make(capacity: 2, options: ["init-freq": "1"])
        #expect(Self.run(&referenced, ["a", "b", "a", "c"]).1.last == ["a"])
        // libCacheSim sets init-freq as given, above the 1-bit ceiling too: 3 passes before a goes.
        var high = try Cache.make(capacity: 1, options: ["init-freq": "3"])
        #expect(Self.run(&high, ["a", "b"]).1.last == ["a"])
    }

    @Test("CK3: an object larger than the capacity is not inserted and evicts nothing")
    func oversized() throws {
        var cache = try Cache.make(capacity: 10)
        var observer = EvictionRecorder<String, Int>()
        _ = cache.access("a", cost: 6, orInsert: 1, observer: &observer)
        #expect(cache.access("big", cost: 11, orInsert: 2, observer: &observer) == false)
        #expect(!cache.contains("big"))
        #expect(cache.count == 1 && cache.totalCost == 6)
        #expect(observer.evicted.isEmpty && observer.passes.isEmpty)
        // Sizes: b (5) needs a (6) gone; the pass is reported once.
        _ = cache.access("b", cost: 5, orInsert: 3, observer: &observer)
        #expect(observer.evicted == ["a"] && observer.passes == [.caller])
    }

    @Test("options: bits is validated")
    func options() throws {
        #expect(throws: PolicyConfigurationError.self) { try Cache.make(capacity: 4, options: ["bits": "0"]) }
        #expect(throws: PolicyConfigurationError.self) { try Cache.make(capacity: 4, options: ["bits": "two"]) }
        #expect(throws: PolicyConfigurationError.self) { try Cache.make(capacity: 4, options: ["n-bit-counter": "1"]) }
        #expect(throws: PolicyConfigurationError.self) { try Cache.make(capacity: 4, options: ["init-freq": "-1"]) }
        #expect(Cache.descriptor.parameters.map(\.name) == ["bits", "init-freq"])
        #expect(Cache.descriptor.parameters.first?.defaultValue == "1")
    }

    @Test("differential: matches the reference model on random sequences", arguments: 1...12)
    func differential(seed: UInt64) throws {
        let options = seed % 3 == 0 ? ["bits": "2"] : seed % 4 == 1 ? ["init-freq": "\(seed % 3 + 1)"] : [:]
        let scenario = Scenario.drawn(seed: seed)
        let model = ClockModel(capacity: scenario.capacity, countLimit: scenario.countLimit, options: options)
        try expectSameDecisions(ClockCache<Int, Int>.self, model, scenario, options: options, label: "clock seed \(seed)")
    }
}
