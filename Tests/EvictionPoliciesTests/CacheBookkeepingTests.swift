@testable import EvictionPolicies
import Foundation
import Testing
import TestSupport

/// LRU behind a wrapper that is not a ``SlotPolicy``: the same rule, but a ``Cache`` over it must
/// keep its key ring, as for any policy that cannot list its entries.
struct RingOnlyLRU<Key: Hashable, Value>: ForwardingPolicy {
    static var descriptor: PolicyDescriptor { LRUCache<Key, Value>.descriptor }
    var base: LRUCache<Key, Value>
    init(limits: CacheLimits, options: PolicyOptions) throws(PolicyConfigurationError) {
        base = try LRUCache(limits: limits, options: options)
    }
}

@Suite("Cache's bookkeeping: in the entry for a slot policy, in the key ring for the others")
struct CacheBookkeepingTests {
    @Test("Cache(.tinyLFU) sizes its frequency sketch by its entries, not by its cost limit")
    func tinyLFUSketchFollowsEntries() throws {
        for costLimit in [nil, 100 << 20] as [Int?] {
            let cache = Cache<String, Int>(policy: .tinyLFU, costLimit: costLimit, observesSystemEvents: false)
            // A first entry of cost 1 made the policy size its sketch to the cost limit (2^26 words).
            cache.setValue(0, forKey: "first", cost: 1)
            for i in 0..<2_000 { cache.setValue(i, forKey: "k\(i)", cost: costLimit == nil ? 1 : 4096) }
            let core = try #require(cache._core as? _PolicyCore<String, Int, WTinyLFUCache<String, CacheEntry<Int>>>)
            let words = core.policy.pointee.hasSketch ? core.policy.pointee.sketch.table.count : 0
            #expect(words <= 4096, "\(costLimit.map { String($0) } ?? "no limit"): \(words) words")
        }
        // Filled past half its limit, it counts: the sketch then covers the entries.
        let cache = Cache<String, Int>(policy: .tinyLFU, costLimit: 1_000, observesSystemEvents: false)
        for i in 0..<3_000 { cache.setValue(i, forKey: "k\(i)", cost: 1) }
        let core = try #require(cache._core as? _PolicyCore<String, Int, WTinyLFUCache<String, CacheEntry<Int>>>)
        #expect(core.policy.pointee.hasSketch)
        #expect(core.policy.pointee.sketch.table.count >= 500 && core.policy.pointee.sketch.table.count <= 2_048)
    }

    @Test("slot policies keep no key ring, whatever is stored; the others keep one slot per entry")
    func whereBookkeepingLives() throws {
        let slotPolicies: Set<CachePolicy> = [.lru, .fifo, .clock, .sieve, .lfu]
        for policy in CachePolicy.allCases {
            let cache = Cache<String, Int>(policy: policy, costLimit: 1_000, observesSystemEvents: false)
            for i in 0..<300 { cache.setValue(i, forKey: "k\(i % 200)", cost: 3, timeToLive: i % 2 == 0 ? 60 : nil) }
            let usesRing = !slotPolicies.contains(policy)
            #expect(cache._core.usesKeyRing == usesRing, "\(policy)")
            let ringSlots = cache._withState(.limit) { state, _ in state.pointee.ring.liveCount }
            #expect(usesRing ? ringSlots >= cache.count : ringSlots == 0, "\(policy): \(ringSlots) ring slots")
        }
        let wrapped = try Cache<String, Int>(policyType: RingOnlyLRU<String, CacheEntry<Int>>.self, countLimit: 4,
                                             observesSystemEvents: false)
        #expect(wrapped._core.usesKeyRing)
    }

