@testable import EvictionPolicies
import Testing
import TestSupport

/// The bucket address a published hint gives for `hash`: what ``_IndexHint/prefetch(hash:)`` loads.
private func hintedBucket(_ hint: _IndexHint, hash: UInt64) -> UInt {
    let base = hint._words[0], shift = UInt64(hint._words[1])
    return base &+ UInt(truncatingIfNeeded: hash &>> shift) &<< 3
}

/// The geometry of `cache`'s policy index now, read under its lock.
private func liveGeometry<Value>(_ cache: Cache<String, Value>) -> (base: UInt, shift: UInt) {
    cache._withState(.limit) { _, observer in cache._call(_IndexGeometry(), "", &observer) }
}

@Suite("Cache prefetches a key's bucket before its lock, from where the index really lies")
struct CacheIndexHintTests {
    @Test("a bucket geometry names the probe's first bucket: scanning on from it finds every filed hash")
    func geometryNamesTheHomeBucket() {
        var index = SlotIndex()
        var generator = SeededRandom(seed: 7)
        var filed: [(hash: UInt64, slot: Int32)] = []
        for slot in Int32(0)..<3_000 {
            let hash = generator.next()
            index.insert(hash: hash, slot: slot)
            filed.append((hash, slot))
        }
        let (base, shift) = index._bucketGeometry
        let buckets = 1 << (64 - Int(shift))
        #expect(buckets >= 6_000, "the index holds 3,000 slots at most half full")
        for (hash, slot) in filed {
            // Linear probing from the home bucket, wrapping, must reach the hash's own bucket
            // before an empty one: the geometry then names where the probe starts.
            var position = Int(truncatingIfNeeded: hash >> shift)
            var found = false
            for _ in 0..<buckets {
                let bucket = UnsafePointer<UInt64>(bitPattern: base &+ UInt(position) &* 8)!.pointee
                if bucket == 0 { break }
                if bucket >> 32 == hash >> 32, Int32(truncatingIfNeeded: bucket & 0xffff_ffff) - 1 == slot { found = true; break }
                position = (position + 1) & (buckets - 1)
            }
            #expect(found, "hash \(hash) is not reached by a probe from its hinted bucket")
        }
    }

    @Test("every named policy publishes its index as it grows, is replaced, shrinks and is trimmed", arguments: CachePolicy.allCases)
    func publishedAsTheIndexMoves(policy: CachePolicy) {
        let cache = Cache<String, Int>(policy: policy, costLimit: 100_000, observesSystemEvents: false)
        #expect(cache._indexHint._words[0] == 0, "nothing is published before the first set")
        cache.setValue(-1, forKey: "first", cost: 1)
        let first = cache._indexHint._words[0]
        #expect(first == liveGeometry(cache).base)
        for key in 0..<5_000 { cache.setValue(key, forKey: "image/\(key).jpg", cost: 1) }
        let grown = liveGeometry(cache)
        #expect(grown.base != 0)
        #expect(grown.base != first, "5,000 entries outgrow the first index")
        #expect(cache._indexHint._words[0] == grown.base && cache._indexHint._words[1] == grown.shift)
        for key in 0..<5_000 {
            let hash = cache._keyHash("image/\(key).jpg")
            let home = grown.base &+ UInt(truncatingIfNeeded: hash &>> UInt64(grown.shift)) &<< 3
            #expect(hintedBucket(cache._indexHint, hash: hash) == home)
        }

        // Replaced whole: published at once, before any set, and again by the next set.
        cache.removeAll()
        let emptied = liveGeometry(cache)
        #expect(emptied.base != grown.base, "a fresh policy has a fresh index")
        #expect(cache._indexHint._words[0] == emptied.base && cache._indexHint._words[1] == emptied.shift)
        cache.setValue(1, forKey: "after", cost: 1)
        let fresh = liveGeometry(cache)
        #expect(cache._indexHint._words[0] == fresh.base && cache._indexHint._words[1] == fresh.shift)

        // Removals that shrink the index publish where it went.
        for key in 0..<5_000 { cache.setValue(key, forKey: "image/\(key).jpg", cost: 1) }
        for key in 0..<5_000 { cache.removeValue(forKey: "image/\(key).jpg") }
        let shrunk = liveGeometry(cache)
        #expect(cache._indexHint._words[0] == shrunk.base && cache._indexHint._words[1] == shrunk.shift)
        #expect(cache.value(forKey: "after") == 1 && cache.count == 1)

        // The cold paths that trim or reset: a lowered limit, a memory warning.
        for key in 0..<5_000 { cache.setValue(key, forKey: "image/\(key).jpg", cost: 1) }
        cache.costLimit = 10
        let limited = liveGeometry(cache)
        #expect(cache._indexHint._words[0] == limited.base && cache._indexHint._words[1] == limited.shift)
        cache.costLimit = 100_000
        for key in 0..<5_000 { cache.setValue(key, forKey: "image/\(key).jpg", cost: 1) }
        cache.handle(.memoryWarning)
        let warned = liveGeometry(cache)
        #expect(cache._indexHint._words[0] == warned.base && cache._indexHint._words[1] == warned.shift)
    }

    @Test("a policy chosen by a type the cache does not name publishes nothing, and its gets still work")
    func customPolicyPrefetchesNothing() throws {
        let cache = try Cache<String, Int>(policyType: YYMemoryCache<String, CacheEntry<Int>>.self, costLimit: 1_000,
                                           observesSystemEvents: false)
        for key in 0..<500 { cache.setValue(key, forKey: "k\(key)", cost: 1) }
        #expect(cache._indexHint._words[0] == 0)
        var found = 0
        for key in 0..<500 where cache.value(forKey: "k\(key)") == key { found += 1 }
        #expect(found == 500)
    }
}
