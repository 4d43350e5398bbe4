@testable import EvictionPolicies
import TestSupport
import Testing

/// libCacheSim's LIRS.c (aa0fc40) transcribed onto arrays: S, Q and NH are separate arrays of
/// entry copies, newest first, as libCacheSim keeps three separate LRU caches. A key is served
/// when libCacheSim's find would serve it; the evicted keys of a step are those served before
/// it and not after. Two rules of the implementation are shared on purpose: a remembered key is
/// readmitted only at its remembered cost (at another, it is forgotten and admitted as a new
/// object, unless the new object is too large, which leaves everything as it was), and `remove`
/// takes a key out of every list.
struct LIRSModel: ResearchModel {
    struct Entry {
        var key: Int
        var cost: Int
        var lir = false
        var resident = true
    }

    let capacity: Int, hirLimit: Int, lirLimit: Int
    var s: [Entry] = [], q: [Entry] = [], nh: [Entry] = []
    var lirCount = 0, hirCount = 0, occupied = 0

    init(capacity: Int, hirRatio: Double = 0.01) {
        self.capacity = capacity
        hirLimit = max(1, Int(hirRatio * Double(capacity)))
        lirLimit = capacity - hirLimit
    }

    func sIndex(_ key: Int) -> Int? { s.firstIndex { $0.key == key } }
    func qIndex(_ key: Int) -> Int? { q.firstIndex { $0.key == key } }

    /// Served keys and their costs.
    var served: [Int: Int] {
        var result: [Int: Int] = [:]
        for e in s where e.lir || e.resident { result[e.key] = e.cost }
        for e in q where sIndex(e.key) == nil { result[e.key] = e.cost }
        return result
    }
    var count: Int { served.count }
    var totalCost: Int { served.values.reduce(0, +) }
    func contains(_ key: Int) -> Bool { served[key] != nil }
    func cost(of key: Int) -> Int? { served[key] }

    mutating func access(_ key: Int, cost requestCost: Int) -> (hit: Bool, evicted: [Int]) {
        // A remembered key asked for at another cost is a new object; one too large for the
        // limits is refused and, as every refused request, leaves the cache as it was.
        if let i = sIndex(key), !s[i].lir, !s[i].resident, s[i].cost != requestCost,
           !(requestCost <= capacity && requestCost <= lirLimit && requestCost <= hirLimit) {
            return (false, [])
        }
        let before = served
        let hit = find(key)
        if !hit {
            // A miss on a key S remembers (non-resident): at another cost, a new object.
            if let i = sIndex(key), s[i].cost != requestCost {
                s.remove(at: i)
                nh.removeAll { $0.key == key }
            }
            let cost = s.first { $0.key == key }?.cost ?? q.first { $0.key == key }?.cost ?? requestCost
            if canInsert(key, cost) {
                while occupied + cost > capacity {
                    let state = (occupied, s.count, q.count)
                    evictStep(key, cost)
                    if state == (occupied, s.count, q.count) { break }
                }
                insert(key, cost)
            }
        }
        limitStack()
        let after = served
        return (hit, before.keys.filter { after[$0] == nil }.sorted())
    }

    mutating func remove(_ key: Int) -> [Int] {
        let before = served
        var wasLIR = false
        if let i = sIndex(key) {
            if s[i].lir {
                lirCount -= s[i].cost
                occupied -= s[i].cost
                wasLIR = true
            }
            s.remove(at: i)
        }
        if let i = qIndex(key) {
            hirCount -= q[i].cost
            occupied -= q[i].cost
            q.remove(at: i)
        }
        nh.removeAll { $0.key == key }
        if wasLIR { prune() }
        let after = served
        return before.keys.filter { after[$0] == nil && $0 != key }.sorted()
    }

    // LIRS_find with update_cache: both S and Q move the key to their heads.
    mutating func find(_ key: Int) -> Bool {
        let inS = sIndex(key).map { s.insert(s.remove(at: $0), at: 0) } != nil
        let inQ = qIndex(key).map { q.insert(q.remove(at: $0), at: 0) } != nil
        if inS {
            if s[0].lir {
                prune()
                return true
            }
            guard s[0].resident else { return false }
            // hit_RD_HIRinS
            let cost = s[0].cost
            if let i = qIndex(key) {
                hirCount -= q[i].cost
                occupied -= q[i].cost
                q.remove(at: i)
            }
            while lirCount + cost > lirLimit && !s.isEmpty && s.last?.key != key { evictLIR() }
            if let i = sIndex(key) { s[i].lir = true }
            lirCount += cost
            occupied += cost
            return true
        }
        guard inQ else { return false }
        // hit_RD_HIRinQ
        let cost = q[0].cost
        while lirCount + cost > lirLimit && !s.isEmpty { evictLIR() }
        s.insert(Entry(key: key, cost: cost), at: 0)
        return true
    }

