import CacheBench
import EvictionPolicies
import TestSupport
import Testing

/// When a policy promises its limits hold.
enum LimitCheck: Sendable {
    /// After every call (research policies, synchronous library trims).
    case afterEveryCall
    /// After deferred work has run, i.e. at the start of the next call (AFNetworking's barrier
    /// purge, YYMemoryCache's queued cost trim); checked after a lookup of an absent key.
    case afterDeferredWork
    /// The library promises nothing (Darwin NSCache's documentation: "not a strict limit").
    case none
}

/// One policy type under the invariant test.
struct InvariantSubject: Sendable, CustomTestStringConvertible {
    var name: String
    var limits: LimitCheck
    var run: @Sendable (UInt64) throws -> Void
    /// Replays a seeded random trace through ``Replayer`` with key hints ahead and without;
    /// returns both runs' counters, which must be equal.
    var replayWithAndWithoutHints: @Sendable (UInt64) throws -> (hinted: ReplayCounters, indexHinted: ReplayCounters, plain: ReplayCounters)
    var testDescription: String { name }

    /// - Parameter expiresInPlace: a resident entry may be a miss without being evicted
    ///   (Kingfisher's expired objects stay until its sweep; the miss stores a new one over them).
    static func of<P: EvictionPolicy & SendableMetatype>(_ type: P.Type, limits: LimitCheck, expiresInPlace: Bool = false)
        -> InvariantSubject where P.Key == UInt64, P.Value == Void {
        InvariantSubject(name: P.descriptor.name, limits: limits, run: { seed in
            var run = try InvariantRun<P>(seed: seed, limits: limits)
            run.expiresInPlace = expiresInPlace
            try run.run()
        }, replayWithAndWithoutHints: { seed in
            let trace = try hintTrace(seed: seed)
            return (try replay(P.self, trace, prefetchResidents: 0, entryPrefetchResidents: 0),
                    try replay(P.self, trace, prefetchResidents: 0, entryPrefetchResidents: .max),
                    try replay(P.self, trace, prefetchResidents: .max, entryPrefetchResidents: .max))
        })
    }

    /// 2·10^4 requests over 3,000 keys of 1–2,000 bytes in batches of 1,000: a tenth of them
    /// sets and deletes, one in a hundred a memory warning or a move to the background (the disk
    /// caches' trims), time moving a second every 50 requests (timers and age limits act).
    /// Each request carries its next access as the engine computes it (``NextAccessTable``), for
    /// Belady and BeladySize.
    static func hintTrace(seed: UInt64) throws -> [[Request]] {
        var rng = SeededRandom(seed: seed)
        var rows = (0..<20_000).map { row in
            let operation: Operation = switch Int.random(in: 0..<200, using: &rng) {
            case 0..<10: .set
            case 10..<20: .delete
            case 20: .memoryWarning
            case 21: .background
            default: .get
            }
            return Request(time: Double(row / 50), key: UInt64.random(in: 0..<3_000, using: &rng),
                           size: Int.random(in: 1...2_000, using: &rng), operation: operation)
        }
        var reader = ArrayTraceReader(rows)
        let next = try NextAccessTable.build(from: &reader).next
        for row in rows.indices { rows[row].nextAccess = next[row] }
        return stride(from: 0, to: rows.count, by: 1_000).map { Array(rows[$0..<$0 + 1_000]) }
    }

    /// The counters of `trace` replayed into a 1 MB `P`, hinting index buckets ahead only while the
    /// cache holds at least `prefetchResidents` entries, and entries too from `entryPrefetchResidents`.
    static func replay<P: EvictionPolicy>(_ type: P.Type, _ trace: [[Request]], prefetchResidents: Int,
                                          entryPrefetchResidents: Int) throws -> ReplayCounters
        where P.Key == UInt64, P.Value == Void {
        var replayer = try Replayer<P>(limits: CacheLimits(capacity: 1_000_000), options: PolicyOptions(), ignoreSize: false)
        replayer.prefetchResidents = prefetchResidents
        replayer.entryPrefetchResidents = entryPrefetchResidents
        for batch in trace { replayer.apply(batch) }
        return replayer.counters
    }

