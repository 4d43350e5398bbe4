import EvictionPolicies
import TestSupport
import Testing

/// libCacheSim 0.3.5's ClockPro as it runs: admit while the newcomer fits in the cold budget
/// beside everything resident (and, in cachebench, within the count limit); never evict.
/// Written from the C code's reachable paths, not from ClockProCache.
struct ClockProModel: EntryListModel {
    var entries: [ModelEntry] = []
    let capacity: Int
    let countLimit: Int
    let coldBudget: Int

    init(capacity: Int, countLimit: Int?, options: [String: String] = [:]) {
        self.capacity = capacity
        self.countLimit = countLimit ?? .max
        let ratio = options["init-ratio-cold"].flatMap { Double($0) } ?? 1
        coldBudget = Int((Double(capacity) * ratio).rounded(.towardZero))
    }

    mutating func access(_ key: Int, cost: Int) -> (hit: Bool, evicted: [Int]) {
        if contains(key) { return (true, []) }
        if cost <= capacity && totalCost + cost <= coldBudget && entries.count < countLimit {
            entries.append(ModelEntry(key: key, cost: cost))
        }
        return (false, [])
    }

    mutating func remove(_ key: Int) -> [Int] {
        entries.removeAll { $0.key == key }
        return []
    }
}

@Suite("clockpro (libCacheSim 0.3.5 ClockPro.c as it runs)")
struct ClockProCacheTests {
    typealias Cache = ClockProCache<String, Int>

    /// Runs cache-aside gets with the given costs; returns the hit pattern ("H"/"M") and every eviction.
    static func run(_ cache: inout Cache, _ requests: [(String, Int)]) -> (String, [String]) {
        var observer = EvictionRecorder<String, Int>()
        var pattern = ""
        for (key, cost) in requests {
            pattern += cache.access(key, cost: cost, orInsert: 0, observer: &observer) ? "H" : "M"
        }
        return (pattern, observer.evicted)
    }

    @Test("CP1: the first objects fill the cache and every later newcomer is refused (libCacheSim: 4 misses)")
    func fillsThenFreezes() throws {
        // capacity 2 objects, cold budget 2. 1 enters (cold 1); 1 hits; 2 enters (cold 2);
        // 3: cold 2 + 1 > 2, ClockPro_can_insert refuses it, so evict is never called; 4 likewise.
        // libCacheSim 0.3.5 (lcs_exact on the same five requests, sizes ignored): 4 misses.
        var cache = try Cache.make(capacity: 2)
        let (pattern, evicted) = Self.run(&cache, [("1", 1), ("1", 1), ("2", 1), ("3", 1), ("4", 1)])
        #expect(pattern == "MHMMM")
        #expect(evicted.isEmpty)
        #expect(cache.contains("1") && cache.contains("2") && !cache.contains("3") && !cache.contains("4"))
        // Hits change nothing: the refused keys stay refused however often the residents are hit.
        let (later, _) = Self.run(&cache, [("1", 1), ("2", 1), ("3", 1), ("1", 1), ("4", 1)])
        #expect(later == "HHMHM")
    }

    @Test("CP2: byte costs against a cold budget of half the capacity (libCacheSim: 6 misses, 23 bytes)")
    func coldBudgetInBytes() throws {
        // capacity 10, init-ratio-cold 0.5: budget 5. a(3) enters; b(3): 3+3 > 5, refused;
        // c(2) enters (5); d(1) refused; a and c hit; b refused again; e(11) is larger than the cache.
        // libCacheSim 0.3.5 on the same eight requests in byte mode: 6 misses, 23 missed bytes.
        var cache = try Cache.make(capacity: 10, options: ["init-ratio-cold": "0.5"])
        let requests = [("a", 3), ("b", 3), ("c", 2), ("d", 1), ("a", 3), ("b", 3), ("c", 2), ("e", 11)]
        let (pattern, evicted) = Self.run(&cache, requests)
        #expect(pattern == "MMMMHMHM")
        let missedBytes = zip(pattern, requests).filter { $0.0 == "M" }.reduce(0) { $0 + $1.1.1 }
        #expect(missedBytes == 23)
        #expect(evicted.isEmpty && cache.totalCost == 5 && cache.count == 2)
    }

    @Test("CP3: a remove frees room for the next newcomer; an update with a new cost re-enters as a miss")
    func removeAndUpdate() throws {
        var cache = try Cache.make(capacity: 4)
        var observer = EvictionRecorder<String, Int>()
        _ = Self.run(&cache, [("a", 2), ("b", 2), ("c", 1)])
        #expect(!cache.contains("c"))
        cache.remove("a", observer: &observer)
        #expect(cache.access("c", cost: 1, orInsert: 0, observer: &observer) == false)
        #expect(cache.contains("c") && cache.totalCost == 3)
        // b grows from 2 to 4: the old entry goes and b, as a newcomer, no longer fits beside c.
        cache.insert(9, forKey: "b", cost: 4, observer: &observer)
        #expect(!cache.contains("b") && cache.totalCost == 1)
        // Same cost: a hit, the value replaced.
        cache.insert(7, forKey: "c", cost: 1, observer: &observer)
        #expect(cache.lookup("c", observer: &observer) == 7)
        #expect(observer.evicted.isEmpty && observer.passes.isEmpty)
    }

    @Test("CP4: the count limit refuses like the cold budget")
    func countLimit() throws {
        var cache = try Cache.make(capacity: 100, countLimit: 2)
        let (pattern, evicted) = Self.run(&cache, [("a", 1), ("b", 1), ("c", 1), ("a", 1)])
        #expect(pattern == "MMMH" && evicted.isEmpty && cache.count == 2)
    }

    @Test("options: libCacheSim's names and ranges")
    func options() throws {
        #expect(Cache.descriptor.parameters.map(\.name) == ["init-ratio-cold", "init-ref"])
        #expect(throws: PolicyConfigurationError.self) { try Cache.make(capacity: 4, options: ["init-ratio-cold": "1.5"]) }
        #expect(throws: PolicyConfigurationError.self) { try Cache.make(capacity: 4, options: ["init-ref": "maybe"]) }
        #expect(throws: PolicyConfigurationError.self) { try Cache.make(capacity: 4, options: ["ratio": "0.5"]) }
        // A budget of 0 admits nothing; no capacity at all admits everything.
        var empty = try Cache.make(capacity: 4, options: ["init-ratio-cold": "0"])
        #expect(Self.run(&empty, [("a", 1), ("a", 1)]).0 == "MM")
        var unbounded = try Cache.make(countLimit: 3)
        #expect(Self.run(&unbounded, [("a", 1_000_000), ("a", 1)]).0 == "MH")
    }

    @Test("differential: matches the reference model on random sequences", arguments: 1...12)
    func differential(seed: UInt64) throws {
        let options = seed % 3 == 0 ? ["init-ratio-cold": "0.5"] : [:]
        let scenario = Scenario.drawn(seed: seed)
        let model = ClockProModel(capacity: scenario.capacity, countLimit: scenario.countLimit, options: options)
        try expectSameDecisions(ClockProCache<Int, Int>.self, model, scenario, options: options, label: "clockpro seed \(seed)")
    }
}
