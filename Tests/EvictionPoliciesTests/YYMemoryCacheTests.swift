import EvictionPolicies
import TestSupport
import Testing

/// YYMemoryCache written from EvictionPolicies.docc/YYCache.md: an array in recency order, one
/// synchronous tail removal per over-count set, queued cost trims that run at the start of the
/// operation they are due at (the next one, or `drainDelay` later), and a timer firing at every
/// t0 + k·interval, one tick at a time, running the queued trims and then cost, count and age.
struct ReferenceYYMemoryCache: ReferenceModel {
    var list: [(key: Int, cost: Int, time: Double)] = []     // most recent first
    var costLimit: Int
    var countLimit: Int
    var ageLimit: Double
    var interval: Double
    var removeAllOnMemoryWarning: Bool
    var removeAllOnBackground: Bool
    var drainDelay: Int
    var now = 0.0
    var start: Double?
    var tick = 1
    var operation = 0
    /// The operation numbers at whose start a queued cost trim runs.
    var queued: [Int] = []

    var count: Int { list.count }
    var totalCost: Int { list.reduce(0) { $0 + $1.cost } }

    mutating func beginOperation() -> [Pass] {
        operation += 1
        var passes: [Pass] = []
        while let due = queued.first, due <= operation {
            queued.removeFirst()
            passes += deferredPass(trimToCost())
        }
        return passes
    }

    func deferredPass(_ keys: [Int]) -> [Pass] { keys.isEmpty ? [] : [Pass(kind: .deferred, keys: keys)] }

    mutating func removeTail() -> Int { list.removeLast().key }

    mutating func removeAll() -> [Int] {
        defer { list.removeAll() }
        return list.reversed().map(\.key)
    }

    mutating func trimToCost() -> [Int] {
        if costLimit == 0 { return removeAll() }
        var keys: [Int] = []
        while totalCost > costLimit && !list.isEmpty { keys.append(removeTail()) }
        return keys
    }

    mutating func trimToCount() -> [Int] {
        if countLimit == 0 { return removeAll() }
        var keys: [Int] = []
        while list.count > countLimit { keys.append(removeTail()) }
        return keys
    }

    mutating func trimToAge() -> [Int] {
        if ageLimit <= 0 { return removeAll() }
        var keys: [Int] = []
        while let tail = list.last, now - tail.time > ageLimit { keys.append(removeTail()) }
        return keys
    }

    mutating func store(_ key: Int, _ cost: Int) -> [Pass] {
        if let i = list.firstIndex(where: { $0.key == key }) { list.remove(at: i) }
        list.insert((key, max(cost, 0), now), at: 0)
        if totalCost > costLimit { queued.append(operation + drainDelay + 1) }
        if list.count > countLimit { return [Pass(kind: .caller, keys: [removeTail()])] }
        return []
    }

    mutating func touch(_ key: Int) -> Bool {
        guard let i = list.firstIndex(where: { $0.key == key }) else { return false }
        var entry = list.remove(at: i)
        entry.time = now
        list.insert(entry, at: 0)
        return true
    }

    mutating func get(_ key: Int, cost: Int) -> (hit: Bool, passes: [Pass]) {
        var passes = beginOperation()
        if touch(key) { return (true, passes) }
        passes += beginOperation()
        passes += store(key, cost)
        return (false, passes)
    }

    mutating func lookup(_ key: Int) -> (hit: Bool, passes: [Pass]) {
        let passes = beginOperation()
        return (touch(key), passes)
    }

    mutating func set(_ key: Int, cost: Int) -> [Pass] { beginOperation() + store(key, cost) }

    mutating func delete(_ key: Int) -> (removed: Bool, passes: [Pass]) {
        let passes = beginOperation()
        guard let i = list.firstIndex(where: { $0.key == key }) else { return (false, passes) }
        list.remove(at: i)
        return (true, passes)
    }

    mutating func event(_ event: CacheEvent) -> [Pass] {
        var passes = beginOperation()
        let flag = event == .memoryWarning ? removeAllOnMemoryWarning
            : event == .background ? removeAllOnBackground : false
        if flag && !list.isEmpty { passes.append(Pass(kind: .caller, keys: removeAll())) }
        return passes
    }

