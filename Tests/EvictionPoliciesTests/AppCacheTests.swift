import Dispatch
import EvictionPolicies
import Foundation
import Testing
import TestSupport

/// A clock the test moves by hand.
final class ManualTime: @unchecked Sendable {
    var seconds = 0.0
    var clock: CacheClock { CacheClock { self.seconds } }
}

/// Collects what a cache's eviction handler receives.
final class AppEvictionLog<Key: Sendable>: @unchecked Sendable {
    private let lock = DispatchQueue(label: "log")
    private var _entries: [(Key, CacheEvictionReason)] = []
    var entries: [(Key, CacheEvictionReason)] { lock.sync { _entries } }
    func append(_ key: Key, _ reason: CacheEvictionReason) { lock.sync { _entries.append((key, reason)) } }
    var keys: [Key] { entries.map(\.0) }
}

@Suite("Cache: the thread-safe app cache")
struct AppCacheTests {
    func logging<Value>(_ cache: Cache<String, Value>) -> AppEvictionLog<String> {
        let log = AppEvictionLog<String>()
        cache.evictionHandler = { key, _, reason in log.append(key, reason) }
        return log
    }

    @Test("every named policy without any limit: nothing is evicted (S3-FIFO, ARC, … included, which need a capacity)",
          arguments: CachePolicy.allCases)
    func noLimitsAtAll(policy: CachePolicy) {
        let cache = Cache<Int, Int>(policy: policy, observesSystemEvents: false)
        for key in 0..<5_000 { cache.setValue(key, forKey: key, cost: 1 << 40) }
        #expect(cache.count == 5_000 && cache.costLimit == nil && cache.countLimit == nil)
        #expect((0..<5_000).allSatisfy { cache[$0] == $0 })
        cache.costLimit = 10 << 40           // a limit set later trims to it, and can be lifted again
        #expect(cache.count <= 10 && cache.totalCost <= 10 << 40)
        let kept = cache.count
        cache.costLimit = nil
        #expect(cache.costLimit == nil)
        for key in 10_000..<10_100 { cache.setValue(key, forKey: key, cost: 1 << 40) }
        #expect(cache.count == kept + 100)
    }

    @Test("hand-worked LRU vector: count limit 3, a hit protects, the handler sees the victim")
    func lruVector() {
        let cache = Cache<String, Int>(policy: .lru, countLimit: 3, observesSystemEvents: false)
        let log = logging(cache)
        cache["a"] = 1
        cache["b"] = 2
        cache["c"] = 3
        #expect(cache["a"] == 1)          // order, newest first: a c b
        cache["d"] = 4                    // evicts b
        #expect(log.keys == ["b"] && log.entries.first?.1 == .limit)
        #expect(!cache.contains("b") && cache.contains("a") && cache.count == 3)
        cache["c"] = nil                  // removal: not an eviction
        #expect(cache.count == 2 && log.keys == ["b"])
        #expect(cache.removeValue(forKey: "a") == 1 && cache.removeValue(forKey: "a") == nil)
        cache.setValue(9, forKey: "e", cost: 40)
        #expect(cache.totalCost == 40 && cache.value(forKey: "e") == 9)
        cache.removeAll()
        #expect(cache.count == 0 && cache.totalCost == 0 && cache["d"] == nil && log.keys == ["b"])
    }

    @Test("lowering a limit trims at once, least recently used first; raising keeps everything")
    func mutableLimits() {
        let cache = Cache<String, Int>(policy: .lru, costLimit: 100, observesSystemEvents: false)
        let log = logging(cache)
        for (i, key) in ["a", "b", "c", "d", "e"].enumerated() { cache.setValue(i, forKey: key, cost: 20) }
        #expect(cache.totalCost == 100)
        cache.costLimit = 60
        #expect(cache.costLimit == 60 && cache.totalCost == 60 && log.keys == ["a", "b"])
        #expect(cache.contains("c") && cache.contains("d") && cache.contains("e"))
        cache.costLimit = nil
        for key in ["f", "g", "h"] { cache.setValue(0, forKey: key, cost: 20) }
        #expect(cache.totalCost == 120 && log.keys == ["a", "b"])
        cache.countLimit = 2
        #expect(cache.count == 2 && cache.contains("g") && cache.contains("h"))
        cache.countLimit = 0              // NSCache's 0: no limit
        #expect(cache.countLimit == nil)
    }

    @Test("a limit change keeps recency: the entries used last stay, in their order")
    func limitChangeKeepsRecency() {
        let cache = Cache<String, Int>(policy: .lru, countLimit: 5, observesSystemEvents: false)
        let log = logging(cache)
        for (i, key) in ["a", "b", "c", "d", "e"].enumerated() { cache[key] = i }
        // Recency, most recent first: b a e d c (sets a..e, then gets a and b).
        #expect(cache["a"] == 0 && cache["b"] == 1)
        cache.countLimit = 3              // drops the two least recently used: c, then d
        #expect(log.keys == ["c", "d"] && log.entries.allSatisfy { $0.1 == .limit })
        #expect(cache.contains("a") && cache.contains("b") && cache.contains("e"))
        cache.countLimit = 10             // raising drops nothing and keeps the order: b a e
        cache["f"] = 5
        cache.countLimit = 2              // f b stay; e then a go
        #expect(log.keys == ["c", "d", "e", "a"])
        #expect(cache.contains("f") && cache.contains("b") && cache.count == 2)
        // A cost limit too: an entry larger than the new limit goes, the order of the rest holds.
        let costs = Cache<String, Int>(policy: .lru, costLimit: 100, observesSystemEvents: false)
        let costLog = logging(costs)
        costs.setValue(1, forKey: "x", cost: 50)
        costs.setValue(2, forKey: "y", cost: 10)
        costs.setValue(3, forKey: "z", cost: 10)
        #expect(costs["y"] == 2)          // recency: y z x
        costs.costLimit = 40              // x (50) cannot stay; y and z fit
        #expect(costLog.keys == ["x"] && costs.totalCost == 20)
        costs.costLimit = 15              // z is less recent than y
        #expect(costLog.keys == ["x", "z"] && costs.contains("y"))
    }

