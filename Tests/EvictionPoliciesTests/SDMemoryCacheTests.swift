import EvictionPolicies
import TestSupport
import Testing

/// SDMemoryCache written from EvictionPolicies.docc/SDWebImage.md over the §2.2 NSCache approximation: an
/// array in insertion order for the NSCache, and the held window (the last N distinct keys a get
/// served, with their costs, and whether the weak map still maps each to the object its view holds)
/// standing for the weak map's live objects.
struct ReferenceSDMemoryCache: ReferenceModel {
    var strong: [(key: Int, cost: Int)] = []     // oldest insertion first
    var held: [(key: Int, cost: Int, mapped: Bool)] = []       // most recent get first
    var costLimit: Int
    var countLimit: Int
    var weak: Bool
    var window: Int
    var keepPositionOnReset: Bool
    var removeAllOnBackground: Bool

    var count: Int { strong.count }
    var totalCost: Int { strong.reduce(0) { $0 + $1.cost } }
    /// contains is the NSCache's; the weak map's objects are not resident.
    func containsAnswer(_ key: Int) -> Bool? { strong.contains { $0.key == key } }

    /// NSCache setObject: insert or update, then evict the oldest insertions over the limits.
    mutating func nscacheSet(_ key: Int, _ cost: Int) -> [Pass] {
        let cost = max(cost, 0)
        if let i = strong.firstIndex(where: { $0.key == key }) {
            if keepPositionOnReset { strong[i].cost = cost } else { strong.remove(at: i); strong.append((key, cost)) }
        } else {
            strong.append((key, cost))
        }
        var evicted: [Int] = []
        while totalCost > costLimit && !strong.isEmpty { evicted.append(strong.removeFirst().key) }
        while strong.count > countLimit { evicted.append(strong.removeFirst().key) }
        return evicted.isEmpty ? [] : [Pass(kind: .caller, keys: evicted)]
    }

    mutating func hold(_ key: Int, _ cost: Int) {
        guard weak else { return }
        held.removeAll { $0.key == key }
        held.insert((key, cost, true), at: 0)
        if held.count > window { held.removeLast(held.count - window) }
    }

    mutating func lookup(_ key: Int) -> (hit: Bool, passes: [Pass]) {
        if let entry = strong.first(where: { $0.key == key }) {
            hold(key, entry.cost)
            return (true, [])
        }
        guard weak, let entry = held.first(where: { $0.key == key && $0.mapped }) else { return (false, []) }
        hold(key, entry.cost)
        return (true, nscacheSet(key, entry.cost))
    }

    mutating func get(_ key: Int, cost: Int) -> (hit: Bool, passes: [Pass]) {
        let (hit, passes) = lookup(key)
        if hit { return (true, passes) }
        let stored = set(key, cost: cost)
        hold(key, max(cost, 0))
        return (false, stored)
    }

    mutating func set(_ key: Int, cost: Int) -> [Pass] {
        let passes = nscacheSet(key, cost)
        unmap(key)
        return passes
    }

    /// A set or a removal: the key's view keeps its place in the window, showing an object the weak
    /// map no longer has.
    mutating func unmap(_ key: Int) {
        if let i = held.firstIndex(where: { $0.key == key }) { held[i].mapped = false }
    }

    mutating func delete(_ key: Int) -> (removed: Bool, passes: [Pass]) {
        let wasStrong = strong.contains { $0.key == key }
        let wasHeld = weak && held.contains { $0.key == key && $0.mapped }
        strong.removeAll { $0.key == key }
        unmap(key)
        return (wasStrong || wasHeld, [])
    }

    mutating func event(_ event: CacheEvent) -> [Pass] {
        let kind: TrimKind
        switch event {
        case .memoryWarning: kind = .caller
        case .background where removeAllOnBackground: kind = .deferred
        default: return []
        }
        defer { strong.removeAll() }
        return strong.isEmpty ? [] : [Pass(kind: kind, keys: strong.map(\.key))]
    }
}