    /// Every registered policy; a test below fails when one is missing.
    static let all: [InvariantSubject] = [
        .of(FIFOCache<UInt64, Void>.self, limits: .afterEveryCall),
        .of(LIFOCache<UInt64, Void>.self, limits: .afterEveryCall),
        .of(LRUCache<UInt64, Void>.self, limits: .afterEveryCall),
        .of(MRUCache<UInt64, Void>.self, limits: .afterEveryCall),
        .of(ClockCache<UInt64, Void>.self, limits: .afterEveryCall),
        .of(SieveCache<UInt64, Void>.self, limits: .afterEveryCall),
        .of(RandomCache<UInt64, Void>.self, limits: .afterEveryCall),
        .of(RandomTwoCache<UInt64, Void>.self, limits: .afterEveryCall),
        .of(RandomLRUCache<UInt64, Void>.self, limits: .afterEveryCall),
        .of(LRUProbCache<UInt64, Void>.self, limits: .afterEveryCall),
        .of(FIFOMergeCache<UInt64, Void>.self, limits: .afterEveryCall),
        .of(HyperbolicCache<UInt64, Void>.self, limits: .afterEveryCall),
        .of(BeladySizeCache<UInt64, Void>.self, limits: .afterEveryCall),
        .of(FlashProbCache<UInt64, Void>.self, limits: .afterEveryCall),
        .of(LeCaRCache<UInt64, Void>.self, limits: .afterEveryCall),
        .of(LeCaRv0Cache<UInt64, Void>.self, limits: .afterEveryCall),
        .of(LHDCache<UInt64, Void>.self, limits: .afterEveryCall),
        .of(CacheusCache<UInt64, Void>.self, limits: .afterEveryCall),
        .of(GDSFCache<UInt64, Void>.self, limits: .afterEveryCall),
        .of(LFUCache<UInt64, Void>.self, limits: .afterEveryCall),
        .of(BeladyCache<UInt64, Void>.self, limits: .afterEveryCall),
        .of(S3FIFOCache<UInt64, Void>.self, limits: .afterEveryCall),
        .of(S3FIFOv0Cache<UInt64, Void>.self, limits: .afterEveryCall),
        .of(SLRUCache<UInt64, Void>.self, limits: .afterEveryCall),
        .of(SLRUv0Cache<UInt64, Void>.self, limits: .afterEveryCall),
        .of(SizeCache<UInt64, Void>.self, limits: .afterEveryCall),
        .of(LFUDACache<UInt64, Void>.self, limits: .afterEveryCall),
        .of(LFUCppCache<UInt64, Void>.self, limits: .afterEveryCall),
        .of(LRUKCache<UInt64, Void>.self, limits: .afterEveryCall),
        .of(QDLPCache<UInt64, Void>.self, limits: .afterEveryCall),
        .of(MQCache<UInt64, Void>.self, limits: .afterEveryCall),
        .of(Clock2QPlusCache<UInt64, Void>.self, limits: .afterEveryCall),
        .of(ClockProCache<UInt64, Void>.self, limits: .afterEveryCall),
        .of(S3FIFOdCache<UInt64, Void>.self, limits: .afterEveryCall),
        .of(ARCv0Cache<UInt64, Void>.self, limits: .afterEveryCall),
        .of(CARCache<UInt64, Void>.self, limits: .afterEveryCall),
        .of(LibCacheSimWTinyLFUCache<UInt64, Void>.self, limits: .afterEveryCall),
        .of(ARCCache<UInt64, Void>.self, limits: .afterEveryCall),
        .of(TwoQCache<UInt64, Void>.self, limits: .afterEveryCall),
        // libCacheSim's LIRS (which the golden counts require) serves a hit on a HIR block pushed out
        // of Q as a "phantom", so its totals can exceed the capacity by a few blocks; see LIRSCache.swift.
        .of(LIRSCache<UInt64, Void>.self, limits: .none),
        .of(WTinyLFUCache<UInt64, Void>.self, limits: .afterEveryCall),
        .of(CorelibsNSCache<UInt64, Void>.self, limits: .afterEveryCall),
        .of(FoundationNSCache<UInt64, Void>.self, limits: .afterEveryCall),
        .of(DarwinNSCacheApproximation<UInt64, Void>.self, limits: .afterEveryCall),
        .of(AFAutoPurgingImageCache<UInt64, Void>.self, limits: .afterDeferredWork),
        .of(AlamofireAutoPurgingImageCache<UInt64, Void>.self, limits: .afterDeferredWork),
        .of(YYMemoryCache<UInt64, Void>.self, limits: .afterDeferredWork),
        .of(NukeLRUCache<UInt64, Void>.self, limits: .afterEveryCall),
        .of(NukeClockCache<UInt64, Void>.self, limits: .afterEveryCall),
        .of(PINMemoryCache<UInt64, Void>.self, limits: .afterEveryCall),
        // The NSCache approximation under both enforces its limits on every set.
        .of(SDMemoryCache<UInt64, Void>.self, limits: .afterEveryCall),
        .of(KingfisherMemoryStorage<UInt64, Void>.self, limits: .afterEveryCall, expiresInPlace: true),
        // Disk caches evict only on events and timers: over the limits in between, by design.
        .of(SDDiskCache<UInt64, Void>.self, limits: .none),
        .of(YYDiskCache<UInt64, Void>.self, limits: .none),
    ]
}

