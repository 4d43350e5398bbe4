// Only the public API: the ghost-list block, the multi-queue surface, the arena's shrink and
// the virtual-time ticker as a policy written in another package sees them.
import EvictionPolicies
import TestSupport
import Testing

/// A policy defined outside the module on ``GhostListPolicy``: a FIFO that admits a key on its
/// second request. A miss on an unknown key only remembers it (a ghost); a miss on a ghost
/// admits the object; an evicted object's key is remembered too. Ghosts: the newest `capacity`.
struct SecondRequestFIFO<Key: Hashable, Value>: GhostListPolicy {
    static var descriptor: PolicyDescriptor {
        PolicyDescriptor(name: "second-request-fifo", reproduces: "a test", rule: "admit on the second request", family: .research)
    }
    static var residentTag: UInt32 { 0 }
    static var ghostTag: UInt32 { 1 }
    var store = SlotArena<Key, Value>()
    var queue = SlotList()
    var ghosts = SlotList()
    let capacity: Int

    init(limits: CacheLimits, options: PolicyOptions) throws(PolicyConfigurationError) {
        capacity = try limits.validated(for: Self.descriptor, options: options).capacity
    }
    var count: Int { queue.count }
    var totalCost: Int { queue.cost }
    func isResident(_ slot: Int32) -> Bool { store.aux(slot) == Self.residentTag }
    mutating func didHit(_ slot: Int32) {}
    mutating func unlink(_ slot: Int32) {
        if isResident(slot) { store.unlink(slot, &queue) } else { store.unlink(slot, &ghosts) }
    }

    mutating func miss(_ key: Key, hash: UInt64, ghost: Int32, cost: Int, value: () -> Value,
                       observer: inout some EvictionObserver<Key, Value>) {
        guard cost <= capacity else { return }
        guard ghost >= 0 else {
            store.pushHead(store.allocate(key: key, hash: hash, value: nil, cost: cost), &ghosts, tag: Self.ghostTag)
            store.trimGhosts(&ghosts, toCost: .max, count: capacity)
            return
        }
        store.unlinkGhost(ghost, from: &ghosts)
        var pass = TrimPass(.caller)
        while queue.cost + cost > capacity {
            let oldest = queue.tail
            store.unlink(oldest, &queue)
            store.demote(oldest, to: &ghosts, limit: .max, tag: Self.ghostTag, pass: &pass, observer: &observer)
            store.trimGhosts(&ghosts, toCost: .max, count: capacity)
        }
        pass.end(&observer)
        store.revive(ghost, value: value(), cost: cost)
        store.pushHead(ghost, &queue, tag: Self.residentTag)
    }
}

/// The rule of ``SecondRequestFIFO`` on arrays, newest first.
struct SecondRequestFIFOModel: ResearchModel {
    let capacity: Int
    var queue: [Int] = [], ghosts: [Int] = []
    var costs: [Int: Int] = [:]

    var count: Int { queue.count }
    var totalCost: Int { queue.reduce(0) { $0 + costs[$1]! } }
    func contains(_ key: Int) -> Bool { queue.contains(key) }
    func cost(of key: Int) -> Int? { costs[key] }

    mutating func remember(_ key: Int) {
        ghosts.insert(key, at: 0)
        if ghosts.count > capacity { ghosts.removeLast() }
    }

    mutating func access(_ key: Int, cost: Int) -> (hit: Bool, evicted: [Int]) {
        if queue.contains(key) { return (true, []) }
        guard cost <= capacity else { return (false, []) }
        guard let ghost = ghosts.firstIndex(of: key) else {
            remember(key)
            return (false, [])
        }
        ghosts.remove(at: ghost)
        var evicted: [Int] = []
        while totalCost + cost > capacity {
            let oldest = queue.removeLast()
            costs[oldest] = nil
            evicted.append(oldest)
            remember(oldest)
        }
        queue.insert(key, at: 0)
        costs[key] = cost
        return (false, evicted)
    }

    mutating func remove(_ key: Int) -> [Int] {
        queue.removeAll { $0 == key }
        ghosts.removeAll { $0 == key }
        costs[key] = nil
        return []
    }
}