@Suite("sd-memory: SDWebImage 5.21.5 SDMemoryCache over the Darwin NSCache approximation (EvictionPolicies.docc/SDWebImage.md)")
struct SDMemoryCacheTests {
    typealias Cache = SDMemoryCache<String, Int>

    @Test("the descriptor says its NSCache is the Darwin approximation")
    func labelled() {
        #expect(Cache.descriptor.name == "sd-memory" && Cache.descriptor.isApproximation)
        #expect(Cache.descriptor.reproduces.contains("nscache-darwin"))
    }

    @Test("limits evict as nscache-darwin does: the oldest insertion, reads never reorder")
    func nscacheOrder() throws {
        var cache = try Cache.make(capacity: 10)
        var observer = EvictionRecorder<String, Int>()
        for (i, key) in ["a", "b", "c"].enumerated() { cache.insert(i, forKey: key, cost: 4, observer: &observer) }
        _ = cache.lookup("a", observer: &observer)
        #expect(observer.evicted == ["a"] && observer.passes == [.caller])
    }

    @Test("memory warning empties the NSCache; without the weak map (the 5.12+ default) everything is lost")
    func memoryWarningWithoutWeakMap() throws {
        var cache = try Cache.make()
        var observer = EvictionRecorder<String, Int>()
        cache.insert(1, forKey: "a", cost: 1, observer: &observer)
        #expect(cache.lookup("a", observer: &observer) == 1)
        cache.handle(.memoryWarning, observer: &observer)
        #expect(observer.evicted == ["a"] && observer.passes == [.caller])
        #expect(cache.lookup("a", observer: &observer) == nil)
    }

    @Test("weak map: after a memory warning an image a view still holds is a hit, re-inserted with its cost")
    func weakMapRecovers() throws {
        var cache = try Cache.make(options: ["weak-cache": "true", "held-window": "2"])
        var observer = EvictionRecorder<String, Int>()
        #expect(!cache.access("a", cost: 5, orInsert: 1, observer: &observer))     // a view shows a
        cache.insert(2, forKey: "b", cost: 7, observer: &observer)                 // prefetched, not shown
        cache.handle(.memoryWarning, observer: &observer)
        #expect(cache.count == 0 && !cache.contains("a") && cache.isRecoverable("a") && !cache.isRecoverable("b"))
        #expect(cache.lookup("a", observer: &observer) == 1)
        #expect(cache.count == 1 && cache.totalCost == 5)
        #expect(cache.lookup("b", observer: &observer) == nil)
        #expect(cache.extraMetrics == [PolicyMetric("weakCacheHits", 1)])
    }

    @Test("weak map: an image leaves it once it is out of the NSCache and out of the last held-window gets")
    func heldWindowReleases() throws {
        var cache = try Cache.make(options: ["weak-cache": "true", "held-window": "2"])
        var observer = EvictionRecorder<String, Int>()
        for (i, key) in ["a", "b", "c"].enumerated() { _ = cache.access(key, cost: 1, orInsert: i, observer: &observer) }
        cache.handle(.memoryWarning, observer: &observer)
        #expect(!cache.isRecoverable("a") && cache.isRecoverable("b") && cache.isRecoverable("c"))
        // a get of b keeps b and c held; a set of c gives the weak map an object no view holds.
        _ = cache.lookup("b", observer: &observer)
        cache.insert(9, forKey: "c", cost: 1, observer: &observer)
        cache.handle(.memoryWarning, observer: &observer)
        #expect(cache.isRecoverable("b") && !cache.isRecoverable("c"))
        // An explicit remove clears both stores.
        #expect(cache.remove("b", observer: &observer) == 1)
        #expect(!cache.isRecoverable("b") && cache.lookup("b", observer: &observer) == nil)
    }