    @Test("a limit change keeps FIFO's insertion order and SIEVE's hand order", arguments: [CachePolicy.fifo, .sieve, .clock])
    func limitChangeKeepsOrder(_ policy: CachePolicy) {
        // With no hits, FIFO, SIEVE and CLOCK all evict in insertion order.
        let cache = Cache<Int, Int>(policy: policy, countLimit: 50, observesSystemEvents: false)
        let log = AppEvictionLog<Int>()
        cache.evictionHandler = { key, _, _ in log.append(key, .limit) }
        for i in 0..<50 { cache[i] = i }
        cache.countLimit = 20
        #expect(log.keys == Array(0..<30), "\(policy)")
        cache.countLimit = 40
        for i in 50..<70 { cache[i] = i }
        #expect(log.keys == Array(0..<30), "\(policy): raising then filling drops nothing")
        cache[70] = 70
        #expect(log.keys == Array(0..<31), "\(policy): the oldest goes next")
    }

    @Test("a limit change keeps what a library model knows of each entry: NSCache's order among equal costs, PIN's access counts, Nuke's reference bits, SDWebImage's weak map")
    func limitChangeKeepsModelState() throws {
        typealias Entry = CacheEntry<Int>
        // corelibs NSCache: among equal costs the newest goes first; y (set after x) stays first after a raise.
        let nscache = try Cache<String, Int>(policyType: CorelibsNSCache<String, Entry>.self, costLimit: 100, observesSystemEvents: false)
        let nscacheLog = logging(nscache)
        nscache.setValue(1, forKey: "x", cost: 5)
        nscache.setValue(2, forKey: "y", cost: 5)
        nscache.costLimit = 200
        nscache.setValue(3, forKey: "z", cost: 191)
        #expect(nscacheLog.keys == ["y"] && nscache.contains("x") && nscache.contains("z"))

        // PINCache LFU: a was read five times; a raise keeps its count, so the new c (one use) goes.
        let pin = try Cache<String, Int>(policyType: PINMemoryCache<String, Entry>.self, costLimit: 10,
                                         options: ["eviction-strategy": "lfu"], observesSystemEvents: false)
        let pinLog = logging(pin)
        pin.setValue(1, forKey: "a", cost: 4)
        for _ in 0..<5 { _ = pin["a"] }
        pin.setValue(2, forKey: "b", cost: 4)
        pin.costLimit = 12
        _ = pin["b"]; _ = pin["b"]
        pin.setValue(3, forKey: "c", cost: 5)
        #expect(pinLog.keys == ["c"] && pin.contains("a") && pin.contains("b"))

        // Nuke's CLOCK: a was read, so after a raise the sweep for e spares it and moves it behind d
        // (c d a e); had the raise cleared its bit and refilled the order (b c a d), g would take a.
        let nuke = try Cache<String, Int>(policyType: NukeClockCache<String, Entry>.self, countLimit: 3, observesSystemEvents: false)
        let nukeLog = logging(nuke)
        for (i, key) in ["a", "b", "c"].enumerated() { nuke[key] = i }
        _ = nuke["a"]
        nuke.countLimit = 4
        for (i, key) in ["d", "e", "f", "g"].enumerated() { nuke[key] = i }
        #expect(nukeLog.keys == ["b", "c", "d"], "\(nukeLog.keys)")

        // SDWebImage with its weak map: the entry a lowered limit evicts is still recovered while a view holds it.
        let sd = try Cache<String, Int>(policyType: SDMemoryCache<String, Entry>.self, countLimit: 3,
                                        options: ["weak-cache": "true"], observesSystemEvents: false)
        let sdLog = logging(sd)
        for (i, key) in ["a", "b", "c"].enumerated() { sd[key] = i }
        #expect(sd["a"] == 0)             // a view now shows a
        sd.countLimit = 2                 // the NSCache lets its oldest, a, go
        #expect(sdLog.keys == ["a"] && !sd.contains("a"))
        #expect(sd["a"] == 0, "the weak map still has a")
    }

    @Test("a lowered cost limit drops a recent entry above it, not the older entries its trim would pass first (in place or refilled)")
    func loweredLimitDropsOversizedFirst() throws {
        typealias Entry = CacheEntry<Int>
        var caches: [(String, Cache<String, Int>)] = [CachePolicy.lru, .fifo, .sieve, .clock, .lfu].map {
            ("\($0)", Cache<String, Int>(policy: $0, costLimit: 100, observesSystemEvents: false))
        }
        caches.append(("nscache", try Cache<String, Int>(policyType: CorelibsNSCache<String, Entry>.self, costLimit: 100, observesSystemEvents: false)))
        caches.append(("sd-memory", try Cache<String, Int>(policyType: SDMemoryCache<String, Entry>.self, costLimit: 100, observesSystemEvents: false)))
        for (name, cache) in caches {
            let log = logging(cache)
            cache.setValue(1, forKey: "a", cost: 1)
            cache.setValue(2, forKey: "b", cost: 1)
            cache.setValue(3, forKey: "c", cost: 60)
            cache.costLimit = 50
            #expect(log.keys == ["c"] && cache.contains("a") && cache.contains("b") && cache.totalCost == 2, "\(name): \(log.keys)")
        }
    }

    @Test("every named policy and one chosen by type: a lowered limit drops exactly what the handler hears, the rest stay intact")
    func limitChangeEveryPolicy() throws {
        var caches: [(String, Cache<Int, Int>)] = CachePolicy.allCases.map {
            ("\($0)", Cache<Int, Int>(policy: $0, costLimit: 2_000, observesSystemEvents: false))
        }
        caches.append(("mru by type", try Cache<Int, Int>(policyType: MRUCache<Int, CacheEntry<Int>>.self,
                                                          costLimit: 2_000, observesSystemEvents: false)))
        // Library models whose purge the library queues for a later call: a limit change runs it.
        caches.append(("yy-lru by type", try Cache<Int, Int>(policyType: YYMemoryCache<Int, CacheEntry<Int>>.self,
                                                             costLimit: 2_000, options: ["drain-delay": "3"],
                                                             observesSystemEvents: false)))
        caches.append(("af-lru by type", try Cache<Int, Int>(policyType: AFAutoPurgingImageCache<Int, CacheEntry<Int>>.self,
                                                             costLimit: 2_000, observesSystemEvents: false)))
        for (name, cache) in caches {
            let log = AppEvictionLog<Int>()
            cache.evictionHandler = { key, value, _ in
                precondition(value == key &* 7)
                log.append(key, .limit)
            }
            var rng = SeededRandom(seed: 9)
            for _ in 0..<3_000 {
                let key = Int.random(in: 0..<400, using: &rng)
                if Bool.random(using: &rng), cache[key] != nil { continue }
                cache.setValue(key &* 7, forKey: key, cost: Int.random(in: 1...30, using: &rng))
            }
            let before = cache.count
            let dropped = log.keys.count
            cache.costLimit = 500
            #expect(cache.totalCost <= 500, "\(name)")
            #expect(before - cache.count == log.keys.count - dropped, "\(name): every entry that went was reported once")
            let present = (0..<400).filter { cache.contains($0) }
            #expect(present.count == cache.count, "\(name)")
            #expect(present.allSatisfy { cache[$0] == $0 &* 7 }, "\(name)")
            #expect(Set(log.keys.suffix(log.keys.count - dropped)).isDisjoint(with: present), "\(name)")
            cache.costLimit = 2_000
            #expect(cache.count == present.count, "\(name): raising drops nothing")
        }
    }

