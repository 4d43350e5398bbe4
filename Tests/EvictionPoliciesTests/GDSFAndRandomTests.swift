@testable import EvictionPolicies
import Testing

@Suite("GDSF")
struct GDSFCacheTests {
    @Test("hand-worked vector: priorities L + frequency × 10^6 / size, equal priorities oldest first")
    func vector() throws {
        var cache = try GDSFCache<String, Void>.make(countLimit: 2)
        var observer = EvictionLog<String, Void>()
        // a and b enter at 10^6 (requests 1 and 2); a hit lifts a to 2 × 10^6 (request 3).
        cache.insert((), forKey: "a", cost: 1, observer: &observer)
        cache.insert((), forKey: "b", cost: 1, observer: &observer)
        #expect(cache.lookup("a", observer: &observer) != nil)
        // c enters at 10^6 (request 4), ties with b: b, requested longer ago, goes; L = 10^6.
        cache.insert((), forKey: "c", cost: 1, observer: &observer)
        #expect(observer.keys == ["b"])
        // d enters at L + 10^6 = 2 × 10^6; c is lowest at 10^6 and goes; L stays 10^6.
        cache.insert((), forKey: "d", cost: 1, observer: &observer)
        #expect(observer.keys == ["b", "c"])
        // e enters at 2 × 10^6: a, d and e tie, and a was requested longest ago.
        cache.insert((), forKey: "e", cost: 1, observer: &observer)
        #expect(observer.keys == ["b", "c", "a"])
        #expect(cache.contains("d") && cache.contains("e"))
    }

    @Test("the newcomer is inserted first and may be its own victim; L becomes its priority")
    func newcomerIsItsOwnVictim() throws {
        var cache = try GDSFCache<String, Void>.make(capacity: 10)
        var observer = EvictionLog<String, Void>()
        cache.insert((), forKey: "a", cost: 1, observer: &observer)
        cache.insert((), forKey: "b", cost: 1, observer: &observer)
        // 10^6 / 9 is the lowest priority: c goes at once and the cache is as it was.
        cache.insert((), forKey: "c", cost: 9, observer: &observer)
        #expect(observer.keys == ["c"])
        #expect(cache.count == 2 && cache.totalCost == 2)
        // d enters at L + 10^6 / 9 = 2 × 10^6 / 9, still the lowest: it goes too, and L rises to it.
        cache.insert((), forKey: "d", cost: 9, observer: &observer)
        #expect(observer.keys == ["c", "d"])
        // A unit newcomer enters at L + 10^6 and fits (3 of 10).
        cache.insert((), forKey: "e", cost: 1, observer: &observer)
        #expect(cache.lookup("b", observer: &observer) != nil)
        cache.insert((), forKey: "f", cost: 8, observer: &observer)
        // f's priority, 2 × 10^6 / 9 + 10^6 / 8 ≈ 347 222, is below a's 10^6: f goes.
        #expect(observer.keys == ["c", "d", "f"])
        #expect(cache.contains("a") && cache.contains("b") && cache.contains("e") && cache.totalCost == 3)
        // Larger than the capacity: never inserted.
        cache.insert((), forKey: "g", cost: 11, observer: &observer)
        #expect(!cache.contains("g") && observer.keys.count == 3)
    }
}

@Suite("Random")
struct RandomCacheTests {
    @Test("a seed fixes the evictions; another seed changes them; only residents are drawn")
    func seeded() throws {
        func evictions(seed: Int) throws -> [Int] {
            var cache = try RandomCache<Int, Void>.make(countLimit: 50, options: ["seed": "\(seed)"])
            var observer = EvictionLog<Int, Void>()
            var generator = SeededGenerator(seed: 99)
            for _ in 0..<5_000 {
                let key = Int(generator.next() % 400)
                _ = cache.access(key, cost: 1, orInsert: (), observer: &observer)
                #expect(cache.count <= 50)
                if let last = observer.keys.last { #expect(!cache.contains(last)) }
            }
            return observer.keys
        }
        let first = try evictions(seed: 1)
        #expect(first.count > 1_000)
        #expect(first == (try evictions(seed: 1)))
        #expect(first != (try evictions(seed: 2)))
    }
}

/// The keys evicted, in order.
struct EvictionLog<Key, Value>: EvictionObserver {
    var keys: [Key] = []
    mutating func trimWillBegin(_ kind: TrimKind) {}
    mutating func didEvict(_ key: Key, value: Value, cost: Int) { keys.append(key) }
    mutating func trimDidEnd(_ kind: TrimKind) {}
}
