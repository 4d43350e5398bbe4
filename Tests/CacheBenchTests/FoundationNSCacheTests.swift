import CacheBench
import EvictionPolicies
import TestSupport
import Testing

/// The real Foundation NSCache against the corelibs model, request by request.
@Suite("foundation-nscache: the real NSCache decides exactly as nscache (Linux)")
struct FoundationNSCacheTests {
    typealias Model = CorelibsNSCache<UInt64, Void>
    typealias Real = FoundationNSCache<UInt64, Void>

    /// Every request trace in Traces/, read as the replay command reads it.
    static let traceNames = [
        "lirs-2_pools.csv", "lirs-cs.csv", "lirs-gli.csv", "lirs-multi2.csv", "lirs-ps.csv", "lirs-sprite.csv",
        "cache2k-web12.csv", "cloudPhysicsIO.og.csv", "cloudPhysicsIO.oracleGeneral.bin",
    ]

    /// Replays `trace` into both caches and returns the first difference, or `nil`.
    static func firstDifference(_ trace: TraceSpec, capacity: Int?, countLimit: Int?) throws -> String? {
        let limits = CacheLimits(capacity: capacity, countLimit: countLimit)
        var model = try Model(limits: limits, options: PolicyOptions())
        var real = try Real(limits: limits, options: PolicyOptions())
        var modelLog = EvictionRecorder<UInt64, Void>(), realLog = EvictionRecorder<UInt64, Void>()
        var reader = try trace.open()
        var batch: [Request] = []
        var index = 0
        var hits = 0
        while try reader.nextBatch(&batch) {
            for request in batch {
                index += 1
                var modelHit = false, realHit = false
                switch request.operation {
                case .get:
                    guard request.size > 0 else { continue }
                    modelHit = model.access(request.key, cost: request.size, orInsert: (), observer: &modelLog)
                    realHit = real.access(request.key, cost: request.size, orInsert: (), observer: &realLog)
                    if modelHit { hits += 1 }
                case .set:
                    model.insert((), forKey: request.key, cost: request.size, observer: &modelLog)
                    real.insert((), forKey: request.key, cost: request.size, observer: &realLog)
                case .delete:
                    modelHit = model.remove(request.key, observer: &modelLog) != nil
                    realHit = real.remove(request.key, observer: &realLog) != nil
                case .memoryWarning, .background, .terminate, .tick:
                    let event: CacheEvent? = request.operation == .memoryWarning ? .memoryWarning
                        : request.operation == .background ? .background : nil
                    if let event {
                        model.handle(event, observer: &modelLog)
                        real.handle(event, observer: &realLog)
                    }
                }
                if modelHit != realHit || modelLog.evicted != realLog.evicted || modelLog.passes != realLog.passes
                    || model.count != real.count || model.totalCost != real.totalCost || realLog.contractViolations.isEmpty == false {
                    return "\(trace.path) row \(index) key \(request.key): model hit \(modelHit) evicted \(modelLog.evicted) count \(model.count); "
                        + "NSCache hit \(realHit) evicted \(realLog.evicted) count \(real.count)"
                }
                modelLog.clear()
                realLog.clear()
            }
        }
        // A comparison in which nothing ever hits or is evicted would prove little.
        if hits == 0 { return "\(trace.path): no hits at all; the comparison is vacuous" }
        return nil
    }

    #if os(Linux)
    @Test("every trace in Traces/, at 10 % of the working set and with cost and count limits", arguments: traceNames)
    func everyTrace(_ name: String) throws {
        let trace = TraceSpec(path: Repository.trace(name))
        let workingSet = try WorkingSet.measure(trace, ignoreSize: false)
        // The replay default (10 % of the working set), and both limits at once.
        let configurations: [(Int?, Int?)] = [
            (max(1, workingSet.bytes / 10), nil),
            (max(1, workingSet.bytes / 50), max(1, workingSet.objects / 100)),
        ]
        for (capacity, countLimit) in configurations {
            let difference = try Self.firstDifference(trace, capacity: capacity, countLimit: countLimit)
            #expect(difference == nil, "capacity \(String(describing: capacity)), count limit \(String(describing: countLimit))")
        }
    }