    @Test("a library model's queued purge runs when a limit is lowered, not at the next call", arguments: [0, 5])
    func limitChangeRunsQueuedPurge(drainDelay: Int) throws {
        let clock = CacheClock { 0 }             // the auto-trim timer never fires
        let yy = try Cache<String, Int>(policyType: YYMemoryCache<String, CacheEntry<Int>>.self, costLimit: 1_000,
                                        options: ["drain-delay": "\(drainDelay)"], clock: clock, observesSystemEvents: false)
        for i in 0..<10 { yy.setValue(i, forKey: "\(i)", cost: 10) }
        yy.costLimit = 50
        #expect(yy.totalCost == 50 && yy.count == 5 && !yy.contains("4") && yy.contains("5"))
        let af = try Cache<String, Int>(policyType: AFAutoPurgingImageCache<String, CacheEntry<Int>>.self, costLimit: 1_000,
                                        clock: clock, observesSystemEvents: false)
        af.setValue(1, forKey: "a", cost: 70)
        af.setValue(2, forKey: "b", cost: 70)
        af.costLimit = 100
        #expect(af.totalCost <= 100 && af.count < 2)
    }

    /// YYMemoryCache with an age limit of 2 s: its 5 s trim timer starts with the cache (t = 0)
    /// and ticks at 5, 10, 15, …; `removeAllObjects`, a memory warning and a limit's setter leave
    /// it alone. An entry stored at 3.5 is first more than 2 s old at a tick at 10. A timer
    /// restarted by the next call (3.5) would tick at 8.5 and remove it then.
    @Test("emptying a library model, a memory warning or a limit change keeps its timer's beat",
          arguments: ["removeAll", "memory warning", "limit change"])
    func libraryTimerKeepsItsBeat(emptiedBy how: String) throws {
        let time = ManualTime()
        let yy = try Cache<String, Int>(policyType: YYMemoryCache<String, CacheEntry<Int>>.self, costLimit: 1_000,
                                        options: ["age-limit": "2"], clock: time.clock, observesSystemEvents: false)
        time.seconds = 3
        yy.setValue(1, forKey: "a", cost: 1)
        switch how {
        case "removeAll": yy.removeAll()
        case "memory warning": yy.handle(.memoryWarning)
        default: yy.costLimit = 500
        }
        #expect(yy.contains("a") == (how == "limit change"))
        time.seconds = 3.5
        yy.setValue(2, forKey: "b", cost: 1)
        time.seconds = 9
        #expect(yy.contains("b"), "\(how): no tick at 8.5")
        time.seconds = 10.5
        #expect(!yy.contains("b"), "\(how): the tick at 10")
    }

    /// A cache over the library model `P` on a clock the test moves: "c" stored at 20, then the
    /// cost limit lowered at 21, which refills a new model with the entries.
    func cacheAfterALimitChange<P: EvictionPolicy>(_: P.Type, options: PolicyOptions) throws -> (cache: Cache<String, Int>, time: ManualTime)
    where P.Key == String, P.Value == CacheEntry<Int> {
        let time = ManualTime()
        let cache = try Cache<String, Int>(policyType: P.self, costLimit: 1_000, options: options, clock: time.clock,
                                           observesSystemEvents: false)
        time.seconds = 20
        cache.setValue(1, forKey: "c", cost: 1)
        time.seconds = 21
        cache.costLimit = 500
        return (cache, time)
    }

    /// Nuke's time to live counts from the set on the cache's clock, and a limit change (Nuke's
    /// `costLimit` setter trims) leaves the survivors' expiration dates alone: "c", set at 20 with
    /// 10 s to live, expires at 30 whether or not the limit changed at 21.
    @Test("a limit change leaves each entry's expiry, age and date as the library does: Nuke, Kingfisher, PINCache, YYMemoryCache")
    func limitChangeKeepsEntryTimes() throws {
        let (nuke, nukeTime) = try cacheAfterALimitChange(NukeLRUCache<String, CacheEntry<Int>>.self, options: ["ttl": "10"])
        nukeTime.seconds = 29
        #expect(nuke["c"] == 1)
        nukeTime.seconds = 30.5
        #expect(nuke["c"] == nil, "set at 20 with 10 s to live: expired at 30")

        let (clock, clockTime) = try cacheAfterALimitChange(NukeClockCache<String, CacheEntry<Int>>.self, options: ["ttl": "10"])
        clockTime.seconds = 30.5
        #expect(clock["c"] == nil, "set at 20 with 10 s to live: expired at 30")

        // Kingfisher: 10 s from the set (or the last get, which extends it).
        let (kingfisher, kingfisherTime) = try cacheAfterALimitChange(KingfisherMemoryStorage<String, CacheEntry<Int>>.self,
                                                                      options: ["expiration": "10"])
        kingfisherTime.seconds = 30.5
        #expect(kingfisher["c"] == nil, "set at 20, expired at 30")

        // PINMemoryCache with a TTL: the age limit counts from the creation date.
        let (pin, pinTime) = try cacheAfterALimitChange(PINMemoryCache<String, CacheEntry<Int>>.self,
                                                        options: ["age-limit": "10", "ttl-cache": "true"])
        pinTime.seconds = 30.5
        #expect(pin["c"] == nil, "created at 20: more than 10 s old at 30.5")

        // YYMemoryCache: the age limit counts from the last use; the trim runs on its timer.
        let (yy, yyTime) = try cacheAfterALimitChange(YYMemoryCache<String, CacheEntry<Int>>.self,
                                                      options: ["age-limit": "10", "auto-trim-interval": "1"])
        yyTime.seconds = 31.5
        #expect(!yy.contains("c"), "used at 20: trimmed by the tick at 31 (used at 21, it would stay until 32)")
    }

