import EvictionPolicies
import TestSupport
import Testing

/// Kingfisher's MemoryStorage written from EvictionPolicies.docc/Kingfisher.md over the §2.2 NSCache
/// approximation: an array in insertion order with a sliding expiry per entry, and a sweep at
/// start + k·interval, one tick at a time.
struct ReferenceKingfisherStorage: ReferenceModel {
    var list: [(key: Int, cost: Int, expiry: Double)] = []    // oldest insertion first
    var costLimit: Int
    var countLimit: Int
    var expiration: Double
    var interval: Double
    var keepWhenEnteringBackground: Bool
    var keepPositionOnReset: Bool
    var now = 0.0
    var start: Double?
    var tick = 1

    var count: Int { list.count }
    var totalCost: Int { list.reduce(0) { $0 + $1.cost } }
    /// contains means resident, expired or not.
    func containsAnswer(_ key: Int) -> Bool? { list.contains { $0.key == key } }

    mutating func lookup(_ key: Int) -> (hit: Bool, passes: [Pass]) {
        guard let i = list.firstIndex(where: { $0.key == key }), now < list[i].expiry else { return (false, []) }
        list[i].expiry = now + expiration
        return (true, [])
    }

    mutating func get(_ key: Int, cost: Int) -> (hit: Bool, passes: [Pass]) {
        if lookup(key).hit { return (true, []) }
        return (false, set(key, cost: cost))
    }

    mutating func set(_ key: Int, cost: Int) -> [Pass] {
        guard expiration > 0 else { return [] }
        let cost = max(cost, 0)
        if let i = list.firstIndex(where: { $0.key == key }) {
            if keepPositionOnReset {
                list[i].cost = cost
                list[i].expiry = now + expiration
            } else {
                list.remove(at: i)
                list.append((key, cost, now + expiration))
            }
        } else {
            list.append((key, cost, now + expiration))
        }
        var evicted: [Int] = []
        while totalCost > costLimit && !list.isEmpty { evicted.append(list.removeFirst().key) }
        while list.count > countLimit { evicted.append(list.removeFirst().key) }
        return evicted.isEmpty ? [] : [Pass(kind: .caller, keys: evicted)]
    }

    mutating func delete(_ key: Int) -> (removed: Bool, passes: [Pass]) {
        guard let i = list.firstIndex(where: { $0.key == key }) else { return (false, []) }
        list.remove(at: i)
        return (true, [])
    }

    mutating func event(_ event: CacheEvent) -> [Pass] {
        let kind: TrimKind
        switch event {
        case .memoryWarning: kind = .caller
        case .background where !keepWhenEnteringBackground: kind = .deferred
        default: return []
        }
        defer { list.removeAll() }
        return list.isEmpty ? [] : [Pass(kind: kind, keys: list.map(\.key))]
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
            let expired = list.filter { $0.expiry <= now }.map(\.key)
            list.removeAll { $0.expiry <= now }
            if !expired.isEmpty { passes.append(Pass(kind: .deferred, keys: expired)) }
            tick += 1
        }
        now = time
        return passes
    }
}

@Suite("kingfisher: Kingfisher 8.11.0 MemoryStorage over the Darwin NSCache approximation (EvictionPolicies.docc/Kingfisher.md)")
struct KingfisherMemoryStorageTests {
    typealias Cache = KingfisherMemoryStorage<String, Int>

    @Test("K1: set a at 0; get at 200 hits and slides the expiry to 500; get at 501 misses but a stays; the sweep at 600 removes it")
    func k1() throws {
        var cache = try Cache.make()
        var observer = EvictionRecorder<String, Int>()
        cache.advance(to: 0, observer: &observer)
        cache.insert(1, forKey: "a", cost: 1, observer: &observer)
        cache.advance(to: 200, observer: &observer)
        #expect(cache.lookup("a", observer: &observer) == 1)
        cache.advance(to: 501, observer: &observer)                   // sweeps at 240, 360, 480: expiry 500 not yet
        #expect(observer.evicted.isEmpty)
        #expect(cache.lookup("a", observer: &observer) == nil)
        #expect(cache.count == 1 && cache.contains("a") && !cache.isCached("a"))
        cache.advance(to: 599.9, observer: &observer)
        #expect(cache.count == 1)
        cache.advance(to: 600, observer: &observer)
        #expect(observer.evicted == ["a"] && observer.passes == [.deferred] && cache.count == 0)
        #expect(cache.extraMetrics == [PolicyMetric("expiredMisses", 1)])
    }

