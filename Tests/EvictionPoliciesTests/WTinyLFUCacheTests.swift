@testable import EvictionPolicies
import TestSupport
import Testing

/// Caffeine's count-min sketch written the plain way: one small integer per counter, no bit
/// packing. Only the hashing (Long.hashCode, spread, the four seeds) is shared with Caffeine's
/// definition, since it decides which counters a key uses.
struct SketchModel {
    var counters: [[Int]]        // table rows × 16 counters
    var additions = 0
    var period: Int

    init(maximumSize: Int, multiplier: Double = 1) {
        let maximum = min(Int(multiplier * Double(maximumSize)), Int(Int32.max >> 1))
        var rows = 1
        while rows < maximum { rows *= 2 }
        counters = Array(repeating: Array(repeating: 0, count: 16), count: rows)
        period = maximumSize == 0 ? 10 : 10 * rows
    }

    mutating func ensureCapacity(_ maximumSize: Int, multiplier: Double = 1) {
        let maximum = min(Int(multiplier * Double(maximumSize)), Int(Int32.max >> 1))
        if counters.count < maximum {
            var rows = 1
            while rows < maximum { rows *= 2 }
            counters = Array(repeating: Array(repeating: 0, count: 16), count: rows)
        }
        period = maximumSize == 0 ? 10 : 10 * counters.count
    }

    /// The (row, counter) pairs of `key`: counter start + i of row indexOf(hash, i).
    func cells(_ key: Int) -> [(Int, Int)] {
        let e = UInt64(bitPattern: Int64(key))
        var x = UInt32(truncatingIfNeeded: e ^ (e >> 32))
        x = ((x >> 16) ^ x) &* 0x45d9f3b
        x = ((x >> 16) ^ x) &* 0x45d9f3b
        let hash = Int32(bitPattern: (x >> 16) ^ x)
        let seeds: [UInt64] = [0xc3a5c85c97cb3127, 0xb492b66fbe98f273, 0x9ae16a3b2f90404f, 0xcbf29ce484222325]
        let start = Int(hash & 3) * 4
        return (0..<4).map { i in
            var h = (UInt64(bitPattern: Int64(hash)) &+ seeds[i]) &* seeds[i]
            h &+= h >> 32
            return (Int(Int32(truncatingIfNeeded: h)) & (counters.count - 1), start + i)
        }
    }

    func frequency(_ key: Int) -> Int { cells(key).map { counters[$0.0][$0.1] }.min()! }

    mutating func increment(_ key: Int) {
        var added = false
        for (row, column) in cells(key) where counters[row][column] < 15 {
            counters[row][column] += 1
            added = true
        }
        guard added else { return }
        additions += 1
        guard additions == period else { return }
        let odd = counters.joined().filter { $0 % 2 == 1 }.count
        counters = counters.map { $0.map { $0 / 2 } }
        additions = (additions - odd / 4) / 2
    }
}

/// java.util.Random as its documentation defines it.
struct JavaRandomModel {
    var seed: Int64
    init(_ seed: Int64) { self.seed = (seed ^ 0x5DEECE66D) & ((1 << 48) - 1) }
    mutating func nextFloat() -> Float {
        seed = (seed &* 0x5DEECE66D &+ 0xB) & ((1 << 48) - 1)
        return Float(Int32(truncatingIfNeeded: seed >> 24)) / Float(1 << 24)
    }
}

/// Caffeine's WindowTinyLfuPolicy on arrays, most recently used first.
struct TinyLFUModel: ResearchModel {
    let capacity: Int, maxWindow: Int, maxProtected: Int
    let jitter: Bool
    var weighted: Bool?
    var window: [Int] = [], probation: [Int] = [], protected: [Int] = []
    var costs: [Int: Int] = [:]
    var sketch: SketchModel?
    var random = JavaRandomModel(1_033_096_058)

    init(capacity: Int, windowRatio: Double = 0.01, protectedRatio: Double = 0.8, jitter: Bool = true, weighted: Bool? = nil) {
        self.capacity = capacity
        let maxMain = Int(Double(capacity) * (1 - windowRatio))
        maxWindow = capacity - maxMain
        maxProtected = Int(Double(maxMain) * protectedRatio)
        self.jitter = jitter
        self.weighted = weighted
    }

    func size(_ keys: [Int]) -> Int { keys.reduce(0) { $0 + costs[$1]! } }
    var count: Int { window.count + probation.count + protected.count }
    var totalCost: Int { size(window) + size(probation) + size(protected) }
    func contains(_ key: Int) -> Bool { costs[key] != nil }
    func cost(of key: Int) -> Int? { costs[key] }

    mutating func record(_ key: Int) { sketch?.increment(key) }