    @Test("random operation sequences with random costs and limits", arguments: 1...20)
    func random(seed: UInt64) throws {
        var rng = SeededRandom(seed: seed)
        let keys = UInt64.random(in: 4...40, using: &rng)
        let maxCost = Int.random(in: 1...15, using: &rng)
        // At least one limit, small enough against the keys and costs that evictions happen.
        let limitsUsed = Int.random(in: 1...3, using: &rng)
        let capacity = limitsUsed & 1 != 0 ? Int.random(in: 1...max(1, Int(keys) * maxCost / 4), using: &rng) : nil
        let countLimit = limitsUsed & 2 != 0 ? Int.random(in: 1...Int(keys / 2), using: &rng) : nil
        let limits = CacheLimits(capacity: capacity, countLimit: countLimit)
        var model = try Model(limits: limits, options: PolicyOptions())
        var real = try Real(limits: limits, options: PolicyOptions())
        var modelLog = EvictionRecorder<UInt64, Void>(), realLog = EvictionRecorder<UInt64, Void>()
        var evictions = 0
        for step in 0..<4_000 {
            let key = UInt64.random(in: 0..<keys, using: &rng)
            let cost = Int.random(in: -1...maxCost, using: &rng)
            var modelHit = false, realHit = false
            switch Int.random(in: 0..<100, using: &rng) {
            case 0..<40:
                modelHit = model.access(key, cost: cost, orInsert: (), observer: &modelLog)
                realHit = real.access(key, cost: cost, orInsert: (), observer: &realLog)
            case 40..<55:
                modelHit = model.contains(key)
                realHit = real.lookup(key, observer: &realLog) != nil
            case 55..<85:
                model.insert((), forKey: key, cost: cost, observer: &modelLog)
                real.insert((), forKey: key, cost: cost, observer: &realLog)
            case 85..<95:
                modelHit = model.remove(key, observer: &modelLog) != nil
                realHit = real.remove(key, observer: &realLog) != nil
            default:
                let event: CacheEvent = Bool.random(using: &rng) ? .memoryWarning : .background
                model.handle(event, observer: &modelLog)
                real.handle(event, observer: &realLog)
                model.advance(to: Double(step), observer: &modelLog)
                real.advance(to: Double(step), observer: &realLog)
            }
            evictions += modelLog.evicted.count
            let same = modelHit == realHit && modelLog.evicted == realLog.evicted && modelLog.passes == realLog.passes
                && model.count == real.count && model.totalCost == real.totalCost && realLog.contractViolations.isEmpty
            #expect(same, "seed \(seed) step \(step): model \(modelHit) \(modelLog.evicted), NSCache \(realHit) \(realLog.evicted)")
            if !same { return }
            modelLog.clear()
            realLog.clear()
        }
        #expect(evictions > 0, "seed \(seed): nothing was evicted, so the comparison proved little")
    }
    #endif

    @Test("N1–N5 hold for the real NSCache too", arguments: [false, true])
    func vectors(real: Bool) throws {
        func run(capacity: Int?, countLimit: Int?, _ costs: [Int]) throws -> [UInt64] {
            var log = EvictionRecorder<UInt64, Void>()
            let limits = CacheLimits(capacity: capacity, countLimit: countLimit)
            if real {
                var cache = try Real(limits: limits, options: PolicyOptions())
                for (i, cost) in costs.enumerated() { cache.insert((), forKey: UInt64(i + 1), cost: cost, observer: &log) }
            } else {
                var cache = try Model(limits: limits, options: PolicyOptions())
                for (i, cost) in costs.enumerated() { cache.insert((), forKey: UInt64(i + 1), cost: cost, observer: &log) }
            }
            return log.evicted
        }
        #expect(try run(capacity: nil, countLimit: 2, [0, 0, 0]) == [3])                  // N1
        #expect(try run(capacity: nil, countLimit: 2, [1, 2, 3]) == [1])                  // N2
        #expect(try run(capacity: 10, countLimit: nil, [4, 5, 5]) == [1])                 // N3 ("0", "2", "1")
        #expect(try run(capacity: 10, countLimit: nil, [0, 6, 6]) == [1, 3])              // N4
        #expect(try run(capacity: 10, countLimit: nil, Array(repeating: 5, count: 8)) == [3, 4, 5, 6, 7, 8])  // N5
    }
}

