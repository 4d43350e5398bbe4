import EvictionPolicies
import TestSupport
import Testing

/// NSCache as swift-corelibs-foundation implements it, written from EvictionPolicies.docc/NSCache.md:
/// an array sorted by ascending cost, a new entry placed before the first entry of equal or
/// greater cost, two purge loops from the front after every set.
struct ReferenceCorelibsNSCache: ReferenceModel {
    var list: [(key: Int, cost: Int)] = []
    var totalCostLimit: Int
    var countLimit: Int

    var count: Int { list.count }
    var totalCost: Int { list.reduce(0) { $0 + $1.cost } }

    mutating func get(_ key: Int, cost: Int) -> (hit: Bool, passes: [Pass]) {
        if list.contains(where: { $0.key == key }) { return (true, []) }
        return (false, set(key, cost: cost))
    }

    mutating func lookup(_ key: Int) -> (hit: Bool, passes: [Pass]) {
        (list.contains { $0.key == key }, [])
    }

    mutating func set(_ key: Int, cost: Int) -> [Pass] {
        let cost = max(cost, 0)
        if let i = list.firstIndex(where: { $0.key == key }) {
            if list[i].cost != cost {
                list.remove(at: i)
                place(key, cost)
            }
        } else {
            place(key, cost)
        }
        var evicted: [Int] = []
        var purgeAmount = totalCostLimit > 0 ? totalCost - totalCostLimit : 0
        while purgeAmount > 0 && !list.isEmpty {
            purgeAmount -= list[0].cost
            evicted.append(list.removeFirst().key)
        }
        var purgeCount = countLimit > 0 ? list.count - countLimit : 0
        while purgeCount > 0 && !list.isEmpty {
            purgeCount -= 1
            evicted.append(list.removeFirst().key)
        }
        return evicted.isEmpty ? [] : [Pass(kind: .caller, keys: evicted)]
    }

    mutating func place(_ key: Int, _ cost: Int) {
        let index = list.firstIndex { $0.cost >= cost } ?? list.count
        list.insert((key, cost), at: index)
    }

    mutating func delete(_ key: Int) -> (removed: Bool, passes: [Pass]) {
        guard let i = list.firstIndex(where: { $0.key == key }) else { return (false, []) }
        list.remove(at: i)
        return (true, [])
    }

    mutating func event(_ event: CacheEvent) -> [Pass] { [] }
}

@Suite("nscache: swift-corelibs-foundation NSCache (EvictionPolicies.docc/NSCache.md)")
struct CorelibsNSCacheTests {
    typealias Cache = CorelibsNSCache<String, Int>

    func set(_ cache: inout Cache, _ key: String, _ cost: Int, _ observer: inout EvictionRecorder<String, Int>) {
        cache.insert(cost, forKey: key, cost: cost, observer: &observer)
    }

    @Test("N1: countLimit 2, three cost-0 sets: the third evicts itself")
    func n1() throws {
        var cache = try Cache.make(countLimit: 2)
        var observer = EvictionRecorder<String, Int>()
        for key in ["k1", "k2", "k3"] { set(&cache, key, 0, &observer) }
        #expect(observer.evicted == ["k3"])
        #expect(cache.contains("k1") && cache.contains("k2") && !cache.contains("k3"))
        #expect(cache.count == 2)
        #expect(observer.passes == [.caller])
    }

    @Test("N1 consequence: cost 0 with a count limit freezes the cache on its first N keys")
    func costZeroFreezes() throws {
        var cache = try Cache.make(countLimit: 3)
        var observer = EvictionRecorder<String, Int>()
        for i in 0..<50 { set(&cache, "k\(i)", 0, &observer) }
        #expect((0..<3).allSatisfy { cache.contains("k\($0)") })
        #expect(observer.evicted == (3..<50).map { "k\($0)" })
    }

    @Test("N2: countLimit 2, costs 1, 2, 3: k1 is evicted (upstream test_countLimit)")
    func n2() throws {
        var cache = try Cache.make(countLimit: 2)
        var observer = EvictionRecorder<String, Int>()
        set(&cache, "k1", 1, &observer)
        set(&cache, "k2", 2, &observer)
        set(&cache, "k3", 3, &observer)
        #expect(observer.evicted == ["k1"])
        #expect(cache.contains("k2") && cache.contains("k3"))
    }

    @Test("N3: totalCostLimit 10, \"0\"(4), \"2\"(5), \"1\"(5): \"0\" is evicted (upstream test_costLimit)")
    func n3() throws {
        var cache = try Cache.make(capacity: 10)
        var observer = EvictionRecorder<String, Int>()
        set(&cache, "0", 4, &observer)
        set(&cache, "2", 5, &observer)
        set(&cache, "1", 5, &observer)
        #expect(observer.evicted == ["0"])
        #expect(cache.contains("1") && cache.contains("2"))
        #expect(cache.totalCost == 10)
    }