    mutating func canInsert(_ key: Int, _ cost: Int) -> Bool {
        if let i = sIndex(key), !s[i].lir, !s[i].resident {
            while lirCount + cost > lirLimit && !s.isEmpty && s.last?.key != key { evictLIR() }
            if let j = nh.firstIndex(where: { $0.key == key }) { nh.remove(at: j) }
            return true
        }
        guard sIndex(key) == nil && qIndex(key) == nil else { return false }
        guard cost <= capacity, cost <= lirLimit, cost <= hirLimit else { return false }
        if lirCount + cost > lirLimit && hirCount + cost > hirLimit {
            while hirCount + cost > hirLimit && !q.isEmpty { evictHIR() }
        }
        return true
    }

    // LIRS_evict
    mutating func evictStep(_ key: Int, _ cost: Int) {
        if let i = sIndex(key), !s[i].lir, !s[i].resident {
            while hirCount >= hirLimit && !q.isEmpty { evictHIR() }
            if !s.isEmpty && s.last?.key != key { evictLIR() }
        } else if sIndex(key) == nil && qIndex(key) == nil {
            if lirCount + cost > lirLimit && hirCount + cost > hirLimit && !q.isEmpty { evictHIR() }
        }
    }

    // LIRS_insert
    mutating func insert(_ key: Int, _ cost: Int) {
        if let i = sIndex(key) {
            guard !s[i].lir && !s[i].resident else { return }
            s[i].lir = true
            s[i].resident = true
            lirCount += s[i].cost
            occupied += s[i].cost
        } else if qIndex(key) == nil {
            if lirCount + cost <= lirLimit {
                s.insert(Entry(key: key, cost: cost, lir: true), at: 0)
                lirCount += cost
            } else {
                s.insert(Entry(key: key, cost: cost), at: 0)
                q.insert(Entry(key: key, cost: cost), at: 0)
                hirCount += cost
            }
            occupied += cost
        }
    }

    mutating func evictLIR() {
        guard let tail = s.popLast() else { return }
        lirCount -= tail.cost
        occupied -= tail.cost
        if tail.cost <= hirLimit {
            while hirCount + tail.cost > hirLimit && !q.isEmpty { evictHIR() }
            q.insert(Entry(key: tail.key, cost: tail.cost), at: 0)
            hirCount += tail.cost
            occupied += tail.cost
        }
        prune()
    }

    mutating func evictHIR() {
        guard let tail = q.popLast() else { return }
        hirCount -= tail.cost
        if let i = sIndex(tail.key) {
            s[i].resident = false
            nh.insert(Entry(key: tail.key, cost: tail.cost, resident: false), at: 0)
        }
        occupied -= tail.cost
    }

    mutating func prune() {
        while s.count >= 2, let tail = s.last, !tail.lir {
            if !tail.resident, let j = nh.firstIndex(where: { $0.key == tail.key }) { nh.remove(at: j) }
            s.removeLast()
        }
    }

    mutating func limitStack() {
        while s.reduce(0, { $0 + $1.cost }) > 2 * capacity, let tail = nh.popLast() {
            if let i = sIndex(tail.key) { s.remove(at: i) }
        }
    }
}

@Suite("LIRS (libCacheSim aa0fc40)")
struct LIRSCacheTests {
    typealias Cache = LIRSCache<Int, Void>

    func access(_ cache: inout Cache, _ key: Int, _ observer: inout EvictionRecorder<Int, Void>) -> Bool {
        cache.access(key, cost: 1, orInsert: (), observer: &observer)
    }

    /// S from top to bottom, each key tagged L (LIR), R (resident HIR) or N (non-resident HIR).
    func stack(_ cache: Cache) -> [String] {
        listKeys(cache.stack, cache.store).map { key in
            let flags = cache.store.aux(cache.store.find(key))
            let tag = flags & Cache.isLIR != 0 ? "L" : flags & Cache.stackResident != 0 ? "R" : "N"
            return "\(key)\(tag)"
        }
    }

