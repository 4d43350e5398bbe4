// The shared caches hammered from several threads at once, for ThreadSanitizer: CI builds this
// with `swift build --sanitize=thread --product cache-stress` (EvictionPolicies and this file
// only, a fraction of the whole test bundle) and runs it, so a data race in Cache's lock or state,
// StripedCache or SynchronizedCache fails CI with TSan's report.
//
// It also checks, as it goes, what a race would most likely break: every value found is the one
// its key was set with, the eviction handler hears each entry with its own value, and the limits and
// totals hold afterwards. Exits 0 when every check holds, 1 with the failed checks otherwise.
//
// Usage: cache-stress [ROUNDS] (default 1; each round is every scenario once).
import Dispatch
import EvictionPolicies
import Foundation

/// A value that can cross threads, standing in for an app's image: it knows its key's number.
final class Blob: Sendable {
    let number: Int
    init(_ number: Int) { self.number = number }
    var cost: Int { number % 50 + 1 }
}

/// A small, seeded generator (SplitMix64): each thread draws its own reproducible operations.
struct SplitMix: RandomNumberGenerator {
    var state: UInt64
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D4_9BB1_3311_10EB
        return z ^ (z >> 31)
    }
}

/// An integer behind a lock (NSLock rather than `Atomic`: this runs back to macOS 10.15).
final class LockedInt: @unchecked Sendable {
    private let lock = NSLock()
    private var value = 0
    func add(_ amount: Int) { lock.lock(); value += amount; lock.unlock() }
    func load() -> Int { lock.lock(); defer { lock.unlock() }; return value }
}

/// The failed checks, from any thread.
final class Failures: @unchecked Sendable {
    private let lock = NSLock()
    private var messages: [String] = []
    func append(_ message: String) { lock.lock(); messages.append(message); lock.unlock() }
    var all: [String] { lock.lock(); defer { lock.unlock() }; return messages }
}

let failures = Failures()
func check(_ condition: Bool, _ message: @autoclosure () -> String) {
    if !condition { failures.append(message()) }
}

/// `threads` threads of random gets (a set on a miss) of 1,000 URL keys, removes, limit changes,
/// memory warnings and clears on `cache`, through its `KeyedCache` surface.
func hammer<C: KeyedCache & Sendable>(_ cache: C, name: String, threads: Int, operations: Int, seed: UInt64,
                                      changeLimit: @escaping @Sendable (inout SplitMix) -> Void,
                                      warn: @escaping @Sendable () -> Void) where C.Key == String, C.Value == Blob {
    DispatchQueue.concurrentPerform(iterations: threads) { thread in
        var rng = SplitMix(state: seed &+ UInt64(thread))
        for _ in 0..<operations {
            let n = Int.random(in: 0..<1_000, using: &rng)
            let key = "https://example.com/\(n).jpg"
            switch Int.random(in: 0..<200, using: &rng) {
            case 0..<120:
                if let blob = cache[key] {
                    check(blob.number == n, "\(name): \(key) held the value of \(blob.number)")
                } else {
                    let blob = Blob(n)
                    cache.setValue(blob, forKey: key, cost: blob.cost, timeToLive: nil)
                }
            case 120..<180: cache.removeValue(forKey: key)
            case 180..<190: _ = cache.contains(key)
            case 190..<196: changeLimit(&rng)
            case 196..<199: warn()
            default: cache.removeAll()
            }
        }
    }
}

/// Every named policy behind `Cache`, with an eviction handler, a time to live on a clock that
/// moves, and limits, memory warnings and sweeps changed while eight threads get and set.
func stressCache(_ policy: CachePolicy, seed: UInt64) {
    let now = LockedInt()
    let clock = CacheClock { Double(now.load()) / 1_000 }
    let cache = Cache<String, Blob>(policy: policy, costLimit: 4_000, countLimit: policy.supportsCountLimit ? 200 : nil,
                                    timeToLive: 5, clock: clock, memoryWarningResponse: .trim(toFraction: 0.5),
                                    observesSystemEvents: false)
    cache.evictionHandler = { key, value, _ in
        check(key == "https://example.com/\(value.number).jpg", "cache \(policy): evicted \(key) with another key's value")
    }
    hammer(cache, name: "Cache(.\(policy))", threads: 8, operations: 1_500, seed: seed,
           changeLimit: { rng in
               now.add(Int.random(in: 0...50, using: &rng))
               switch Int.random(in: 0..<3, using: &rng) {
               case 0: cache.costLimit = Int.random(in: 1_000...4_000, using: &rng)
               case 1 where policy.supportsCountLimit: cache.countLimit = Int.random(in: 50...200, using: &rng)
               default: cache.removeExpired()
               }
           },
           warn: { cache.handle(Bool.random() ? .memoryWarning : .background) })
    check(cache.totalCost <= (cache.costLimit ?? .max), "Cache(.\(policy)): total cost \(cache.totalCost) over its limit")
    check(cache.count <= (cache.countLimit ?? .max), "Cache(.\(policy)): \(cache.count) entries over its limit")
    let resident = (0..<1_000).filter { cache.contains("https://example.com/\($0).jpg") }.count
    check(resident == cache.count, "Cache(.\(policy)): \(resident) keys found, count says \(cache.count)")
}

func stressStriped(seed: UInt64) {
    let cache = StripedCache<String, Blob>(policy: .lru, stripes: 4, costLimit: 4_000, countLimit: 200,
                                           observesSystemEvents: false)
    hammer(cache, name: "StripedCache", threads: 4, operations: 2_500, seed: seed,
           changeLimit: { cache.countLimit = Int.random(in: 100...200, using: &$0) },
           warn: { cache.handle(.memoryWarning) })
    check(cache.count <= 200 && cache.totalCost <= 4_000, "StripedCache: limits broken")
}

func stressSynchronized(seed: UInt64) {
    guard let policy = try? LRUCache<String, Blob>(capacity: 10_000, countLimit: 500) else {
        check(false, "SynchronizedCache: LRUCache(capacity: 10000, countLimit: 500) refused its limits")
        return
    }
    let cache = SynchronizedCache(policy)
    DispatchQueue.concurrentPerform(iterations: 8) { thread in
        var rng = SplitMix(state: seed &+ UInt64(thread))
        for _ in 0..<2_500 {
            let n = Int.random(in: 0..<2_000, using: &rng)
            let key = "k\(n)"
            switch Int.random(in: 0..<10, using: &rng) {
            case 0..<6:
                if let blob = cache.value(forKey: key) {
                    check(blob.number == n, "SynchronizedCache: \(key) held the value of \(blob.number)")
                } else {
                    let blob = Blob(n)
                    cache.setValue(blob, forKey: key, cost: blob.cost)
                }
            case 6..<9: cache.removeValue(forKey: key)
            default: cache.handle(.memoryWarning)
            }
        }
    }
    check(cache.count <= 500 && cache.totalCost <= 10_000, "SynchronizedCache: limits broken")
}

let rounds = CommandLine.arguments.dropFirst().first.flatMap { Int($0) }.map { max(1, $0) } ?? 1
for round in 0..<rounds {
    let seed = UInt64(round) &* 1_000
    for policy in CachePolicy.allCases { stressCache(policy, seed: seed) }
    stressStriped(seed: seed)
    stressSynchronized(seed: seed)
}
let failed = failures.all
for failure in failed.prefix(20) { print("FAILED: \(failure)") }
print(failed.isEmpty ? "cache-stress: \(rounds) round(s), every check held"
                     : "cache-stress: \(failed.count) checks failed")
exit(failed.isEmpty ? 0 : 1)