    mutating func access(_ key: Int, cost: Int) -> (hit: Bool, evicted: [Int]) {
        if let i = window.firstIndex(of: key) {
            record(key)
            window.insert(window.remove(at: i), at: 0)
            return (true, evict())
        }
        if let i = probation.firstIndex(of: key) {
            record(key)
            probation.remove(at: i)
            if costs[key]! > maxProtected {
                probation.insert(key, at: 0)
            } else {
                protected.insert(key, at: 0)
                demoteProtected()
            }
            return (true, evict())
        }
        if let i = protected.firstIndex(of: key) {
            record(key)
            protected.insert(protected.remove(at: i), at: 0)
            demoteProtected()
            return (true, evict())
        }
        guard cost <= capacity else { return (false, []) }
        if weighted == nil { weighted = cost != 1 }
        if weighted == false && sketch == nil { sketch = SketchModel(maximumSize: capacity) }
        record(key)
        costs[key] = cost
        window.insert(key, at: 0)
        return (false, evict())
    }

    mutating func demoteProtected() {
        while size(protected) > maxProtected, let key = protected.popLast() { probation.insert(key, at: 0) }
    }

    mutating func evict() -> [Int] {
        if weighted == true && totalCost >= capacity / 2 {
            if sketch == nil { sketch = SketchModel(maximumSize: count) }
            sketch!.ensureCapacity(count)
        }
        var first: Int?
        while size(window) > maxWindow, let key = window.popLast() {
            probation.insert(key, at: 0)
            if first == nil { first = key }
        }
        return evictFromMain(first)
    }

    /// The entry after `key` toward the most recently used end of its region, as Caffeine's `successor`.
    func successor(_ key: Int) -> Int? {
        for region in [window, probation, protected] {
            if let i = region.firstIndex(of: key) { return i > 0 ? region[i - 1] : nil }
        }
        return nil
    }

    mutating func evictEntry(_ key: Int, _ evicted: inout [Int]) {
        window.removeAll { $0 == key }
        probation.removeAll { $0 == key }
        protected.removeAll { $0 == key }
        costs[key] = nil
        evicted.append(key)
    }

    mutating func evictFromMain(_ first: Int?) -> [Int] {
        var evicted: [Int] = []
        var candidate = first
        var searchedWindow = false
        var victimRegion = 1          // 1 probation, 2 protected, 0 window
        var victim = probation.last
        while totalCost > capacity {
            if candidate == nil && !searchedWindow {
                candidate = window.last
                searchedWindow = true
            }
            if candidate == nil && victim == nil {
                if victimRegion == 1 { victimRegion = 2; victim = protected.last; continue }
                if victimRegion == 2 { victimRegion = 0; victim = window.last; continue }
                break
            }
            guard let c = candidate else {
                let v = victim!
                victim = successor(v)
                evictEntry(v, &evicted)
                continue
            }
            guard let v = victim else {
                candidate = successor(c)
                evictEntry(c, &evicted)
                continue
            }
            if c == v {
                victim = successor(v)
                evictEntry(c, &evicted)
                candidate = nil
                continue
            }
            let victimFrequency = sketch?.frequency(v) ?? 0
            let candidateFrequency = sketch?.frequency(c) ?? 0
            let admit = candidateFrequency > victimFrequency
                || (jitter && candidateFrequency >= 6 && Double(random.nextFloat()) < 0.0078125)
            if admit {
                victim = successor(v)
                evictEntry(v, &evicted)
                candidate = successor(c)
            } else {
                candidate = successor(c)
                evictEntry(c, &evicted)
            }
        }
        return evicted
    }

    mutating func remove(_ key: Int) -> [Int] {
        window.removeAll { $0 == key }
        probation.removeAll { $0 == key }
        protected.removeAll { $0 == key }
        costs[key] = nil
        return []
    }
}

@Suite("W-TinyLFU (Caffeine simulator)")
struct WTinyLFUCacheTests {
    typealias Cache = WTinyLFUCache<Int, Void>

    func access(_ cache: inout Cache, _ key: Int, _ observer: inout EvictionRecorder<Int, Void>) -> Bool {
        cache.access(key, cost: 1, orInsert: (), observer: &observer)
    }

    @Test("regions: window = c - floor(0.99 c), protected = floor(0.8 × main), as Caffeine's percent-main")
    func sizes() throws {
        let cache = try Cache.make(capacity: 5000)
        #expect(cache.maxWindow == 50 && cache.maxProtected == 3960)
        let small = try Cache.make(capacity: 10)
        #expect(small.maxWindow == 1 && small.maxProtected == 7)
        let wide = try Cache.make(capacity: 1000, options: ["window-ratio": "0.2", "protected-ratio": "0.5"])
        #expect(wide.maxWindow == 200 && wide.maxProtected == 400)
    }

