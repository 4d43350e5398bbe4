import EvictionPolicies
import TestSupport
import Testing

/// Nuke's `Cache` written from EvictionPolicies.docc/Nuke.md, both versions: an array whose first
/// element is `list.first`, entries with an expiry and (CLOCK) a reference bit.
struct ReferenceNukeCache: ReferenceModel {
    struct Entry { var key: Int; var cost: Int; var expiry: Double; var referenced = false }
    var list: [Entry] = []                 // list.first ... list.last
    var clock: Bool                        // 13.0.5+ when true, ≤ 13.0.4 when false
    var costLimit: Int
    var countLimit: Int
    var ttl: Double?
    var entryCostLimit: Double
    var now = 0.0

    var count: Int { list.count }
    var totalCost: Int { list.reduce(0) { $0 + $1.cost } }
    /// contains means resident, expired or not.
    func containsAnswer(_ key: Int) -> Bool? { list.contains { $0.key == key } }

    /// Whether a set of `cost` is stored.
    func admits(_ cost: Int) -> Bool {
        if clock {
            let product = entryCostLimit * Double(costLimit)
            return product >= Double(Int.max) || cost < Int(product)
        }
        return costLimit > 2_147_483_647 || cost < Int(entryCostLimit * Double(costLimit))
    }

    func isExpired(_ e: Entry) -> Bool { e.expiry < now }

    mutating func lookup(_ key: Int) -> (hit: Bool, passes: [Pass]) {
        guard let i = list.firstIndex(where: { $0.key == key }) else { return (false, []) }
        if isExpired(list[i]) {
            list.remove(at: i)
            return (false, [Pass(kind: .caller, keys: [key])])
        }
        if clock {
            list[i].referenced = true
        } else {
            list.append(list.remove(at: i))
        }
        return (true, [])
    }

    mutating func get(_ key: Int, cost: Int) -> (hit: Bool, passes: [Pass]) {
        let (hit, passes) = lookup(key)
        if hit { return (true, passes) }
        return (false, passes + set(key, cost: cost))
    }

    mutating func set(_ key: Int, cost: Int) -> [Pass] {
        let cost = max(cost, 0)
        guard admits(cost) else { return [] }
        let expiry = ttl.map { now + $0 } ?? .infinity
        if let i = list.firstIndex(where: { $0.key == key }) {
            if clock {
                list[i].cost = cost
                list[i].expiry = expiry
                list[i].referenced = true
            } else {
                list.remove(at: i)
                list.append(Entry(key: key, cost: cost, expiry: expiry))
            }
        } else {
            list.append(Entry(key: key, cost: cost, expiry: expiry))
        }
        return trim(toCost: costLimit, toCount: countLimit)
    }

    mutating func trim(toCost: Int, toCount: Int) -> [Pass] {
        var evicted: [Int] = []
        func step(_ list: inout [Entry]) {
            if clock && list[0].referenced {
                var first = list.removeFirst()
                first.referenced = false
                list.append(first)
            } else {
                evicted.append(list.removeFirst().key)
            }
        }
        while totalCost > toCost && !list.isEmpty { step(&list) }
        while list.count > toCount { step(&list) }
        return evicted.isEmpty ? [] : [Pass(kind: .caller, keys: evicted)]
    }

    mutating func delete(_ key: Int) -> (removed: Bool, passes: [Pass]) {
        guard let i = list.firstIndex(where: { $0.key == key }) else { return (false, []) }
        list.remove(at: i)
        return (true, [])
    }

    mutating func event(_ event: CacheEvent) -> [Pass] {
        switch event {
        case .memoryWarning:
            defer { list.removeAll() }
            return list.isEmpty ? [] : [Pass(kind: .caller, keys: list.map(\.key))]
        case .background:
            return trim(toCost: Int(Double(costLimit) * 0.1), toCount: Int(Double(countLimit) * 0.1))
        case .terminate:
            return []
        }
    }

