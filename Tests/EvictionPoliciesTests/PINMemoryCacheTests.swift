import EvictionPolicies
import TestSupport
import Testing

/// PINMemoryCache written from EvictionPolicies.docc/PINCache.md: an array of entries with created date,
/// access order, access count and cost; a full sort on every over-limit set; an age timer that
/// fires at start + k·ageLimit, one tick at a time.
struct ReferencePINMemoryCache: ReferenceModel {
    struct Entry { var key: Int; var cost: Int; var created: Double; var access: Int; var uses: Int }
    var entries: [Entry] = []
    var costLimit: Int
    var ageLimit: Double
    var ttl: Bool
    var lfu: Bool
    var removeAllOnMemoryWarning: Bool
    var removeAllOnBackground: Bool
    var clock = 0
    var now = 0.0
    var start: Double?
    var tick = 1

    var count: Int { entries.count }
    var totalCost: Int { entries.reduce(0) { $0 + $1.cost } }

    func alive(_ e: Entry) -> Bool { !ttl || ageLimit <= 0 || abs(e.created - now) < ageLimit }

    func containsAnswer(_ key: Int) -> Bool? { entries.contains { $0.key == key } }

    mutating func touch(_ i: Int) {
        clock += 1
        entries[i].access = clock
        entries[i].uses += 1
    }

    mutating func lookup(_ key: Int) -> (hit: Bool, passes: [Pass]) {
        guard let i = entries.firstIndex(where: { $0.key == key }), alive(entries[i]) else { return (false, []) }
        touch(i)
        return (true, [])
    }

    mutating func get(_ key: Int, cost: Int) -> (hit: Bool, passes: [Pass]) {
        if lookup(key).hit { return (true, []) }
        return (false, set(key, cost: cost))
    }

    mutating func set(_ key: Int, cost: Int) -> [Pass] {
        let cost = max(cost, 0)
        let i: Int
        if let found = entries.firstIndex(where: { $0.key == key }) {
            i = found
            entries[i].cost = cost
        } else {
            entries.append(Entry(key: key, cost: cost, created: now, access: 0, uses: 0))
            i = entries.count - 1
        }
        entries[i].created = now
        touch(i)
        guard costLimit > 0, totalCost > costLimit else { return [] }
        let order = entries.sorted { lfu ? ($0.uses, $0.access) < ($1.uses, $1.access) : $0.access < $1.access }
        var evicted: [Int] = []
        for victim in order {
            entries.removeAll { $0.key == victim.key }
            evicted.append(victim.key)
            if totalCost <= costLimit { break }
        }
        return [Pass(kind: .caller, keys: evicted)]
    }

    mutating func delete(_ key: Int) -> (removed: Bool, passes: [Pass]) {
        guard let i = entries.firstIndex(where: { $0.key == key }) else { return (false, []) }
        entries.remove(at: i)
        return (true, [])
    }

    mutating func event(_ event: CacheEvent) -> [Pass] {
        let flag = event == .memoryWarning ? removeAllOnMemoryWarning : event == .background ? removeAllOnBackground : false
        guard flag, !entries.isEmpty else { return [] }
        defer { entries.removeAll() }
        return [Pass(kind: .deferred, keys: entries.map(\.key))]
    }

    mutating func trimToAge() -> [Pass] {
        let old = entries.filter { $0.created < now - ageLimit }.map(\.key)
        entries.removeAll { $0.created < now - ageLimit }
        return old.isEmpty ? [] : [Pass(kind: .deferred, keys: old)]
    }

    mutating func advance(to time: Double) -> [Pass] {
        guard let start else {
            start = time
            now = time
            return ageLimit > 0 ? trimToAge() : []
        }
        guard time > now else { return [] }
        var passes: [Pass] = []
        while ageLimit > 0 && start + Double(tick) * ageLimit <= time {
            now = start + Double(tick) * ageLimit
            passes += trimToAge()
            tick += 1
        }
        now = time
        return passes
    }
}

