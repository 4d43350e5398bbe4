@testable import EvictionPolicies
import Testing
import TestSupport

/// A ``Cache`` gives its storage back after a large purge, and every survivor keeps its value,
/// cost and expiry: the arena's slots and the key ring's slots are renumbered, and a renumbering
/// that missed an entry would show here as a wrong value, a lost cost or an entry that never
/// expires.
@Suite("Cache storage after a large purge")
struct CachePurgeTests {
    /// What the test stored under each key.
    struct Stored { var value: Int; var cost: Int; var expires: Bool }

    /// Stores 3,000 entries (costs 1 to 7; every third one with a time to live of 100 s).
    func fill(_ cache: Cache<String, Int>, round: Int) -> [String: Stored] {
        var stored: [String: Stored] = [:]
        for i in 0..<3_000 {
            let key = "round\(round)-key\(i)"
            let entry = Stored(value: round * 10_000 + i, cost: i % 7 + 1, expires: i % 3 == 0)
            cache.setValue(entry.value, forKey: key, cost: entry.cost, timeToLive: entry.expires ? 100 : nil)
            stored[key] = entry
        }
        return stored
    }

    /// Every survivor's value and cost, the count, the total cost, and storage within twice the entries.
    func expectIntact(_ cache: Cache<String, Int>, _ stored: [String: Stored], _ label: String,
                      sourceLocation: SourceLocation = #_sourceLocation) {
        let survivors = stored.filter { cache.contains($0.key) }
        #expect(cache.count == survivors.count, "\(label): count", sourceLocation: sourceLocation)
        #expect(cache.totalCost == survivors.values.reduce(0) { $0 + $1.cost }, "\(label): total cost", sourceLocation: sourceLocation)
        for (key, entry) in survivors {
            let got = cache._valueAndCost(forKey: key)
            #expect(got?.value == entry.value && got?.cost == entry.cost, "\(label): \(key)", sourceLocation: sourceLocation)
        }
        let ring = cache._state.pointee.ring
        if cache._state.pointee.usesKeyRing {
            #expect(ring.slots.count <= max(64, 2 * cache.count), "\(label): key ring of \(ring.slots.count) slots for \(cache.count) entries",
                    sourceLocation: sourceLocation)
        }
    }

    @Test("removals and a trimming memory warning leave the survivors intact and the storage small",
          arguments: CachePolicy.allCases)
    func purge(policy: CachePolicy) {
        let time = ManualTime()
        let cache = Cache<String, Int>(policy: policy, costLimit: 100_000, clock: time.clock,
                                       memoryWarningResponse: .trim(toFraction: 0.05), observesSystemEvents: false)
        purgeCycle(cache, time: time, label: "\(policy)")
    }

    /// Policies that keep their entries in another policy's arena (``ForwardingPolicy``), behind
    /// a key ring: the ring's entries are renumbered in that arena.
    @Test("a policy that runs another's arena gives the key ring back too")
    func forwardingPolicies() throws {
        let time = ManualTime()
        func make<P: EvictionPolicy>(_ type: P.Type) throws -> Cache<String, Int> where P.Key == String, P.Value == CacheEntry<Int> {
            try Cache(policyType: type, costLimit: 100_000, clock: time.clock,
                      memoryWarningResponse: .trim(toFraction: 0.05), observesSystemEvents: false)
        }
        let caches = [("kingfisher", try make(KingfisherMemoryStorage<String, CacheEntry<Int>>.self)),
                      ("afi-lru", try make(AlamofireAutoPurgingImageCache<String, CacheEntry<Int>>.self)),
                      ("lecarv0", try make(LeCaRv0Cache<String, CacheEntry<Int>>.self))]
        for (label, cache) in caches {
            #expect(cache._state.pointee.usesKeyRing && cache._core.canRenumberEntries, "\(label)")
            time.seconds = 0
            purgeCycle(cache, time: time, label: label)
        }
    }

    /// Fills `cache`, removes 95 %, expires, fills again, trims on a memory warning, refills;
    /// checks the survivors and the storage after each step.
    func purgeCycle(_ cache: Cache<String, Int>, time: ManualTime, label policy: String) {
        var rng = SeededRandom(seed: 36)
        var stored = fill(cache, round: 0)
        #expect(cache.count == 3_000)
        // 95 % removed, in random order.
        for key in stored.keys.sorted().shuffled(using: &rng) where Int.random(in: 0..<100, using: &rng) < 95 {
            #expect(cache.removeValue(forKey: key) == stored[key]?.value)
            stored[key] = nil
        }
        expectIntact(cache, stored, "\(policy) after removals")
        // The entries set with a time to live still expire, the others stay.
        time.seconds = 101
        cache.removeExpired()
        #expect(stored.allSatisfy { cache.contains($0.key) == !$0.value.expires }, "\(policy): expiry after the removals")
        stored = stored.filter { !$0.value.expires }
        expectIntact(cache, stored, "\(policy) after expiry")
        // Filled again, then a memory warning keeps 5 %.
        stored.merge(fill(cache, round: 1)) { $1 }
        cache.handle(.memoryWarning)
        #expect(cache.count <= 3_150 / 20 + 1, "\(policy): \(cache.count) entries after the warning")
        expectIntact(cache, stored, "\(policy) after a memory warning")
        time.seconds = 202
        cache.removeExpired()
        #expect(stored.allSatisfy { !cache.contains($0.key) || !$0.value.expires }, "\(policy): expiry after the warning")
        // And it keeps working as a cache.
        stored.merge(fill(cache, round: 2)) { $1 }
        expectIntact(cache, stored, "\(policy) refilled")
    }
}
