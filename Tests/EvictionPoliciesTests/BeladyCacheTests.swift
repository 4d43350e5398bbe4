import EvictionPolicies
import TestSupport
import Testing

/// Demand MIN with distinct next-request times: `mark` is the next request; the victim is the
/// resident entry with the latest one. Every operation consumes the time given just before it.
struct BeladyModel: EntryListModel {
    var entries: [ModelEntry] = []
    var pending: Int64 = .max
    let capacity: Int
    let countLimit: Int

    init(capacity: Int, countLimit: Int?, options: [String: String] = [:]) {
        self.capacity = capacity
        self.countLimit = countLimit ?? .max
    }

    func index(_ key: Int) -> Int? { entries.firstIndex { $0.key == key } }
    var cost: Int { entries.reduce(0) { $0 + $1.cost } }

    mutating func noteNextAccess(_ index: Int64) { pending = index }

    mutating func take() -> Int64 {
        defer { pending = .max }
        return pending
    }

    mutating func evict(extraCost: Int, extraCount: Int) -> [Int] {
        var evicted: [Int] = []
        while !entries.isEmpty && (cost + extraCost > capacity || entries.count + extraCount > countLimit) {
            if let victim = entries.indices.max(by: { entries[$0].mark < entries[$1].mark }) {
                evicted.append(entries.remove(at: victim).key)
            }
        }
        return evicted
    }

    mutating func access(_ key: Int, cost: Int) -> (hit: Bool, evicted: [Int]) {
        if let i = index(key) { entries[i].mark = take(); return (true, []) }
        return (false, insert(key, cost: cost))
    }

    mutating func insert(_ key: Int, cost: Int) -> [Int] {
        let next = take()
        if let i = index(key) {
            guard cost <= capacity else { entries.remove(at: i); return [] }
            entries[i].mark = next
            entries[i].cost = cost
            return evict(extraCost: 0, extraCount: 0)
        }
        guard cost <= capacity else { return [] }
        let evicted = evict(extraCost: cost, extraCount: 1)
        entries.append(.init(key: key, cost: cost, mark: next))
        return evicted
    }

    mutating func read(_ key: Int) -> (hit: Bool, evicted: [Int]) {
        let next = take()
        guard let i = index(key) else { return (false, []) }
        entries[i].mark = next
        return (true, [])
    }

    mutating func remove(_ key: Int) -> [Int] {
        guard let i = index(key) else { return [] }
        entries.remove(at: i)
        return []
    }
}

@Suite("belady (libCacheSim Belady.c)")
struct BeladyCacheTests {
    typealias Cache = BeladyCache<String, Int>

    /// Replays `keys` (unit sizes) with their true next-request indices (1-based, `.max` for none).
    static func run(_ cache: inout Cache, _ keys: [String], cost: (String) -> Int = { _ in 1 }) -> (String, [[String]]) {
        var next = [Int64](repeating: .max, count: keys.count)
        var following: [String: Int64] = [:]
        for i in keys.indices.reversed() {
            next[i] = following[keys[i]] ?? .max
            following[keys[i]] = Int64(i + 1)
        }
        var observer = EvictionRecorder<String, Int>()
        var pattern = ""
        var evictions: [[String]] = []
        for (i, key) in keys.enumerated() {
            cache.noteNextAccess(next[i])
            pattern += cache.access(key, cost: cost(key), orInsert: 0, observer: &observer) ? "H" : "M"
            evictions.append(observer.take())
        }
        return (pattern, evictions)
    }

    @Test("BL1: evicts the resident object whose next request is farthest")
    func farthestFirst() throws {
        // capacity 3. Requests 1…12: a b c d a b e a b c d e. Next requests: a1→5, b2→6, c3→10,
        // d4→11, a5→8, b6→9, e7→12, then none.
        // d(4): residents a5 b6 c10 → evict c. a, b hit (a→8, b→9).
        // e(7): residents a8 b9 d11 → evict d. a, b hit (both never again).
        // c(10): a and b are never requested again → one of them goes (e12 stays).
        // d(11): the other never-again object goes. e(12) hits. 7 misses (LRU: 10).
        var cache = try Cache.make(capacity: 3)
        let (pattern, evictions) = Self.run(&cache, ["a", "b", "c", "d", "a", "b", "e", "a", "b", "c", "d", "e"])
        #expect(pattern == "MMMMHHMHHMMH")
        #expect(Array(evictions.prefix(9)) == [[], [], [], ["c"], [], [], ["d"], [], []])
        #expect(Set(evictions[9] + evictions[10]).isSubset(of: ["a", "b", "c"]))
        #expect(evictions[9].count == 1 && evictions[10].count == 1 && !evictions[9].contains("c"))
    }

    @Test("BL2: ties among never-again objects follow libCacheSim's pqueue (pop moves the last leaf to the root)")
    func tieOrderMirrorsPqueue() throws {
        // All never requested again. Heap after a b c: [a b c]. d: pop a; c moves to the root and
        // stays (c < b is false) → [c b], d appended → [c b d]. e: pop c → [d b], e → [d b e].
        // f: pop d. So the victims are a, c, d: neither FIFO nor LIFO.
        var cache = try Cache.make(capacity: 3)
        let (_, evictions) = Self.run(&cache, ["a", "b", "c", "d", "e", "f"])
        #expect(evictions == [[], [], [], ["a"], ["c"], ["d"]])
    }