    mutating func advance(to time: Double) -> [Pass] {
        guard let start else {
            self.start = time
            now = time
            return []
        }
        guard time > now else { return [] }
        var passes: [Pass] = []
        while start + Double(tick) * interval <= time {
            now = start + Double(tick) * interval
            for _ in queued { passes += deferredPass(trimToCost()) }
            queued.removeAll()
            passes += deferredPass(trimToCost() + trimToCount() + trimToAge())
            tick += 1
        }
        now = time
        return passes
    }
}

@Suite("yy-lru: YYMemoryCache 1.0.4 (EvictionPolicies.docc/YYCache.md)")
struct YYMemoryCacheTests {
    typealias Cache = YYMemoryCache<String, Int>

    @Test("Y1: countLimit 2; set a, set b, get a, set c: b goes synchronously inside set c")
    func y1() throws {
        var cache = try Cache.make(countLimit: 2)
        var observer = EvictionRecorder<String, Int>()
        cache.advance(to: 0, observer: &observer)
        cache.insert(1, forKey: "a", cost: 0, observer: &observer)
        cache.insert(2, forKey: "b", cost: 0, observer: &observer)
        #expect(cache.lookup("a", observer: &observer) == 1)
        cache.insert(3, forKey: "c", cost: 0, observer: &observer)
        #expect(observer.evicted == ["b"] && observer.passes == [.caller])
        #expect(cache.contains("a") && cache.contains("c") && cache.count == 2)
    }

    @Test("Y2: costLimit 10; a(6), b(6) both stay until the queued trim runs, which then removes a")
    func y2Drained() throws {
        var cache = try Cache.make(capacity: 10)
        var observer = EvictionRecorder<String, Int>()
        cache.insert(1, forKey: "a", cost: 6, observer: &observer)
        cache.insert(2, forKey: "b", cost: 6, observer: &observer)
        #expect(cache.contains("a") && cache.contains("b") && cache.totalCost == 12)
        #expect(observer.evicted.isEmpty)
        #expect(cache.lookup("b", observer: &observer) == 2)          // the next operation drains first
        #expect(observer.evicted == ["a"] && observer.passes == [.deferred])
        #expect(!cache.contains("a") && cache.contains("b"))
    }

    @Test("Y2: with get a before the drain (drain-delay=1), a moves to the head and the trim removes b")
    func y2GetBeforeDrain() throws {
        var cache = try Cache.make(capacity: 10, options: ["drain-delay": "1"])
        var observer = EvictionRecorder<String, Int>()
        cache.insert(1, forKey: "a", cost: 6, observer: &observer)
        cache.insert(2, forKey: "b", cost: 6, observer: &observer)
        #expect(cache.lookup("a", observer: &observer) == 1)          // a stale-but-resident hit
        #expect(observer.evicted.isEmpty)
        _ = cache.lookup("zzz", observer: &observer)                    // now the trim runs
        #expect(observer.evicted == ["b"] && observer.passes == [.deferred])
        #expect(cache.contains("a") && !cache.contains("b"))
    }

    @Test("Y3: 5 items, countLimit lowered to 2, set f: one tail goes; the next 5 s tick trims to 2")
    func y3() throws {
        var cache = try Cache.make()
        var observer = EvictionRecorder<String, Int>()
        cache.advance(to: 0, observer: &observer)
        for (i, key) in ["a", "b", "c", "d", "e"].enumerated() { cache.insert(i, forKey: key, cost: 1, observer: &observer) }
        cache.countLimit = 2
        #expect(cache.count == 5, "lowering the limit trims nothing by itself")
        cache.insert(5, forKey: "f", cost: 1, observer: &observer)
        #expect(observer.take() == ["a"] && cache.count == 5)
        cache.advance(to: 4.9, observer: &observer)
        #expect(cache.count == 5)
        cache.advance(to: 5, observer: &observer)
        #expect(observer.take() == ["b", "c", "d"] && cache.count == 2)
        #expect(observer.passes == [.caller, .deferred])
        #expect(cache.contains("e") && cache.contains("f"))
    }