    @Test("weak map: a set keeps its key's view in the held window, so the window stays the last held-window gets")
    func setKeepsItsViewsPlace() throws {
        var cache = try Cache.make(options: ["weak-cache": "true", "held-window": "2"])
        var observer = EvictionRecorder<String, Int>()
        _ = cache.access("a", cost: 1, orInsert: 1, observer: &observer)
        _ = cache.access("b", cost: 1, orInsert: 2, observer: &observer)
        cache.insert(3, forKey: "b", cost: 1, observer: &observer)     // b's view still shows the old b
        _ = cache.access("c", cost: 1, orInsert: 4, observer: &observer)  // the views: c and b; a's is gone
        cache.handle(.memoryWarning, observer: &observer)
        #expect(!cache.isRecoverable("a") && !cache.isRecoverable("b") && cache.isRecoverable("c"))
        #expect(cache.lookup("a", observer: &observer) == nil && cache.lookup("b", observer: &observer) == nil)
        // A get serves b again: its view shows the new object, which is recoverable after a warning.
        _ = cache.access("b", cost: 1, orInsert: 5, observer: &observer)
        cache.handle(.memoryWarning, observer: &observer)
        #expect(cache.isRecoverable("b") && cache.isRecoverable("c") && cache.lookup("b", observer: &observer) == 5)
    }

    @Test("background: Darwin's purge of the NSCache, the weak map untouched; terminate does nothing")
    func background() throws {
        var cache = try Cache.make(options: ["weak-cache": "true"])
        var observer = EvictionRecorder<String, Int>()
        _ = cache.access("a", cost: 1, orInsert: 1, observer: &observer)
        cache.handle(.terminate, observer: &observer)
        #expect(cache.count == 1)
        cache.handle(.background, observer: &observer)
        #expect(observer.passes == [.deferred] && cache.count == 0 && cache.isRecoverable("a"))
        var keep = try Cache.make(options: ["remove-all-on-background": "false"])
        keep.insert(1, forKey: "a", cost: 1, observer: &observer)
        keep.handle(.background, observer: &observer)
        #expect(keep.count == 1)
    }

    @Test("options are validated")
    func options() throws {
        #expect(throws: PolicyConfigurationError.self) { try Cache.make(options: ["held-window": "-1"]) }
        #expect(throws: PolicyConfigurationError.self) { try Cache.make(options: ["memory-warning-fraction": "0.5"]) }
        #expect(throws: PolicyConfigurationError.self) { try Cache.make(options: ["weak-cache": "maybe"]) }
    }

    @Test("differential: random sequences against the reference", arguments: 1...16)
    func differential(seed: UInt64) throws {
        var rng = SeededRandom(seed: seed)
        let capacity = Bool.random(using: &rng) ? Int.random(in: 1...40, using: &rng) : nil
        let countLimit = Bool.random(using: &rng) ? Int.random(in: 1...8, using: &rng) : nil
        let weak = seed % 4 != 0
        let window = Int.random(in: 0...6, using: &rng)
        let keep = Bool.random(using: &rng), background = Bool.random(using: &rng)
        let options = ["weak-cache": "\(weak)", "held-window": "\(window)", "keep-position-on-reset": "\(keep)",
                       "remove-all-on-background": "\(background)"]
        var cache = try SDMemoryCache<Int, Int>.make(capacity: capacity, countLimit: countLimit, options: options)
        var reference = ReferenceSDMemoryCache(costLimit: capacity ?? .max, countLimit: countLimit ?? .max, weak: weak,
                                               window: window, keepPositionOnReset: keep, removeAllOnBackground: background)
        var mix = OperationMix(keys: Int.random(in: 4...30, using: &rng), maxCost: Int.random(in: 0...12, using: &rng))
        mix.terminate = true
        expectSameDecisions(&cache, &reference, mix.make(count: 3_000, using: &rng),
                            label: "seed \(seed) \(options) capacity \(capacity ?? -1) count \(countLimit ?? -1)")
    }
}