@Suite("pin-memory: PINCache 3.0.4 PINMemoryCache (EvictionPolicies.docc/PINCache.md)")
struct PINMemoryCacheTests {
    typealias Cache = PINMemoryCache<String, Int>

    @Test("P1: costLimit 10; a(4), b(4), get a, c(4): sorted b, a, c, so b goes synchronously in set c")
    func p1() throws {
        var cache = try Cache.make(capacity: 10)
        var observer = EvictionRecorder<String, Int>()
        cache.advance(to: 1, observer: &observer)
        cache.insert(1, forKey: "a", cost: 4, observer: &observer)
        cache.advance(to: 2, observer: &observer)
        cache.insert(2, forKey: "b", cost: 4, observer: &observer)
        cache.advance(to: 3, observer: &observer)
        #expect(cache.lookup("a", observer: &observer) == 1)
        cache.advance(to: 4, observer: &observer)
        cache.insert(3, forKey: "c", cost: 4, observer: &observer)
        #expect(observer.evicted == ["b"] && observer.passes == [.caller])
        #expect(cache.contains("a") && cache.contains("c") && cache.totalCost == 8)
    }

    @Test("P2: a(4), b(1), c(3), then trimToCost: 5 removes the costliest, a, leaving b and c")
    func p2() throws {
        var cache = try Cache.make()                                  // costLimit 0: no trim on set
        var observer = EvictionRecorder<String, Int>()
        cache.insert(1, forKey: "a", cost: 4, observer: &observer)
        cache.insert(2, forKey: "b", cost: 1, observer: &observer)
        cache.insert(3, forKey: "c", cost: 3, observer: &observer)
        #expect(observer.evicted.isEmpty && cache.totalCost == 8)
        cache.trimToCost(5, observer: &observer)
        #expect(observer.evicted == ["a"] && cache.contains("b") && cache.contains("c"))
    }

    @Test("LFU: a set counts as one use, so a new entry goes first when every other entry was used more")
    func lfu() throws {
        var cache = try Cache.make(capacity: 10, options: ["eviction-strategy": "lfu"])
        var observer = EvictionRecorder<String, Int>()
        // Equal counts (one use each, the set) fall back to the access date: a, the oldest, goes.
        cache.insert(1, forKey: "a", cost: 4, observer: &observer)
        cache.insert(2, forKey: "b", cost: 4, observer: &observer)
        cache.insert(3, forKey: "c", cost: 4, observer: &observer)
        #expect(observer.take() == ["a"])
        _ = cache.lookup("b", observer: &observer)
        _ = cache.lookup("c", observer: &observer)
        cache.insert(4, forKey: "d", cost: 4, observer: &observer)   // d: 1 use against 2 and 2
        #expect(observer.take() == ["d"])
        #expect(cache.contains("b") && cache.contains("c"))
    }

    @Test("ttl-cache: an entry at least age-limit old is a miss but stays resident; the timer removes it by creation date")
    func ttl() throws {
        var cache = try Cache.make(options: ["age-limit": "10", "ttl-cache": "true"])
        var observer = EvictionRecorder<String, Int>()
        cache.advance(to: 0, observer: &observer)
        cache.insert(1, forKey: "a", cost: 1, observer: &observer)
        cache.advance(to: 9.5, observer: &observer)
        #expect(cache.lookup("a", observer: &observer) == 1)
        cache.advance(to: 10, observer: &observer)                    // tick at 10: created 0 is not < 0
        #expect(cache.lookup("a", observer: &observer) == nil)        // |0 − 10| < 10 fails
        #expect(cache.contains("a") && cache.count == 1 && observer.evicted.isEmpty)
        #expect(cache.extraMetrics == [PolicyMetric("ttlMisses", 1)])
        cache.advance(to: 20, observer: &observer)
        #expect(observer.evicted == ["a"] && observer.passes == [.deferred])
    }

