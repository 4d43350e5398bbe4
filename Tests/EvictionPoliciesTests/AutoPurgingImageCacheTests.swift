import EvictionPolicies
import TestSupport
import Testing

/// AFAutoPurgingImageCache / AlamofireImage AutoPurgingImageCache, written from
/// EvictionPolicies.docc/AFNetworking.md: a dictionary of (bytes, lastAccessDate); each add queues a purge
/// that runs before the next operation and, when usage > capacity, sorts every entry by date
/// and removes the oldest until the bytes removed reach usage − preferred (in UInt64, as AF).
struct ReferenceAutoPurgingCache: ReferenceModel {
    var entries: [Int: (cost: Int, date: Int)] = [:]
    var clock = 0
    var capacity: UInt64
    var preferred: UInt64
    var purgeQueued = false

    var count: Int { entries.count }
    var totalCost: Int { entries.values.reduce(0) { $0 + $1.cost } }

    mutating func runQueuedPurge() -> [Pass] {
        guard purgeQueued else { return [] }
        purgeQueued = false
        let usage = UInt64(totalCost)
        guard usage > capacity else { return [] }
        let bytesToPurge = usage &- preferred
        var purged: UInt64 = 0
        var evicted: [Int] = []
        for (key, entry) in entries.sorted(by: { $0.value.date < $1.value.date }) {
            entries[key] = nil
            purged += UInt64(entry.cost)
            evicted.append(key)
            if purged >= bytesToPurge { break }
        }
        return [Pass(kind: .deferred, keys: evicted)]
    }

    mutating func add(_ key: Int, _ cost: Int) {
        clock += 1
        entries[key] = (max(cost, 0), clock)
        purgeQueued = true
    }

    mutating func touch(_ key: Int) -> Bool {
        guard let entry = entries[key] else { return false }
        clock += 1
        entries[key] = (entry.cost, clock)
        return true
    }

    mutating func get(_ key: Int, cost: Int) -> (hit: Bool, passes: [Pass]) {
        let passes = runQueuedPurge()
        if touch(key) { return (true, passes) }
        add(key, cost)
        return (false, passes)
    }

    mutating func lookup(_ key: Int) -> (hit: Bool, passes: [Pass]) {
        let passes = runQueuedPurge()
        return (touch(key), passes)
    }

    mutating func set(_ key: Int, cost: Int) -> [Pass] {
        let passes = runQueuedPurge()
        add(key, cost)
        return passes
    }

    mutating func delete(_ key: Int) -> (removed: Bool, passes: [Pass]) {
        let passes = runQueuedPurge()
        return (entries.removeValue(forKey: key) != nil, passes)
    }

    mutating func event(_ event: CacheEvent) -> [Pass] {
        var passes = runQueuedPurge()
        if event == .memoryWarning && !entries.isEmpty {
            passes.append(Pass(kind: .caller, keys: Array(entries.keys)))
            entries = [:]
        }
        return passes
    }
}

@Suite("af-lru and afi-lru: AFNetworking / AlamofireImage auto-purging image caches (EvictionPolicies.docc/AFNetworking.md)")
struct AutoPurgingImageCacheTests {
    typealias AF = AFAutoPurgingImageCache<String, Int>
    typealias AFI = AlamofireAutoPurgingImageCache<String, Int>