@Suite("Ghost lists, the multi-queue surface, the arena's shrink, the virtual-time ticker")
struct GhostListTests {
    @Test("demote keeps the key without the value, trims by cost and count; revive and forget")
    func ghostBlock() {
        var store = SlotArena<String, Int>()
        var residents = SlotList(), ghosts = SlotList()
        var observer = EvictionRecorder<String, Int>()
        var pass = TrimPass(.caller)
        let a = store.allocate(key: "a", value: 1, cost: 2)
        let b = store.allocate(key: "b", value: 2, cost: 1)
        let c = store.allocate(key: "c", value: 3, cost: 1)
        let d = store.allocate(key: "d", value: 4, cost: 4)
        for slot in [a, b, c, d] { store.pushHead(slot, &residents) }
        for slot in [a, b, c] {
            store.unlink(slot, &residents)
            #expect(store.demote(slot, to: &ghosts, limit: 3, tag: 7, pass: &pass, observer: &observer))
        }
        // a (2) + b (1) + c (1) > 3: a, the oldest, is forgotten.
        #expect(store.find("a") == -1 && store.find("b") == b && ghosts.count == 2 && ghosts.cost == 2)
        #expect(!store.isResident(b) && store.value(b) == nil && store.key(b) == "b" && store.aux(b) == 7)
        // Costlier than the limit: reported, not remembered.
        store.unlink(d, &residents)
        #expect(!store.demote(d, to: &ghosts, limit: 3, tag: 7, pass: &pass, observer: &observer))
        #expect(store.find("d") == -1 && residents.isEmpty)
        pass.end(&observer)
        #expect(observer.evicted == ["a", "b", "c", "d"] && observer.passes.count == 1)
        // Revive: the ghost's slot becomes resident again with a new value and cost.
        store.unlinkGhost(b, from: &ghosts)
        store.revive(b, value: 20, cost: 5)
        #expect(store.isResident(b) && store.value(b) == 20 && store.cost(b) == 5 && store.find("b") == b)
        // Trimming by count forgets the oldest; forgetting one releases its key.
        let e = store.allocate(key: "e", value: nil, cost: 1)
        store.pushHead(e, &ghosts)
        store.trimGhosts(&ghosts, toCost: .max, count: 1)
        #expect(store.find("c") == -1 && ghosts.head == e && ghosts.count == 1)
        store.forgetGhost(e, from: &ghosts)
        #expect(store.find("e") == -1 && ghosts.isEmpty && store.occupiedSlots == 1)
        // A limit of 0 remembers nothing.
        var none = SlotList()
        var quiet = TrimPass(.caller)
        #expect(!store.demote(b, to: &none, limit: 0, tag: 7, pass: &quiet, observer: &observer))
        #expect(store.occupiedSlots == 0)
    }

    @Test("an outside multi-queue policy: hand-worked vector")
    func outsideVector() throws {
        var cache = try SecondRequestFIFO<Int, Int>(limits: CacheLimits(capacity: 2), options: PolicyOptions())
        var observer = EvictionRecorder<Int, Int>()
        #expect(!cache.access(1, cost: 1, orInsert: 10, observer: &observer))
        #expect(!cache.contains(1), "the first request only remembers the key")
        #expect(!cache.access(1, cost: 1, orInsert: 10, observer: &observer) && cache.contains(1))
        #expect(cache.access(1, cost: 1, orInsert: 10, observer: &observer))
        for key in [2, 2, 3, 3] { _ = cache.access(key, cost: 1, orInsert: key * 10, observer: &observer) }
        #expect(observer.evicted == [1] && cache.lookup(3, observer: &observer) == 30)
        // 1 was remembered when evicted: one request brings it back, evicting 2.
        #expect(!cache.access(1, cost: 1, orInsert: 11, observer: &observer) && cache.lookup(1, observer: &observer) == 11)
        #expect(observer.evicted == [1, 2])
        #expect(cache.remove(3, observer: &observer) == 30 && cache.remove(2, observer: &observer) == nil)
        #expect(!cache.access(2, cost: 1, orInsert: 20, observer: &observer), "removing a ghost forgets it")
        #expect(!cache.contains(2))
    }