    @Test("N4: totalCostLimit 10, k1(0), k2(6), k3(6): k1 then k3 go, k2 stays")
    func n4() throws {
        var cache = try Cache.make(capacity: 10)
        var observer = EvictionRecorder<String, Int>()
        set(&cache, "k1", 0, &observer)
        set(&cache, "k2", 6, &observer)
        set(&cache, "k3", 6, &observer)
        #expect(observer.evicted == ["k1", "k3"])
        #expect(observer.passes == [.caller])
        #expect(cache.contains("k2") && cache.count == 1 && cache.totalCost == 6)
    }

    @Test("N5: totalCostLimit 10, eight sets of cost 5: keys 3 to 8 each evict themselves")
    func n5() throws {
        var cache = try Cache.make(capacity: 10)
        var observer = EvictionRecorder<String, Int>()
        for i in 1...8 { set(&cache, "\(i)", 5, &observer) }
        #expect(observer.evicted == ["3", "4", "5", "6", "7", "8"])
        #expect(cache.contains("1") && cache.contains("2") && cache.count == 2)
    }

    @Test("reads never reorder: a read key is still the one evicted")
    func readsDoNotReorder() throws {
        var cache = try Cache.make(capacity: 10)
        var observer = EvictionRecorder<String, Int>()
        set(&cache, "a", 1, &observer)
        set(&cache, "b", 5, &observer)
        for _ in 0..<5 { #expect(cache.lookup("a", observer: &observer) == 1) }
        set(&cache, "c", 5, &observer)
        #expect(observer.evicted == ["a"])
    }

    @Test("re-set with the same cost keeps the position; a changed cost re-sorts before equals")
    func resetPosition() throws {
        var cache = try Cache.make(countLimit: 3)
        var observer = EvictionRecorder<String, Int>()
        set(&cache, "a", 2, &observer)
        set(&cache, "b", 2, &observer)         // list: b(2) a(2)
        set(&cache, "a", 2, &observer)         // same cost: a keeps its place behind b
        set(&cache, "c", 3, &observer)         // b a c
        set(&cache, "d", 4, &observer)         // over the count: b goes
        #expect(observer.take() == ["b"])
        set(&cache, "c", 2, &observer)         // c re-sorted before a: c a d
        set(&cache, "e", 9, &observer)         // c goes
        #expect(observer.take() == ["c"])
    }

    @Test("negative costs are clamped to 0 and purged for free")
    func negativeCost() throws {
        var cache = try Cache.make(capacity: 10)
        var observer = EvictionRecorder<String, Int>()
        set(&cache, "z", -5, &observer)
        #expect(cache.totalCost == 0)
        set(&cache, "a", 8, &observer)
        set(&cache, "b", 3, &observer)         // 11 > 10: z (0) then b (3), the cheapest
        #expect(observer.evicted == ["z", "b"])
    }

    @Test("a lowered limit purges nothing until the next set; events change nothing")
    func limitsAndEvents() throws {
        var cache = try Cache.make(capacity: 100)
        var observer = EvictionRecorder<String, Int>()
        for i in 1...5 { set(&cache, "\(i)", i, &observer) }
        cache.countLimit = 2
        cache.handle(.memoryWarning, observer: &observer)
        cache.handle(.background, observer: &observer)
        cache.advance(to: 1_000, observer: &observer)
        #expect(cache.count == 5 && observer.evicted.isEmpty)
        set(&cache, "3", 3, &observer)         // same cost, but both loops still run
        #expect(observer.evicted == ["1", "2", "3"])
    }

    @Test("remove is not an eviction")
    func removeIsNotEviction() throws {
        var cache = try Cache.make(capacity: 10)
        var observer = EvictionRecorder<String, Int>()
        set(&cache, "a", 4, &observer)
        #expect(cache.remove("a", observer: &observer) == 4)
        #expect(cache.remove("a", observer: &observer) == nil)
        #expect(observer.evicted.isEmpty && cache.totalCost == 0)
    }

    @Test("differential: random sequences against the reference", arguments: 1...12)
    func differential(seed: UInt64) throws {
        var rng = SeededRandom(seed: seed)
        let capacity = Bool.random(using: &rng) ? Int.random(in: 1...40, using: &rng) : nil
        let countLimit = Bool.random(using: &rng) ? Int.random(in: 1...8, using: &rng) : nil
        var cache = try CorelibsNSCache<Int, Int>.make(capacity: capacity, countLimit: countLimit)
        var reference = ReferenceCorelibsNSCache(totalCostLimit: capacity ?? 0, countLimit: countLimit ?? 0)
        let mix = OperationMix(keys: Int.random(in: 4...30, using: &rng), maxCost: Int.random(in: 0...12, using: &rng))
        expectSameDecisions(&cache, &reference, mix.make(count: 3_000, using: &rng),
                            label: "seed \(seed) capacity \(String(describing: capacity)) count \(String(describing: countLimit))")
    }
}