    @Test("memory warnings on every named policy: what leaves is what the handler hears, the rest stay intact",
          arguments: [MemoryWarningResponse.removeAll, .trim(toFraction: 0.5)])
    func memoryWarnings(response: MemoryWarningResponse) {
        for policy in CachePolicy.allCases {
            let cache = Cache<String, Int>(policy: policy, costLimit: 400, memoryWarningResponse: response,
                                           observesSystemEvents: false)
            let log = AppEvictionLog<String>()
            for i in 0..<150 { cache.setValue(i, forKey: "k\(i)", cost: 1 + i % 5, timeToLive: i % 3 == 0 ? 60 : nil) }
            for i in stride(from: 0, to: 150, by: 7) { _ = cache["k\(i)"] }
            let before = cache.count
            let stored = (0..<150).filter { cache.contains("k\($0)") }
            cache.evictionHandler = { key, _, reason in log.append(key, reason) }
            cache.handle(.memoryWarning)
            let left = stored.filter { cache.contains("k\($0)") }
            #expect(log.entries.allSatisfy { $0.1 == .memoryWarning }, "\(policy)")
            #expect(Set(log.keys) == Set(stored.filter { !left.contains($0) }.map { "k\($0)" }) && log.keys.count == before - cache.count,
                    "\(policy): \(log.keys.count) reported, \(before - cache.count) gone")
            #expect(left.allSatisfy { cache["k\($0)"] == $0 }, "\(policy)")
            if case .trim = response {
                #expect(cache.count > 0 && cache.count <= before / 2 + 1, "\(policy): \(cache.count) of \(before) kept")
            } else {
                #expect(cache.count == 0 && cache.totalCost == 0, "\(policy)")
            }
        }
    }

    @Test("trim(toFraction:) keeps exactly the fraction, by count when entries cost nothing, the newest sets staying",
          arguments: CachePolicy.allCases)
    func trimKeepsTheFraction(policy: CachePolicy) {
        // Costs of 5 against 1,000: small enough for every policy's smallest queue (LIRS's 1 % HIR share).
        let cache = Cache<Int, Int>(policy: policy, costLimit: 1_000, memoryWarningResponse: .trim(toFraction: 0.5),
                                    observesSystemEvents: false)
        for i in 0..<10 { cache.setValue(i, forKey: i, cost: 5) }
        #expect(cache.count == 10, "\(policy)")
        cache.handle(.memoryWarning)
        #expect(cache.count == 5 && cache.totalCost == 25, "\(policy): \(cache.count) entries, cost \(cache.totalCost)")
        // No gets: every policy's next victims, and the oldest sets, are the first five.
        #expect((0..<10).filter { cache.contains($0) } == Array(5..<10), "\(policy)")
        #expect((5..<10).allSatisfy { cache[$0] == $0 }, "\(policy)")

        // Entries set through the subscript cost 0: the count alone decides.
        let free = Cache<Int, Int>(policy: policy, costLimit: 1_000, memoryWarningResponse: .trim(toFraction: 0.3),
                                   observesSystemEvents: false)
        for i in 0..<10 { free[i] = i }
        free.handle(.memoryWarning)
        #expect(free.count == 3 && (7..<10).allSatisfy { free[$0] == $0 }, "\(policy): \(free.count) left")
    }

    @Test("a get reports the cost its set gave, also after a replacement and a limit change", arguments: [false, true])
    func costOfAGet(ring: Bool) throws {
        let cache = ring
            ? try Cache<String, Int>(policyType: RingOnlyLRU<String, CacheEntry<Int>>.self, costLimit: 100, observesSystemEvents: false)
            : Cache<String, Int>(policy: .lru, costLimit: 100, observesSystemEvents: false)
        cache.setValue(1, forKey: "a", cost: 10)
        cache.setValue(2, forKey: "b", cost: 20)
        cache.setValue(3, forKey: "a", cost: 30)
        #expect(cache._valueAndCost(forKey: "b")?.cost == 20 && cache._valueAndCost(forKey: "c") == nil)
        #expect(cache._valueAndCost(forKey: "a")?.value == 3 && cache._valueAndCost(forKey: "a")?.cost == 30)
        cache.costLimit = 40                // b (cost 20, least recent) goes; a keeps its cost
        #expect(cache.totalCost == 30 && cache._valueAndCost(forKey: "a")?.cost == 30 && !cache.contains("b"))
        cache.costLimit = 20                // a (30) no longer fits at all: dropped, not kept
        #expect(cache.count == 0 && cache.totalCost == 0)
    }

    @Test("differential: LRU with times to live against a list model (sets, gets, removals, sweeps), with and without a key ring",
          arguments: [(false, 1), (false, 2), (false, 3), (true, 1), (true, 2), (true, 3)] as [(Bool, UInt64)])
    func expiryDifferential(ring: Bool, seed: UInt64) throws {
        let time = ManualTime()
        let cache = ring
            ? try Cache<Int, Int>(policyType: RingOnlyLRU<Int, CacheEntry<Int>>.self, costLimit: 250, countLimit: 25,
                                  timeToLive: 3, clock: time.clock, observesSystemEvents: false)
            : Cache<Int, Int>(policy: .lru, costLimit: 250, countLimit: 25, timeToLive: 3, clock: time.clock,
                              observesSystemEvents: false)
        let log = AppEvictionLog<Int>()
        cache.evictionHandler = { key, _, reason in log.append(key, reason) }
        // The model: newest first.
        var model: [(key: Int, value: Int, cost: Int, expires: Double)] = []
        var expected: [(Int, CacheEvictionReason)] = []
        func sweep() {
            for entry in model where time.seconds >= entry.expires { expected.append((entry.key, .expired)) }
            model.removeAll { time.seconds >= $0.expires }
        }
        var rng = SeededRandom(seed: seed)
        var expiredCount = 0, limitCount = 0
        for step in 0..<3_000 {
            let key = Int.random(in: 0..<40, using: &rng)
            let before = log.entries.count
            let position = model.firstIndex { $0.key == key }
            switch Int.random(in: 0..<20, using: &rng) {
            case 0..<8:
                var answer: Int?
                if let position {
                    let entry = model.remove(at: position)
                    if time.seconds >= entry.expires { expected.append((key, .expired)) } else {
                        model.insert(entry, at: 0)
                        answer = entry.value
                    }
                }
                #expect(cache[key] == answer, "step \(step) get \(key)")
            case 8..<15:
                let lifetimes: [Double?] = [nil, 2, 5, .infinity]
                let lifetime = lifetimes[Int.random(in: 0..<4, using: &rng)]
                let value = Int.random(in: 0..<1_000, using: &rng), cost = Int.random(in: 0...30, using: &rng)
                cache.setValue(value, forKey: key, cost: cost, timeToLive: lifetime)
                if let position { model.remove(at: position) }
                if cost <= 250 {
                    let seconds = lifetime ?? 3
                    model.insert((key, value, cost, seconds == .infinity ? .infinity : time.seconds + seconds), at: 0)
                    while model.reduce(0, { $0 + $1.cost }) > 250 || model.count > 25 {
                        expected.append((model.removeLast().key, .limit))
                    }
                }
            case 15:
                let entry = position.map { model.remove(at: $0) }
                let answer = entry.flatMap { time.seconds >= $0.expires ? nil : $0.value }
                #expect(cache.removeValue(forKey: key) == answer, "step \(step) remove \(key)")
            case 16:
                cache.removeExpired()
                sweep()
            case 17:
                cache.handle(.background)
                sweep()
            default:
                time.seconds += Double.random(in: 0..<2, using: &rng)
            }
            // A sweep reports in the order of its storage: compare each step's evictions as sets.
            let reported = log.entries[before...].map { "\($0.0) \($0.1)" }.sorted()
            let modelled = expected.map { "\($0.0) \($0.1)" }.sorted()
            expiredCount += expected.filter { $0.1 == .expired }.count
            limitCount += expected.filter { $0.1 == .limit }.count
            expected.removeAll()
            #expect(reported == modelled, "step \(step)")
            #expect(cache.count == model.count && cache.totalCost == model.reduce(0) { $0 + $1.cost }, "step \(step)")
            if reported != modelled { break }
        }
        #expect(expiredCount > 150 && limitCount > 150, "the session exercises both: \(expiredCount) expired, \(limitCount) by limit")
    }
}