    @Test("an outside multi-queue policy matches its array model", arguments: [1, 2, 3, 4] as [UInt64])
    func outsideDifferential(seed: UInt64) throws {
        var rng = SeededRandom(seed: seed &* 7_919)
        let capacity = Int.random(in: 2...40, using: &rng)
        var cache = try SecondRequestFIFO<Int, Int>(limits: CacheLimits(capacity: capacity), options: PolicyOptions())
        var model = SecondRequestFIFOModel(capacity: capacity)
        let operations = Scenario.uniform(keySpace: 3 * capacity, maxCost: seed % 2 == 0 ? max(1, capacity / 4) : 1, seed: seed)
        expectSameDecisions(&cache, &model, operations, label: "second-request-fifo c=\(capacity) seed \(seed)")
    }

    @Test("a large partial purge gives the arena's storage back; behaviour is unchanged")
    func shrinkAfterPurge() throws {
        var cache = try LRUCache<Int, [Int]>(limits: CacheLimits(countLimit: 10_000), options: PolicyOptions())
        var observer = EvictionRecorder<Int, [Int]>()
        for key in 0..<10_000 { cache.insert([key], forKey: key, cost: 1, observer: &observer) }
        #expect(cache.store.slotCapacity == 10_000)
        // Remove the 9,900 newest: the slots in use are the 100 lowest.
        for key in (100..<10_000).reversed() { _ = cache.remove(key, observer: &observer) }
        #expect(cache.count == 100 && cache.store.occupiedSlots == 100)
        #expect(cache.store.slotCapacity < 2_500, "the arena shrank: \(cache.store.slotCapacity) slots")
        // Every survivor is found with its value, and LRU order still holds.
        for key in 0..<100 { #expect(cache.lookup(key, observer: &observer) == [key]) }
        for key in 10_000..<10_050 { cache.insert([key], forKey: key, cost: 1, observer: &observer) }
        #expect(cache.count == 150 && observer.evicted.isEmpty)
        var small = try LRUCache<Int, [Int]>(limits: CacheLimits(countLimit: 100), options: PolicyOptions())
        var smallObserver = EvictionRecorder<Int, [Int]>()
        for key in 0..<10_000 { small.insert([key], forKey: key, cost: 1, observer: &smallObserver) }
        #expect(small.store.slotCapacity <= 101, "a full cache reuses its slots and never shrinks")
    }

    @Test("the shrunken arena matches LRU's model on random sequences with purges", arguments: [5, 6] as [UInt64])
    func shrinkDifferential(seed: UInt64) throws {
        var rng = SeededRandom(seed: seed)
        var cache = try LRUCache<Int, Int>(limits: CacheLimits(countLimit: 400), options: PolicyOptions())
        var order: [Int] = []     // newest first
        var observer = EvictionRecorder<Int, Int>()
        var shrank = false
        for round in 0..<6 {
            for _ in 0..<800 {
                let key = Int.random(in: 0..<2_000, using: &rng)
                let hit = cache.access(key, cost: 1, orInsert: key, observer: &observer)
                #expect(hit == order.contains(key), "round \(round) key \(key)")
                order.removeAll { $0 == key }
                order.insert(key, at: 0)
                if order.count > 400 { order.removeLast() }
            }
            // Purge all but the 20 most recent.
            for key in order.dropFirst(20) { #expect(cache.remove(key, observer: &observer) == key) }
            order = Array(order.prefix(20))
            #expect(cache.count == 20)
            shrank = shrank || cache.store.slotCapacity < 400
        }
        #expect(shrank, "some purge gave slots back")
    }

    @Test("the virtual-time ticker: due ticks in order, idle time skipped in one step")
    func ticker() {
        var ticker = VirtualTimeTicker(period: 10)
        #expect(ticker.due(by: 1e9) == nil, "not started")
        ticker.start = 5
        var fired: [Double] = []
        while let tick = ticker.due(by: 37) {
            fired.append(tick)
            ticker.skip(until: 37) { _ in true }
        }
        #expect(fired == [15, 25, 35] && ticker.time(ofTick: ticker.next) == 45)
        // Nothing to do until 1e12: one skip lands past it.
        if let tick = ticker.due(by: 1e12) {
            fired.append(tick)
            ticker.skip(until: 1e12) { _ in false }
        }
        #expect(fired.last == 45 && ticker.due(by: 1e12) == nil && ticker.next == ticker.firstTick(after: 1e12))
    }
}
