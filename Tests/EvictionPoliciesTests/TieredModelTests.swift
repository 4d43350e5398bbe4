import EvictionPolicies
import TestSupport
import Testing

/// Two reference models composed as the YYCache and SDWebImage articles of EvictionPolicies.docc describe the facades: memory,
/// then disk, then a miss; a disk hit copied into memory; stores to both; removes and events to
/// both. Both tiers are advanced at every step, so the lazy clock of the disk tier under test is
/// checked against an eager one.
struct ReferenceTier<Memory: ReferenceModel, Disk: ReferenceModel> {
    var memory: Memory
    var disk: Disk
    var zeroMemoryCost: Bool

    func memoryCost(_ cost: Int) -> Int { zeroMemoryCost ? 0 : cost }

    /// Returns where the key was found ("memory", "disk" or "none") and each tier's passes.
    mutating func get(_ key: Int, cost: Int) -> (String, [Pass], [Pass]) {
        let (memoryHit, memoryPasses) = memory.lookup(key)
        if memoryHit { return ("memory", memoryPasses, []) }
        let (diskHit, diskPasses) = disk.lookup(key)
        if diskHit { return ("disk", memoryPasses + memory.set(key, cost: memoryCost(cost)), diskPasses) }
        let stored = memory.set(key, cost: memoryCost(cost))
        return ("none", memoryPasses + stored, diskPasses + disk.set(key, cost: cost))
    }
}

/// Drives a TieredModel whose disk tier records its own passes, and the composed references,
/// with one random sequence; compares the source of every get and lookup, both tiers' passes
/// and both tiers' sizes, stopping at the first difference.
///
/// The disk tier's clock is lazy: the timer passes the reference's disk makes during an advance
/// surface at the tier's next call (or at ``TieredModel/synchronizeDisk()``), so they are owed
/// until then, and the disk's sizes are compared only when nothing is owed.
/// The value the tiered tests store under `key`, so a lookup or an eviction can be checked against its key.
func tierValue(_ key: Int) -> Int { key &* 10 + 7 }

