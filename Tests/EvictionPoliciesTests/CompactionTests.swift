@testable import EvictionPolicies
import Testing
import TestSupport

/// The arena's compaction (``SlotArena/compactIfSparse()``): slots renumbered, nothing else changed.
@Suite("Compacting a sparse arena")
struct SlotArenaCompactionTests {
    /// Two lists and some ghosts over one arena; 90 % of the keys removed at random; after the
    /// compaction every survivor is found under its key with its value, cost and aux, both lists
    /// read the same keys in the same order both ways, and the arena holds exactly the survivors.
    @Test("keeps every survivor's key, value, cost, aux and list order", arguments: [1, 2, 3, 4, 5] as [UInt64])
    func survivors(seed: UInt64) {
        var rng = SeededRandom(seed: seed)
        var arena = SlotArena<String, Int>()
        var lists = [SlotList(), SlotList()]
        let total = Int.random(in: 300...2_000, using: &rng)
        var listOf: [String: Int] = [:]
        for id in 0..<total {
            let key = "k\(id)"
            let ghost = id % 7 == 3
            let slot = arena.allocate(key: key, value: ghost ? nil : id, cost: id % 13)
            arena.setAux(slot, UInt32(id))
            let list = Int.random(in: 0...1, using: &rng)
            if Bool.random(using: &rng) { arena.pushHead(slot, &lists[list]) } else { arena.pushTail(slot, &lists[list]) }
            listOf[key] = list
        }
        for id in (0..<total).shuffled(using: &rng) where Double.random(in: 0..<1, using: &rng) < 0.9 {
            let key = "k\(id)"
            guard let list = listOf.removeValue(forKey: key) else { continue }
            arena.remove(key, from: &lists[list])
        }
        func order(_ list: SlotList, forward: Bool) -> [String] {
            var keys: [String] = []
            var slot = forward ? list.head : list.tail
            while slot >= 0 { keys.append(arena.key(slot)); slot = forward ? arena.next(slot) : arena.prev(slot) }
            return keys
        }
        let before = lists.map { order($0, forward: true) }
        #expect(lists.map { order($0, forward: false).reversed() } == before)
        // `remove(_:from:)` cut only the free slots above the last in use, so the arena is still sparse.
        #expect(arena.slotCapacity > 4 * arena.occupiedSlots, "the test needs a sparse arena")
        let relocation = arena.compactIfSparse()
        #expect(relocation != nil)
        if let relocation { for i in lists.indices { relocation.relocate(&lists[i]) } }
        #expect(arena.slotCapacity == listOf.count && arena.occupiedSlots == listOf.count)
        #expect(lists.map { order($0, forward: true) } == before)
        #expect(lists.map { order($0, forward: false).reversed() } == before)
        #expect(lists.map(\.count) == before.map(\.count))
        for (key, _) in listOf {
            let id = Int(key.dropFirst()) ?? -1
            let slot = arena.find(key)
            #expect(slot >= 0 && slot < arena.slotCapacity)
            guard slot >= 0 else { continue }
            #expect(arena.value(slot) == (id % 7 == 3 ? nil : id), "\(key)")
            #expect(arena.cost(slot) == id % 13 && arena.aux(slot) == UInt32(id))
        }
        #expect(arena.compactIfSparse() == nil, "a compacted arena is full")
        // It keeps working: new keys take new slots, and removed keys stay gone.
        let slot = arena.allocate(key: "new", value: 7, cost: 1)
        #expect(arena.find("new") == slot && arena.value(slot) == 7)
        #expect(arena.find("k0") == (listOf["k0"] == nil ? -1 : arena.find("k0")))
    }

