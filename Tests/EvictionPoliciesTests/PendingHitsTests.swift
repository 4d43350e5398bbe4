import EvictionPolicies
import TestSupport
import Testing

// LRUCache queues its hits' moves to the head (PendingHits) and applies them in batches. These
// tests make long runs of hits, longer than a batch and not a multiple of it, between the
// operations that must see the applied order: inserts, evictions, removals and drains.

@Suite("LRU with queued hits")
struct PendingHitsTests {
    /// Get-heavy sequences over a key space that mostly fits: most gets hit, so runs of hundreds
    /// of hits sit between the misses, sets and removes.
    @Test("decisions equal the reference LRU on hit-heavy random sequences", arguments: [7, 8, 9, 10, 11, 12] as [UInt64])
    func hitHeavy(seed: UInt64) throws {
        var rng = SeededRandom(seed: seed)
        let countLimit = Int.random(in: 20...300, using: &rng)
        let keySpace = countLimit + Int.random(in: 1...(countLimit / 10 + 2), using: &rng)
        // A cost limit that only binds when the sets' larger costs pile up.
        let capacity = countLimit * 2
        var cache = try LRUCache<Int, Int>.make(capacity: capacity, countLimit: countLimit)
        var reference = ReferenceListCache(rule: .lru, capacity: capacity, countLimit: countLimit)
        let operations: [TestOp] = (0..<20_000).map { _ in
            let key = Int.random(in: 0..<keySpace, using: &rng)
            switch Int.random(in: 0..<200, using: &rng) {
            case 0: return .delete(key)
            case 1: return .set(key, cost: Int.random(in: 0...4, using: &rng))
            case 2..<20: return .lookup(key)
            default: return .get(key, cost: 1)
            }
        }
        expectSameDecisions(&cache, &reference, operations, label: "hit-heavy LRU seed \(seed)",
                            limits: (capacity, countLimit))
    }

    @Test("hand-worked: 40 hits, then inserts evict the entry not hit, then the oldest hit")
    func handWorked() throws {
        // Keys 0...40 in order; then 40...1 are hit (40 hits, more than a batch), so from the
        // least recently used: 0, 40, 39, ..., 1. Inserting 41 evicts 0; inserting 42 evicts 40.
        var cache = try LRUCache<Int, Int>.make(countLimit: 41)
        var observer = EvictionRecorder<Int, Int>()
        for key in 0...40 { cache.insert(key, forKey: key, cost: 1, observer: &observer) }
        for key in stride(from: 40, through: 1, by: -1) {
            #expect(cache.lookup(key, observer: &observer) == key)
        }
        cache.insert(41, forKey: 41, cost: 1, observer: &observer)
        cache.insert(42, forKey: 42, cost: 1, observer: &observer)
        #expect(observer.evicted == [0, 40])
        // A removal among queued hits: 5, 2, 6, 7 are hit and 2 removed, which makes room for 43;
        // 44 then evicts 39, the oldest.
        for key in [5, 2, 6, 7] { _ = cache.lookup(key, observer: &observer) }
        #expect(cache.remove(2, observer: &observer) == 2)
        cache.insert(43, forKey: 43, cost: 1, observer: &observer)
        cache.insert(44, forKey: 44, cost: 1, observer: &observer)
        #expect(observer.evicted == [0, 40, 39])
    }

    @Test("Cache keeps the exact recency order through a limit change after many hits")
    func limitChangeAfterHits() {
        let cache = Cache<Int, Int>(policy: .lru, countLimit: 100, observesSystemEvents: false)
        for key in 0..<100 { cache[key] = key }
        // Hit the even keys, newest last: the odd keys are now the 50 least recently used.
        for key in stride(from: 0, to: 100, by: 2) { _ = cache[key] }
        cache.countLimit = 50
        #expect(cache.count == 50)
        for key in 0..<100 { #expect(cache.contains(key) == key.isMultiple(of: 2), "key \(key)") }
        // And the order among the survivors held: lowering to 10 keeps the last 10 hit.
        cache.countLimit = 10
        for key in 0..<100 { #expect(cache.contains(key) == (key >= 80 && key.isMultiple(of: 2)), "key \(key)") }
    }
}
