@testable import EvictionPolicies
import Testing
import TestSupport

/// A compaction renumbers slots and must change no decision. Every policy that compacts
/// (``SlotRelocatingPolicy``) replays purge cycles twice: once as it runs, its arena compacting
/// after each removal burst, and once with compaction switched off (`SlotArena.compacts`). Both
/// must answer every request alike and evict the same keys in the same order. The reference is
/// the policy itself without compaction, so this covers the policies no array model describes
/// (the seeded probabilistic ones) as well as those that have one.
@Suite("A compaction changes no decision")
struct CompactionChangesNothingTests {
    /// What one operation answered and evicted.
    struct Step: Equatable {
        var hit: Bool?
        var value: Int?
        var evicted: [Int]
    }

    /// Plays `ops` on `policy`, telling it each request's next request first (Belady reads it);
    /// returns what each operation did and how often the arena compacted (its slot count fell to
    /// its slots in use, below half its peak).
    static func replay<P: EvictionPolicy>(_ policy: inout P, _ ops: [TestOp], arena: (P) -> (slots: Int, occupied: Int))
        -> (steps: [Step], compactions: Int) where P.Key == Int, P.Value == Int {
        let next = TestOp.distinctNextAccesses(ops)
        var recorder = EvictionRecorder<Int, Int>()
        var steps: [Step] = []
        var compactions = 0, peak = 0
        for (index, op) in ops.enumerated() {
            policy.noteNextAccess(next[index])
            var step = Step(hit: nil, value: nil, evicted: [])
            switch op {
            case .get(let key, let cost): step.hit = policy.access(key, cost: cost, orInsert: index, observer: &recorder)
            case .set(let key, let cost): policy.insert(index, forKey: key, cost: cost, observer: &recorder)
            case .delete(let key): step.value = policy.remove(key, observer: &recorder)
            case .lookup(let key): step.value = policy.lookup(key, observer: &recorder)
            case .advance(let time): policy.advance(to: time, observer: &recorder)
            case .event(let event): policy.handle(event, observer: &recorder)
            }
            step.evicted = recorder.take()
            steps.append(step)
            let (slots, occupied) = arena(policy)
            if slots == occupied && slots * 2 < peak { compactions += 1; peak = slots }
            peak = max(peak, slots)
        }
        #expect(recorder.contractViolations.filter { !$0.contains("evicted nothing") }.isEmpty)
        return (steps, compactions)
    }

    /// Replays purge cycles on `policy` with and without compaction and compares every step.
    func check<P: EvictionPolicy>(_ policy: P, capacity: Int, maxCost: Int, seed: UInt64, band: Int = 2,
                                  arena: @escaping (P) -> (slots: Int, occupied: Int),
                                  switchOff: (inout P) -> Void,
                                  sourceLocation: SourceLocation = #_sourceLocation) where P.Key == Int, P.Value == Int {
        check(policy, CompactingPolicyTests.purgeCycles(capacity: capacity, band: band, maxCost: maxCost, seed: seed, clock: true),
              seed: seed, arena: arena, switchOff: switchOff, sourceLocation: sourceLocation)
    }

    /// Replays `ops` on `policy` with and without compaction and compares every step.
    func check<P: EvictionPolicy>(_ policy: P, _ ops: [TestOp], seed: UInt64, arena: @escaping (P) -> (slots: Int, occupied: Int),
                                  switchOff: (inout P) -> Void,
                                  sourceLocation: SourceLocation = #_sourceLocation) where P.Key == Int, P.Value == Int {
        var compacting = policy, plain = policy
        switchOff(&plain)
        let (expected, none) = Self.replay(&plain, ops, arena: arena)
        let (got, compactions) = Self.replay(&compacting, ops, arena: arena)
        let name = P.descriptor.name
        #expect(none == 0, "\(name): compacted with compaction off", sourceLocation: sourceLocation)
        #expect(compactions > 0, "\(name): no removal burst compacted the arena", sourceLocation: sourceLocation)
        if let first = got.indices.first(where: { got[$0] != expected[$0] }) {
            Issue.record("\(name) seed \(seed): operation \(first) (\(ops[first])) did \(got[first]) with compaction, \(expected[first]) without",
                         sourceLocation: sourceLocation)
        }
    }

    /// ``check(_:capacity:maxCost:seed:band:arena:switchOff:sourceLocation:)`` for a policy
    /// with an arena of its own.
    func check<P: ArenaPolicy>(_ policy: P, capacity: Int, maxCost: Int = 3, seed: UInt64, band: Int = 2,
                               sourceLocation: SourceLocation = #_sourceLocation) where P.Key == Int, P.Value == Int {
        check(policy, CompactingPolicyTests.purgeCycles(capacity: capacity, band: band, maxCost: maxCost, seed: seed, clock: true),
              seed: seed, sourceLocation: sourceLocation)
    }