    // Printed by Caffeine's own CountMin4.spread/indexOf (javac, tableMask 127) and by
    // java.util.Random(1033096058).nextFloat().
    @Test("the sketch hashes and the jitter generator are bit-identical to Caffeine's Java")
    func javaBitExact() {
        let expected: [(Int64, Int32, [Int])] = [
            (0, 0, [59, 38, 48, 12]),
            (1, 824_515_495, [93, 46, 2, 90]),
            (42, -147_600_651, [51, 125, 113, 123]),
            (1_099_511_627_783, 1_945_991_868, [26, 16, 73, 8]),
            (-5, -850_451_151, [69, 127, 55, 0]),
        ]
        let sketch = _CountMin4(maximumSize: 128, multiplier: 1)
        #expect(sketch.tableMask == 127 && sketch.period == 1280)
        for (key, hash, indexes) in expected {
            #expect(_CountMin4.itemHash(key) == hash, "key \(key)")
            #expect((0..<4).map { sketch.indexOf(hash, $0) } == indexes, "key \(key)")
        }
        var random = _JavaRandom(seed: 1_033_096_058)
        let draws = (0..<5).map { _ in random.nextFloat() }
        #expect(draws == [0.1901952, 0.4094686, 0.1637159, 0.46470934, 0.13456208])
    }

    @Test("CM1: counters saturate at 15; after `period` additions every counter halves")
    func sketchAging() {
        var sketch = _CountMin4(maximumSize: 100, multiplier: 1)   // 128 words, period 1280
        for _ in 0..<20 { sketch.increment(7) }
        #expect(sketch.frequency(7) == 15 && sketch.additions == 15)    // saturated increments add nothing
        var tiny = _CountMin4(maximumSize: 1, multiplier: 1)         // one word, period 10
        for _ in 0..<10 { tiny.increment(1) }                        // 4 counters reach 10 → halved to 5
        #expect(tiny.frequency(1) == 5 && tiny.additions == 5)       // no odd counters: (10 - 0) / 2
        for _ in 0..<4 { tiny.increment(1) }                         // 9 each, additions 9
        // A key whose counters are other nibbles of the same word (another `start`).
        let other = (2..<100).first { _CountMin4.itemHash(Int64($0)) & 3 != _CountMin4.itemHash(1) & 3 }!
        tiny.increment(Int64(other))                                 // additions 10: 8 odd counters (4 × 9, 4 × 1)
        #expect(tiny.frequency(1) == 4 && tiny.frequency(Int64(other)) == 0)
        #expect(tiny.additions == 4)                                 // (10 - 8 / 4) / 2
    }

    // Capacity 10: window 1, main 9, protected 7. Regions MRU first.
    /// The sketch's words are shared by copies of the policy until one writes: counting in a
    /// copy leaves the original's counts as they were, both ways.
    @Test("a copy of the policy counts on its own sketch")
    func copiesCountApart() throws {
        var original = try Cache.make(capacity: 1_000)
        var o = EvictionRecorder<Int, Void>()
        for _ in 0..<3 { _ = access(&original, 7, &o) }
        let before = original.frequency(of: 7)
        #expect(before == 3)
        var copy = original
        for _ in 0..<5 { _ = access(&copy, 7, &o) }
        #expect(copy.frequency(of: 7) == 8 && original.frequency(of: 7) == before)
        for _ in 0..<2 { _ = access(&original, 9, &o) }
        #expect(original.frequency(of: 9) == 2 && copy.frequency(of: 9) == 0)
    }