    @Test("the age timer goes by the last set, not the last get; a re-set refreshes it")
    func ageByCreation() throws {
        var cache = try Cache.make(options: ["age-limit": "4"])
        var observer = EvictionRecorder<String, Int>()
        cache.advance(to: 100, observer: &observer)                  // ticks at 104, 108, 112, ...
        cache.insert(1, forKey: "a", cost: 1, observer: &observer)
        cache.insert(2, forKey: "b", cost: 1, observer: &observer)
        cache.advance(to: 103, observer: &observer)
        _ = cache.lookup("a", observer: &observer)
        cache.advance(to: 105, observer: &observer)                   // 104: nothing set before 100
        cache.insert(2, forKey: "b", cost: 1, observer: &observer)
        cache.advance(to: 107.9, observer: &observer)
        #expect(observer.evicted.isEmpty)
        cache.advance(to: 1e12, observer: &observer)                  // 108: a (set at 100); 112: b (set at 105)
        #expect(observer.evicted == ["a", "b"] && observer.passes == [.deferred, .deferred], "\(observer.evicted)")
    }

    @Test("memory warning and background remove everything as deferred passes, each unless switched off")
    func events() throws {
        var cache = try Cache.make()
        var observer = EvictionRecorder<String, Int>()
        cache.insert(1, forKey: "a", cost: 1, observer: &observer)
        cache.handle(.memoryWarning, observer: &observer)
        cache.insert(2, forKey: "b", cost: 1, observer: &observer)
        cache.handle(.terminate, observer: &observer)
        cache.handle(.background, observer: &observer)
        #expect(observer.evicted == ["a", "b"] && observer.passes == [.deferred, .deferred])
        var off = try Cache.make(options: ["remove-all-on-memory-warning": "false", "remove-all-on-background": "false"])
        off.insert(1, forKey: "a", cost: 1, observer: &observer)
        off.handle(.memoryWarning, observer: &observer)
        off.handle(.background, observer: &observer)
        #expect(off.count == 1)
    }

    @Test("options are validated")
    func options() throws {
        #expect(throws: PolicyConfigurationError.self) { try Cache.make(options: ["eviction-strategy": "fifo"]) }
        #expect(throws: PolicyConfigurationError.self) { try Cache.make(options: ["age-limit": "-1"]) }
        #expect(throws: PolicyConfigurationError.self) { try Cache.make(countLimit: 3) }
        #expect(try Cache.make(options: ["eviction-strategy": "lfu"]).evictionStrategy == .lfu)
    }

    @Test("differential: random sequences against the reference", arguments: 1...16)
    func differential(seed: UInt64) throws {
        var rng = SeededRandom(seed: seed)
        let capacity = Bool.random(using: &rng) ? Int.random(in: 1...40, using: &rng) : nil
        let age = Bool.random(using: &rng) ? Double(Int.random(in: 1...20, using: &rng)) / 2 : 0
        let ttl = Bool.random(using: &rng)
        let lfu = Bool.random(using: &rng)
        let onWarning = Bool.random(using: &rng), onBackground = Bool.random(using: &rng)
        let options = ["age-limit": "\(age)", "ttl-cache": "\(ttl)", "eviction-strategy": lfu ? "lfu" : "lru",
                       "remove-all-on-memory-warning": "\(onWarning)", "remove-all-on-background": "\(onBackground)"]
        var cache = try PINMemoryCache<Int, Int>.make(capacity: capacity, options: options)
        var reference = ReferencePINMemoryCache(costLimit: capacity ?? 0, ageLimit: age, ttl: ttl, lfu: lfu,
                                                removeAllOnMemoryWarning: onWarning, removeAllOnBackground: onBackground)
        var mix = OperationMix(keys: Int.random(in: 4...30, using: &rng), maxCost: Int.random(in: 0...12, using: &rng))
        mix.terminate = true
        expectSameDecisions(&cache, &reference, mix.make(count: 3_000, using: &rng), label: "seed \(seed) \(options) capacity \(capacity ?? 0)")
    }
}
