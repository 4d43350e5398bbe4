import Dispatch
import EvictionPolicies
import TestSupport
import Testing

/// A value type that can cross threads, standing in for an app's image.
final class Blob: Sendable {
    let bytes: Int
    init(bytes: Int) { self.bytes = bytes }
}

@Suite("SynchronizedCache")
struct SynchronizedCacheTests {
    @Test("several threads share one cache; limits and totals hold afterwards")
    func stress() throws {
        let cache = SynchronizedCache(try LRUCache<String, Blob>(capacity: 10_000, countLimit: 500))
        let threads = 8
        DispatchQueue.concurrentPerform(iterations: threads) { thread in
            var rng = SeededRandom(seed: UInt64(thread) + 1)
            for _ in 0..<20_000 {
                let key = "k\(Int.random(in: 0..<2_000, using: &rng))"
                switch Int.random(in: 0..<10, using: &rng) {
                case 0..<6:
                    if cache.value(forKey: key) == nil {
                        let bytes = Int.random(in: 1...100, using: &rng)
                        cache.setValue(Blob(bytes: bytes), forKey: key, cost: bytes)
                    }
                case 6..<9:
                    cache.removeValue(forKey: key)
                default:
                    cache.handle(.memoryWarning)
                }
            }
        }
        let (count, total, sum) = cache.withLock { policy -> (Int, Int, Int) in
            var sum = 0
            for i in 0..<2_000 where policy.contains("k\(i)") {
                var observer = IgnoringObserver<String, Blob>()
                // Re-reading through lookup keeps the check honest: each resident value carries its cost.
                sum += policy.lookup("k\(i)", observer: &observer)?.bytes ?? 0
            }
            return (policy.count, policy.totalCost, sum)
        }
        #expect(count <= 500)
        #expect(total <= 10_000)
        #expect(total == sum)
    }

    @Test("operations under one lock see each other")
    func withLock() throws {
        let cache = SynchronizedCache(try FIFOCache<Int, Int>(capacity: nil, countLimit: 2))
        cache.withLock { policy in
            policy.setValue(1, forKey: 1)
            policy.setValue(2, forKey: 2)
            policy.setValue(3, forKey: 3)
        }
        #expect(cache.value(forKey: 1) == nil)
        #expect(cache.value(forKey: 3) == 3)
        #expect(cache.count == 2 && cache.totalCost == 2)
    }
}