    func queue(_ cache: Cache) -> [Int] {
        var keys: [Int] = []
        var slot = cache.queue.list.head
        while slot >= 0 {
            keys.append(cache.store.key(slot))
            slot = cache.queue.next[Int(slot)]
        }
        return keys
    }

    @Test("sizes: HIR part = max(1, floor(1 %)), LIR part = the rest")
    func sizes() throws {
        let small = try Cache.make(capacity: 150)
        #expect(small.hirLimit == 1 && small.lirLimit == 149)
        let large = try Cache.make(capacity: 1700)
        #expect(large.hirLimit == 17 && large.lirLimit == 1683)
    }

    // Capacity 10: HIR part 1, LIR part 9. Worked by hand from LIRS.c, then confirmed with a
    // line-by-line transcription of LIRS.c.
    @Test("L1: LIR fill, HIR eviction to non-resident, readmission as LIR, and libCacheSim's phantom block")
    func phantom() throws {
        var cache = try Cache.make(capacity: 10)
        var o = EvictionRecorder<Int, Void>()
        for key in 1...9 { _ = access(&cache, key, &o) }       // all LIR while the LIR part has room
        _ = access(&cache, 10, &o)                               // LIR part full: 10 is resident HIR (S and Q)
        #expect(stack(cache).prefix(2) == ["10R", "9L"] && queue(cache) == [10])
        _ = access(&cache, 11, &o)                               // Q full: 10 leaves the cache, stays in S as N
        #expect(o.take() == [10])
        #expect(stack(cache).prefix(3) == ["11R", "10N", "9L"] && queue(cache) == [11])
        #expect(!access(&cache, 10, &o))                         // non-resident in S: a miss that makes it LIR:
        #expect(o.take() == [11])                                // bottom LIR 1 moves to Q, pushing 11 out
        #expect(stack(cache) == ["10L", "11N", "9L", "8L", "7L", "6L", "5L", "4L", "3L", "2L"] && queue(cache) == [1])
        #expect(access(&cache, 1, &o))                           // resident HIR only in Q: a hit. libCacheSim demotes
        #expect(o.evicted.isEmpty)                               // LIR 2 to Q, which pushes 1 itself out of Q, then
        #expect(stack(cache).first == "1R" && queue(cache) == [2])   // puts 1 on S as resident: a phantom,
        #expect(cache.occupied == 9 && cache.count == 10)        // not counted by libCacheSim's occupancy
        _ = access(&cache, 12, &o)                               // so 12 finds room as LIR without an eviction,
        #expect(o.evicted.isEmpty && cache.count == 11 && cache.totalCost == 11)   // and 11 blocks are served
        #expect(access(&cache, 1, &o))                           // the phantom is hit again and becomes LIR: 3 → Q,
        #expect(o.take() == [2])                                 // pushing 2 out
        #expect(stack(cache).first == "1L" && queue(cache) == [3])
        #expect(cache.count == 10 && cache.occupied == 10)
    }

    // Capacity 3: HIR part 1, LIR part 2; S is bounded at 2 × 3 = 6 cost units.
    @Test("L2: S is bounded at twice the capacity by forgetting the oldest non-resident keys")
    func stackLimit() throws {
        var cache = try Cache.make(capacity: 3)
        var o = EvictionRecorder<Int, Void>()
        for key in 1...6 { _ = access(&cache, key, &o) }
        #expect(o.take() == [3, 4, 5])
        #expect(stack(cache) == ["6R", "5N", "4N", "3N", "2L", "1L"])
        _ = access(&cache, 7, &o)                                // S would hold 7 entries: 3 (oldest in NH) is forgotten
        #expect(o.take() == [6] && stack(cache) == ["7R", "6N", "5N", "4N", "2L", "1L"])
        _ = access(&cache, 3, &o)                                // 3 is unknown again: resident HIR; 4 is forgotten
        #expect(o.take() == [7] && stack(cache) == ["3R", "7N", "6N", "5N", "2L", "1L"])
        #expect(!access(&cache, 5, &o))                          // 5 is remembered: it becomes LIR, 1 goes to Q
        #expect(o.take() == [3])
        #expect(stack(cache) == ["5L", "3N", "7N", "6N", "2L"] && queue(cache) == [1])
        #expect(cache.count == 3)
    }