    @Test("side tables and pending hits follow the moves; an arena that is not sparse is left alone")
    func sideStructures() {
        var arena = SlotArena<Int, Void>()
        var list = SlotList()
        var table = SideTable<Int>(filling: -1)
        for key in 0..<200 {
            let slot = arena.allocate(key: key, value: (), cost: 1)
            arena.pushHead(slot, &list)
            if key < 150 { table[slot] = key * 10 }    // the last 50 slots read the fill
        }
        #expect(arena.compactIfSparse() == nil)
        for key in 0..<200 where key % 10 != 0 && key != 195 { arena.remove(key, from: &list) }
        // A hit on 190 waits in a queue (as LRU's do) across the compaction.
        var hits = PendingHits()
        arena.deferMoveToHead(arena.find(190), &list, &hits)
        #expect(!hits.isEmpty)
        guard let relocation = arena.compactIfSparse() else {
            Issue.record("a quarter-full arena was not compacted")
            return
        }
        relocation.relocate(&list)
        table.relocate(relocation)
        hits.relocate(relocation)
        #expect(arena.slotCapacity == 21)
        for key in Array(stride(from: 0, to: 200, by: 10)) + [195] {
            let slot = arena.find(key)
            #expect(table[slot] == (key < 150 ? key * 10 : -1), "key \(key)")
        }
        arena.applyPendingHits(&hits, &list)
        #expect(list.head == arena.find(190) && list.count == 21)
    }