#if os(Linux)
@Suite("TraceRecorder on a full disk")
struct TraceRecorderFullDiskTests {
    @Test("after a failed write it records nothing more, holds nothing, and finish() throws, every time")
    func stopsAfterFailure() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("cachebench-full-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        // The partial trace is written to /dev/full: every write fails with ENOSPC.
        try FileManager.default.createSymbolicLink(atPath: folder.appendingPathComponent(".t.csv.partial").path,
                                                   withDestinationPath: "/dev/full")
        let recorder = try TraceRecorder(url: folder.appendingPathComponent("t.csv"))
        for i in 0..<50_000 {
            recorder.recordGet("key-\(i)", hit: false)
            recorder.recordSet("key-\(i)", size: 100)
            recorder.recordDelete("key-\(i)")
        }
        // Kept, the rows would be some 4 MB by now, each one trying to write them all again.
        #expect(recorder._bufferedByteCount == 0)
        #expect(throws: DiskCacheError.self) { try recorder.finish() }
        // Asked again, it says again that the trace is lost rather than seem to succeed.
        #expect(throws: DiskCacheError.self) { try recorder.finish() }
        #expect(!FileManager.default.fileExists(atPath: folder.appendingPathComponent("t.csv").path))
    }
}
#endif

@Suite("TraceRecorder over a long session")
struct TraceRecorderBoundsTests {
    @Test("misses never followed by a store and the remembered sizes stay bounded; every miss is still written")
    func bounded() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("cachebench-bounds-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let url = folder.appendingPathComponent("t.csv")
        let time = ManualTime()
        let recorder = try TraceRecorder(url: url, clock: time.clock)
        var peak = (pendingMisses: 0, sizes: 0)
        for i in 0..<100_000 {
            time.seconds = Double(i)
            // A key stored once and never missed; a key that misses and is never stored.
            recorder.recordSet("stored-\(i)", size: 10 + i % 5)
            recorder.recordGet("absent-\(i)", hit: false)
            if i % 1_000 == 0 {
                let held = recorder._heldCounts
                peak = (max(peak.pendingMisses, held.pendingMisses), max(peak.sizes, held.sizes))
            }
        }
        #expect(peak.pendingMisses <= 4_097 && peak.sizes <= 65_537 + 4_097)
        // A miss and its store still make one get row with the stored size.
        recorder.recordGet("pair", hit: false)
        recorder.recordSet("pair", size: 77)
        try recorder.finish()
        let rows = try String(contentsOf: url, encoding: .utf8).split(separator: "\n").dropFirst()
        let misses = rows.filter { $0.contains(",absent-") }
        #expect(misses.count == 100_000)
        #expect(misses.allSatisfy { $0.hasSuffix(",1,get") })
        // Written oldest first: each flush writes the older half in time order.
        let times = misses.compactMap { Double($0.split(separator: ",")[0]) }
        #expect(times == times.sorted())
        #expect(rows.filter { $0.hasSuffix(",set") }.count == 100_000)
        #expect(rows.contains { $0.hasSuffix(",pair,77,get") })
    }
}

@Suite("RecordingCache forgets the keys its cache evicted")
struct RecordingCacheKeyTests {
    @Test("a session of new keys keeps the wrapper's table near the cache's size")
    func storedKeysStayBounded() throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("cachebench-keys-\(UUID().uuidString).csv")
        defer { try? FileManager.default.removeItem(at: url) }
        let cache = RecordingCache(Cache<String, Int>(policy: .lru, countLimit: 100, observesSystemEvents: false),
                                   recorder: try TraceRecorder(url: url))
        for i in 0..<20_000 { cache.setValue(i, forKey: "k\(i)") }
        #expect(cache.count == 100)
        #expect(cache._storedKeyCount <= 2 * 100 + 1_025)
        cache.removeAll()
        #expect(cache.count == 0 && cache._storedKeyCount == 0)
        try cache.recorder.finish()
    }
}