    /// The disk models through a ``Cache``, whose limit change refills a new model. SDWebImage's
    /// clean-up on entering the background removes files older than `max-disk-age` (10 s): one
    /// stored at 20 is 10.5 s old at 30.5, limit change or not (the files keep their dates).
    /// YYDiskCache's 60 s timer, started with the cache at 0, removes at its tick at 60 an entry
    /// idle for more than its age limit (10 s); restarted at the next call after the change (22),
    /// it would tick at 82 instead.
    @Test("the disk models keep their time, their files' dates and their timer's beat across a limit change")
    func diskModelsKeepTheirClock() throws {
        let (sd, sdTime) = try cacheAfterALimitChange(SDDiskCache<String, CacheEntry<Int>>.self, options: ["max-disk-age": "10"])
        sdTime.seconds = 29
        sd.handle(.background)
        #expect(sd.contains("c"), "stored at 20: 9 s old")
        sdTime.seconds = 30.5
        sd.handle(.background)
        #expect(!sd.contains("c"), "stored at 20: 10.5 s old (dated 21, it would be 9.5)")

        let (yy, yyTime) = try cacheAfterALimitChange(YYDiskCache<String, CacheEntry<Int>>.self, options: ["age-limit": "10"])
        yyTime.seconds = 22
        yy.setValue(2, forKey: "d", cost: 1)
        yyTime.seconds = 61
        #expect(!yy.contains("c") && !yy.contains("d"), "the tick at 60")
    }

    @Test("reads see what the library's reads see: AFNetworking's wait for the queued purge, YYMemoryCache's do not")
    func readsAfterAQueuedPurge() throws {
        // AFNetworking's A1: ten images of 100 bytes under a capacity of 1000, preferred 600; image
        // 0 is read, then an eleventh is added. Its purge is queued behind the add, and every read
        // (memoryUsage, imageWithIdentifier:) is a dispatch_sync queued behind it.
        let clock = CacheClock { 0 }
        func af<P: EvictionPolicy>(_ type: P.Type) throws -> Cache<String, Int> where P.Key == String, P.Value == CacheEntry<Int> {
            let cache = try Cache<String, Int>(policyType: type, costLimit: 1_000, options: ["preferred": "0.6"],
                                               clock: clock, observesSystemEvents: false)
            for i in 0...9 { cache.setValue(i, forKey: "\(i)", cost: 100) }
            _ = cache.value(forKey: "0")
            cache.setValue(10, forKey: "10", cost: 100)
            return cache
        }
        for (name, read) in [("totalCost", { (c: Cache<String, Int>) in c.totalCost == 600 }),
                             ("count", { $0.count == 6 }),
                             ("contains", { !$0.contains("1") && $0.contains("0") && $0.contains("10") })] {
            #expect(try read(af(AFAutoPurgingImageCache<String, CacheEntry<Int>>.self)), "af-lru \(name)")
            #expect(try read(af(AlamofireAutoPurgingImageCache<String, CacheEntry<Int>>.self)), "afi-lru \(name)")
        }
        // YYMemoryCache's Y2: the cost trim a set queues runs on a background queue; totalCost and
        // containsObjectForKey: read under the lock without waiting for it.
        let yy = try Cache<String, Int>(policyType: YYMemoryCache<String, CacheEntry<Int>>.self, costLimit: 100,
                                        clock: clock, observesSystemEvents: false)
        yy.setValue(1, forKey: "a", cost: 60)
        yy.setValue(2, forKey: "b", cost: 60)
        #expect(yy.totalCost == 120 && yy.count == 2 && yy.contains("a"))
    }

    @Test("a limit the policy cannot take leaves the cache unchanged; none at all every policy takes")
    func rejectedLimit() {
        let cache = Cache<String, Int>(policy: .s3fifo, costLimit: 100, observesSystemEvents: false)
        cache.setValue(1, forKey: "a", cost: 1)
        cache.countLimit = 5              // S3-FIFO has no count limit
        #expect(cache.countLimit == nil && cache.costLimit == 100 && cache["a"] == 1)
        cache.costLimit = nil             // but it takes no limit at all
        #expect(cache.costLimit == nil && cache["a"] == 1)
        cache.countLimit = 5              // and still no count limit then
        #expect(cache.countLimit == nil && cache["a"] == 1)
    }

    @Test("time to live: valid before, gone at expiry; sweeps on removeExpired and on entering the background")
    func timeToLive() {
        let time = ManualTime()
        let cache = Cache<String, Int>(timeToLive: 10, clock: time.clock, observesSystemEvents: false)
        let log = logging(cache)
        cache["a"] = 1
        cache.setValue(2, forKey: "b", timeToLive: 30)
        cache.setValue(3, forKey: "c", timeToLive: .infinity)
        time.seconds = 9.5
        #expect(cache["a"] == 1)
        time.seconds = 10
        #expect(cache["a"] == nil && log.entries.map(\.0) == ["a"] && log.entries.first?.1 == .expired)
        #expect(cache.count == 2)
        time.seconds = 31
        cache.handle(.background)
        #expect(log.keys == ["a", "b"] && cache.count == 1 && cache["c"] == 3)
        cache.timeToLive = 1
        cache["d"] = 4
        cache["d"] = 5                    // a replacement: the old slot's expiry must not remove the new value
        time.seconds = 31.5
        cache.removeExpired()
        #expect(cache["d"] == 5)
        time.seconds = 32
        cache.removeExpired()
        #expect(cache["d"] == nil && log.keys == ["a", "b", "d"])
        cache.setValue(6, forKey: "e", timeToLive: .nan)       // no number of seconds: the cache's 1 s
        time.seconds = 32.5
        #expect(cache["e"] == 6)
        time.seconds = 33
        #expect(cache["e"] == nil)
    }