    @Test("a compaction keeps the slots' order: each slot in use takes its rank, and the moves copy an array in place",
          arguments: [1, 2, 3] as [UInt64])
    func keepsOrder(seed: UInt64) {
        var random = SeededRandom(seed: seed)
        for _ in 0..<50 {
            let count = Int(random.next() % 300) + 1
            let free = (0..<count).map { _ in random.next() % 3 != 0 }
            let inUse = free.indices.filter { !free[$0] }
            let relocation = SlotRelocation(compacting: count, keeping: inUse.count) { free[$0] }
            #expect(relocation.slotCount == inUse.count)
            // The model: the slots in use, in order, numbered from 0.
            for (rank, old) in inUse.enumerated() { #expect(relocation[Int32(old)] == Int32(rank)) }
            #expect(relocation[-1] == -1)
            for old in 0..<relocation.firstMoved { #expect(!free[old]) }
            // Copying element by element in the order of the moves compacts in place.
            var array = (0..<count).map { free[$0] ? -1 : $0 }
            relocation.forEachMove { from, to in array[Int(to)] = array[Int(from)] }
            #expect(Array(array[..<inUse.count]) == inUse)
        }
    }
}

/// Every policy that renumbers its slots (``SlotRelocatingPolicy``), against its reference model
/// on sequences that fill the cache and then remove nine keys in ten, again and again: each
/// removal burst leaves the arena sparse, so it compacts mid-sequence, and any slot number left
/// behind (a list end, a hand, a queued hit, a side table) shows as a different decision.
@Suite("Policies that compact, against their reference models")
struct CompactingPolicyTests {
    /// Cycles of: `fill` × capacity gets over a band of `band` × capacity keys (the band moves
    /// on by half), some sets, then a removal of each key of the band with probability 0.9, in
    /// random order, then gets over the band (hits on the survivors, which the compaction moved).
    /// With `clock`, time moves on by a second before one request in four (the library models
    /// stamp entries with it), so their timers fire too.
    static func purgeCycles(capacity: Int, cycles: Int = 6, band: Int = 2, fill: Int = 3, maxCost: Int,
                            seed: UInt64, clock: Bool = false) -> [TestOp] {
        var rng = SeededRandom(seed: seed)
        var ops: [TestOp] = []
        var now = 0.0
        let band = band * capacity
        for cycle in 0..<cycles {
            let low = cycle * band / 2
            for _ in 0..<(fill * capacity) {
                if clock && Int.random(in: 0..<4, using: &rng) == 0 {
                    now += 1
                    ops.append(.advance(now))
                }
                let key = Int.random(in: low..<(low + band), using: &rng)
                let cost = Int.random(in: 1...maxCost, using: &rng)
                ops.append(Int.random(in: 0..<10, using: &rng) == 0 ? .set(key, cost: cost) : .get(key, cost: cost))
            }
            for key in (low..<(low + band)).shuffled(using: &rng) where Int.random(in: 0..<10, using: &rng) != 0 {
                ops.append(.delete(key))
            }
            for _ in 0..<capacity { ops.append(.get(Int.random(in: low..<(low + band), using: &rng), cost: 1)) }
        }
        return ops
    }

    /// Compares the policy with its model over the whole sequence, then plays it again on a
    /// fresh copy to check that the arena shrank to its entries after at least one removal burst
    /// (so the decisions compared include a compaction's).
    func run<P: SlotRelocatingPolicy, M: ReferenceModel>(_ policy: P, _ model: M, capacity: Int, maxCost: Int = 1,
                                                         band: Int = 2, fill: Int = 3, seed: UInt64, orderedEvictions: Bool = true,
                                                         clock: Bool = false, sourceLocation: SourceLocation = #_sourceLocation)
    where P.Key == Int, P.Value == Int {
        run(policy, model, arena: { ($0.store.slotCapacity, $0.store.occupiedSlots) }, capacity: capacity, maxCost: maxCost,
            band: band, fill: fill, seed: seed, orderedEvictions: orderedEvictions, clock: clock, sourceLocation: sourceLocation)
    }

    /// ``run(_:_:capacity:maxCost:band:fill:seed:orderedEvictions:clock:sourceLocation:)`` for a
    /// policy whose arena `arena` reads (its slot count, then its slots in use): a model that
    /// compacts the arena of a model it wraps.
    func run<P: EvictionPolicy, M: ReferenceModel>(_ policy: P, _ model: M, arena: (P) -> (slots: Int, occupied: Int),
                                                   capacity: Int, maxCost: Int = 1, band: Int = 2, fill: Int = 3, seed: UInt64,
                                                   orderedEvictions: Bool = true, clock: Bool = false,
                                                   sourceLocation: SourceLocation = #_sourceLocation)
    where P.Key == Int, P.Value == Int {
        let ops = Self.purgeCycles(capacity: capacity, band: band, fill: fill, maxCost: maxCost, seed: seed, clock: clock)
        var compared = policy, model = model
        expectSameDecisions(&compared, &model, ops, label: "\(P.descriptor.name) c=\(capacity) seed \(seed)",
                            orderedEvictions: orderedEvictions, sourceLocation: sourceLocation)
        var replayed = policy
        var observer = IgnoringObserver<Int, Int>()
        var compactions = 0, peak = 0
        for (index, op) in ops.enumerated() {
            switch op {
            case .get(let key, let cost): _ = replayed.access(key, cost: cost, orInsert: index, observer: &observer)
            case .set(let key, let cost): replayed.insert(index, forKey: key, cost: cost, observer: &observer)
            case .delete(let key): _ = replayed.remove(key, observer: &observer)
            case .lookup(let key): _ = replayed.lookup(key, observer: &observer)
            case .advance(let time): replayed.advance(to: time, observer: &observer)
            case .event: break
            }
            let (slots, occupied) = arena(replayed)
            if slots == occupied && slots * 2 < peak { compactions += 1; peak = slots }
            peak = max(peak, slots)
        }
        #expect(compactions > 0, "\(P.descriptor.name): no removal burst compacted the arena", sourceLocation: sourceLocation)
    }

    static let seeds: [UInt64] = [1, 2, 3, 4]

    @Test("LRU, FIFO, LIFO and MRU", arguments: seeds)
    func lists(seed: UInt64) throws {
        let capacity = 60 + Int(seed) * 17
        run(try LRUCache<Int, Int>.make(capacity: capacity), ReferenceListCache(rule: .lru, capacity: capacity, countLimit: .max),
            capacity: capacity, seed: seed)
        run(try FIFOCache<Int, Int>.make(capacity: capacity), ReferenceListCache(rule: .fifo, capacity: capacity, countLimit: .max),
            capacity: capacity, seed: seed)
        run(try LIFOCache<Int, Int>.make(capacity: capacity), ReferenceListCache(rule: .lifo, capacity: capacity, countLimit: .max),
            capacity: capacity, seed: seed)
        run(try MRUCache<Int, Int>.make(capacity: capacity), MRUModel(capacity: capacity, countLimit: nil), capacity: capacity, seed: seed)
    }

    @Test("CLOCK, SIEVE and LFU", arguments: seeds)
    func frequency(seed: UInt64) throws {
        let capacity = 60 + Int(seed) * 17
        let options = seed % 2 == 0 ? ["bits": "2"] : [:]
        run(try ClockCache<Int, Int>.make(capacity: capacity, options: options),
            ClockModel(capacity: capacity, countLimit: nil, options: options), capacity: capacity, maxCost: 3, seed: seed)
        run(try SieveCache<Int, Int>.make(capacity: capacity), SieveModel(capacity: capacity, countLimit: nil),
            capacity: capacity, maxCost: 3, seed: seed)
        run(try LFUCache<Int, Int>.make(capacity: capacity), LFUModel(capacity: capacity, countLimit: nil), capacity: capacity, seed: seed)
    }

    @Test("S3-FIFO, QD-LP and CLOCK2Q+", arguments: seeds)
    func smallMainGhost(seed: UInt64) throws {
        let capacity = 60 + Int(seed) * 17
        run(try S3FIFOCache<Int, Int>.make(capacity: capacity, options: [
                "small-ratio": "0.1", "ghost-ratio": "0.9", "move-to-main-threshold": "2", "warm-up": "false"]),
            S3FIFOModel(capacity: capacity, smallRatio: 0.1, ghostRatio: 0.9, threshold: 2, warmUp: false), capacity: capacity,
            maxCost: seed % 2 == 0 ? 3 : 1, seed: seed)
        run(try QDLPCache<Int, Int>.make(capacity: capacity, options: [
                "small-ratio": "0.1", "ghost-ratio": "0.9", "move-to-main-threshold": "1"]), QDLPModel(capacity: capacity, smallRatio: 0.1, ghostRatio: 0.9, threshold: 1),
            capacity: capacity, seed: seed)
        // A wide correlation window, so that a hit's standing depends on its admission time.
        run(try Clock2QPlusCache<Int, Int>.make(capacity: capacity, options: ["small-ratio": "0.3", "correlation-window-ratio": "2"]),
            Clock2QPlusModel(capacity: capacity, smallRatio: 0.3, windowRatio: 2), capacity: capacity, seed: seed)
    }

    @Test("ARC, CAR and 2Q", arguments: seeds)
    func ghostLists(seed: UInt64) throws {
        let capacity = 60 + Int(seed) * 17
        let maxCost = seed % 2 == 0 ? 3 : 1
        run(try ARCCache<Int, Int>.make(capacity: capacity), ARCModel(capacity: capacity), capacity: capacity, maxCost: maxCost, seed: seed)
        run(try CARCache<Int, Int>.make(capacity: capacity), CARModel(capacity: capacity), capacity: capacity, seed: seed)
        run(try TwoQCache<Int, Int>.make(capacity: capacity), TwoQModel(capacity: capacity, inRatio: 0.25, outRatio: 0.5),
            capacity: capacity, maxCost: maxCost, seed: seed)
    }

    @Test("LIRS and both W-TinyLFUs", arguments: seeds)
    func others(seed: UInt64) throws {
        let capacity = 60 + Int(seed) * 17
        run(try LIRSCache<Int, Int>.make(capacity: capacity, options: ["hir-ratio": "0.1"]), LIRSModel(capacity: capacity, hirRatio: 0.1),
            capacity: capacity, band: 4, fill: 8, seed: seed, orderedEvictions: false)
        run(try WTinyLFUCache<Int, Int>.make(capacity: capacity, options: ["window-ratio": "0.1"]),
            TinyLFUModel(capacity: capacity, windowRatio: 0.1, protectedRatio: 0.8), capacity: capacity, seed: seed)
        run(try LibCacheSimWTinyLFUCache<Int, Int>.make(capacity: capacity, options: ["window-size": "0.1"]),
            LibCacheSimWTinyLFUModel(capacity: capacity, windowRatio: 0.1), capacity: capacity, seed: seed)
    }

    // Unit costs: these models take a get's cost as the object's own, which the research
    // convention (a hit keeps the object's cost) does not; their differential tests give each
    // key one cost.
    @Test("SLRU, SLRUv0, MQ and ARCv0", arguments: seeds)
    func segmentsAndQueues(seed: UInt64) throws {
        let capacity = 60 + Int(seed) * 17
        let segments = 1 + Int(seed) % 4
        run(try SLRUCache<Int, Int>.make(capacity: capacity, options: ["segments": "\(segments)"]),
            SLRUModel(capacity: capacity, segments: segments, v0: false), capacity: capacity, seed: seed)
        run(try SLRUv0Cache<Int, Int>.make(capacity: capacity, options: ["segments": "\(segments)"]),
            SLRUModel(capacity: capacity, segments: segments, v0: true), capacity: capacity, seed: seed)
        // A short lifetime, so that entries drift down the queues across the purges.
        let lifetime = [3, 20, 10_000][Int(seed) % 3]
        run(try MQCache<Int, Int>.make(capacity: capacity, options: ["lifetime": "\(lifetime)", "ghost-ratio": "1"]),
            MQModel(capacity: capacity, lifetime: lifetime, ghostRatio: 1), capacity: capacity, seed: seed)
        // ARCv0's ghosts share the arena and outlive a removal (`ARCv0_remove`): a band of one
        // capacity's keys, so that few are evicted into B1 and B2 and a purge leaves the arena sparse.
        run(try ARCv0Cache<Int, Int>.make(capacity: capacity), ARCv0Model(capacity: capacity), capacity: capacity,
            band: 1, seed: seed)
    }

    @Test("LRU-K, LFU (C++), S3-FIFOd and CLOCK-Pro", arguments: seeds)
    func rankedAndOthers(seed: UInt64) throws {
        let capacity = 60 + Int(seed) * 17
        let k = 1 + Int(seed) % 3
        // (LRU-K's request times rarely decide here: a miss enters the young list, which goes
        // first; `lruKHistory` checks that they follow their entries.)
        run(try LRUKCache<Int, Int>.make(capacity: capacity, options: ["k": "\(k)"]), LRUKModel(capacity: capacity, k: k),
            capacity: capacity, seed: seed)
        run(try LFUCppCache<Int, Int>.make(capacity: capacity), LFUCppModel(capacity: capacity), capacity: capacity, seed: seed)
        run(try S3FIFOdCache<Int, Int>.make(capacity: capacity, options: ["small-ratio": "0.2", "move-to-main-threshold": "2"]),
            S3FIFOdModel(capacity: capacity, smallRatio: 0.2, threshold: 2), capacity: capacity, seed: seed)
        // CLOCK-Pro holds at most its cold budget: twice the capacity when that is half of it,
        // so that the arena grows past the size at which it compacts.
        let options = seed % 2 == 0 ? ["init-ratio-cold": "0.5"] : [:]
        let clockProCapacity = seed % 2 == 0 ? 2 * capacity : capacity
        run(try ClockProCache<Int, Int>.make(capacity: clockProCapacity, options: options),
            ClockProModel(capacity: clockProCapacity, countLimit: nil, options: options), capacity: clockProCapacity, seed: seed)
    }

    @Test("LRU-K's last K request times follow their entries through a compaction", arguments: seeds)
    func lruKHistory(seed: UInt64) throws {
        let k = 2 + Int(seed) % 3
        var cache = try LRUKCache<Int, Int>.make(capacity: 500, options: ["k": "\(k)"])
        var observer = IgnoringObserver<Int, Int>()
        var rng = SeededRandom(seed: seed)
        for request in 0..<5_000 { _ = cache.access(Int.random(in: 0..<500, using: &rng), cost: 1, orInsert: request, observer: &observer) }
        /// Each resident key's kept request times, oldest first.
        func times(_ cache: LRUKCache<Int, Int>) -> [Int: [Int64]] {
            var result: [Int: [Int64]] = [:]
            cache.store.forEachResident { key, _, _ in
                let slot = cache.store.find(key)
                let n = Int(cache.store.aux(slot)), kept = min(n, cache.k)
                result[key] = (0..<kept).map { cache.history[Int(slot) * cache.k + (n - kept + $0) % cache.k] }
            }
            return result
        }
        var expected = times(cache)
        let slotsBefore = cache.store.slotCapacity
        for key in (0..<500).shuffled(using: &rng) where Int.random(in: 0..<10, using: &rng) != 0 {
            _ = cache.remove(key, observer: &observer)
            expected[key] = nil
        }
        #expect(cache.store.slotCapacity * 2 < slotsBefore, "the removals compacted the arena")
        #expect(times(cache) == expected)
        #expect(cache.history.count <= cache.store.slotCapacity * k, "the gone slots' times are given back")
    }

    // The library models compact at the start of a call (after its queued work) and at the end
    // of a removal; each against the reference model of its own differential test.

    @Test("YYMemoryCache, Nuke's LRU and clock, and swift-corelibs' NSCache", arguments: seeds)
    func libraryLists(seed: UInt64) throws {
        let capacity = 60 + Int(seed) * 17
        let maxCost = seed % 2 == 0 ? 3 : 1
        run(try YYMemoryCache<Int, Int>.make(capacity: capacity, options: ["drain-delay": "1", "age-limit": "20"]),
            ReferenceYYMemoryCache(costLimit: capacity, countLimit: .max, ageLimit: 20, interval: 5,
                                   removeAllOnMemoryWarning: true, removeAllOnBackground: true, drainDelay: 1),
            capacity: capacity, maxCost: maxCost, seed: seed, clock: true)
        run(try NukeLRUCache<Int, Int>.make(capacity: capacity, options: ["entry-cost-limit": "0.5", "ttl": "15"]),
            ReferenceNukeCache(clock: false, costLimit: capacity, countLimit: .max, ttl: 15, entryCostLimit: 0.5),
            capacity: capacity, maxCost: maxCost, seed: seed, clock: true)
        run(try NukeClockCache<Int, Int>.make(capacity: capacity, options: ["entry-cost-limit": "0.5", "ttl": "15"]),
            ReferenceNukeCache(clock: true, costLimit: capacity, countLimit: .max, ttl: 15, entryCostLimit: 0.5),
            capacity: capacity, maxCost: maxCost, seed: seed, clock: true)
        run(try CorelibsNSCache<Int, Int>.make(capacity: capacity), ReferenceCorelibsNSCache(totalCostLimit: capacity, countLimit: 0),
            capacity: capacity, maxCost: maxCost, seed: seed, clock: true)
    }

    @Test("The Darwin NSCache approximation, and Kingfisher's storage compacting the NSCache it wraps", arguments: seeds)
    func darwinNSCache(seed: UInt64) throws {
        let capacity = 60 + Int(seed) * 17
        let maxCost = seed % 2 == 0 ? 3 : 1
        let keep = seed % 2 == 1
        run(try DarwinNSCacheApproximation<Int, Int>.make(capacity: capacity, options: ["keep-position-on-reset": String(keep)]),
            ReferenceDarwinNSCache(costLimit: capacity, countLimit: .max, keepPositionOnReset: keep, memoryWarningFraction: 1,
                                   removeAllOnBackground: true),
            capacity: capacity, maxCost: maxCost, seed: seed, clock: true)
        run(try KingfisherMemoryStorage<Int, Int>.make(capacity: capacity, options: ["expiration": "40", "clean-interval": "9",
                                                                                     "keep-position-on-reset": String(keep)]),
            ReferenceKingfisherStorage(costLimit: capacity, countLimit: .max, expiration: 40, interval: 9,
                                       keepWhenEnteringBackground: false, keepPositionOnReset: keep),
            arena: { ($0.base.store.slotCapacity, $0.base.store.occupiedSlots) },
            capacity: capacity, maxCost: maxCost, seed: seed, clock: true)
    }

    @Test("PINMemoryCache (LRU and LFU), AFNetworking, SDWebImage's and YYCache's disk caches", arguments: seeds)
    func librarySorted(seed: UInt64) throws {
        let capacity = 60 + Int(seed) * 17
        let maxCost = seed % 2 == 0 ? 3 : 1
        for lfu in [false, true] {
            run(try PINMemoryCache<Int, Int>.make(capacity: capacity, options: ["eviction-strategy": lfu ? "lfu" : "lru"]),
                ReferencePINMemoryCache(costLimit: capacity, ageLimit: 0, ttl: false, lfu: lfu,
                                        removeAllOnMemoryWarning: true, removeAllOnBackground: true),
                capacity: capacity, maxCost: maxCost, seed: seed, clock: true)
        }
        run(try AFAutoPurgingImageCache<Int, Int>.make(capacity: capacity, options: ["preferred": "\(capacity / 2)B"]),
            ReferenceAutoPurgingCache(capacity: UInt64(capacity), preferred: UInt64(capacity / 2)),
            capacity: capacity, maxCost: maxCost, seed: seed, clock: true)
        run(try SDDiskCache<Int, Int>.make(capacity: capacity), ReferenceSDDiskCache(maxDiskSize: capacity, maxDiskAge: 604_800,
                                                                                     accessDates: true, blockSize: 1),
            capacity: capacity, maxCost: maxCost, seed: seed, clock: true)
        run(try YYDiskCache<Int, Int>.make(capacity: capacity, countLimit: capacity / 2,
                                           options: ["auto-trim-interval": "7", "age-limit": "30"]),
            ReferenceYYDiskCache(costLimit: capacity, countLimit: capacity / 2, ageLimit: 30, interval: 7,
                                 freeDiskSpaceLimit: 0, diskFreeSpace: 80),
            capacity: capacity, maxCost: maxCost, seed: seed, clock: true)
    }
}

/// Fills an arena and `heap` with 2,000 slots of few distinct priorities (so ties matter),
/// removes nine in ten, and checks that once the arena compacts and the heap is renumbered, the
/// heap holds every survivor and pops the same keys in the same order as before.
func expectSameOrderThroughCompaction<Heap>(
    _ heap: Heap, seed: UInt64, insert: (inout Heap, Int32, inout SeededRandom) -> Void,
    remove: (inout Heap, Int32) -> Void, pop: (inout Heap) -> Int32?, contains: (Heap, Int32) -> Bool,
    relocate: (inout Heap, SlotRelocation) -> Void, sourceLocation: SourceLocation = #_sourceLocation
) {
    var heap = heap
    var rng = SeededRandom(seed: seed)
    var arena = SlotArena<Int, Void>()
    for key in 0..<2_000 { insert(&heap, arena.allocate(key: key, value: (), cost: 1), &rng) }
    for key in (0..<2_000).shuffled(using: &rng) where Int.random(in: 0..<10, using: &rng) != 0 {
        let slot = arena.find(key)
        remove(&heap, slot)
        arena.release(slot)
    }
    var reference = heap
    var expected: [Int] = []
    while let slot = pop(&reference) { expected.append(arena.key(slot)) }
    guard let relocation = arena.compactIfSparse() else {
        Issue.record("a tenth-full arena was not compacted", sourceLocation: sourceLocation)
        return
    }
    relocate(&heap, relocation)
    #expect(arena.slotCapacity == expected.count, sourceLocation: sourceLocation)
    for key in expected { #expect(contains(heap, arena.find(key)), "key \(key)", sourceLocation: sourceLocation) }
    var popped: [Int] = []
    while let slot = pop(&heap) { popped.append(arena.key(slot)) }
    #expect(popped == expected, sourceLocation: sourceLocation)
}

/// GDSF's heap through a compaction: the slots it holds are renumbered, the order is not.
@Suite("IndexedMinHeap through a compaction")
struct IndexedMinHeapRelocationTests {
    @Test("after 90 % of the slots leave and the arena compacts, the heap pops the same keys in the same order",
          arguments: [1, 2, 3] as [UInt64])
    func sameOrder(seed: UInt64) {
        expectSameOrderThroughCompaction(
            IndexedMinHeap(), seed: seed,
            insert: { heap, slot, rng in
                heap.insert(slot, priority: Double(Int.random(in: 0..<20, using: &rng)), tie: Int64(Int.random(in: 0..<50, using: &rng)))
            },
            remove: { $0.remove($1) }, pop: { $0.isEmpty ? nil : $0.popMinimum().slot }, contains: { $0.contains($1) },
            relocate: { $0.relocate($1) })
    }
}

/// Belady's and Size's heap (libCacheSim's pqueue) through a compaction: the order, ties
/// included (broken by the heap's shape), is not renumbered with the slots.
@Suite("PQueueMaxHeap through a compaction")
struct PQueueMaxHeapRelocationTests {
    @Test("after 90 % of the slots leave and the arena compacts, the heap pops the same keys in the same order",
          arguments: [1, 2, 3] as [UInt64])
    func sameOrder(seed: UInt64) {
        expectSameOrderThroughCompaction(
            PQueueMaxHeap(), seed: seed,
            insert: { heap, slot, rng in heap.insert(slot, priority: Double(Int.random(in: 0..<20, using: &rng))) },
            remove: { $0.remove($1) }, pop: { $0.count > 0 ? $0.popMaximum() : nil }, contains: { $0.contains($1) },
            relocate: { $0.relocate($1) })
    }
}