    @Test("Y4: ageLimit 10 s, set a at 0: kept by the tick at 10 (10 − 0 > 10 is false), removed at 15")
    func y4() throws {
        var cache = try Cache.make(options: ["age-limit": "10"])
        var observer = EvictionRecorder<String, Int>()
        cache.advance(to: 0, observer: &observer)
        cache.insert(1, forKey: "a", cost: 1, observer: &observer)
        cache.advance(to: 12, observer: &observer)                      // ticks at 5 and 10
        #expect(cache.contains("a") && observer.evicted.isEmpty)        // contains does not refresh
        cache.advance(to: 14.9, observer: &observer)
        #expect(cache.contains("a"))
        cache.advance(to: 15, observer: &observer)
        #expect(observer.evicted == ["a"] && observer.passes == [.deferred])
    }

    @Test("Y4 with the get: get a at t=12 is a hit and, as objectForKey: stamps _time, a lives until the t=25 tick")
    func y4WithGet() throws {
        // A reading of Y4 that forgets the get has a going at t≈15 (see YYCache.md); YYMemoryCache.m's objectForKey:
        // sets node->_time = now, so after a get at 12 the ticks at 15 and 20 find it 3 and 8 s old.
        var cache = try Cache.make(options: ["age-limit": "10"])
        var observer = EvictionRecorder<String, Int>()
        cache.advance(to: 0, observer: &observer)
        cache.insert(1, forKey: "a", cost: 1, observer: &observer)
        cache.advance(to: 12, observer: &observer)
        #expect(cache.lookup("a", observer: &observer) == 1)
        cache.advance(to: 24.9, observer: &observer)
        #expect(cache.contains("a"))
        cache.advance(to: 25, observer: &observer)
        #expect(observer.evicted == ["a"])
    }

    @Test("stale entries are returned: only the timer enforces the age limit")
    func staleReads() throws {
        var cache = try Cache.make(options: ["age-limit": "2", "auto-trim-interval": "100"])
        var observer = EvictionRecorder<String, Int>()
        cache.advance(to: 0, observer: &observer)
        cache.insert(1, forKey: "a", cost: 1, observer: &observer)
        cache.advance(to: 50, observer: &observer)
        #expect(cache.lookup("a", observer: &observer) == 1)            // 50 s old, limit 2 s
        cache.advance(to: 100, observer: &observer)                     // tick at 100: 50 s idle
        #expect(observer.evicted == ["a"])
    }

    @Test("the timer starts at the first advance and fires each due tick at its own time")
    func ticksInOrder() throws {
        var cache = try Cache.make(options: ["age-limit": "3"])
        var observer = EvictionRecorder<String, Int>()
        cache.advance(to: 100, observer: &observer)                     // t0 = 100: ticks at 105, 110, ...
        cache.insert(1, forKey: "a", cost: 1, observer: &observer)
        cache.advance(to: 103, observer: &observer)
        cache.insert(2, forKey: "b", cost: 1, observer: &observer)
        cache.advance(to: 1_000, observer: &observer)                   // 105: a is 5 s old; 110: b is 7 s old
        #expect(observer.evicted == ["a", "b"])
        #expect(observer.passes == [.deferred, .deferred])
    }

    @Test("a jump of 10^12 s returns at once: ticks that cannot evict are skipped")
    func hugeJump() throws {
        var aged = try Cache.make(options: ["age-limit": "1"])
        var keep = try Cache.make()
        var observer = EvictionRecorder<String, Int>()
        aged.advance(to: 0, observer: &observer)
        keep.advance(to: 0, observer: &observer)
        for i in 0..<100 {
            aged.insert(i, forKey: "k\(i)", cost: 1, observer: &observer)
            keep.insert(i, forKey: "k\(i)", cost: 1, observer: &observer)
        }
        aged.advance(to: 1e12, observer: &observer)
        keep.advance(to: 1e12, observer: &observer)
        #expect(aged.count == 0 && keep.count == 100)
        #expect(observer.passes == [.deferred])
    }