    /// LIRS remembers keys it evicted; one stored again at another cost is a new object, so the
    /// cost limit counts the cost the app gave (readmitted at its remembered cost, a 900-byte
    /// entry counted 10 and the cache held 1,890 under a limit of 1,000).
    @Test("LIRS: a remembered key stored at another cost counts that cost; totals match the costs given and hold the limit")
    func lirsCountsTheCostGiven() {
        let cache = Cache<String, Int>(policy: .lirs, costLimit: 1000, observesSystemEvents: false)
        for i in 0..<100 { cache.setValue(i, forKey: "f\(i)", cost: 10) }
        cache.setValue(0, forKey: "k", cost: 10)
        for i in 100..<110 { cache.setValue(i, forKey: "f\(i)", cost: 10) }    // k evicted, still remembered
        cache.setValue(1, forKey: "k", cost: 900)                                  // more than the HIR part (10): not stored
        #expect(!cache.contains("k") && cache.totalCost <= 1000)
        var random = SeededRandom(seed: 77)
        var costs: [Int: Int] = [:]
        let mixed = Cache<Int, Int>(policy: .lirs, costLimit: 5000, observesSystemEvents: false)
        for step in 0..<20_000 {
            let key = Int.random(in: 0..<600, using: &random)
            switch Int.random(in: 0..<10, using: &random) {
            case 0..<5:
                let cost = Int.random(in: 0...50, using: &random)
                mixed.setValue(step, forKey: key, cost: cost)
                costs[key] = cost
            case 5: mixed.removeValue(forKey: key)
            default: _ = mixed.value(forKey: key)
            }
            if step % 97 == 0 {
                // At most a few phantom blocks over the limit (documented in CachePolicy.lirs).
                let held = costs.filter { mixed.contains($0.key) }.values.reduce(0, +)
                #expect(mixed.totalCost == held && held <= 5000 + 3 * 50, "step \(step): total \(mixed.totalCost), costs given \(held)")
                if held > 5150 || mixed.totalCost != held { return }
            }
        }
    }

    @Test("memory warnings: remove all (default), keep a fraction, or ignore")
    func memoryWarnings() {
        let all = Cache<String, Int>(countLimit: 100, observesSystemEvents: false)
        let log = logging(all)
        for i in 0..<10 { all["k\(i)"] = i }
        all.handle(.memoryWarning)
        #expect(all.count == 0 && log.keys.count == 10 && log.entries.allSatisfy { $0.1 == .memoryWarning })

        let half = Cache<String, Int>(countLimit: 100, memoryWarningResponse: .trim(toFraction: 0.5), observesSystemEvents: false)
        for i in 0..<10 { half.setValue(i, forKey: "k\(i)", cost: 10) }
        half.handle(.memoryWarning)
        #expect(half.count == 5 && half.totalCost == 50)
        #expect((5..<10).allSatisfy { half.contains("k\($0)") }, "the policy keeps the newest")
        half.setValue(0, forKey: "more", cost: 10)
        #expect(half.count == 6, "the usual limits are back")

        let kept = Cache<String, Int>(memoryWarningResponse: .ignore, observesSystemEvents: false)
        kept["a"] = 1
        kept.handle(.memoryWarning)
        #expect(kept["a"] == 1)
    }

    @Test("every named policy stores, finds and keeps within its limits")
    func everyNamedPolicy() {
        for policy in CachePolicy.allCases {
            let cache = Cache<String, Int>(policy: policy, costLimit: 50, countLimit: policy.supportsCountLimit ? 20 : nil,
                                           observesSystemEvents: false)
            var rng = SeededRandom(seed: 7)
            for _ in 0..<2_000 {
                let key = "k\(Int.random(in: 0..<100, using: &rng))"
                if cache[key] == nil { cache.setValue(key.count, forKey: key, cost: Int.random(in: 1...5, using: &rng)) }
                #expect(cache.totalCost <= 50 && (!policy.supportsCountLimit || cache.count <= 20), "\(policy)")
                if let found = cache[key] { #expect(found == key.count, "\(policy)") }
            }
            #expect(cache.count > 0, "\(policy)")
        }
    }

    @Test("costs near Int.max: no sum overflows, a huge cost counts as 2^53, no limit holds 2^60")
    func extremeCosts() {
        for policy in CachePolicy.allCases {
            // Policies without a count limit need a cost limit (the initializer's precondition).
            for limit in (policy.supportsCountLimit ? [Int.max, nil] : [Int.max]) as [Int?] {
                let cache = Cache<Int, Int>(policy: policy, costLimit: limit, observesSystemEvents: false)
                for key in 0..<40 { cache.setValue(key, forKey: key, cost: key % 2 == 0 ? 1 << 62 : Int.max) }
                for key in 0..<40 { _ = cache[key] }
                cache.setValue(99, forKey: 3, cost: .max)
                #expect(cache.totalCost <= CacheLimits.maximumCapacity, "\(policy) \(String(describing: limit))")
                #expect(cache.totalCost % CacheLimits.maximumCost == 0, "\(policy)")
                if policy == .lru || policy == .fifo {
                    // 40 entries of 2^53 fit under 2^60: none is evicted, limit or none.
                    #expect(cache.count == 40 && cache.totalCost == 40 << 53, "\(policy) \(String(describing: limit))")
                }
            }
        }
        #expect(CacheLimits(capacity: .max).capacity == CacheLimits.maximumCapacity)
        var limits = CacheLimits(capacity: 10)
        limits.capacity = .max
        #expect(limits.capacity == CacheLimits.maximumCapacity)
    }

    @Test("any policy by type: YYMemoryCache's model with its options")
    func byType() throws {
        let cache = try Cache<String, Int>(policyType: YYMemoryCache<String, CacheEntry<Int>>.self, countLimit: 2,
                                           options: PolicyOptions(["auto-trim-interval": "5"]), observesSystemEvents: false)
        cache["a"] = 1
        cache["b"] = 2
        cache["c"] = 3
        #expect(cache["c"] == 3)
        #expect(throws: PolicyConfigurationError.self) {
            try Cache<String, Int>(policyType: LRUCache<String, CacheEntry<Int>>.self, options: PolicyOptions(["colour": "blue"]))
        }
    }