func expectSameTiering<M: EvictionPolicy, D: EvictionPolicy, RM: ReferenceModel, RD: ReferenceModel>(
    _ cache: inout TieredModel<M, ObservedTier<D, EvictionRecorder<Int, Int>>>, _ reference: inout ReferenceTier<RM, RD>,
    _ ops: [TestOp], label: String, sourceLocation: SourceLocation = #_sourceLocation
) where M.Key == Int, M.Value == Int, D.Key == Int, D.Value == Int {
    var memoryRecorder = EvictionRecorder<Int, Int>()
    var owedDisk: [Pass] = []
    func sorted(_ passes: [Pass]) -> [Pass] { passes.map { Pass(kind: $0.kind, keys: $0.keys.sorted()) } }
    for (index, op) in ops.enumerated() {
        var expectedMemory: [Pass] = [], expectedDisk: [Pass] = []
        var mismatch: String?
        // Whether the disk tier is called: then it catches up with the owed timer passes.
        var touchedDisk = true
        switch op {
        case .get(let key, let cost):
            let source = cache.access(key, cost: cost, orInsert: tierValue(key), observer: &memoryRecorder)
            let (expected, m, d) = reference.get(key, cost: cost)
            (expectedMemory, expectedDisk) = (m, d)
            touchedDisk = expected != "memory"
            let actual = source?.rawValue ?? "none"
            if actual != expected { mismatch = "source \(actual), reference \(expected)" }
        case .lookup(let key):
            let found = cache.lookup(key, size: 3, observer: &memoryRecorder)
            let (memoryHit, memoryPasses) = reference.memory.lookup(key)
            var expected = memoryHit ? "memory" : "none"
            expectedMemory = memoryPasses
            touchedDisk = !memoryHit
            if !memoryHit {
                let (diskHit, diskPasses) = reference.disk.lookup(key)
                expectedDisk = diskPasses
                if diskHit {
                    expected = "disk"
                    expectedMemory += reference.memory.set(key, cost: reference.memoryCost(3))
                }
            }
            let actual = found?.source.rawValue ?? "none"
            if actual != expected { mismatch = "lookup source \(actual), reference \(expected)" }
            if let found, found.value != tierValue(key) { mismatch = "lookup returned \(found.value)" }
        case .set(let key, let cost):
            cache.insert(tierValue(key), forKey: key, cost: cost, observer: &memoryRecorder)
            expectedMemory = reference.memory.set(key, cost: reference.memoryCost(cost))
            expectedDisk = reference.disk.set(key, cost: cost)
        case .delete(let key):
            let removed = cache.remove(key, observer: &memoryRecorder)
            let (inMemory, m) = reference.memory.delete(key)
            let (onDisk, d) = reference.disk.delete(key)
            (expectedMemory, expectedDisk) = (m, d)
            if (removed != nil) != (inMemory || onDisk) { mismatch = "removed \(removed != nil), reference \(inMemory || onDisk)" }
        case .event(let event):
            cache.handle(event, observer: &memoryRecorder)
            expectedMemory = reference.memory.event(event)
            expectedDisk = reference.disk.event(event)
        case .advance(let time):
            cache.advance(to: time, observer: &memoryRecorder)
            expectedMemory = reference.memory.advance(to: time)
            owedDisk += reference.disk.advance(to: time)
            touchedDisk = false
        }
        let memoryPasses = memoryRecorder.takePasses(), diskPasses = cache.disk.observer.takePasses()
        for pass in memoryPasses + diskPasses {
            for (key, value) in zip(pass.keys, pass.values) where value != tierValue(key) {
                mismatch = mismatch ?? "key \(key) evicted with value \(value)"
            }
        }
        var actualMemory = memoryPasses.map { Pass(kind: $0.kind, keys: $0.keys) }
        var actualDisk = diskPasses.map { Pass(kind: $0.kind, keys: $0.keys) }
        if touchedDisk {
            expectedDisk = owedDisk + expectedDisk
            owedDisk = []
        }
        if case .event = op {
            actualMemory = sorted(actualMemory)
            expectedMemory = sorted(expectedMemory)
            actualDisk = sorted(actualDisk)
            expectedDisk = sorted(expectedDisk)
        }
        if mismatch == nil, actualMemory != expectedMemory { mismatch = "memory passes \(actualMemory), reference \(expectedMemory)" }
        if mismatch == nil, actualDisk != expectedDisk { mismatch = "disk passes \(actualDisk), reference \(expectedDisk)" }
        if mismatch == nil, cache.memory.count != reference.memory.count || cache.memory.totalCost != reference.memory.totalCost {
            mismatch = "memory count \(cache.memory.count) cost \(cache.memory.totalCost), reference \(reference.memory.count) \(reference.memory.totalCost)"
        }
        if mismatch == nil, owedDisk.isEmpty,
           cache.disk.policy.count != reference.disk.count || cache.disk.policy.totalCost != reference.disk.totalCost {
            mismatch = "disk count \(cache.disk.policy.count) cost \(cache.disk.policy.totalCost), reference \(reference.disk.count) \(reference.disk.totalCost)"
        }
        let violations = memoryRecorder.contractViolations + cache.disk.observer.contractViolations
        if mismatch == nil, !violations.isEmpty { mismatch = "observer contract: \(violations)" }
        if let mismatch {
            let context = ops[max(0, index - 8)...index].map(\.description).joined(separator: "; ")
            Issue.record("\(label): operation \(index) (\(op)): \(mismatch). Last operations: \(context)",
                         sourceLocation: sourceLocation)
            return
        }
    }
    cache.synchronizeDisk()
    let actual = cache.disk.observer.takeModelPasses()
    if actual != owedDisk {
        Issue.record("\(label): final disk passes \(actual), reference \(owedDisk)", sourceLocation: sourceLocation)
    }
}

@Suite("TieredModel: memory, then disk, then a miss (EvictionPolicies.docc: YYCache.md, SDWebImage.md)")
struct TieredModelTests {
    typealias Disk<P: EvictionPolicy> = ObservedTier<P, EvictionRecorder<String, Int>> where P.Key == String, P.Value == Int

    func tiers<M: EvictionPolicy, D: EvictionPolicy>(_ memory: M, _ disk: D, cost: TierMemoryCost = .size)
        -> TieredModel<M, Disk<D>> where M.Key == String, M.Value == Int, D.Key == String, D.Value == Int {
        TieredModel(memory: memory, disk: ObservedTier(disk, observer: EvictionRecorder()), memoryCost: cost)
    }

    @Test("a get is a memory hit, a disk hit (copied into memory) or a miss (stored in both)")
    func sources() throws {
        var cache = tiers(try LRUCache<String, Int>.make(countLimit: 1), try LRUCache<String, Int>.make())
        var observer = EvictionRecorder<String, Int>()
        #expect(cache.access("a", cost: 1, orInsert: 1, observer: &observer) == nil)
        #expect(cache.access("a", cost: 1, orInsert: 1, observer: &observer) == .memory)
        #expect(cache.access("b", cost: 1, orInsert: 2, observer: &observer) == nil)
        #expect(observer.take() == ["a"])
        let found = cache.lookup("a", size: 1, observer: &observer)
        #expect(found?.source == .disk && found?.value == 1)
        #expect(observer.take() == ["b"] && cache.memory.contains("a"))
        #expect(cache.access("a", cost: 1, orInsert: 1, observer: &observer) == .memory)
        #expect(cache.disk.policy.count == 2 && cache.disk.observer.evicted.isEmpty)
        #expect(cache.remove("b", observer: &observer) == 2)
        #expect(cache.lookup("b", size: 1, observer: &observer) == nil)
    }