    @Test("L3: a remembered key comes back at its remembered cost; at another it is a new object; new objects larger than the HIR part are refused")
    func costs() throws {
        var cache = try Cache.make(capacity: 300)               // HIR part 3, LIR part 297
        var o = EvictionRecorder<Int, Void>()
        #expect(!cache.access(1, cost: 4, orInsert: (), observer: &o) && !cache.contains(1))
        _ = cache.access(1, cost: 3, orInsert: (), observer: &o)
        for key in 2...99 { _ = cache.access(key, cost: 3, orInsert: (), observer: &o) }    // LIR part 297 = 99 × 3
        _ = cache.access(101, cost: 3, orInsert: (), observer: &o)                          // HIR, fills the HIR part
        _ = cache.access(102, cost: 3, orInsert: (), observer: &o)                          // 101 → non-resident
        #expect(o.take() == [101])
        // Remembered at cost 3, asked for at 50: a new object (were it readmitted at 3, the cache
        // would count 3 for an object of 50), larger than the HIR part, so refused; a refused
        // request leaves everything as it was, 101's memory included.
        let (stackBefore, queueBefore) = (stack(cache), queue(cache))
        #expect(stackBefore.contains("101N"))
        #expect(!cache.access(101, cost: 50, orInsert: (), observer: &o))
        #expect(o.take() == [] && !cache.contains(101) && cache.contains(102) && cache.totalCost == 300)
        #expect(stack(cache) == stackBefore && queue(cache) == queueBefore)
        _ = cache.access(103, cost: 3, orInsert: (), observer: &o)                          // HIR; 102 → non-resident
        #expect(o.take() == [102])
        _ = cache.access(102, cost: 3, orInsert: (), observer: &o)                          // readmitted as LIR at its cost 3:
        #expect(o.take() == [103])                                                          // LIR 1 → Q, pushing 103 out
        #expect(cache.contains(102) && cache.contains(1) && cache.totalCost == 300)
        #expect(!cache.access(103, cost: 301, orInsert: (), observer: &o) && cache.totalCost == 300)
        // 103, remembered at cost 3, asked for at 2: a new object that fits, so 103's memory is
        // forgotten and it comes in as a new HIR object (the LIR part is full), pushing 1 out.
        #expect(stack(cache).contains("103N"))
        #expect(!cache.access(103, cost: 2, orInsert: (), observer: &o))
        #expect(o.take() == [1] && cache.contains(103) && queue(cache) == [103] && cache.totalCost == 299)
        #expect(stack(cache).first == "103R")
    }

    @Test("rejects capacities and HIR ratios where libCacheSim's LIRS breaks down")
    func configuration() {
        #expect(throws: PolicyConfigurationError.self) { try Cache.make(capacity: 2) }
        #expect(throws: PolicyConfigurationError.self) { try Cache.make(capacity: 100, options: ["hir-ratio": "0.4"]) }
        #expect(throws: PolicyConfigurationError.self) { try Cache.make(capacity: 100, options: ["hir-ratio": "0"]) }
        #expect((try? Cache.make(capacity: 3)) != nil)
        #expect((try? Cache.make(capacity: 99, options: ["hir-ratio": "0.3333333"])) != nil)
    }

    @Test("matches the array transcription of libCacheSim's LIRS.c on random sequences",
          arguments: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10] as [UInt64])
    func differential(seed: UInt64) throws {
        var rng = SeededRandom(seed: seed &* 49_979_687)
        let capacity = Int.random(in: 3...150, using: &rng)
        let hirRatio = [0.01, 0.1, 0.25, 1.0 / 3.0].randomElement(using: &rng)!
        var cache = try LIRSCache<Int, Int>.make(capacity: capacity, options: ["hir-ratio": "\(hirRatio)"])
        var model = LIRSModel(capacity: capacity, hirRatio: hirRatio)
        let hirLimit = max(1, Int(hirRatio * Double(capacity)))
        let operations = Scenario.uniform(keySpace: Int.random(in: 4...3 * capacity, using: &rng), maxCost: seed % 2 == 0 ? hirLimit + 1 : 1, seed: seed)
        expectSameDecisions(&cache, &model, operations, label: "lirs c=\(capacity) r=\(hirRatio) seed \(seed)", orderedEvictions: false)
    }
}