    @Test("expiry is inclusive: at exactly now + 300 the object is expired (Date.isPast is <= 0)")
    func expiryBoundary() throws {
        var cache = try Cache.make()
        var observer = EvictionRecorder<String, Int>()
        cache.advance(to: 10, observer: &observer)
        cache.insert(1, forKey: "a", cost: 1, observer: &observer)
        cache.advance(to: 309.99, observer: &observer)
        #expect(cache.isCached("a"))
        cache.advance(to: 310, observer: &observer)
        #expect(!cache.isCached("a") && cache.lookup("a", observer: &observer) == nil)
        // A cache-aside get of the expired object stores it again: a fresh expiry, same place.
        #expect(!cache.access("a", cost: 1, orInsert: 2, observer: &observer))
        #expect(cache.lookup("a", observer: &observer) == 2)
    }

    @Test("limits evict the oldest insertion (the NSCache model); expiration 0 stores nothing")
    func limitsAndExpiredStore() throws {
        var cache = try Cache.make(countLimit: 2)
        var observer = EvictionRecorder<String, Int>()
        for (i, key) in ["a", "b", "c"].enumerated() { cache.insert(i, forKey: key, cost: 1, observer: &observer) }
        #expect(observer.take() == ["a"])
        var never = try Cache.make(options: ["expiration": "0"])
        never.insert(1, forKey: "a", cost: 1, observer: &observer)
        #expect(never.count == 0)
        var forever = try Cache.make(options: ["expiration": "never"])
        forever.advance(to: 0, observer: &observer)
        forever.insert(1, forKey: "a", cost: 1, observer: &observer)
        forever.advance(to: 1e12, observer: &observer)
        #expect(forever.lookup("a", observer: &observer) == 1)
    }

    @Test("memory warning removes all (caller); background is Darwin's purge unless values are discardable")
    func events() throws {
        var cache = try Cache.make()
        var observer = EvictionRecorder<String, Int>()
        cache.insert(1, forKey: "a", cost: 1, observer: &observer)
        cache.handle(.memoryWarning, observer: &observer)
        cache.insert(2, forKey: "b", cost: 1, observer: &observer)
        cache.handle(.terminate, observer: &observer)
        cache.handle(.background, observer: &observer)
        #expect(observer.evicted == ["a", "b"] && observer.passes == [.caller, .deferred])
        var keep = try Cache.make(options: ["keep-when-entering-background": "true"])
        keep.insert(1, forKey: "a", cost: 1, observer: &observer)
        keep.handle(.background, observer: &observer)
        #expect(keep.count == 1)
    }

    @Test("a jump of 10^12 s returns at once: sweeps that cannot remove anything are skipped")
    func hugeJump() throws {
        var cache = try Cache.make(options: ["clean-interval": "0.001"])
        var observer = EvictionRecorder<String, Int>()
        cache.advance(to: 0, observer: &observer)
        cache.insert(1, forKey: "a", cost: 1, observer: &observer)
        cache.advance(to: 100, observer: &observer)
        cache.insert(2, forKey: "b", cost: 1, observer: &observer)
        cache.advance(to: 1e12, observer: &observer)
        #expect(observer.evicted == ["a", "b"] && observer.passes == [.deferred, .deferred])
    }

    @Test("options are validated")
    func options() throws {
        #expect(throws: PolicyConfigurationError.self) { try Cache.make(options: ["clean-interval": "0"]) }
        #expect(throws: PolicyConfigurationError.self) { try Cache.make(options: ["expiration": "soon"]) }
        #expect(Cache.descriptor.isApproximation)
    }

    @Test("differential: random sequences against the reference", arguments: 1...16)
    func differential(seed: UInt64) throws {
        var rng = SeededRandom(seed: seed)
        let capacity = Bool.random(using: &rng) ? Int.random(in: 1...40, using: &rng) : nil
        let countLimit = Bool.random(using: &rng) ? Int.random(in: 1...8, using: &rng) : nil
        let expiration = [0.0, 2, 5, 10, 30][Int.random(in: 0..<5, using: &rng)]
        let interval = [1.0, 2.5, 7][Int.random(in: 0..<3, using: &rng)]
        let keep = Bool.random(using: &rng), keepPosition = Bool.random(using: &rng)
        let options = ["expiration": "\(expiration)", "clean-interval": "\(interval)",
                       "keep-when-entering-background": "\(keep)", "keep-position-on-reset": "\(keepPosition)"]
        var cache = try KingfisherMemoryStorage<Int, Int>.make(capacity: capacity, countLimit: countLimit, options: options)
        var reference = ReferenceKingfisherStorage(costLimit: capacity ?? .max, countLimit: countLimit ?? .max,
                                                   expiration: expiration, interval: interval,
                                                   keepWhenEnteringBackground: keep, keepPositionOnReset: keepPosition)
        var mix = OperationMix(keys: Int.random(in: 4...30, using: &rng), maxCost: Int.random(in: 0...12, using: &rng))
        mix.terminate = true
        expectSameDecisions(&cache, &reference, mix.make(count: 3_000, using: &rng),
                            label: "seed \(seed) \(options) capacity \(capacity ?? -1) count \(countLimit ?? -1)")
    }
}