    mutating func advance(to time: Double) -> [Pass] {
        now = max(now, time)
        return []
    }
}

@Suite("nuke-lru and nuke-clock: Nuke's memory cache before and after 13.0.5 (EvictionPolicies.docc/Nuke.md)")
struct NukeCacheTests {
    typealias LRU = NukeLRUCache<String, Int>
    typealias Clock = NukeClockCache<String, Int>

    /// set a, b, c; get a, b, c; set d, with countLimit 3; returns the evicted keys and what stays.
    func nk1<P: EvictionPolicy>(_ type: P.Type) throws -> (evicted: [String], resident: [String])
    where P.Key == String, P.Value == Int {
        var cache = try P.make(countLimit: 3)
        var observer = EvictionRecorder<String, Int>()
        for (i, key) in ["a", "b", "c"].enumerated() { cache.insert(i, forKey: key, cost: 1, observer: &observer) }
        for key in ["a", "b", "c"] { #expect(cache.lookup(key, observer: &observer) != nil) }
        cache.insert(3, forKey: "d", cost: 1, observer: &observer)
        return (observer.evicted, ["a", "b", "c", "d"].filter(cache.contains))
    }

    @Test("NK1 (≤ 13.0.4): countLimit 3; set a, b, c; get a, b, c; set d evicts a, the least recently used")
    func nk1LRU() throws {
        let outcome = try nk1(LRU.self)
        #expect(outcome.evicted == ["a"] && outcome.resident == ["b", "c", "d"])
    }

    @Test("NK1 (≥ 13.0.5): the sweep clears and rotates a, b, c, then evicts d, new and unreferenced")
    func nk1Clock() throws {
        let outcome = try nk1(Clock.self)
        #expect(outcome.evicted == ["d"] && outcome.resident == ["a", "b", "c"])
    }

    @Test("NK2: costLimit 100 gives entryMaxCost 10: cost 10 is ignored, cost 9 stored; the old value stays")
    func nk2() throws {
        for clock in [false, true] {
            var observer = EvictionRecorder<String, Int>()
            var lru = try LRU.make(capacity: 100)
            var clk = try Clock.make(capacity: 100)
            func set(_ value: Int, _ cost: Int) {
                if clock { clk.insert(value, forKey: "x", cost: cost, observer: &observer) }
                else { lru.insert(value, forKey: "x", cost: cost, observer: &observer) }
            }
            func get() -> Int? { clock ? clk.lookup("x", observer: &observer) : lru.lookup("x", observer: &observer) }
            set(1, 10)
            #expect(get() == nil, "cost 10 is not < 10")
            set(2, 9)
            #expect(get() == 2)
            set(3, 50)
            #expect(get() == 2, "an ignored set keeps the old value")
            let metrics = clock ? clk.extraMetrics : lru.extraMetrics
            #expect(metrics == [PolicyMetric("ignoredSets", 2)])
        }
    }

    @Test("the entry cap: skipped above Int32.max bytes up to 13.0.4, always applied from 13.0.5")
    func entryCapAboveInt32() throws {
        var observer = EvictionRecorder<String, Int>()
        var lru = try LRU.make(capacity: 3_000_000_000)
        var clk = try Clock.make(capacity: 3_000_000_000)
        lru.insert(1, forKey: "big", cost: 2_000_000_000, observer: &observer)
        clk.insert(1, forKey: "big", cost: 2_000_000_000, observer: &observer)
        #expect(lru.contains("big") && !clk.contains("big"))
        clk.insert(1, forKey: "big", cost: 299_999_999, observer: &observer)
        #expect(clk.contains("big"))
    }

    @Test("TTL is lazy: an entry expires strictly after now + ttl and is removed by the get that finds it")
    func ttl() throws {
        var cache = try Clock.make(options: ["ttl": "10"])
        var observer = EvictionRecorder<String, Int>()
        cache.advance(to: 0, observer: &observer)
        cache.insert(1, forKey: "a", cost: 1, observer: &observer)
        cache.advance(to: 10, observer: &observer)
        #expect(cache.lookup("a", observer: &observer) == 1, "expiry 10 is not < now 10")
        cache.advance(to: 10.5, observer: &observer)
        #expect(cache.count == 1 && cache.contains("a"), "no timer: still resident")
        #expect(cache.lookup("a", observer: &observer) == nil)
        #expect(observer.evicted == ["a"] && observer.passes == [.caller] && cache.count == 0)
    }

    @Test("background trims to 10 % of the cost limit; the CLOCK version spares referenced entries once")
    func background() throws {
        var observer = EvictionRecorder<String, Int>()
        var lru = try LRU.make(capacity: 100)
        var clk = try Clock.make(capacity: 100)
        for (i, key) in ["a", "b", "c", "d"].enumerated() {
            lru.insert(i, forKey: key, cost: 8, observer: &observer)
            clk.insert(i, forKey: key, cost: 8, observer: &observer)
        }
        _ = lru.lookup("a", observer: &observer)
        _ = clk.lookup("a", observer: &observer)
        lru.handle(.background, observer: &observer)
        #expect(observer.take() == ["b", "c", "d"])
        clk.handle(.background, observer: &observer)
        #expect(observer.take() == ["b", "c", "d"])
        #expect(lru.contains("a") && clk.contains("a"))
        clk.handle(.memoryWarning, observer: &observer)
        lru.handle(.terminate, observer: &observer)
        #expect(observer.take() == ["a"] && lru.count == 1 && clk.count == 0)
    }

    @Test("options are validated")
    func options() throws {
        #expect(throws: PolicyConfigurationError.self) { try LRU.make(options: ["ttl": "-1"]) }
        #expect(throws: PolicyConfigurationError.self) { try Clock.make(options: ["entry-cost-limit": "2"]) }
        #expect(throws: PolicyConfigurationError.self) { try Clock.make(options: ["ttl": "soon"]) }
        #expect(LRU.descriptor.name == "nuke-lru" && Clock.descriptor.name == "nuke-clock")
    }

    @Test("differential: random sequences against the reference", arguments: 1...12)
    func differential(seed: UInt64) throws {
        for clock in [false, true] {
            var rng = SeededRandom(seed: seed &* 31 &+ (clock ? 1 : 0))
            let capacity = Bool.random(using: &rng) ? Int.random(in: 1...120, using: &rng) : nil
            let countLimit = Bool.random(using: &rng) ? Int.random(in: 1...8, using: &rng) : nil
            let ttl = Bool.random(using: &rng) ? Double(Int.random(in: 0...12, using: &rng)) : nil
            let fraction = [0.1, 0.1, 0.5, 1.0, 0.0][Int.random(in: 0..<5, using: &rng)]
            var options = ["entry-cost-limit": "\(fraction)"]
            if let ttl { options["ttl"] = "\(ttl)" }
            var reference = ReferenceNukeCache(clock: clock, costLimit: capacity ?? .max, countLimit: countLimit ?? .max,
                                               ttl: ttl, entryCostLimit: fraction)
            var mix = OperationMix(keys: Int.random(in: 4...30, using: &rng), maxCost: Int.random(in: 0...15, using: &rng))
            mix.terminate = true
            let ops = mix.make(count: 3_000, using: &rng)
            let label = "seed \(seed) clock \(clock) capacity \(capacity.map(String.init) ?? "none") \(options)"
            if clock {
                var cache = try NukeClockCache<Int, Int>.make(capacity: capacity, countLimit: countLimit, options: options)
                expectSameDecisions(&cache, &reference, ops, label: label)
            } else {
                var cache = try NukeLRUCache<Int, Int>.make(capacity: capacity, countLimit: countLimit, options: options)
                expectSameDecisions(&cache, &reference, ops, label: label)
            }
        }
    }
}