/// 5·10^4 random operations against one policy, with a model of what must be resident built only
/// from what the policy reports: every eviction must name a resident key exactly once with the
/// cost it was charged; count and total cost must equal the model's; evicted keys must be gone.
struct InvariantRun<P: EvictionPolicy> where P.Key == UInt64, P.Value == Void {
    var rng: SeededRandom
    let capacity: Int
    let countLimit: Int?
    let limits: LimitCheck
    var policy: P
    var observer = EvictionRecorder<UInt64, Void>()
    var model: [UInt64: Int] = [:]
    var modelCost = 0
    var time = 0.0
    let keySpace: UInt64
    var expiresInPlace = false

    init(seed: UInt64, limits: LimitCheck) throws {
        rng = SeededRandom(seed: seed &* 0x9e37_79b9_7f4a_7c15 &+ 1)
        capacity = Int.random(in: 20...5_000, using: &rng)
        countLimit = P.descriptor.supportsCountLimit && Bool.random(using: &rng) ? Int.random(in: 2...200, using: &rng) : nil
        keySpace = UInt64.random(in: 10...600, using: &rng)
        self.limits = limits
        policy = try P(limits: CacheLimits(capacity: capacity, countLimit: countLimit), options: PolicyOptions())
    }

    mutating func run() throws {
        for step in 0..<50_000 {
            let key = UInt64.random(in: 0..<keySpace, using: &rng)
            let cost = Int.random(in: 0...(capacity / 8 + 1), using: &rng)
            let before = policy.totalCost
            let wasResident = model[key] != nil
            switch Int.random(in: 0..<100, using: &rng) {
            case 0..<55:
                if P.descriptor.needsFuture { policy.noteNextAccess(Int64.random(in: 1...1_000_000, using: &rng)) }
                let hit = policy.access(key, cost: cost, orInsert: (), observer: &observer)
                let touchedEvicted = try settle(step, touched: key, before: before, wasResident: wasResident, inserted: !hit)
                // A miss on a resident key is right only if this call's deferred work evicted it first.
                if hit && !wasResident || !hit && wasResident && !touchedEvicted && !expiresInPlace {
                    throw failure(step, "access(\(key)) hit=\(hit) but the model says resident=\(wasResident)")
                }
            case 55..<75:
                if P.descriptor.needsFuture { policy.noteNextAccess(Int64.random(in: 1...1_000_000, using: &rng)) }
                policy.insert((), forKey: key, cost: cost, observer: &observer)
                try settle(step, touched: key, before: before, wasResident: wasResident, inserted: true)
            case 75..<85:
                let removed = policy.remove(key, observer: &observer) != nil
                try settle(step, touched: nil, before: before, wasResident: wasResident, inserted: false)
                if removed {
                    guard let charged = model.removeValue(forKey: key) else { throw failure(step, "removed \(key), which is not resident") }
                    modelCost -= charged
                }
            case 85:
                policy.handle(.memoryWarning, observer: &observer)
                try settle(step, touched: nil, before: before, wasResident: wasResident, inserted: false)
            case 86:
                policy.handle(.background, observer: &observer)
                try settle(step, touched: nil, before: before, wasResident: wasResident, inserted: false)
            default:
                time += Double.random(in: 0...3, using: &rng)
                policy.advance(to: time, observer: &observer)
                try settle(step, touched: nil, before: before, wasResident: wasResident, inserted: false)
            }
            try checkTotals(step, key: key)
            if step % 5_000 == 4_999, let arena = policy as? any ArenaPolicy {
                // The arena's residents, counted slot by slot, are what the policy's totals claim.
                let totals = Self.residentTotals(arena)
                if totals.count != model.count || totals.cost != modelCost {
                    throw failure(step, "the arena holds \(totals.count) residents costing \(totals.cost), the model \(model.count) costing \(modelCost)")
                }
            }
        }
    }

    static func residentTotals<A: ArenaPolicy>(_ policy: A) -> (count: Int, cost: Int) { policy.store.residentTotals() }