    @Test("a timer that fires in the call replacing the handler reports to the replaced one, and its values are let go")
    func handlerReplacedWhileATimerFires() throws {
        final class Token: Sendable {
            nonisolated(unsafe) static var alive = 0
            init() { Token.alive += 1 }
            deinit { Token.alive -= 1 }
        }
        let time = ManualTime()
        let cache = try Cache<String, Token>(policyType: YYMemoryCache<String, CacheEntry<Token>>.self, costLimit: 1_000,
                                             options: PolicyOptions(["auto-trim-interval": "5", "age-limit": "1"]),
                                             clock: time.clock, observesSystemEvents: false)
        let first = AppEvictionLog<String>(), second = AppEvictionLog<String>()
        cache.evictionHandler = { key, _, reason in first.append(key, reason) }
        cache.setValue(Token(), forKey: "old", cost: 1)
        time.seconds += 10
        cache.evictionHandler = nil            // the age-limit trim fires in this call, evicting "old"
        #expect(first.keys == ["old"] && Token.alive == 0)
        cache.evictionHandler = { key, _, reason in second.append(key, reason) }
        cache.setValue(Token(), forKey: "a", cost: 1)
        time.seconds += 10
        _ = cache.count
        #expect(second.keys == ["a"] && first.keys == ["old"] && Token.alive == 0)
    }