    @Test("memory copies cost the size (SDImageCache) or zero (YYCache's facade, which leaves the cost limit inert)")
    func memoryCost() throws {
        for cost in TierMemoryCost.allCases {
            var cache = tiers(try YYMemoryCache<String, Int>.make(capacity: 10), try YYDiskCache<String, Int>.make(), cost: cost)
            var observer = EvictionRecorder<String, Int>()
            _ = cache.access("a", cost: 6, orInsert: 1, observer: &observer)
            _ = cache.access("b", cost: 6, orInsert: 2, observer: &observer)
            _ = cache.lookup("c", size: 1, observer: &observer)          // runs the queued cost trim
            #expect(cache.memory.totalCost == (cost == .size ? 6 : 0))
            #expect(observer.evicted == (cost == .size ? ["a"] : []))
            #expect(cache.disk.policy.totalCost == 12)
            if cost == .size { #expect(cache.access("a", cost: 6, orInsert: 1, observer: &observer) == .disk) }
        }
    }

    @Test("events reach both tiers: SD's memory warning clears memory only; background also cleans the disk")
    func events() throws {
        var cache = tiers(try SDMemoryCache<String, Int>.make(), try SDDiskCache<String, Int>.make(capacity: 10))
        var observer = EvictionRecorder<String, Int>()
        for (i, key) in ["a", "b", "c"].enumerated() { _ = cache.access(key, cost: 4, orInsert: i, observer: &observer) }
        cache.handle(.memoryWarning, observer: &observer)
        #expect(cache.memory.count == 0 && cache.disk.policy.count == 3)
        #expect(cache.access("a", cost: 4, orInsert: 0, observer: &observer) == .disk)
        cache.handle(.background, observer: &observer)                   // memory purged; disk 12 > 10: down below 5
        #expect(cache.memory.count == 0)
        #expect(cache.disk.observer.evicted == ["b", "c"] && cache.disk.policy.count == 1)
    }

    @Test("the disk tier's timers fire at their own times although its clock moves only when it is called")
    func lazyDiskClock() throws {
        var cache = tiers(try LRUCache<String, Int>.make(countLimit: 1), try YYDiskCache<String, Int>.make(countLimit: 1))
        var observer = EvictionRecorder<String, Int>()
        cache.advance(to: 0, observer: &observer)
        _ = cache.access("a", cost: 1, orInsert: 1, observer: &observer)
        cache.advance(to: 30, observer: &observer)
        _ = cache.access("b", cost: 1, orInsert: 2, observer: &observer)
        cache.advance(to: 61, observer: &observer)
        #expect(cache.disk.policy.count == 2, "the disk has not been called since t = 30")
        _ = cache.access("b", cost: 1, orInsert: 2, observer: &observer)  // a memory hit: still not called
        #expect(cache.disk.observer.passes.isEmpty)
        cache.advance(to: 200, observer: &observer)
        cache.synchronizeDisk()                                           // the tick at 60 removed a
        #expect(cache.disk.observer.evicted == ["a"] && cache.disk.observer.passes == [.deferred])
    }

    @Test("differential: yy-lru over yy-disk, as YYCache, with memory cost zero and size", arguments: 1...8)
    func yyCache(seed: UInt64) throws {
        var rng = SeededRandom(seed: seed)
        let zero = seed % 2 == 0
        let capacity = Int.random(in: 5...40, using: &rng), count = Int.random(in: 1...6, using: &rng)
        let diskCount = Int.random(in: 2...12, using: &rng)
        var cache = TieredModel(memory: try YYMemoryCache<Int, Int>.make(capacity: capacity, countLimit: count),
                                disk: ObservedTier(try YYDiskCache<Int, Int>.make(countLimit: diskCount, options: ["auto-trim-interval": "7"]),
                                                   observer: EvictionRecorder<Int, Int>()),
                                memoryCost: zero ? .zero : .size)
        var reference = ReferenceTier(
            memory: ReferenceYYMemoryCache(costLimit: capacity, countLimit: count, ageLimit: .infinity, interval: 5,
                                           removeAllOnMemoryWarning: true, removeAllOnBackground: true, drainDelay: 0),
            disk: ReferenceYYDiskCache(costLimit: .max, countLimit: diskCount, ageLimit: .infinity, interval: 7),
            zeroMemoryCost: zero)
        var mix = OperationMix(keys: Int.random(in: 4...30, using: &rng), maxCost: 10)
        mix.terminate = true
        expectSameTiering(&cache, &reference, mix.make(count: 3_000, using: &rng), label: "seed \(seed) zero \(zero)")
    }

    @Test("differential: sd-memory (weak map) over sd-disk, as SDImageCache", arguments: 1...8)
    func sdImageCache(seed: UInt64) throws {
        var rng = SeededRandom(seed: seed)
        let capacity = Int.random(in: 5...40, using: &rng), diskCapacity = Int.random(in: 10...80, using: &rng)
        let window = Int.random(in: 0...5, using: &rng), age = [3.0, 20, 604_800][Int.random(in: 0..<3, using: &rng)]
        var cache = TieredModel(
            memory: try SDMemoryCache<Int, Int>.make(capacity: capacity, options: ["weak-cache": "true", "held-window": "\(window)"]),
            disk: ObservedTier(try SDDiskCache<Int, Int>.make(capacity: diskCapacity, options: ["max-disk-age": "\(age)"]),
                               observer: EvictionRecorder<Int, Int>()))
        var reference = ReferenceTier(
            memory: ReferenceSDMemoryCache(costLimit: capacity, countLimit: .max, weak: true, window: window,
                                           keepPositionOnReset: true, removeAllOnBackground: true),
            disk: ReferenceSDDiskCache(maxDiskSize: diskCapacity, maxDiskAge: age, accessDates: true, blockSize: 1),
            zeroMemoryCost: false)
        var mix = OperationMix(keys: Int.random(in: 4...30, using: &rng), maxCost: 10)
        mix.terminate = true
        expectSameTiering(&cache, &reference, mix.make(count: 3_000, using: &rng), label: "seed \(seed)")
    }

    @Test("differential: nuke-clock over yy-disk, pin-memory over sd-disk, kingfisher over yy-disk", arguments: 1...6)
    func otherPairs(seed: UInt64) throws {
        var rng = SeededRandom(seed: seed)
        var mix = OperationMix(keys: Int.random(in: 4...30, using: &rng), maxCost: 10)
        mix.terminate = true
        let ops = mix.make(count: 2_000, using: &rng)
        let capacity = Int.random(in: 20...80, using: &rng), diskCount = Int.random(in: 2...12, using: &rng)

        var nuke = TieredModel(memory: try NukeClockCache<Int, Int>.make(capacity: capacity, options: ["ttl": "4"]),
                               disk: ObservedTier(try YYDiskCache<Int, Int>.make(countLimit: diskCount, options: ["age-limit": "9"]),
                                                  observer: EvictionRecorder<Int, Int>()))
        var nukeReference = ReferenceTier(
            memory: ReferenceNukeCache(clock: true, costLimit: capacity, countLimit: .max, ttl: 4, entryCostLimit: 0.1),
            disk: ReferenceYYDiskCache(costLimit: .max, countLimit: diskCount, ageLimit: 9, interval: 60),
            zeroMemoryCost: false)
        expectSameTiering(&nuke, &nukeReference, ops, label: "nuke-clock/yy-disk seed \(seed)")

        var pin = TieredModel(memory: try PINMemoryCache<Int, Int>.make(capacity: capacity, options: ["age-limit": "5"]),
                              disk: ObservedTier(try SDDiskCache<Int, Int>.make(capacity: capacity, options: ["expire-type": "modification"]),
                                                 observer: EvictionRecorder<Int, Int>()))
        var pinReference = ReferenceTier(
            memory: ReferencePINMemoryCache(costLimit: capacity, ageLimit: 5, ttl: false, lfu: false,
                                            removeAllOnMemoryWarning: true, removeAllOnBackground: true),
            disk: ReferenceSDDiskCache(maxDiskSize: capacity, maxDiskAge: 604_800, accessDates: false, blockSize: 1),
            zeroMemoryCost: false)
        expectSameTiering(&pin, &pinReference, ops, label: "pin-memory/sd-disk seed \(seed)")

        var kingfisher = TieredModel(
            memory: try KingfisherMemoryStorage<Int, Int>.make(capacity: capacity, options: ["expiration": "6", "clean-interval": "4"]),
            disk: ObservedTier(try YYDiskCache<Int, Int>.make(capacity: capacity, options: ["auto-trim-interval": "3"]),
                               observer: EvictionRecorder<Int, Int>()))
        var kingfisherReference = ReferenceTier(
            memory: ReferenceKingfisherStorage(costLimit: capacity, countLimit: .max, expiration: 6, interval: 4,
                                               keepWhenEnteringBackground: false, keepPositionOnReset: true),
            disk: ReferenceYYDiskCache(costLimit: capacity, countLimit: .max, ageLimit: .infinity, interval: 3),
            zeroMemoryCost: false)
        expectSameTiering(&kingfisher, &kingfisherReference, ops, label: "kingfisher/yy-disk seed \(seed)")
    }
}