    /// Applies the evictions the last call reported to the model, and charges an inserted key.
    /// - Returns: whether the call evicted the key it touched.
    @discardableResult
    mutating func settle(_ step: Int, touched: UInt64?, before: Int, wasResident: Bool, inserted: Bool) throws -> Bool {
        if !observer.contractViolations.isEmpty {
            throw failure(step, "observer contract: \(observer.contractViolations)")
        }
        var replacedCharge: Int?
        if let touched, inserted, wasResident { replacedCharge = model[touched] }
        var touchedEvicted = false
        var newKeyEvictedItself = false
        for (key, cost) in zip(observer.evicted, observer.evictedCosts) {
            if key == touched && inserted {
                // The inserted key may go in the same call: re-charged at its new cost before its
                // eviction, or, when new, evicted by its own insertion (NSCache's cheapest-first rule).
                touchedEvicted = true
                if let charged = model.removeValue(forKey: key) { modelCost -= charged }
                else if newKeyEvictedItself { throw failure(step, "evicted \(key) twice") }
                else { newKeyEvictedItself = true }
                replacedCharge = nil
                continue
            }
            guard let charged = model.removeValue(forKey: key) else {
                throw failure(step, "evicted \(key), which is not resident (or was already evicted)")
            }
            if charged != cost { throw failure(step, "evicted \(key) reporting cost \(cost), charged \(charged)") }
            modelCost -= charged
            if key == touched { touchedEvicted = true; replacedCharge = nil }
            if key != touched && policy.contains(key) { throw failure(step, "\(key) is both evicted and resident") }
        }
        observer.clear()
        guard let touched, inserted else { return touchedEvicted }
        // The inserted key's charge is whatever the policy's total moved by beyond the evictions.
        if let old = replacedCharge, model[touched] != nil {
            model[touched] = nil
            modelCost -= old
        }
        if policy.contains(touched) {
            let charge = policy.totalCost - modelCost
            if charge < 0 { throw failure(step, "inserting \(touched) left a negative charge \(charge)") }
            model[touched] = charge
            modelCost += charge
        } else if let old = model.removeValue(forKey: touched) {
            modelCost -= old
        }
        return touchedEvicted
    }

    mutating func checkTotals(_ step: Int, key: UInt64) throws {
        if policy.count != model.count { throw failure(step, "count \(policy.count), model \(model.count)") }
        if policy.totalCost != modelCost { throw failure(step, "totalCost \(policy.totalCost), sum of resident costs \(modelCost)") }
        if policy.contains(key) != (model[key] != nil) { throw failure(step, "contains(\(key)) disagrees with the reported evictions") }
        switch limits {
        case .afterEveryCall:
            try checkLimits(step)
        case .afterDeferredWork where step % 16 == 0:
            // A lookup of an absent key runs the queued work, as the library's next call would.
            let before = policy.totalCost
            _ = policy.lookup(UInt64.max, observer: &observer)
            try settle(step, touched: nil, before: before, wasResident: false, inserted: false)
            if policy.count != model.count || policy.totalCost != modelCost { throw failure(step, "totals after deferred work") }
            try checkLimits(step)
        default:
            break
        }
    }

    func checkLimits(_ step: Int) throws {
        if policy.totalCost > capacity { throw failure(step, "totalCost \(policy.totalCost) over the capacity \(capacity)") }
        if let countLimit, policy.count > countLimit { throw failure(step, "count \(policy.count) over the limit \(countLimit)") }
    }

    func failure(_ step: Int, _ message: String) -> InvariantFailure {
        InvariantFailure(message: "\(P.descriptor.name) (capacity \(capacity), count limit \(countLimit.map(String.init) ?? "none")), step \(step): \(message)")
    }
}

struct InvariantFailure: Error, CustomStringConvertible {
    var message: String
    var description: String { message }
}

@Suite("Invariants of every policy under 5·10^4 random operations")
struct PolicyInvariantTests {
    @Test("every registered policy is covered")
    func coverage() {
        let covered = Set(InvariantSubject.all.map(\.name))
        let registered = Set(PolicyRegistry.descriptors.map(\.name))
        #expect(registered.subtracting(covered).isEmpty, "no invariant test for \(registered.subtracting(covered).sorted())")
    }

    @Test("totals, single reporting of evictions, and limits", arguments: InvariantSubject.all)
    func invariants(_ subject: InvariantSubject) throws {
        try subject.run(2026)
    }

    /// A replay hints each key to the policy before its turn once the cache is large enough
    /// (``Replayer/prefetchResidents``, ``Replayer/entryPrefetchResidents``): index buckets and
    /// entries, or index buckets alone; a hint must change nothing a replay counts.
    @Test("key hints ahead change no count of a replay", arguments: InvariantSubject.all)
    func hintsChangeNothing(_ subject: InvariantSubject) throws {
        let (hinted, indexHinted, plain) = try subject.replayWithAndWithoutHints(7)
        #expect(hinted == plain)
        #expect(indexHinted == plain)
        #expect(plain.hits > 0 && plain.hits < plain.requests, "the trace must hit and miss: \(plain)")
    }
}