    @Test("W1: window → probation; a probation hit promotes to protected, which demotes its LRU when full")
    func regions() throws {
        var cache = try Cache.make(capacity: 10)
        var o = EvictionRecorder<Int, Void>()
        for key in 1...10 { _ = access(&cache, key, &o) }
        #expect(o.evicted.isEmpty)
        #expect(listKeys(cache.lists.window, cache.store) == [10] && listKeys(cache.lists.probation, cache.store) == Array((1...9).reversed()))
        for key in 1...8 { #expect(access(&cache, key, &o)) }      // protected [8 … 1] is over 7: 1 is demoted
        #expect(listKeys(cache.lists.protected, cache.store) == [8, 7, 6, 5, 4, 3, 2])
        #expect(listKeys(cache.lists.probation, cache.store) == [1, 9])
    }

    @Test("W2: the window's evictee enters main only if the sketch counts it more often than main's victim")
    func admission() throws {
        var cache = try Cache.make(capacity: 10)
        var o = EvictionRecorder<Int, Void>()
        for key in 1...10 { _ = access(&cache, key, &o) }
        for key in 1...8 { _ = access(&cache, key, &o) }            // probation [1 9], as W1
        #expect(cache.frequency(of: 9) == 1 && cache.frequency(of: 10) == 1)
        _ = access(&cache, 11, &o)                                  // candidate 10 (1) vs victim 9 (1): rejected
        #expect(o.take() == [10])
        #expect(access(&cache, 11, &o) && cache.frequency(of: 11) == 2)
        _ = access(&cache, 12, &o)                                  // candidate 11 (2) vs victim 9 (1): admitted
        #expect(o.take() == [9])
        #expect(listKeys(cache.lists.probation, cache.store) == [11, 1] && listKeys(cache.lists.window, cache.store) == [12])
    }

    @Test("W3: jitter admits a warm (>= 6) rejected candidate with probability 1/128, drawn from java.util.Random")
    func jitter() throws {
        for (seed, admitted) in [(5120, true), (1_033_096_058, false)] {
            var cache = try Cache.make(capacity: 10, options: ["seed": "\(seed)"])
            var o = EvictionRecorder<Int, Void>()
            _ = access(&cache, 1, &o)                               // builds the sketch
            for _ in 0..<7 { cache.sketch.increment(100); cache.sketch.increment(200) }
            #expect(cache.frequency(of: 100) == 7 && cache.frequency(of: 200) == 7)
            let decision = cache.admits(candidate: 100, victim: 200)
            #expect(decision == admitted, "seed \(seed)")
            var off = try Cache.make(capacity: 10, options: ["seed": "5120", "jitter": "false"])
            _ = access(&off, 1, &o)
            for _ in 0..<7 { off.sketch.increment(100); off.sketch.increment(200) }
            let offDecision = off.admits(candidate: 100, victim: 200)
            #expect(!offDecision)
        }
    }

    @Test("W4: weighted entries: the sketch is built once the cache is half full, sized to the entry count")
    func weighted() throws {
        var cache = try Cache.make(capacity: 1000)
        var o = EvictionRecorder<Int, Void>()
        _ = cache.access(1, cost: 100, orInsert: (), observer: &o)
        #expect(cache.weighting == .weighted && !cache.hasSketch)   // first cost is not 1: weighted
        for key in 2...5 { _ = cache.access(key, cost: 100, orInsert: (), observer: &o) }
        #expect(cache.hasSketch && cache.sketch.table.count == 8)   // 500 >= 1000 / 2 with 5 entries → 8 words
        #expect(cache.frequency(of: 1) == 0)                        // accesses before that were not counted
        var units = try Cache.make(capacity: 1000)
        _ = units.access(1, cost: 1, orInsert: (), observer: &o)
        #expect(units.weighting == .unweighted && units.sketch.table.count == 1024 && units.frequency(of: 1) == 1)
        #expect(!cache.access(9, cost: 1001, orInsert: (), observer: &o) && !cache.contains(9))
    }

    @Test("rejects bad options")
    func configuration() {
        #expect(throws: PolicyConfigurationError.self) { try Cache.make(capacity: 10, options: ["weighted": "maybe"]) }
        #expect(throws: PolicyConfigurationError.self) { try Cache.make(capacity: 10, options: ["window-ratio": "2"]) }
        #expect(throws: PolicyConfigurationError.self) { try Cache.make(capacity: 10, options: ["jitter": "sometimes"]) }
    }

    @Test("matches the array model of Caffeine's WindowTinyLfuPolicy on random sequences",
          arguments: [1, 2, 3, 4, 5, 6, 7, 8] as [UInt64])
    func differential(seed: UInt64) throws {
        var rng = SeededRandom(seed: seed &* 86_028_121)
        let capacity = Int.random(in: 2...150, using: &rng)
        let windowRatio = [0.01, 0.1, 0.3].randomElement(using: &rng)!
        let protectedRatio = [0.8, 0.5, 0.0].randomElement(using: &rng)!
        let bytes = seed % 2 == 0
        var cache = try WTinyLFUCache<Int, Int>.make(capacity: capacity, options: [
            "window-ratio": "\(windowRatio)", "protected-ratio": "\(protectedRatio)"])
        var model = TinyLFUModel(capacity: capacity, windowRatio: windowRatio, protectedRatio: protectedRatio)
        // A skewed key choice, so that frequencies differ and reach the jitter threshold.
        let operations = Scenario.uniform(steps: 3_000, keySpace: Int.random(in: 4...3 * capacity, using: &rng), maxCost: bytes ? max(2, capacity / 6) : 1, seed: seed)
        expectSameDecisions(&cache, &model, operations, label: "tinylfu c=\(capacity) seed \(seed)")
    }
}