    /// ``check(_:_:seed:arena:switchOff:sourceLocation:)`` for a policy with an arena of its own.
    func check<P: ArenaPolicy>(_ policy: P, _ ops: [TestOp], seed: UInt64,
                               sourceLocation: SourceLocation = #_sourceLocation) where P.Key == Int, P.Value == Int {
        check(policy, ops, seed: seed, arena: { ($0.store.slotCapacity, $0.store.occupiedSlots) },
              switchOff: { $0.store.compacts = false }, sourceLocation: sourceLocation)
    }

    static let seeds: [UInt64] = [1, 2, 3]

    @Test("research policies", arguments: seeds)
    func research(seed: UInt64) throws {
        let c = 200 + Int(seed) * 37
        check(try LRUCache<Int, Int>.make(capacity: c), capacity: c, seed: seed)
        check(try FIFOCache<Int, Int>.make(capacity: c), capacity: c, seed: seed)
        check(try LIFOCache<Int, Int>.make(capacity: c), capacity: c, seed: seed)
        check(try MRUCache<Int, Int>.make(capacity: c), capacity: c, seed: seed)
        check(try ClockCache<Int, Int>.make(capacity: c, options: ["bits": "2"]), capacity: c, seed: seed)
        check(try SieveCache<Int, Int>.make(capacity: c), capacity: c, seed: seed)
        check(try LFUCache<Int, Int>.make(capacity: c), capacity: c, seed: seed)
        check(try S3FIFOCache<Int, Int>.make(capacity: c), capacity: c, seed: seed)
        check(try QDLPCache<Int, Int>.make(capacity: c), capacity: c, seed: seed)
        check(try Clock2QPlusCache<Int, Int>.make(capacity: c), capacity: c, seed: seed)
        check(try ARCCache<Int, Int>.make(capacity: c), capacity: c, seed: seed)
        check(try CARCache<Int, Int>.make(capacity: c), capacity: c, seed: seed)
        check(try TwoQCache<Int, Int>.make(capacity: c), capacity: c, seed: seed)
        check(try LIRSCache<Int, Int>.make(capacity: c), capacity: c, seed: seed, band: 4)
        check(try WTinyLFUCache<Int, Int>.make(capacity: c), capacity: c, seed: seed)
        check(try LibCacheSimWTinyLFUCache<Int, Int>.make(capacity: c), capacity: c, seed: seed)
        check(try GDSFCache<Int, Int>.make(capacity: c), capacity: c, seed: seed)
        check(try SLRUCache<Int, Int>.make(capacity: c), capacity: c, seed: seed)
        check(try SLRUv0Cache<Int, Int>.make(capacity: c), capacity: c, seed: seed)
        check(try MQCache<Int, Int>.make(capacity: c, options: ["lifetime": "20"]), capacity: c, seed: seed)
        check(try ARCv0Cache<Int, Int>.make(capacity: c), capacity: c, maxCost: 1, seed: seed, band: 1)
        check(try LRUKCache<Int, Int>.make(capacity: c, options: ["k": "2"]), capacity: c, seed: seed)
        check(try LFUCppCache<Int, Int>.make(capacity: c), capacity: c, seed: seed)
        check(try S3FIFOdCache<Int, Int>.make(capacity: c), capacity: c, seed: seed)
        check(try ClockProCache<Int, Int>.make(capacity: c), capacity: c, seed: seed)
        check(try SizeCache<Int, Int>.make(capacity: c), capacity: c, seed: seed)
        check(try BeladyCache<Int, Int>.make(capacity: c), capacity: c, seed: seed)
        check(try LFUDACache<Int, Int>.make(capacity: c), capacity: c, seed: seed)
        // The seeded probabilistic policies: their draws do not depend on slot numbers.
        check(try LRUProbCache<Int, Int>.make(capacity: c, options: ["seed": "\(seed)"]), capacity: c, seed: seed)
        check(try FlashProbCache<Int, Int>.make(capacity: c, options: ["seed": "\(seed)"]), capacity: c, seed: seed)
        check(try FIFOMergeCache<Int, Int>.make(capacity: c, options: ["n-exam": "20", "seed": "\(seed)"]), capacity: c, seed: seed)
        check(try FIFOMergeCache<Int, Int>.make(capacity: c, options: ["n-exam": "20", "retain-policy": "recency"]),
              capacity: c, seed: seed)
        check(try LeCaRCache<Int, Int>.make(capacity: c, options: ["seed": "\(seed)"]), capacity: c, seed: seed)
        check(try CacheusCache<Int, Int>.make(capacity: c, options: ["seed": "\(seed)"]), capacity: c, seed: seed)
        check(try LHDCache<Int, Int>.make(capacity: c, options: ["seed": "\(seed)"]), capacity: c, seed: seed)
        // The random family: a draw takes the residents by their places in a dense array or by
        // their chains' filing order, neither of which a compaction changes.
        check(try RandomCache<Int, Int>.make(capacity: c, options: ["seed": "\(seed)"]), capacity: c, seed: seed)
        check(try RandomTwoCache<Int, Int>.make(capacity: c, options: ["seed": "\(seed)"]), capacity: c, seed: seed)
        // With the look-ahead on at this size (it starts at thousands of residents), so that the
        // draws it plans ahead go through compactions too.
        var random = try RandomCache<Int, Int>.make(capacity: c, options: ["seed": "\(seed)"])
        random.residents.sample.lookAheadResidents = 0
        check(random, capacity: c, seed: seed)
        var randomTwo = try RandomTwoCache<Int, Int>.make(capacity: c, options: ["seed": "\(seed)"])
        randomTwo.residents.sample.lookAheadResidents = 0
        check(randomTwo, capacity: c, seed: seed)
        check(try RandomLRUCache<Int, Int>.make(capacity: c, options: ["seed": "\(seed)", "n-samples": "4"]),
              capacity: c, seed: seed)
        check(try HyperbolicCache<Int, Int>.make(capacity: c, options: ["seed": "\(seed)"]), capacity: c, seed: seed)
        check(try BeladySizeCache<Int, Int>.make(capacity: c, options: ["seed": "\(seed)"]), capacity: c, seed: seed)
    }