    @Test("BL3: sizes: evicts farthest-first until the newcomer fits; oversized objects are not inserted")
    func sizes() throws {
        // capacity 10: a (4), b (3), c (3); next requests a→5, b→6, c never. d (5) needs 5 free:
        // c (never) goes, then b (6 is later than 5). a (5) then hits.
        let sizes = ["a": 4, "b": 3, "c": 3, "d": 5, "big": 11]
        var cache = try Cache.make(capacity: 10)
        let (pattern, evictions) = Self.run(&cache, ["a", "b", "c", "d", "a", "b", "big"]) { sizes[$0] ?? 1 }
        #expect(pattern == "MMMMHMM")
        #expect(evictions[3] == ["c", "b"])
        #expect(!cache.contains("big") && evictions[6].isEmpty)
    }

    @Test("BL4: without noteNextAccess an entry counts as never requested again")
    func pendingResets() throws {
        var cache = try Cache.make(capacity: 2)
        var observer = EvictionRecorder<String, Int>()
        cache.noteNextAccess(3)
        _ = cache.access("a", cost: 1, orInsert: 0, observer: &observer)
        _ = cache.access("b", cost: 1, orInsert: 0, observer: &observer)   // not told: never
        cache.noteNextAccess(9)
        _ = cache.access("c", cost: 1, orInsert: 0, observer: &observer)
        #expect(observer.take() == ["b"])
        #expect(Cache.descriptor.needsFuture)
    }

    @Test("BL5: a next request moved earlier sinks in the heap")
    func rescheduleEarlier() throws {
        // a→10, b→5, c→7 (a at the root). A hit on a told "next at 1" must sink it: d then evicts
        // c (7), the farthest, not a.
        var cache = try Cache.make(capacity: 3)
        var observer = EvictionRecorder<String, Int>()
        for (key, next) in [("a", 10), ("b", 5), ("c", 7), ("a", 1), ("d", 20)] as [(String, Int64)] {
            cache.noteNextAccess(next)
            _ = cache.access(key, cost: 1, orInsert: 0, observer: &observer)
        }
        #expect(observer.evicted == ["c"])
    }

    @Test("differential: matches the reference model on random sequences with distinct next requests",
          arguments: 1...12)
    func differential(seed: UInt64) throws {
        let scenario = Scenario.drawn(seed: seed)
        try expectSameDecisions(BeladyCache<Int, Int>.self, BeladyModel(capacity: scenario.capacity, countLimit: scenario.countLimit),
                                scenario, nextAccesses: TestOp.distinctNextAccesses(scenario.operations),
                                label: "belady seed \(seed)")
    }

    @Test("optimality with ties: every victim has the farthest next request, and no eviction is spare",
          arguments: 1...8)
    func victimsAreFarthest(seed: UInt64) throws {
        let scenario = Scenario.drawn(seed: seed)
        let operations = scenario.operations
        // True next requests: ties at Int64.max for the never-again objects.
        var next = [Int64](repeating: .max, count: operations.count)
        var following: [Int: Int64] = [:]
        for i in operations.indices.reversed() {
            guard let key = operations[i].key else { continue }
            next[i] = following[key] ?? .max
            if case .delete = operations[i] { continue }
            following[key] = Int64(i + 1)
        }
        var cache = try BeladyCache<Int, Int>.make(capacity: scenario.capacity, countLimit: scenario.countLimit)
        var observer = EvictionRecorder<Int, Int>()
        var resident: [Int: (next: Int64, cost: Int)] = [:]
        let limit = scenario.countLimit ?? .max

        /// Checks that `evicted` were, one by one, the farthest residents, and that room for
        /// `cost`/`count` was reached only after the last of them.
        func checkVictims(_ evicted: [Int], cost: Int, count: Int, _ context: String) {
            var before = resident
            for (n, victim) in evicted.enumerated() {
                let farthest = before.values.map(\.next).max()
                #expect(before[victim]?.next == farthest, "victim \(victim) is not farthest at \(context)")
                let fitsAlready = before.values.reduce(0) { $0 + $1.cost } + cost <= scenario.capacity
                    && before.count + count <= limit
                #expect(!fitsAlready, "eviction \(n) of \(evicted) was not needed at \(context)")
                before[victim] = nil
            }
            resident = before
        }

        for (i, operation) in operations.enumerated() {
            cache.noteNextAccess(next[i])
            let context = "op \(i) \(operation)"
            switch operation {
            case .get(let key, let cost):
                let hit = cache.access(key, cost: cost, orInsert: i, observer: &observer)
                #expect(hit == (resident[key] != nil), "hit/miss at \(context)")
                if hit {
                    resident[key]?.next = next[i]
                } else if cost <= scenario.capacity {
                    checkVictims(observer.take(), cost: cost, count: 1, context)
                    resident[key] = (next[i], cost)
                }
            case .set(let key, let cost):
                cache.insert(i, forKey: key, cost: cost, observer: &observer)
                if cost > scenario.capacity {
                    resident[key] = nil
                } else if resident[key] != nil {
                    resident[key] = (next[i], cost)
                    checkVictims(observer.take(), cost: 0, count: 0, context)
                } else {
                    checkVictims(observer.take(), cost: cost, count: 1, context)
                    resident[key] = (next[i], cost)
                }
            case .lookup(let key):
                #expect((cache.lookup(key, observer: &observer) != nil) == (resident[key] != nil), "lookup at \(context)")
                resident[key]?.next = next[i]
            case .delete(let key):
                #expect((cache.remove(key, observer: &observer) != nil) == (resident[key] != nil), "remove at \(context)")
                resident[key] = nil
            case .event, .advance:
                Issue.record("a drawn scenario has no events or time steps")
            }
            #expect(observer.take().isEmpty, "unexpected eviction at \(context)")
            #expect(cache.count == resident.count && cache.totalCost == resident.values.reduce(0) { $0 + $1.cost },
                    "count/cost at \(context)")
        }
    }
}