    @Test("queued cost trims run before the timer pass that is queued behind them")
    func queuedBeforeTimer() throws {
        var cache = try Cache.make(capacity: 10, options: ["drain-delay": "5"])
        var observer = EvictionRecorder<String, Int>()
        cache.advance(to: 0, observer: &observer)
        cache.insert(1, forKey: "a", cost: 6, observer: &observer)
        cache.insert(2, forKey: "b", cost: 6, observer: &observer)
        cache.countLimit = 0 + 1
        cache.advance(to: 5, observer: &observer)
        // The queued trim removes a (cost), then the timer pass trims the count: nothing left to do.
        #expect(observer.evicted == ["a"] && observer.passes == [.deferred])
    }

    @Test("memory warning and background remove everything, each unless switched off")
    func events() throws {
        var cache = try Cache.make()
        var observer = EvictionRecorder<String, Int>()
        cache.insert(1, forKey: "a", cost: 1, observer: &observer)
        cache.handle(.memoryWarning, observer: &observer)
        #expect(observer.take() == ["a"])
        cache.insert(2, forKey: "b", cost: 1, observer: &observer)
        cache.handle(.background, observer: &observer)
        #expect(observer.take() == ["b"] && observer.passes == [.caller, .caller])

        var off = try Cache.make(options: ["remove-all-on-memory-warning": "false", "remove-all-on-background": "no"])
        off.insert(1, forKey: "a", cost: 1, observer: &observer)
        off.handle(.memoryWarning, observer: &observer)
        off.handle(.background, observer: &observer)
        #expect(off.count == 1 && observer.evicted.isEmpty)
    }

    @Test("options are validated")
    func options() throws {
        #expect(throws: PolicyConfigurationError.self) { try Cache.make(options: ["auto-trim-interval": "0"]) }
        #expect(throws: PolicyConfigurationError.self) { try Cache.make(options: ["age-limit": "soon"]) }
        #expect(throws: PolicyConfigurationError.self) { try Cache.make(options: ["age-limit": "-1"]) }
        #expect(throws: PolicyConfigurationError.self) { try Cache.make(options: ["drain-delay": "64"]) }
        #expect(throws: PolicyConfigurationError.self) { try Cache.make(options: ["colour": "blue"]) }
        let cache = try Cache.make(options: ["auto-trim-interval": "2.5", "age-limit": "30"])
        #expect(cache.autoTrimInterval == 2.5 && cache.ageLimit == 30)
        #expect(try Cache.make().ageLimit == .infinity)
    }

    @Test("differential: random sequences against the reference", arguments: 1...16)
    func differential(seed: UInt64) throws {
        var rng = SeededRandom(seed: seed)
        let capacity = Bool.random(using: &rng) ? Int.random(in: 1...40, using: &rng) : nil
        let countLimit = Bool.random(using: &rng) ? Int.random(in: 1...8, using: &rng) : nil
        let age = Bool.random(using: &rng) ? Double(Int.random(in: 0...20, using: &rng)) : nil
        let interval = [1.0, 2.5, 5.0][Int.random(in: 0..<3, using: &rng)]
        let delay = Int.random(in: 0...3, using: &rng)
        let onWarning = Bool.random(using: &rng), onBackground = Bool.random(using: &rng)
        var options = ["auto-trim-interval": "\(interval)", "drain-delay": "\(delay)",
                       "remove-all-on-memory-warning": "\(onWarning)", "remove-all-on-background": "\(onBackground)"]
        if let age { options["age-limit"] = "\(age)" }
        var cache = try YYMemoryCache<Int, Int>.make(capacity: capacity, countLimit: countLimit, options: options)
        var reference = ReferenceYYMemoryCache(
            costLimit: capacity ?? .max, countLimit: countLimit ?? .max, ageLimit: age ?? .infinity,
            interval: interval, removeAllOnMemoryWarning: onWarning, removeAllOnBackground: onBackground,
            drainDelay: delay)
        let mix = OperationMix(keys: Int.random(in: 4...30, using: &rng), maxCost: Int.random(in: 0...12, using: &rng))
        expectSameDecisions(&cache, &reference, mix.make(count: 3_000, using: &rng), label: "seed \(seed) \(options)")
    }
}