    /// Cacheus keeps the keys it evicted (H) in its arena, and a removal leaves them there, so a
    /// purge leaves the arena sparse only while H is small: fill, evict a few dozen into H,
    /// remove nine residents in ten, then request H's keys (which come back with their counts)
    /// and others.
    @Test("Cacheus's history keys through a compaction", arguments: seeds)
    func cacheusHistory(seed: UInt64) throws {
        var rng = SeededRandom(seed: seed)
        let c = 300
        var ops: [TestOp] = []
        // Counts of 1 to 8, which the evicted keys carry into H and back.
        for round in 0..<8 { for key in 0..<c where key % 8 >= round { ops.append(.get(key, cost: 1)) } }
        for key in c..<(c + 40) { ops.append(.get(key, cost: 1)) }
        for key in (0..<(c + 40)).shuffled(using: &rng) where Int.random(in: 0..<10, using: &rng) != 0 { ops.append(.delete(key)) }
        for _ in 0..<(2 * c) { ops.append(.get(Int.random(in: 0..<(2 * c), using: &rng), cost: 1)) }
        check(try CacheusCache<Int, Int>.make(capacity: c, options: ["seed": "\(seed)"]), ops, seed: seed)
    }

    @Test("app library models", arguments: seeds)
    func libraries(seed: UInt64) throws {
        let c = 200 + Int(seed) * 37
        check(try YYMemoryCache<Int, Int>.make(capacity: c), capacity: c, seed: seed)
        check(try YYDiskCache<Int, Int>.make(capacity: c), capacity: c, seed: seed)
        check(try PINMemoryCache<Int, Int>.make(capacity: c), capacity: c, seed: seed)
        check(try NukeLRUCache<Int, Int>.make(capacity: c), capacity: c, seed: seed)
        check(try NukeClockCache<Int, Int>.make(capacity: c), capacity: c, seed: seed)
        check(try AFAutoPurgingImageCache<Int, Int>.make(capacity: c), capacity: c, seed: seed)
        check(try CorelibsNSCache<Int, Int>.make(capacity: c), capacity: c, seed: seed)
        check(try DarwinNSCacheApproximation<Int, Int>.make(capacity: c), capacity: c, seed: seed)
        check(try SDDiskCache<Int, Int>.make(capacity: c), capacity: c, seed: seed)
        check(try KingfisherMemoryStorage<Int, Int>.make(capacity: c), capacity: c, maxCost: 3, seed: seed,
              arena: { ($0.base.store.slotCapacity, $0.base.store.occupiedSlots) }, switchOff: { $0.base.store.compacts = false })
    }
}