    @Test("differential: LRU Cache against a list model, with sets, gets, removes and limit changes")
    func differential() {
        var rng = SeededRandom(seed: 42)
        for round in 0..<20 {
            let cache = Cache<Int, Int>(policy: .lru, costLimit: 60, countLimit: 12, observesSystemEvents: false)
            // The model: newest first; each entry's key, value, cost and set number.
            var model: [(key: Int, value: Int, cost: Int, serial: Int)] = []
            var costLimit: Int? = 60, countLimit: Int? = 12, serial = 0
            func trim(_ model: inout [(key: Int, value: Int, cost: Int, serial: Int)], extraCost: Int = 0) {
                while let last = model.last,
                      model.reduce(0, { $0 + $1.cost }) + extraCost > (costLimit ?? .max) || model.count > (countLimit ?? .max) {
                    _ = last
                    model.removeLast()
                }
            }
            for step in 0..<600 {
                let key = Int.random(in: 0..<30, using: &rng)
                switch Int.random(in: 0..<20, using: &rng) {
                case 0..<9:
                    let expected = model.firstIndex { $0.key == key }.map { model.remove(at: $0) }
                    if let expected { model.insert(expected, at: 0) }
                    #expect(cache[key] == expected?.value, "round \(round) step \(step) get \(key)")
                case 9..<17:
                    let value = Int.random(in: 0..<1000, using: &rng), cost = Int.random(in: 0...20, using: &rng)
                    serial += 1
                    cache.setValue(value, forKey: key, cost: cost)
                    model.removeAll { $0.key == key }
                    if cost <= (costLimit ?? .max) {
                        model.insert((key, value, cost, serial), at: 0)
                        trim(&model)
                    }
                case 17:
                    let expected = model.firstIndex { $0.key == key }.map { model.remove(at: $0).value }
                    #expect(cache.removeValue(forKey: key) == expected, "round \(round) step \(step) remove")
                case 18:
                    costLimit = Bool.random(using: &rng) ? Int.random(in: 20...80, using: &rng) : nil
                    cache.costLimit = costLimit
                    // Recency is kept: re-inserted least recently used first, the most recently
                    // used that fit stay, in recency order.
                    var rebuilt: [(key: Int, value: Int, cost: Int, serial: Int)] = []
                    for entry in model.reversed() where entry.cost <= (costLimit ?? .max) {
                        rebuilt.insert(entry, at: 0)
                        trim(&rebuilt)
                    }
                    model = rebuilt
                default:
                    countLimit = Bool.random(using: &rng) ? Int.random(in: 3...15, using: &rng) : nil
                    cache.countLimit = countLimit
                    trim(&model)
                }
                #expect(cache.count == model.count && cache.totalCost == model.reduce(0) { $0 + $1.cost },
                        "round \(round) step \(step)")
            }
        }
    }

    /// A value whose `deinit` reads the cache that held it: every way a cache drops values
    /// without handing them back (an eviction, a replacement, removing all, a memory warning, a
    /// lowered limit, an expiry, removing an expired entry) releases them after its lock, so the read does not wait on the
    /// lock forever. Run on a thread of its own with a deadline, so a regression fails rather
    /// than hangs.
    @Test("a value's deinit may call back into the cache that dropped it", arguments: CachePolicy.allCases)
    func deinitCallsBack(policy: CachePolicy) throws {
        Self.checkDeinitCallsBack("\(policy)", countLimited: policy.supportsCountLimit) { clock, cost, count in
            Cache<Int, CallbackToken>(policy: policy, costLimit: cost, countLimit: count, clock: clock,
                                      memoryWarningResponse: .removeAll, observesSystemEvents: false)
        }
    }

    /// The same for the library models, chosen by type: their own set replaces a value in place.
    @Test("a value's deinit may call back into a cache over a library model, chosen by type")
    func deinitCallsBackLibraryModels() throws {
        func check<P: EvictionPolicy & SendableMetatype>(_: P.Type) where P.Key == Int, P.Value == CacheEntry<CallbackToken> {
            Self.checkDeinitCallsBack(P.descriptor.name, countLimited: P.descriptor.supportsCountLimit) { clock, cost, count in
                try Cache<Int, CallbackToken>(policyType: P.self, costLimit: cost, countLimit: count, clock: clock,
                                              memoryWarningResponse: .removeAll, observesSystemEvents: false)
            }
        }
        typealias Entry = CacheEntry<CallbackToken>
        check(YYMemoryCache<Int, Entry>.self)
        check(PINMemoryCache<Int, Entry>.self)
        check(CorelibsNSCache<Int, Entry>.self)
        check(DarwinNSCacheApproximation<Int, Entry>.self)
        check(NukeLRUCache<Int, Entry>.self)
        check(NukeClockCache<Int, Entry>.self)
        check(KingfisherMemoryStorage<Int, Entry>.self)
        check(AFAutoPurgingImageCache<Int, Entry>.self)
        check(AlamofireAutoPurgingImageCache<Int, Entry>.self)
        check(SDMemoryCache<Int, Entry>.self)
    }

    static func checkDeinitCallsBack(_ name: String, countLimited: Bool,
                                     _ make: @escaping @Sendable (CacheClock, Int?, Int?) throws -> Cache<Int, CallbackToken>) {
        let released = AppEvictionLog<Int>()
        let done = DispatchSemaphore(value: 0)
        let limits = countLimited ? (cost: nil as Int?, count: 4 as Int?) : (cost: 100 as Int?, count: nil as Int?)
        let time = ManualTime()
        let failure = AppEvictionLog<String>()
        let thread = Thread {
            do {
                let cache = try make(time.clock, limits.cost, limits.count)
                func token(_ id: Int) -> CallbackToken { let t = CallbackToken(id, released); t.cache = cache; return t }
                for id in 0..<300 { cache.setValue(token(id), forKey: id % 150, cost: 1) }    // evictions
                cache.setValue(token(500), forKey: 7, cost: 1)
                cache.setValue(token(501), forKey: 7, cost: 1)                                // a replacement
                cache.setValue(token(502), forKey: 8, cost: 1, timeToLive: 1)
                time.seconds = 5
                _ = cache.value(forKey: 8)                                                    // an expiry
                cache.setValue(token(503), forKey: 9, cost: 1, timeToLive: 1)
                time.seconds = 10
                cache.removeValue(forKey: 9)                                                  // removing an expired entry
                if let count = limits.count { cache.countLimit = count / 2 } else { cache.costLimit = 50 }
                cache.handle(.memoryWarning)
                for id in 0..<6 { cache.setValue(token(id), forKey: id, cost: 1) }
                // A handler replaced: what it captured is released after the lock, too.
                do { let held = token(504); cache.evictionHandler = { _, _, _ in _ = held } }
                cache.evictionHandler = nil
                cache.removeAll()
            } catch {
                failure.append("\(error)", .event)
            }
            done.signal()
        }
        thread.start()
        #expect(done.wait(timeout: .now() + 20) == .success, "\(name): a deinit waited on the cache's lock")
        #expect(failure.keys.isEmpty, "\(name): \(failure.keys)")
        // Every token is gone (the cache too), and each deinit got an answer.
        #expect(released.keys.count == 311, "\(name): \(released.keys.count) released")
    }

    @Test("replacing one key many times keeps one entry and finds the last value")
    func replacements() {
        let cache = Cache<String, Int>(countLimit: 10, observesSystemEvents: false)
        for i in 0..<50_000 { cache["same"] = i }
        #expect(cache.count == 1 && cache["same"] == 49_999)
        cache.countLimit = 5              // a rebuild after many stale slots
        #expect(cache.count == 1 && cache["same"] == 49_999)
    }

    /// NSCache's own calls, written against any ``KeyedCache``, as code moving from NSCache has them.
    func nsCacheSession<C: KeyedCache>(_ cache: C) -> [String] where C.Key == String, C.Value == Int {
        var log: [String] = []
        cache.totalCostLimit = 100
        cache.setObject(1, forKey: "a")
        cache.setObject(2, forKey: "b", cost: 60)
        log.append("a=\(cache.object(forKey: "a").map(String.init) ?? "nil") cost=\(cache.totalCost) limit=\(cache.totalCostLimit)")
        cache.setObject(3, forKey: "c", cost: 60)            // over 100: LRU drops b (a was used since)
        log.append("b=\(cache.contains("b")) c=\(cache.object(forKey: "c").map(String.init) ?? "nil") count=\(cache.count)")
        cache.removeObject(forKey: "c")
        log.append("c=\(cache.contains("c")) cost=\(cache.totalCost)")
        cache.totalCostLimit = 0                               // NSCache's "no limit"
        cache.setObject(4, forKey: "d", cost: 1_000)
        log.append("limit=\(cache.costLimit.map(String.init) ?? "none") d=\(cache.contains("d"))")
        cache.removeAllObjects()
        log.append("count=\(cache.count) cost=\(cache.totalCost)")
        return log
    }

    @Test("NSCache's spellings: object(forKey:), setObject(_:forKey:cost:), removeObject, removeAllObjects, totalCostLimit")
    func nsCacheSpellings() {
        let expected = ["a=1 cost=60 limit=100", "b=false c=3 count=2", "c=false cost=0", "limit=none d=true", "count=0 cost=0"]
        #expect(nsCacheSession(Cache<String, Int>(policy: .lru, observesSystemEvents: false)) == expected)
        // One stripe: the limits are the whole cache's, so the same session gives the same answers.
        #expect(nsCacheSession(StripedCache<String, Int>(policy: .lru, stripes: 1, observesSystemEvents: false)) == expected)
        // The recording wrapper is used in place of the cache: the same answers, every call recorded.
        let url = scratchDirectory.appendingPathComponent("spellings-\(UUID().uuidString).csv")
        defer { try? FileManager.default.removeItem(at: url) }
        if let recorder = try? TraceRecorder(url: url) {
            #expect(nsCacheSession(RecordingCache(Cache<String, Int>(policy: .lru, observesSystemEvents: false), recorder: recorder)) == expected)
            try? recorder.finish()
            let rows = (try? String(contentsOf: url, encoding: .utf8))?.split(separator: "\n").dropFirst() ?? []
            // The tick of the cache's start, sets of a b c d, gets of a and c, the removal of c,
            // and removeAll's of every key stored through it and not removed: a, b (evicted by
            // then, as the replay will find it) and d.
            #expect(rows.count == 11, "\(Array(rows))")
            #expect(rows.first?.hasSuffix(",,,tick") == true, "\(Array(rows))")
        } else {
            Issue.record("no recorder")
        }
    }

    @Test("four threads share one cache; limits and totals hold, values match their keys")
    func threads() {
        let cache = Cache<String, Blob>(policy: .sieve, costLimit: 5_000, countLimit: 300, observesSystemEvents: false)
        let evictions = AppEvictionLog<String>()
        cache.evictionHandler = { key, value, _ in
            // The lock is released: calling back in must not deadlock.
            _ = cache.contains(key)
            if value.bytes > 0 { evictions.append(key, .limit) }
        }
        shareBetweenThreads(cache, seed: 1, changeLimit: { cache.costLimit = Int.random(in: 2_000...5_000, using: &$0) },
                            warn: { cache.handle(.memoryWarning) })
        #expect(cache.count <= 300 && cache.totalCost <= 5_000)
        var sum = 0
        for n in 0..<1_000 { sum += cache.removeValue(forKey: "https://example.com/\(n).jpg")?.bytes ?? 0 }
        #expect(cache.count == 0 && cache.totalCost == 0 && sum >= 0)
        #expect(!evictions.entries.isEmpty)
    }

    /// Readings an app's clock may give, in turn: not a number, infinities, far past and future.
    final class WildClock: @unchecked Sendable {
        let readings: [Double] = [.nan, 10, -.infinity, .infinity, -1e300, 1e300, 5, .nan, 1e22, -7]
        var next = 0
        var clock: CacheClock {
            CacheClock { [self] in
                defer { next += 1 }
                return readings[next % readings.count]
            }
        }
    }

    func exercise<Policy: EvictionPolicy>(_ type: Policy.Type, options: PolicyOptions = PolicyOptions()) throws
    where Policy.Key == Int, Policy.Value == CacheEntry<Int> {
        let cache = try Cache<Int, Int>(policyType: type, costLimit: 1_000, options: options, timeToLive: 30,
                                        clock: WildClock().clock, observesSystemEvents: false)
        for n in 0..<400 {
            cache.setValue(n, forKey: n % 60, cost: n % 45)
            _ = cache.value(forKey: (n &* 7) % 60)
            if n % 97 == 0 { cache.handle(.memoryWarning) }
            if n % 131 == 0 { cache.handle(.background) }
        }
        cache.costLimit = 300
        #expect(cache.count >= 0 && cache.totalCost >= 0, "\(Policy.self)")
    }

    @Test("a clock reading NaN, infinities or huge times traps no library model, nor the cache's expiry")
    func wildClocks() throws {
        try exercise(YYMemoryCache<Int, CacheEntry<Int>>.self)
        try exercise(YYDiskCache<Int, CacheEntry<Int>>.self)
        try exercise(PINMemoryCache<Int, CacheEntry<Int>>.self)
        try exercise(SDMemoryCache<Int, CacheEntry<Int>>.self)
        try exercise(SDDiskCache<Int, CacheEntry<Int>>.self)
        try exercise(KingfisherMemoryStorage<Int, CacheEntry<Int>>.self)
        try exercise(NukeLRUCache<Int, CacheEntry<Int>>.self)
        try exercise(NukeClockCache<Int, CacheEntry<Int>>.self)
        try exercise(AFAutoPurgingImageCache<Int, CacheEntry<Int>>.self)
        try exercise(AlamofireAutoPurgingImageCache<Int, CacheEntry<Int>>.self)
        try exercise(CorelibsNSCache<Int, CacheEntry<Int>>.self)
        try exercise(DarwinNSCacheApproximation<Int, CacheEntry<Int>>.self)
        try exercise(LRUCache<Int, CacheEntry<Int>>.self)
    }

    @Test("a time to live begun while the clock reads no finite time ends at once; NaN and +∞ readings expire every timed entry",
          arguments: [CachePolicy.lru, .sieve, .s3fifo, .arc])
    func timeToLiveOnAWrongClock(policy: CachePolicy) {
        for wrong in [Double.nan, .infinity, -.infinity] {
            let time = ManualTime()
            time.seconds = 100
            let cache = Cache<String, Int>(policy: policy, timeToLive: 60, clock: time.clock, observesSystemEvents: false)
            cache.setValue(1, forKey: "timed")
            cache.setValue(2, forKey: "forever", timeToLive: .infinity)
            time.seconds = wrong
            cache.setValue(3, forKey: "set while wrong")
            // While the clock is wrong: NaN and +∞ are past every finite expiry, −∞ before all.
            #expect((cache.value(forKey: "timed") == nil) == !(wrong < 0), "\(policy) at \(wrong)")
            #expect(cache.value(forKey: "set while wrong") == nil, "\(policy) at \(wrong)")
            #expect(cache.value(forKey: "forever") == 2, "\(policy) at \(wrong)")
            cache.setValue(4, forKey: "swept while wrong")
            cache.removeExpired()
            #expect(!cache.contains("swept while wrong") && cache.contains("forever"), "\(policy) at \(wrong)")
            time.seconds = 110
            #expect(cache.value(forKey: "set while wrong") == nil && cache.value(forKey: "forever") == 2)
            #expect((cache.value(forKey: "timed") == 1) == (wrong < 0), "\(policy) at \(wrong), then 110")
        }
    }

    @Test("a recorder on a clock gone wrong writes finite, ordered times; released unfinished, it leaves no file")
    func recorderOnAWildClock() throws {
        let url = scratchDirectory.appendingPathComponent("wild-\(UUID().uuidString).csv")
        defer { try? FileManager.default.removeItem(at: url) }
        let recorder = try TraceRecorder(url: url, clock: WildClock().clock)
        let cache = RecordingCache(Cache<Int, Int>(countLimit: 5, observesSystemEvents: false), recorder: recorder)
        for n in 0..<30 { if cache.value(forKey: n % 8) == nil { cache.setValue(n, forKey: n % 8) } }
        cache.handle(.memoryWarning)
        try recorder.finish()
        let rows = try String(contentsOf: url, encoding: .utf8).split(separator: "\n").dropFirst()
        let times = rows.compactMap { $0.split(separator: ",", omittingEmptySubsequences: false).first.flatMap { Double($0) } }
        #expect(times.count == rows.count && !rows.isEmpty)
        #expect(times.allSatisfy(\.isFinite) && zip(times, times.dropFirst()).allSatisfy { $0 <= $1 })

        let unfinished = scratchDirectory.appendingPathComponent("unfinished-\(UUID().uuidString).csv")
        do {
            let dropped = try TraceRecorder(url: unfinished)
            dropped.recordEvent(.memoryWarning)
        }
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: scratchDirectory.path)
            .filter { $0.contains(unfinished.lastPathComponent) }
        #expect(leftovers.isEmpty, "\(leftovers)")
    }
}

/// A value whose `deinit` reads the cache that held it (``AppCacheTests/checkDeinitCallsBack(_:countLimited:_:)``).
final class CallbackToken: @unchecked Sendable {
    weak var cache: Cache<Int, CallbackToken>?
    let counted: AppEvictionLog<Int>
    let id: Int
    init(_ id: Int, _ counted: AppEvictionLog<Int>) { self.id = id; self.counted = counted }
    deinit { counted.append(cache?.count ?? -1, .event) }
}