    /// A1 on any of the two: add img-0…img-9 of S bytes, get img-0, add img-10, then one more
    /// operation lets the queued purge run.
    func runA1<P: EvictionPolicy>(_ type: P.Type) throws where P.Key == String, P.Value == Int {
        let s = 1_000
        var cache = try P.make(capacity: 10 * s, options: ["preferred": "\(6 * s)B"])
        var observer = EvictionRecorder<String, Int>()
        for i in 0...9 { cache.insert(i, forKey: "img-\(i)", cost: s, observer: &observer) }
        #expect(cache.lookup("img-0", observer: &observer) == 0)
        cache.insert(10, forKey: "img-10", cost: s, observer: &observer)
        #expect(observer.evicted.isEmpty, "the purge is a queued barrier block: nothing goes during the add")
        #expect(cache.totalCost == 11 * s)
        _ = cache.lookup("img-10", observer: &observer)
        #expect(observer.evicted == (1...5).map { "img-\($0)" })
        #expect(observer.passes == [.deferred])
        for kept in [0, 6, 7, 8, 9, 10] { #expect(cache.contains("img-\(kept)")) }
        #expect(cache.count == 6 && cache.totalCost == 6 * s)
    }

    @Test("A1: the oldest last-access dates are purged, down to the preferred size (AF unit test)")
    func a1() throws {
        try runA1(AF.self)
        try runA1(AFI.self)
    }

    func runA2<P: EvictionPolicy>(_ type: P.Type) throws where P.Key == String, P.Value == Int {
        var cache = try P.make(capacity: 100, options: ["preferred": "60B"])
        var observer = EvictionRecorder<String, Int>()
        cache.insert(1, forKey: "a", cost: 30, observer: &observer)
        cache.insert(2, forKey: "b", cost: 30, observer: &observer)
        cache.insert(3, forKey: "c", cost: 70, observer: &observer)
        cache.handle(.background, observer: &observer)       // any next operation runs the purge
        #expect(observer.evicted == ["a", "b", "c"])
        #expect(cache.count == 0 && cache.totalCost == 0)
    }

    @Test("A2: an image larger than the preferred size flushes the cache, itself included")
    func a2() throws {
        try runA2(AF.self)
        try runA2(AFI.self)
    }

    @Test("A2 note, AF only: preferred above the capacity underflows UInt64 and every purge empties the cache")
    func underflowQuirk() throws {
        var cache = try AF.make(capacity: 100, options: ["preferred": "1.5"])
        #expect(cache.preferredMemoryUsageAfterPurge == 150)
        var observer = EvictionRecorder<String, Int>()
        cache.insert(1, forKey: "a", cost: 40, observer: &observer)
        cache.insert(2, forKey: "b", cost: 40, observer: &observer)
        cache.insert(3, forKey: "c", cost: 30, observer: &observer)   // 110 > 100; 110 − 150 wraps
        _ = cache.lookup("a", observer: &observer)
        #expect(observer.evicted == ["a", "b", "c"])
        // With the same numbers but preferred within the capacity, only the oldest goes.
        var sane = try AF.make(capacity: 100, options: ["preferred": "0.9"])
        var saneObserver = EvictionRecorder<String, Int>()
        sane.insert(1, forKey: "a", cost: 40, observer: &saneObserver)
        sane.insert(2, forKey: "b", cost: 40, observer: &saneObserver)
        sane.insert(3, forKey: "c", cost: 30, observer: &saneObserver)
        _ = sane.lookup("a", observer: &saneObserver)
        #expect(saneObserver.evicted == ["a"])
    }

    @Test("AFI: preferred above the capacity is a configuration error (AlamofireImage's precondition)")
    func afiPrecondition() throws {
        #expect(throws: PolicyConfigurationError.self) { try AFI.make(capacity: 100, options: ["preferred": "1.5"]) }
        #expect(throws: PolicyConfigurationError.self) { try AFI.make(capacity: 100, options: ["preferred": "101B"]) }
        #expect(throws: PolicyConfigurationError.self) { try AFI.make(options: ["preferred": "200MB"]) }
        _ = try AFI.make(capacity: 100, options: ["preferred": "100B"])
        _ = try AFI.make(capacity: 100, options: ["preferred": "1"])
    }

    @Test("defaults: AF 100 MiB / 60 MiB, AFI 100 MB / 60 MB; preferred defaults to 60 % of --capacity")
    func defaults() throws {
        let af = try AF.make()
        #expect(af.memoryCapacity == 104_857_600 && af.preferredMemoryUsageAfterPurge == 62_914_560)
        #expect(AF.descriptor.defaultCapacity == .library(100 * 1024 * 1024))
        let afi = try AFI.make()
        #expect(afi.memoryCapacity == 100_000_000 && afi.preferredMemoryUsageAfterPurge == 60_000_000)
        #expect(AFI.descriptor.defaultCapacity == .library(100_000_000))
        #expect(try AF.make(capacity: 1_000).preferredMemoryUsageAfterPurge == 600)
        #expect(try AF.make(capacity: 1_000, options: ["preferred": "0.5"]).preferredMemoryUsageAfterPurge == 500)
        #expect(try AF.make(options: ["preferred": "40MiB"]).preferredMemoryUsageAfterPurge == 41_943_040)
        #expect(try AF.make(options: ["preferred": "40MB"]).preferredMemoryUsageAfterPurge == 40_000_000)
        #expect(try AF.make(options: ["preferred": "1.5KiB"]).preferredMemoryUsageAfterPurge == 1_536)
        #expect(throws: PolicyConfigurationError.self) { try AF.make(options: ["preferred": "lots"]) }
        #expect(throws: PolicyConfigurationError.self) { try AF.make(options: ["preferred": "-0.5"]) }
        #expect(throws: PolicyConfigurationError.self) { try AF.make(options: ["preferred": "40XB"]) }
        #expect(throws: PolicyConfigurationError.self) { try AF.make(countLimit: 3) }
    }

    @Test("the default preferred size is what `preferred=0.6` and `60%` give, at every capacity")
    func defaultIsTheDocumentedFraction() throws {
        let fixed = Array(1...1_000) + [268, 104_857_601, 999_999_999]
        var capacities = fixed
        var random = SeededRandom(seed: 7)
        for _ in 0..<200 { capacities.append(Int.random(in: 1...(1 << 40), using: &random)) }
        for capacity in capacities {
            let byDefault = try AF.make(capacity: capacity).preferredMemoryUsageAfterPurge
            #expect(try AF.make(capacity: capacity, options: ["preferred": "0.6"]).preferredMemoryUsageAfterPurge == byDefault, "\(capacity)")
            #expect(try AF.make(capacity: capacity, options: ["preferred": "60%"]).preferredMemoryUsageAfterPurge == byDefault, "\(capacity)")
            #expect(try AFI.make(capacity: capacity).preferredMemoryUsageAfterPurge == byDefault, "\(capacity)")
        }
        #expect(try AF.make(capacity: 268).preferredMemoryUsageAfterPurge == 161)   // 160.8, to the nearest
    }

    @Test("the purge needs usage strictly above the capacity")
    func strictTrigger() throws {
        var cache = try AF.make(capacity: 100)
        var observer = EvictionRecorder<String, Int>()
        cache.insert(1, forKey: "a", cost: 50, observer: &observer)
        cache.insert(2, forKey: "b", cost: 50, observer: &observer)
        _ = cache.lookup("a", observer: &observer)
        #expect(observer.evicted.isEmpty && cache.totalCost == 100)
        cache.insert(3, forKey: "c", cost: 1, observer: &observer)   // 101 > 100; target 41: b (50) suffices
        _ = cache.lookup("a", observer: &observer)
        #expect(observer.evicted == ["b"])
    }

    @Test("re-adding an identifier replaces it with a fresh date and its new size")
    func readdRefreshes() throws {
        var cache = try AF.make(capacity: 30, options: ["preferred": "20B"])
        var observer = EvictionRecorder<String, Int>()
        cache.insert(1, forKey: "a", cost: 10, observer: &observer)
        cache.insert(2, forKey: "b", cost: 10, observer: &observer)
        cache.insert(3, forKey: "a", cost: 12, observer: &observer)   // a is now the newest
        #expect(cache.totalCost == 22 && cache.count == 2)
        cache.insert(4, forKey: "c", cost: 10, observer: &observer)   // 32 > 30: target 12
        _ = cache.lookup("c", observer: &observer)
        #expect(observer.evicted == ["b", "a"])                        // 10 < 12, then 22 >= 12
    }

    @Test("a memory warning removes everything at once; entering the background does nothing")
    func events() throws {
        var cache = try AF.make(capacity: 100)
        var observer = EvictionRecorder<String, Int>()
        for (i, key) in ["a", "b", "c"].enumerated() { cache.insert(i, forKey: key, cost: 10, observer: &observer) }
        cache.handle(.background, observer: &observer)
        #expect(cache.count == 3 && observer.evicted.isEmpty)
        cache.handle(.memoryWarning, observer: &observer)
        #expect(Set(observer.evicted) == ["a", "b", "c"] && cache.count == 0)
        #expect(observer.passes == [.caller])
        cache.handle(.memoryWarning, observer: &observer)
        #expect(observer.passes == [.caller], "an empty cache reports no pass")
    }

    @Test("remove is not an eviction and runs the queued purge first")
    func remove() throws {
        var cache = try AF.make(capacity: 10, options: ["preferred": "5B"])
        var observer = EvictionRecorder<String, Int>()
        cache.insert(1, forKey: "a", cost: 6, observer: &observer)
        cache.insert(2, forKey: "b", cost: 6, observer: &observer)
        #expect(cache.remove("b", observer: &observer) == nil, "the purge ran first and removed a and b")
        #expect(observer.evicted == ["a", "b"])
    }

    @Test("differential: af-lru on random sequences against the reference", arguments: 1...12)
    func differentialAF(seed: UInt64) throws {
        var rng = SeededRandom(seed: seed)
        let capacity = Int.random(in: 1...60, using: &rng)
        // Include preferred sizes above the capacity: AF accepts them and underflows.
        let preferred = Int.random(in: 0...(capacity * 3 / 2), using: &rng)
        var cache = try AFAutoPurgingImageCache<Int, Int>.make(capacity: capacity, options: ["preferred": "\(preferred)B"])
        var reference = ReferenceAutoPurgingCache(capacity: UInt64(capacity), preferred: UInt64(preferred))
        let mix = OperationMix(keys: Int.random(in: 4...40, using: &rng), maxCost: Int.random(in: 0...20, using: &rng))
        expectSameDecisions(&cache, &reference, mix.make(count: 3_000, using: &rng),
                            label: "seed \(seed) capacity \(capacity) preferred \(preferred)")
    }

    @Test("differential: afi-lru on random sequences against the reference", arguments: 1...8)
    func differentialAFI(seed: UInt64) throws {
        var rng = SeededRandom(seed: seed &+ 1_000)
        let capacity = Int.random(in: 1...60, using: &rng)
        let fraction = Double(Int.random(in: 0...10, using: &rng)) / 10
        var cache = try AlamofireAutoPurgingImageCache<Int, Int>.make(capacity: capacity, options: ["preferred": "\(fraction)"])
        let preferred = UInt64((Double(capacity) * fraction).rounded())
        #expect(cache.preferredMemoryUsageAfterPurge == preferred)
        var reference = ReferenceAutoPurgingCache(capacity: UInt64(capacity), preferred: preferred)
        let mix = OperationMix(keys: Int.random(in: 4...40, using: &rng), maxCost: Int.random(in: 0...20, using: &rng))
        expectSameDecisions(&cache, &reference, mix.make(count: 3_000, using: &rng),
                            label: "seed \(seed) capacity \(capacity) preferred \(preferred)")
    }
}
