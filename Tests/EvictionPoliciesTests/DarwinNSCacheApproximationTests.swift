import EvictionPolicies
import TestSupport
import Testing

/// Darwin NSCache as EvictionPolicies.docc/NSCache.md recommends approximating it: an array in
/// insertion order, oldest evicted first on set; background empties it; a memory warning
/// evicts the oldest fraction.
struct ReferenceDarwinNSCache: ReferenceModel {
    var list: [(key: Int, cost: Int)] = []       // oldest first
    var costLimit: Int
    var countLimit: Int
    var keepPositionOnReset: Bool
    var memoryWarningFraction: Double
    var removeAllOnBackground: Bool

    var count: Int { list.count }
    var totalCost: Int { list.reduce(0) { $0 + $1.cost } }

    mutating func get(_ key: Int, cost: Int) -> (hit: Bool, passes: [Pass]) {
        if list.contains(where: { $0.key == key }) { return (true, []) }
        return (false, set(key, cost: cost))
    }

    mutating func lookup(_ key: Int) -> (hit: Bool, passes: [Pass]) { (list.contains { $0.key == key }, []) }

    mutating func set(_ key: Int, cost: Int) -> [Pass] {
        let cost = max(cost, 0)
        if let i = list.firstIndex(where: { $0.key == key }) {
            if keepPositionOnReset { list[i].cost = cost } else { list.remove(at: i); list.append((key, cost)) }
        } else {
            list.append((key, cost))
        }
        var evicted: [Int] = []
        while totalCost > costLimit && !list.isEmpty { evicted.append(list.removeFirst().key) }
        while list.count > countLimit && !list.isEmpty { evicted.append(list.removeFirst().key) }
        return evicted.isEmpty ? [] : [Pass(kind: .caller, keys: evicted)]
    }

    mutating func delete(_ key: Int) -> (removed: Bool, passes: [Pass]) {
        guard let i = list.firstIndex(where: { $0.key == key }) else { return (false, []) }
        list.remove(at: i)
        return (true, [])
    }

    mutating func event(_ event: CacheEvent) -> [Pass] {
        let n: Int
        switch event {
        case .background: n = removeAllOnBackground ? list.count : 0
        case .memoryWarning: n = min(list.count, Int((Double(list.count) * memoryWarningFraction).rounded(.up)))
        case .terminate: n = 0
        }
        guard n > 0 else { return [] }
        let evicted = list.prefix(n).map(\.key)
        list.removeFirst(n)
        return [Pass(kind: .deferred, keys: evicted)]
    }
}

@Suite("nscache-darwin: Darwin NSCache approximation (EvictionPolicies.docc/NSCache.md)")
struct DarwinNSCacheApproximationTests {
    typealias Cache = DarwinNSCacheApproximation<Int, Int>

    @Test("the descriptor says it is an approximation")
    func labelled() {
        #expect(Cache.descriptor.isApproximation)
        #expect(Cache.descriptor.name == "nscache-darwin")
    }

    @Test("count limit 5, cost 0, oldest inserted first out: BaHui's keys 1…8 evict 1…3, Tencent Cloud's keys 0…10 evict 0…5",
          arguments: [(1...8, [1, 2, 3]), (0...10, [0, 1, 2, 3, 4, 5])])
    func countLimitObservations(keys: ClosedRange<Int>, evicted: [Int]) throws {
        var cache = try Cache.make(countLimit: 5)
        var observer = EvictionRecorder<Int, Int>()
        for key in keys { cache.insert(key, forKey: key, cost: 0, observer: &observer) }
        #expect(observer.evicted == evicted)
        #expect(keys.suffix(5).allSatisfy { cache.contains($0) } && cache.count == 5)
    }

    @Test("BaHui observation: totalCostLimit 10 with eight sets of cost 5 evicts 1…6 (the opposite of N5)")
    func costLimitObservation() throws {
        var cache = try Cache.make(capacity: 10)
        var observer = EvictionRecorder<Int, Int>()
        for key in 1...8 { cache.insert(key, forKey: key, cost: 5, observer: &observer) }
        #expect(observer.evicted == [1, 2, 3, 4, 5, 6])
        #expect(cache.contains(7) && cache.contains(8))
    }

    @Test("BaHui observation: interleaved cost-0 and cost-1 inserts evict in insertion order")
    func interleavedObservation() throws {
        var cache = try Cache.make(countLimit: 4)
        var observer = EvictionRecorder<Int, Int>()
        for i in 1...6 {
            cache.insert(0, forKey: 100 + i, cost: 0, observer: &observer)
            cache.insert(0, forKey: i, cost: 1, observer: &observer)
        }
        #expect(observer.evicted == [101, 1, 102, 2, 103, 3, 104, 4])
    }

    @Test("background removes everything; a memory warning removes the oldest fraction")
    func events() throws {
        var cache = try Cache.make(options: ["memory-warning-fraction": "0.5"])
        var observer = EvictionRecorder<Int, Int>()
        for key in 1...5 { cache.insert(key, forKey: key, cost: 1, observer: &observer) }
        cache.handle(.memoryWarning, observer: &observer)
        #expect(observer.take() == [1, 2, 3])
        cache.handle(.background, observer: &observer)
        #expect(observer.take() == [4, 5])
        #expect(observer.passes == [.deferred, .deferred] && cache.count == 0)
    }

    @Test("re-set keeps the insertion position by default, or moves to newest when configured")
    func resetPosition() throws {
        for keep in [true, false] {
            var cache = try Cache.make(countLimit: 2, options: ["keep-position-on-reset": String(keep)])
            var observer = EvictionRecorder<Int, Int>()
            cache.insert(1, forKey: 1, cost: 1, observer: &observer)
            cache.insert(2, forKey: 2, cost: 1, observer: &observer)
            cache.insert(1, forKey: 1, cost: 1, observer: &observer)
            cache.insert(3, forKey: 3, cost: 1, observer: &observer)
            #expect(observer.evicted == [keep ? 1 : 2])
        }
    }

    @Test("differential: random sequences against the reference", arguments: 1...10)
    func differential(seed: UInt64) throws {
        var rng = SeededRandom(seed: seed)
        let capacity = Bool.random(using: &rng) ? Int.random(in: 1...40, using: &rng) : nil
        let countLimit = Bool.random(using: &rng) ? Int.random(in: 1...8, using: &rng) : nil
        let keep = Bool.random(using: &rng)
        let fraction = [0.0, 0.25, 0.5, 1.0][Int.random(in: 0..<4, using: &rng)]
        let background = Bool.random(using: &rng)
        var cache = try Cache.make(capacity: capacity, countLimit: countLimit, options: [
            "keep-position-on-reset": String(keep), "memory-warning-fraction": String(fraction),
            "remove-all-on-background": String(background)])
        var reference = ReferenceDarwinNSCache(costLimit: capacity ?? .max, countLimit: countLimit ?? .max,
                                               keepPositionOnReset: keep, memoryWarningFraction: fraction,
                                               removeAllOnBackground: background)
        let mix = OperationMix(keys: Int.random(in: 4...30, using: &rng), maxCost: Int.random(in: 0...12, using: &rng))
        expectSameDecisions(&cache, &reference, mix.make(count: 3_000, using: &rng), label: "seed \(seed)")
    }
}
