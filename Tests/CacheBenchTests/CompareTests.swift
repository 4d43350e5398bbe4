@testable import CacheBench
@testable import CacheBenchCommandLine
import EvictionPolicies
import Foundation
import TestSupport
import Testing

#if canImport(FoundationXML)
import FoundationXML
#endif


/// Replays `policy` separately at each capacity: the reference `compare` must equal.
private func separateReplays(_ trace: TraceSpec, policy: String, capacities: [Int], ignoreSize: Bool,
                             options: PolicyOptions = PolicyOptions(), countLimit: Int? = nil) throws -> [ReplayResult] {
    try capacities.map { capacity in
        try Replay.run(ReplayJob(trace: trace, policy: policy, capacity: capacity, countLimit: countLimit,
                                 ignoreSize: ignoreSize, options: options))
    }
}

/// Everything a replay counts, and the number of trim passes of each kind; not the timings.
private func expectSameCounts(_ compared: ReplayResult, _ replayed: ReplayResult, _ context: String,
                              sourceLocation: SourceLocation = #_sourceLocation) {
    #expect(compared.policy == replayed.policy, "\(context)", sourceLocation: sourceLocation)
    #expect(compared.capacity == replayed.capacity, "\(context)", sourceLocation: sourceLocation)
    #expect(compared.counters == replayed.counters,
            "\(context): compare \(compared.counters) vs replay \(replayed.counters)", sourceLocation: sourceLocation)
    #expect(compared.trim.count == replayed.trim.count,
            "\(context): \(compared.trim.count) vs \(replayed.trim.count) trim passes", sourceLocation: sourceLocation)
    if compared.method == .simulation {
        #expect(compared.trimCaller.count == replayed.trimCaller.count, "\(context)", sourceLocation: sourceLocation)
        #expect(compared.trimDeferred.count == replayed.trimDeferred.count, "\(context)", sourceLocation: sourceLocation)
    }
}

/// A random CSV trace (`timestamp,key,size,op`) in which each key keeps one size, with sets,
/// events and size-0 rows mixed in.
private func randomTrace(seed: UInt64, rows: Int, keys: Int, maxSize: Int, deletes: Bool = false,
                         sizeChanges: Bool = false) throws -> String {
    var random = SeededRandom(seed: seed)
    var sizes: [Int: Int] = [:]
    var text = "timestamp,key,size,op\n"
    var time = 0.0
    for _ in 0..<rows {
        time += Double(Int.random(in: 0...2, using: &random)) * 0.5
        // Skewed popularity: small keys are requested more, so capacities matter.
        let key = min(Int.random(in: 0..<keys, using: &random), Int.random(in: 0..<keys, using: &random))
        let size = sizes[key] ?? Int.random(in: 1...maxSize, using: &random)
        sizes[key] = size
        let roll = Int.random(in: 0..<100, using: &random)
        switch roll {
        case 0..<78: text += "\(time),\(key),\(size),get\n"
        case 78..<88: text += "\(time),\(key),\(size),set\n"
        case 88..<90: text += "\(time),\(key),0,get\n"
        case 90..<92: text += "\(time),,,memory-warning\n"
        case 92..<94: text += "\(time),,,background\n"
        case 94..<96: text += "\(time),,,tick\n"
        case 96..<98:
            if deletes { text += "\(time),\(key),\(size),delete\n" } else { text += "\(time),\(key),\(size),get\n" }
        default:
            if sizeChanges {
                let changed = size + Int.random(in: 1...maxSize, using: &random)
                text += "\(time),\(key),\(changed),get\n"
            } else {
                text += "\(time),\(key),\(size),get\n"
            }
        }
    }
    return try temporaryFile(text)
}

@Suite("Capacity lists: sizes, log-spaced ranges, fractions of the working set")
struct CapacityListTests {
    @Test("a list of sizes with units, sorted and deduplicated on resolution")
    func sizes() throws {
        let list = try CapacityList.parse("128MiB, 64MiB,1GB,64MiB,500")
        #expect(list.items == [.size(134_217_728), .size(67_108_864), .size(1_000_000_000), .size(67_108_864), .size(500)])
        #expect(!list.needsWorkingSet)
        #expect(list.resolve(workingSet: nil) == [500, 67_108_864, 134_217_728, 1_000_000_000])
    }

    @Test("a mixed list says which capacities came from fractions; a size given wins over an equal fraction")
    func origins() throws {
        let list = try CapacityList.parse("1000,10%,0.5,250")
        let resolved = list.resolveWithOrigins(workingSet: 2000)
        #expect(resolved.map(\.capacity) == [200, 250, 1000])
        #expect(resolved.map(\.isFraction) == [true, false, false])
        #expect(list.resolve(workingSet: 2000) == [200, 250, 1000])
    }

    @Test("1MiB...1GiB:11 is every power of two from 2^20 to 2^30, ends exact")
    func powerOfTwoRange() throws {
        let list = try CapacityList.parse("1MiB...1GiB:11")
        #expect(list.resolve(workingSet: nil) == (20...30).map { 1 << $0 })
    }

    @Test("1MiB...1GiB:12 has 12 log-spaced sizes with a constant ratio")
    func logSpacedRange() throws {
        let sizes = try CapacityList.parse("1MiB...1GiB:12").resolve(workingSet: nil)
        #expect(sizes.count == 12)
        #expect(sizes.first == 1 << 20 && sizes.last == 1 << 30)
        let ratio = pow(1024.0, 1.0 / 11.0)
        for (a, b) in zip(sizes, sizes.dropFirst()) {
            #expect(abs(Double(b) / Double(a) - ratio) < 1e-5, "\(a) -> \(b)")
        }
        // Hand-computed: 2^20 * 1024^(1/11) = 2^(20 + 10/11) = 1,969,080.84…, rounded to 1,969,081.
        #expect(sizes[1] == 1_969_081)
    }

    @Test("object-count ranges collapse duplicates after rounding")
    func smallRange() throws {
        #expect(try CapacityList.parse("1...4:5").resolve(workingSet: nil) == [1, 2, 3, 4])
        #expect(try CapacityList.parse("10...1000:3").resolve(workingSet: nil) == [10, 100, 1000])
    }

    @Test("a range up to Int.max keeps its ends exact and every point inside them, without trapping")
    func rangeToIntMax() throws {
        for text in ["1...9223372036854775807:3", "65536...9223372036854775806:4", "4611686018427387904...9223372036854775807:5"] {
            let sizes = try CapacityList.parse(text).resolve(workingSet: nil)
            let ends = text.split(separator: ":")[0].components(separatedBy: "...").compactMap { Int($0) }
            #expect(sizes.first == ends[0] && sizes.last == ends[1], "\(text): \(sizes)")
            #expect(sizes == sizes.sorted() && Set(sizes).count == sizes.count, "\(text): \(sizes)")
        }
    }

    @Test("fractions: exact decimal arithmetic on the working set, rounded down, at least 1")
    func fractions() throws {
        let list = try CapacityList.parse("0.01,0.1,.3")
        #expect(list.needsWorkingSet)
        #expect(list.items == [.fraction(numerator: 1, denominator: 100), .fraction(numerator: 1, denominator: 10),
                               .fraction(numerator: 3, denominator: 10)])
        #expect(list.resolve(workingSet: 1409) == [14, 140, 422])
        // 0.1 of 1410 is exactly 141, where 0.1 * 1410.0 in floating point is 141.00000000000003.
        #expect(list.resolve(workingSet: 1410) == [14, 141, 423])
        #expect(list.resolve(workingSet: 5) == [1])
        #expect(try CapacityList.parse("0.001...0.1:3").resolve(workingSet: 1_000_000) == [1000, 10000, 100_000])
        #expect(try CapacityList.parse("64MiB,0.5").resolve(workingSet: 100) == [50, 67_108_864])
    }

    @Test("percentages are fractions of the working set, exact, up to 100 %")
    func percentages() throws {
        let list = try CapacityList.parse("1%,10%, 12.5%,100%,0.5 %")
        #expect(list.needsWorkingSet)
        #expect(list.items == [.fraction(numerator: 1, denominator: 100), .fraction(numerator: 10, denominator: 100),
                               .fraction(numerator: 125, denominator: 1000), .fraction(numerator: 100, denominator: 100),
                               .fraction(numerator: 5, denominator: 1000)])
        #expect(list.resolve(workingSet: 1409) == [7, 14, 140, 176, 1409])
        // A percentage and the decimal it names resolve to the same capacity.
        for (percentage, decimal) in [("10%", "0.1"), ("0.3%", "0.003"), ("37.5%", "0.375"), ("99.999%", "0.99999")] {
            #expect(try CapacityList.parse(percentage).resolve(workingSet: 123_457) == CapacityList.parse(decimal).resolve(workingSet: 123_457))
        }
        #expect(try CapacityList.parse("1%...100%:3").resolve(workingSet: 1_000_000) == [10_000, 100_000, 1_000_000])
        #expect(try CapacityList.parse("0.001...10%:3").resolve(workingSet: 1_000_000) == [1000, 10_000, 100_000])
        #expect(try CapacityList.parseFraction("64MiB") == nil)
    }

    @Test("random decimals and percentages: the same fraction either way; random text never traps")
    func randomFractions() throws {
        var rng = SeededRandom(seed: 17)
        for _ in 0..<2_000 {
            // A fraction d / 10^k below 1, written as a decimal and as a percentage.
            let k = Int.random(in: 3...12, using: &rng)
            var scale = 1
            for _ in 0..<k { scale *= 10 }
            let d = Int.random(in: 1..<scale, using: &rng)
            let digits = String(repeating: "0", count: k - String(d).count) + String(d)
            let decimal = "0." + digits
            let percent = String(Int(digits.prefix(2)) ?? 0) + "." + digits.dropFirst(2) + "%"
            guard case .fraction(let n1, let d1) = try #require(try CapacityList.parseFraction(decimal)),
                  case .fraction(let n2, let d2) = try #require(try CapacityList.parseFraction(percent)) else {
                Issue.record("\(decimal) or \(percent) is not a fraction")
                continue
            }
            #expect(n1.multipliedFullWidth(by: d2) == n2.multipliedFullWidth(by: d1), "\(decimal) vs \(percent)")
            #expect(n1 == d && d1 == scale)
        }
        let alphabet = "0123456789.%-eE MiBk,:".map(String.init) + ["...", "9999999999999999999"]
        for _ in 0..<5_000 {
            let text = (0..<Int.random(in: 0...12, using: &rng)).map { _ in alphabet.randomElement(using: &rng) ?? "" }.joined()
            _ = try? CapacityList.parse(text)
        }
    }

    @Test("a percentage out of range or malformed names the item", arguments: [
        ("0%", "above 0 and at most 100"), ("100.5%", "above 0 and at most 100"), ("250%", "above 0 and at most 100"),
        ("99999999999999999999999%", "above 0 and at most 100"), ("%", "not a number"), ("1.2.3%", "not a number"),
        ("10MiB%", "a number followed by %"), ("-5%", "a number followed by %"), ("0.0000000000000001%", "at most 15 decimal places"),
        ("0.99999999999999999999", "at most 15 decimal places"),
    ])
    func rejectsPercentages(_ text: String, _ message: String) {
        #expect {
            try CapacityList.parse(text)
        } throws: { error in
            let text = "\(error)"
            return text.contains(message)
        }
    }

    @Test("mistakes are usage errors naming the item", arguments: [
        "", "64MiB,,128MiB", "1.5", "0.0", "0", "-5", "12XB", "1MiB...1GiB", "1MiB...1GiB:1", "1GiB...1MiB:4",
        "1MiB...0.5:3", "1MiB...1GiB:x", "0.5.5", "1..5:3", "1MiB...1GiB:100000",
        "999999999999999999.999999999999999", "1MiB...10%:3",
    ])
    func rejects(_ text: String) {
        #expect(throws: InvalidValueError.self) { try CapacityList.parse(text) }
    }
}

@Suite("One-pass LRU stack distances equal per-size lru replays")
struct LRUStackProfilerTests {
    static let objectTraces = ["lirs-cs.csv", "lirs-gli.csv", "lirs-ps.csv", "lirs-multi2.csv", "lirs-sprite.csv",
                               "lirs-2_pools.csv", "cache2k-web12.csv"]

    @Test("bundled traces, object mode: every capacity from 1 object to the working set", arguments: objectTraces)
    func bundledObjectMode(_ name: String) throws {
        let trace = TraceSpec(path: Repository.trace(name))
        let workingSet = try WorkingSet.measure(trace, ignoreSize: true).objects
        let capacities = try CapacityList.parse("1...\(workingSet + 10):5").resolve(workingSet: nil)
        let compared = try Compare.run(CompareJob(trace: trace, policies: ["lru"], capacities: CapacityList(capacities.map { .size($0) }),
                                                  ignoreSize: true))
        #expect(compared.results.count == capacities.count)
        #expect(compared.results.allSatisfy { $0.method == .stackDistance }, "\(compared.notes)")
        for (c, r) in zip(compared.results, try separateReplays(trace, policy: "lru", capacities: capacities, ignoreSize: true)) {
            expectSameCounts(c, r, "\(name) at \(r.capacity ?? 0)")
        }
    }

    static let cloudPhysics: [(String, TraceSpec)] = [
        ("binary", TraceSpec(path: Repository.trace("cloudPhysicsIO.oracleGeneral.bin"))),
        ("csv, writes as sets", TraceSpec(path: Repository.trace("cloudPhysicsIO.og.csv"))),
    ]

    @Test("cloudPhysicsIO in byte mode, including capacities smaller than its largest objects (68 KiB)",
          arguments: [0, 1])
    func cloudPhysicsBytes(_ which: Int) throws {
        let (label, trace) = Self.cloudPhysics[which]
        let capacities = [4096, 16384, 65536, 1 << 20, 16 << 20, 128 << 20, 512 << 20]
        let compared = try Compare.run(CompareJob(trace: trace, policies: ["lru"], capacities: CapacityList(capacities.map { .size($0) })))
        #expect(compared.results.allSatisfy { $0.method == .stackDistance }, "\(compared.notes)")
        for (c, r) in zip(compared.results, try separateReplays(trace, policy: "lru", capacities: capacities, ignoreSize: false)) {
            expectSameCounts(c, r, "cloudPhysicsIO \(label) at \(r.capacity ?? 0)")
        }
    }

    @Test("a memory budget splits even a small grid into waves, one read each, with the same counts and a note")
    func wavesUnderABudget() throws {
        let (_, trace) = Self.cloudPhysics[0]
        let capacities = CapacityList([4096, 65536, 1 << 20, 16 << 20].map { .size($0) })
        let whole = try Compare.run(CompareJob(trace: trace, policies: ["fifo", "sieve", "arc"], capacities: capacities))
        var budgeted = CompareJob(trace: trace, policies: ["fifo", "sieve", "arc"], capacities: capacities)
        budgeted.memoryBudget = 1
        let notes = Locked<[String]>([])
        budgeted.noteHandler = { note in notes.update { $0.append(note) } }
        let waved = try Compare.run(budgeted)
        #expect(notes.value.contains { $0.contains("waves") }, "\(notes.value)")
        #expect(waved.results.count == whole.results.count)
        for (a, b) in zip(waved.results, whole.results) {
            #expect(a.policy == b.policy && a.capacity == b.capacity, "\(a.policy)")
            expectSameCounts(a, b, "\(a.policy) at \(a.capacity ?? 0)")
        }
    }

    @Test("cloudPhysicsIO in object mode", arguments: [0, 1])
    func cloudPhysicsObjects(_ which: Int) throws {
        let (label, trace) = Self.cloudPhysics[which]
        let capacities = [1, 100, 1000, 5000, 20000, 60000]
        let compared = try Compare.run(CompareJob(trace: trace, policies: ["lru"], capacities: CapacityList(capacities.map { .size($0) }),
                                                  ignoreSize: true))
        #expect(compared.results.allSatisfy { $0.method == .stackDistance })
        for (c, r) in zip(compared.results, try separateReplays(trace, policy: "lru", capacities: capacities, ignoreSize: true)) {
            expectSameCounts(c, r, "cloudPhysicsIO \(label) at \(r.capacity ?? 0)")
        }
    }

    @Test("differential: random traces with sets, events, size-0 rows and objects larger than some capacities",
          arguments: [1, 2, 3, 4, 5, 6] as [UInt64])
    func randomTraces(_ seed: UInt64) throws {
        var random = SeededRandom(seed: seed &* 7919)
        let maxSize = [1, 8, 300][Int(seed % 3)]
        let path = try randomTrace(seed: seed, rows: 3000, keys: Int.random(in: 20...400, using: &random), maxSize: maxSize)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let trace = TraceSpec(path: path)
        for ignoreSize in [true, false] {
            // Log-uniform from 1 to 60 times the largest object, so some capacities are smaller than
            // some objects (those are never inserted there) and the multi-band path runs.
            let capacities = Array(Set((0..<7).map { _ in
                Int(pow(Double(maxSize * 60), Double.random(in: 0...1, using: &random)).rounded())
            } + [max(1, maxSize / 2)])).sorted()
            guard capacities.count >= 2 else { continue }
            let compared = try Compare.run(CompareJob(trace: trace, policies: ["lru"],
                                                      capacities: CapacityList(capacities.map { .size($0) }), ignoreSize: ignoreSize))
            #expect(compared.results.allSatisfy { $0.method == .stackDistance }, "\(compared.notes)")
            let replayed = try separateReplays(trace, policy: "lru", capacities: capacities, ignoreSize: ignoreSize)
            for (c, r) in zip(compared.results, replayed) {
                expectSameCounts(c, r, "seed \(seed) ignoreSize \(ignoreSize) capacity \(r.capacity ?? 0)")
            }
        }
    }

    @Test("a deleted key or a key that changes size stops the stack pass; lru is then simulated, still equal",
          arguments: [(true, false), (false, true)])
    func fallsBackToSimulation(_ deletes: Bool, _ sizeChanges: Bool) throws {
        let path = try randomTrace(seed: 42, rows: 2000, keys: 100, maxSize: 50, deletes: deletes, sizeChanges: sizeChanges)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let trace = TraceSpec(path: path)
        let capacities = [30, 300, 1000, 3000]
        let compared = try Compare.run(CompareJob(trace: trace, policies: ["lru", "fifo"],
                                                  capacities: CapacityList(capacities.map { .size($0) })))
        #expect(compared.results.allSatisfy { $0.method == .simulation })
        #expect(compared.notes.contains { $0.contains(deletes ? "deletes key" : "changes size") }, "\(compared.notes)")
        for (c, r) in zip(compared.results.filter { $0.policy == "lru" },
                          try separateReplays(trace, policy: "lru", capacities: capacities, ignoreSize: false)) {
            expectSameCounts(c, r, "lru at \(r.capacity ?? 0)")
        }
        // With sizes ignored, a changing size is no obstacle; a delete still is.
        let objects = try Compare.run(CompareJob(trace: trace, policies: ["lru"], capacities: CapacityList([.size(5), .size(50)]),
                                                 ignoreSize: true))
        #expect(objects.results.allSatisfy { $0.method == (deletes ? .simulation : .stackDistance) })
    }

    @Test("the profiler on its own: hand-worked byte-mode vector")
    func handWorked() {
        // Capacity 10 and 4. Sizes: a=3, b=4, c=5 (c fits only 10).
        // Requests: a b a c b a
        //  cap 10: a miss, b miss, a hit (S=4,+3=7), c miss (3+4+5=12 > 10: evict b? LRU order a(newest) b → evict b; held a,c = 8),
        //          b miss (evict a: a,c,b=12>10 → evict a (oldest is a? order c,a → oldest a) → c,b = 9),
        //          a miss (c,b,a=12 → evict c → b,a = 7). hits 1; insertions 5; evictions 3; trims 3.
        //  cap 4:  a miss (3), b miss (evict a; b=4), a miss (evict b; a=3), c never inserted,
        //          b miss (evict a; b), a miss (evict b; a). hits 0; insertions 5; evictions 4; trims 4.
        var profiler = LRUStackProfiler(capacities: [10, 4], ignoreSize: false)
        let sizes: [UInt64: Int] = [1: 3, 2: 4, 3: 5]
        profiler.apply([1, 2, 1, 3, 2, 1].enumerated().map { Request(time: Double($0.offset), key: $0.element, size: sizes[$0.element] ?? 0) })
        #expect(profiler.abandonReason == nil)
        let results = profiler.counters()
        #expect(results.map(\.capacity) == [4, 10])
        #expect(results.map(\.counters.hits) == [0, 1])
        #expect(results.map(\.counters.byteHits) == [0, 3])
        #expect(results.map(\.counters.evictions) == [4, 3])
        #expect(results.map(\.trimPasses) == [4, 3])
        #expect(results.allSatisfy { $0.counters.requests == 6 && $0.counters.byteRequests == 22 })
    }

    @Test("the time axis is compacted on long traces with few keys, without changing results", arguments: [true, false])
    func compaction(_ ignoreSize: Bool) throws {
        // 30,000 requests over 60 keys: the 4,096-position axis is renumbered several times, with
        // each capacity's boundary carried over in byte mode.
        var random = SeededRandom(seed: 9)
        var text = "timestamp,key,size\n"
        for i in 0..<30_000 {
            let key = Int.random(in: 0..<60, using: &random)
            text += "\(i),\(key),\(1 + key % 40)\n"
        }
        let path = try temporaryFile(text)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let trace = TraceSpec(path: path)
        let capacities = ignoreSize ? [1, 5, 10, 25, 59] : [10, 30, 100, 300, 1000]
        let compared = try Compare.run(CompareJob(trace: trace, policies: ["lru"], capacities: CapacityList(capacities.map { .size($0) }),
                                                  ignoreSize: ignoreSize))
        #expect(compared.results.allSatisfy { $0.method == .stackDistance })
        for (c, r) in zip(compared.results, try separateReplays(trace, policy: "lru", capacities: capacities, ignoreSize: ignoreSize)) {
            expectSameCounts(c, r, "capacity \(r.capacity ?? 0)")
        }
    }
}

@Suite("compare equals separate replays")
struct CompareEqualsReplayTests {
    /// A trace with every operation, sizes, and timestamps long enough for timers to fire.
    static func sampleTrace() throws -> String {
        var random = SeededRandom(seed: 2024)
        var text = "timestamp,key,size,op\n"
        var time = 0.0
        for _ in 0..<4000 {
            time += Double(Int.random(in: 0...3, using: &random)) * 0.25
            let key = min(Int.random(in: 0..<300, using: &random), Int.random(in: 0..<300, using: &random))
            let size = 1 + (key * 37) % 500
            switch Int.random(in: 0..<100, using: &random) {
            case 0..<80: text += "\(time),\(key),\(size),get\n"
            case 80..<90: text += "\(time),\(key),\(size),set\n"
            case 90..<94: text += "\(time),\(key),\(size),delete\n"
            case 94..<96: text += "\(time),,,memory-warning\n"
            case 96..<98: text += "\(time),,,background\n"
            default: text += "\(time),,,tick\n"
            }
        }
        return try temporaryFile(text)
    }

    /// A grid where one policy cannot take one capacity (LIRS needs 3 objects): the other runs are
    /// reported, the refused one is named in the notes and in `refusals`, as `sweep` records it.
    /// Only when every run is refused does compare fail, with the refusal a single run gives.
    @Test("a run its policy refuses is left out with a note; the others equal separate replays; all refused fails",
          arguments: [1, 2])
    func refusedRunLeftOut(_ threads: Int) throws {
        let trace = TraceSpec(path: Repository.trace("lirs-cs.csv"))
        let compared = try Compare.run(CompareJob(trace: trace, policies: ["lirs", "lru", "fifo"],
                                                  capacities: CapacityList([.fraction(numerator: 1, denominator: 10_000), .size(100)]),
                                                  ignoreSize: true, threads: threads))
        #expect(compared.results.map { "\($0.policy) \($0.capacity ?? 0)" } == ["lirs 100", "lru 1", "lru 100", "fifo 1", "fifo 100"])
        #expect(compared.refusals.map { "\($0.policy) \($0.capacity ?? 0) \($0.capacitySource)" } == ["lirs 1 workingSetFraction"])
        #expect(compared.refusals.first?.reason.contains("at least 3") == true, "\(compared.refusals)")
        #expect(compared.notes.contains { $0.hasPrefix("lirs at capacity 1: not run") }, "\(compared.notes)")
        for result in compared.results {
            let replayed = try separateReplays(trace, policy: result.policy, capacities: [result.capacity ?? 0], ignoreSize: true)
            expectSameCounts(result, replayed[0], "\(result.policy) at \(result.capacity ?? 0)")
        }
        #expect(throws: CacheBenchError.self) {
            try Compare.run(CompareJob(trace: trace, policies: ["lirs"], capacities: CapacityList([.size(1), .size(2)]), ignoreSize: true))
        }
        // The JSON lists each refused run, with what the gate needs to match it.
        guard case .object(let fields) = compared.json, case .array(let refusals)? = fields.first(where: { $0.0 == "refusals" })?.1,
              case .object(let refusal)? = refusals.first else {
            Issue.record("no refusals in \(compared.json)")
            return
        }
        #expect(refusals.count == 1 && refusal.map(\.0) == ["policy", "capacity", "capacitySource", "countLimit", "ignoreSize", "reason"])
        // A baseline that has a hit ratio where the policy now refuses fails the gate, as a regression.
        let lirsAtOne = RegressionGate.Key(policy: "lirs", capacity: 1, countLimit: nil, ignoreSize: true)
        let lruAtOne = RegressionGate.Key(policy: "lru", capacity: 1, countLimit: nil, ignoreSize: true)
        let gate = RegressionGate(baseline: [lirsAtOne: 0.1, lruAtOne: compared.results[1].hitRatio], baselineTrace: nil, tolerance: 0)
        let outcome = gate.check(compared)
        #expect(!outcome.passed && outcome.regressions.count == 1, "\(outcome)")
        #expect(outcome.regressions.first?.contains("lirs at 1 objects: the policy refuses it in this run") == true, "\(outcome.regressions)")
        #expect(!outcome.notes.contains { $0.contains("not in this run") }, "\(outcome.notes)")
        #expect(RegressionGate(baseline: [lruAtOne: compared.results[1].hitRatio], baselineTrace: nil, tolerance: 0).check(compared).passed)
        // The chart names what it could not draw: a policy without a line is not left out unseen.
        let onlyRefused = try Compare.run(CompareJob(trace: trace, policies: ["lru", "lirs"], capacities: CapacityList([.size(1), .size(2)]),
                                                     ignoreSize: true, threads: threads))
        #expect(onlyRefused.results.allSatisfy { $0.policy == "lru" } && onlyRefused.refusals.count == 2)
        let chart = CompareCharts.hitRatio(onlyRefused)
        #expect(chart.contains("not run, the policy refuses them: lirs at 1 objects, 2 objects"), "\(chart)")
        // An option the policy refuses is a mistake in the command, not a cell to leave out.
        #expect(throws: CacheBenchError.self) {
            try Compare.run(CompareJob(trace: trace, policies: ["lru", "s3fifo"], capacities: CapacityList([.size(100)]), ignoreSize: true,
                                       options: PolicyOptions(["warm-up": "maybe"])))
        }
    }

    @Test("every registered policy, two capacities, one and two threads")
    func everyPolicy() throws {
        let path = try Self.sampleTrace()
        defer { try? FileManager.default.removeItem(atPath: path) }
        let trace = TraceSpec(path: path)
        let names = PolicyRegistry.descriptors.map(\.name)
        let capacities = [2000, 20000]
        var expected: [String: [ReplayResult]] = [:]
        for name in names {
            expected[name] = try separateReplays(trace, policy: name, capacities: capacities, ignoreSize: false)
        }
        for threads in [1, 2] {
            let compared = try Compare.run(CompareJob(trace: trace, policies: names, capacities: CapacityList(capacities.map { .size($0) }),
                                                      threads: threads))
            #expect(compared.results.count == names.count * capacities.count)
            for name in names {
                let mine = compared.results.filter { $0.policy == name }
                guard let theirs = expected[name], mine.count == theirs.count else {
                    Issue.record("\(name): \(mine.count) results")
                    continue
                }
                for (c, r) in zip(mine, theirs) { expectSameCounts(c, r, "\(name) at \(r.capacity ?? 0), \(threads) threads") }
            }
        }
    }

    @Test("every registered policy on a bundled trace in object mode, with each policy's default capacity")
    func defaultCapacities() throws {
        let trace = TraceSpec(path: Repository.trace("lirs-cs.csv"))
        let names = PolicyRegistry.descriptors.map(\.name)
        let compared = try Compare.run(CompareJob(trace: trace, policies: names, ignoreSize: true))
        for (name, result) in zip(names, compared.results) {
            let replayed = try Replay.run(ReplayJob(trace: trace, policy: name, ignoreSize: true))
            #expect(result.capacitySource == replayed.capacitySource)
            expectSameCounts(result, replayed, name)
        }
    }

    @Test("options go to the policies that declare them; unknown ones are rejected")
    func options() throws {
        let trace = TraceSpec(path: Repository.trace("lirs-cs.csv"))
        #expect(throws: CacheBenchError.self) {
            try Compare.run(CompareJob(trace: trace, policies: ["lru", "fifo"], capacities: CapacityList([.size(10)]),
                                       ignoreSize: true, options: PolicyOptions(["no-such-option": "1"])))
        }
        #expect(throws: CacheBenchError.self) {
            try Compare.run(CompareJob(trace: trace, policies: ["lru", "lru"], capacities: CapacityList([.size(10)])))
        }
        #expect(throws: CacheBenchError.self) {
            try Compare.run(CompareJob(trace: trace, policies: ["nope"], capacities: CapacityList([.size(10)])))
        }
        // A policy with a parameter receives it; the others run with their defaults.
        guard let withParameter = PolicyRegistry.all.first(where: { !$0.descriptor.parameters.isEmpty })?.descriptor,
              let parameter = withParameter.parameters.first else { return }
        let options = PolicyOptions([parameter.name: parameter.defaultValue])
        let compared = try Compare.run(CompareJob(trace: trace, policies: [withParameter.name, "lru"],
                                                  capacities: CapacityList([.size(100)]), ignoreSize: true, options: options))
        let replayed = try Replay.run(ReplayJob(trace: trace, policy: withParameter.name, capacity: 100, ignoreSize: true, options: options))
        expectSameCounts(compared.results[0], replayed, withParameter.name)
    }

    @Test("fractions of the working set resolve like replay's default (0.1 = working-set-10%)")
    func fractionCapacities() throws {
        let trace = TraceSpec(path: Repository.trace("lirs-cs.csv"))
        let compared = try Compare.run(CompareJob(trace: trace, policies: ["fifo"], capacities: try CapacityList.parse("0.1,0.5"),
                                                  ignoreSize: true))
        let replayed = try Replay.run(ReplayJob(trace: trace, policy: "fifo", ignoreSize: true))
        #expect(compared.results.map(\.capacity) == [140, 704])
        #expect(compared.results[0].capacitySource == .workingSetFraction)
        expectSameCounts(compared.results[0], replayed, "fifo at 10%")
    }
}

@Suite("SVG charts")
struct SVGChartTests {
    /// Collects what a chart needs to be read: well-formed XML, an svg root, text and lines.
    final class Collector: NSObject, XMLParserDelegate {
        var elements: [String: Int] = [:]
        var markers = 0
        var texts: [String] = []
        var root: String?
        var current = ""
        func parser(_ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?,
                    attributes: [String: String] = [:]) {
            if root == nil { root = name }
            elements[name, default: 0] += 1
            if attributes["class"] == "marker" { markers += 1 }
            current = ""
        }
        func parser(_ parser: XMLParser, foundCharacters string: String) { current += string }
        func parser(_ parser: XMLParser, didEndElement name: String, namespaceURI: String?, qualifiedName: String?) {
            if name == "text" { texts.append(current) }
            current = ""
        }
    }

    static func parse(_ svg: String) throws -> Collector {
        let parser = XMLParser(data: Data(svg.utf8))
        let collector = Collector()
        parser.delegate = collector
        let ok = parser.parse()
        #expect(ok, "XML error: \(String(describing: parser.parserError))")
        return collector
    }

    @Test("the hit-ratio chart of a comparison is well-formed XML with a title, ticks, a legend and one line per policy")
    func hitRatioChart() throws {
        let trace = TraceSpec(path: Repository.trace("lirs-cs.csv"))
        let result = try Compare.run(CompareJob(trace: trace, policies: ["lru", "fifo", "lifo"],
                                                capacities: try CapacityList.parse("10...1400:6"), ignoreSize: true))
        let chart = try Self.parse(CompareCharts.hitRatio(result))
        #expect(chart.root == "svg")
        #expect(chart.elements["polyline"] == 3)
        // 18 data points and 3 legend entries, in three marker shapes.
        #expect(chart.markers == 21)
        #expect(chart.elements["circle"] == 7 && chart.elements["rect", default: 0] >= 7)
        #expect(chart.texts.contains { $0.contains("lirs-cs.csv") })
        #expect(chart.texts.contains("lru") && chart.texts.contains("fifo") && chart.texts.contains("lifo"))
        #expect(chart.texts.contains("100") && chart.texts.contains("1k"))
        #expect(chart.texts.contains { $0.hasSuffix(" %") })
    }

    @Test("capacities up to Int.max chart without trapping, objects and bytes, with units up to EiB")
    func hugeCapacities() throws {
        for unit in [SVGLineChart.XUnit.objects, .bytes] {
            let chart = SVGLineChart(title: "huge", xTitle: "x", yTitle: "y", xUnit: unit, yAxis: .percentFull,
                                     series: [.init(name: "p", points: [(x: 1e18, y: 0.1), (x: Double(Int.max), y: 0.9)], color: 0)])
            let parsed = try Self.parse(chart.render())
            #expect(parsed.root == "svg")
        }
        #expect(SVGLineChart.xLabel(Double(Int.max), unit: .objects, exact: true) == SizeFormat.grouped(.max) + " objects")
        #expect(SVGLineChart.xLabel(0x1p60, unit: .bytes, exact: false) == "1 EiB")
        #expect(SizeFormat.describe(1 << 60, objects: false) == "1 EiB (\(1 << 60) bytes)")
    }

    @Test("a capacity's label never claims a round size it is not: cut, not rounded, with decimals added until it is not whole")
    func exactSizeLabels() {
        #expect(SizeFormat.describe(1_048_575, objects: false) == "1023.99 KiB (1048575 bytes)")
        #expect(SizeFormat.describe(1_073_741_823, objects: false) == "1023.99 MiB (1073741823 bytes)")
        #expect(SizeFormat.describe(5_121, objects: false) == "5.0009 KiB (5121 bytes)")
        #expect(SizeFormat.describe(1_536, objects: false) == "1.5 KiB (1536 bytes)")
        #expect(SizeFormat.describe(64 << 20, objects: false) == "64 MiB (67108864 bytes)")
        #expect(SizeFormat.describe(1_023, objects: false) == "1023 bytes")
        #expect(SVGLineChart.xLabel(1_048_575, unit: .bytes, exact: true) == "1023.99 KiB")
        #expect(SVGLineChart.xLabel(1_048_576, unit: .bytes, exact: true) == "1 MiB")
        // Axis ticks may round: they are round numbers already.
        #expect(SVGLineChart.xLabel(1_048_575, unit: .bytes, exact: false) == "1024 KiB")
    }

    @Test("byte capacities get binary-unit ticks; names with markup characters are escaped")
    func byteTicksAndEscaping() throws {
        let chart = SVGLineChart(title: "a <b> & \"c\"", xTitle: "x", yTitle: "y", xUnit: .bytes, yAxis: .percentFull,
                                 series: [.init(name: "p<1>&", points: [(x: 1_048_576.0, y: 0.1), (x: 1_073_741_824.0, y: 0.9)], color: 0)])
        let parsed = try Self.parse(chart.render())
        #expect(parsed.texts.contains("a <b> & \"c\""))
        #expect(parsed.texts.contains("p<1>&"))
        #expect(parsed.texts.contains("1 MiB") && parsed.texts.contains("1 GiB"))
        #expect(parsed.texts.contains("0 %") && parsed.texts.contains("100 %"))
    }

    @Test("the latency chart has p50 and p99 lines on a log axis, and survives a single capacity and empty data")
    func latencyChart() throws {
        let trace = TraceSpec(path: Repository.trace("lirs-cs.csv"))
        let result = try Compare.run(CompareJob(trace: trace, policies: ["lru", "fifo"], capacities: try CapacityList.parse("100,1000"),
                                                ignoreSize: true, lruStackDistance: false))
        let chart = try Self.parse(CompareCharts.trimLatency(result))
        #expect(chart.elements["polyline"] == 4)
        #expect(chart.texts.contains("p50") && chart.texts.contains("p99"))
        #expect(chart.texts.contains { $0.hasSuffix("ns") || $0.hasSuffix("µs") })
        let single = try Compare.run(CompareJob(trace: trace, policies: ["fifo"], capacities: CapacityList([.size(100)]), ignoreSize: true))
        #expect(try Self.parse(CompareCharts.hitRatio(single)).markers == 2)
        let empty = SVGLineChart(title: "t", xTitle: "x", yTitle: "y", xUnit: .objects, yAxis: .logNanoseconds, series: [])
        #expect(try Self.parse(empty.render()).texts.contains("no data to plot"))
    }
}

@Suite("Regression gate")
struct RegressionGateTests {
    static func result(_ pairs: [(String, Int, Double)], trace: String = "Traces/lirs-cs.csv", ignoreSize: Bool = true,
                       requests: Int? = nil) -> String {
        let entries = pairs.map {
            "{\"policy\": \"\($0.0)\", \"capacity\": \($0.1), \"countLimit\": null, \"ignoreSize\": \(ignoreSize), \"hitRatio\": \($0.2)"
                + (requests.map { ", \"requests\": \($0)" } ?? "") + "}"
        }
        return "{\"trace\": \"\(trace)\", \"results\": [\(entries.joined(separator: ","))]}"
    }

    @Test("a baseline of several traces (a merged sweep) checks a run against its own trace's rows")
    func multiTraceBaseline() throws {
        let trace = TraceSpec(path: Repository.trace("lirs-cs.csv"))
        let run = try Compare.run(CompareJob(trace: trace, policies: ["fifo"], capacities: try CapacityList.parse("100"), ignoreSize: true))
        let ratio = try #require(run.results[0].hitRatio)
        func row(_ trace: String, _ hitRatio: Double, capacity: Int = 100) -> String {
            "{\"trace\": \"\(trace)\", \"policy\": \"fifo\", \"capacity\": \(capacity), \"ignoreSize\": true, \"hitRatio\": \(hitRatio)}"
        }
        func gate(_ rows: [String]) throws -> RegressionGate {
            try RegressionGate.parse(Data("{\"results\": [\(rows.joined(separator: ","))]}".utf8), name: "m.json", tolerance: 0)
        }
        // The other trace's row at the same capacity, far above this run's, is not this run's baseline.
        let merged = try gate([row("Traces/zipf.csv", 0.99), row("Traces/lirs-cs.csv", ratio), row("Traces/zipf.csv", 0.5, capacity: 7)])
        #expect(merged.check(run).passed)
        let higher = try gate([row("Traces/zipf.csv", ratio), row("/elsewhere/lirs-cs.csv", min(1, ratio + 0.1))])
        #expect(!higher.check(run).passed && higher.check(run).regressions.count == 1)
        // No rows for this run's trace: not a comparison.
        let others = try gate([row("a.csv", ratio), row("b.csv", ratio)])
        #expect(others.check(run).mismatches.contains { $0.contains("none for") })
        // A row's own trace outranks the report's.
        let mislabelled = try RegressionGate.parse(Data("{\"trace\": \"Traces/lirs-cs.csv\", \"results\": [\(row("other.csv", ratio))]}".utf8),
                                                   name: "m.json", tolerance: 0)
        #expect(mislabelled.check(run).mismatches.contains { $0.contains("other.csv") })
        // Traces of one name in several folders (a merged sweep of d1/t.csv and d4/t.csv): the
        // run's own path, else the one ending in most of its path; equally near ones are named.
        let namesakes = try gate([row("d1/lirs-cs.csv", 0.99), row("Traces/lirs-cs.csv", ratio)])
        #expect(namesakes.check(run).passed, "\(namesakes.check(run))")
        let exact = try gate([row("Traces/lirs-cs.csv", 0.99), row(run.trace, ratio)])
        #expect(exact.check(run).passed, "\(exact.check(run))")
        let ambiguous = try gate([row("d1/lirs-cs.csv", ratio), row("d4/lirs-cs.csv", ratio)]).check(run)
        #expect(!ambiguous.passed && ambiguous.mismatches.contains { $0.contains("d1/lirs-cs.csv, d4/lirs-cs.csv, each as near") })
        // The same (policy, capacity) on two traces is not a duplicate; on one it is.
        #expect(throws: CacheBenchError.self) { _ = try gate([row("a.csv", 0.1), row("a.csv", 0.2)]) }
        // Capacities and count limits are positive.
        #expect(throws: CacheBenchError.self) { _ = try gate([row("a.csv", 0.1, capacity: -100)]) }
        // A row without a capacity (null is none) is malformed, not a pair the gate skips.
        let noCapacity = #expect(throws: CacheBenchError.self) {
            _ = try gate([row("a.csv", 0.1), "{\"policy\": \"fifo\", \"trace\": \"a.csv\", \"hitRatio\": 0.2}"])
        }
        #expect("\(String(describing: noCapacity))".contains("results[1]: missing \"capacity\""))
        #expect(try gate(["{\"policy\": \"fifo\", \"trace\": \"a.csv\", \"capacity\": null, \"hitRatio\": 0.2}"]).check(run).passed == false)
        #expect(throws: CacheBenchError.self) { _ = try gate([row("a.csv", 0.1, capacity: 0)]) }
    }

    @Test("a baseline that is not JSON is malformed input at the line where parsing stopped")
    func baselineNotJSON() throws {
        var cases: [(Data, Int)] = [("{\"results\": [1,\n  oops]}", 2), ("{\"results\":\n[\n{", 3), ("\n\n\n", 4),
                                    // What Foundation's parser takes, or reports without a place.
                                    ("{\"results\": [\n{\"policy\": \"fifo\", \"capacity\": 1,\n \"hitRatio\": 0.5,\n \"hitRatio\": 0.9}]}", 4),
                                    ("{\"results\": [],\n}", 2), ("{\"results\": [\n{\"hitRatio\": 1e400}]}", 2)].map { (Data($0.utf8), $1) }
        cases.append((Data("{\"results\": [],\n\"trace\": \"a".utf8) + Data([0xFF]) + Data("\"}".utf8), 2))
        for (data, line) in cases {
            #expect {
                _ = try RegressionGate.parse(data, name: "b.json", tolerance: 0)
            } throws: { error in
                guard case .trace(let trace)? = error as? CacheBenchError else { return false }
                return trace.kind == .malformed && trace.line == line && trace.description.hasPrefix("b.json:\(line): not a JSON document")
            }
        }
    }

    @Test("a drop just past the tolerance is printed with the decimals that tell the two apart")
    func dropAgainstTolerance() {
        #expect(RegressionGate.percents(0.005, 0.004999999) == ("0.5000000 %", "0.4999999 %"))
        #expect(RegressionGate.percents(0.02, 0.01) == ("2.0000 %", "1.0000 %"))
        #expect(RegressionGate.percents(0.3, 0.3) == ("30.000000000 %", "30.000000000 %"))
    }

    @Test("the gate fails when the comparison is not valid: nothing compared, another trace, mode or request count; allowPartial makes those notes")
    func invalidComparisons() throws {
        let trace = TraceSpec(path: Repository.trace("lirs-cs.csv"))
        let run = try Compare.run(CompareJob(trace: trace, policies: ["fifo"], capacities: try CapacityList.parse("100"), ignoreSize: true))
        let ratio = try #require(run.results[0].hitRatio)
        let cases: [(String, String)] = [
            (Self.result([]), "nothing was compared"),
            (Self.result([("lru", 100, ratio)]), "nothing was compared"),
            (Self.result([("fifo", 100, ratio)], trace: "other.csv"), "other.csv"),
            (Self.result([("fifo", 100, ratio)], ignoreSize: false), "capacities count bytes"),
            (Self.result([("fifo", 100, ratio)], requests: run.results[0].requests + 1), "requests"),
        ]
        for (text, expected) in cases {
            let gate = try RegressionGate.parse(Data(text.utf8), name: "b.json", tolerance: 0)
            let outcome = gate.check(run)
            #expect(!outcome.passed && outcome.regressions.isEmpty, "\(text)")
            #expect(outcome.mismatches.contains { $0.contains(expected) }, "\(outcome.mismatches)")
            let allowed = gate.check(run, allowPartial: true)
            #expect(allowed.passed && allowed.notes.contains { $0.contains(expected) })
        }
        // The same trace from another folder, with the same request count, is valid.
        let moved = try RegressionGate.parse(Data(Self.result([("fifo", 100, ratio)], trace: "/elsewhere/lirs-cs.csv",
                                                              requests: run.results[0].requests).utf8), name: "b.json", tolerance: 0)
        #expect(moved.check(run).passed)
    }

    @Test("drops beyond the tolerance regress; within it, or improvements, pass; missing pairs are notes")
    func check() throws {
        let trace = TraceSpec(path: Repository.trace("lirs-cs.csv"))
        let run = try Compare.run(CompareJob(trace: trace, policies: ["fifo"], capacities: try CapacityList.parse("100,1400"), ignoreSize: true))
        let at100 = try #require(run.results[0].hitRatio), at1400 = try #require(run.results[1].hitRatio)
        let pass = try RegressionGate.parse(Data(Self.result([("fifo", 100, at100 + 0.004), ("fifo", 1400, at1400 - 0.1)]).utf8),
                                            name: "b.json", tolerance: 0.005)
        #expect(pass.check(run).passed)
        let fail = try RegressionGate.parse(Data(Self.result([("fifo", 100, at100 + 0.006), ("fifo", 1400, at1400)]).utf8),
                                            name: "b.json", tolerance: 0.005)
        let outcome = fail.check(run)
        #expect(outcome.regressions.count == 1)
        #expect(outcome.regressions.first?.contains("fifo at 100 objects") == true)
        let partial = try RegressionGate.parse(Data(Self.result([("fifo", 100, at100)]).utf8), name: "b.json", tolerance: 0)
        let partialOutcome = partial.check(run)
        #expect(partialOutcome.passed)
        #expect(partialOutcome.notes.contains { $0.contains("fifo at 1,400 objects") || $0.contains("fifo at 1400 objects") })
    }

    @Test("a baseline naming a policy by its alias, in any case, checks that policy; alias and name together are one cell twice")
    func baselineAliases() throws {
        let trace = TraceSpec(path: Repository.trace("lirs-cs.csv"))
        let run = try Compare.run(CompareJob(trace: trace, policies: ["2q", "clock"], capacities: try CapacityList.parse("100"), ignoreSize: true))
        let twoQ = try #require(run.results[0].hitRatio), clock = try #require(run.results[1].hitRatio)
        let aliased = try RegressionGate.parse(Data(Self.result([("TwoQ", 100, twoQ + 0.01), ("fifo-reinsertion", 100, clock)]).utf8),
                                               name: "b.json", tolerance: 0.005)
        let outcome = aliased.check(run)
        #expect(outcome.regressions.count == 1 && outcome.regressions.first?.contains("2q at 100 objects") == true, "\(outcome)")
        #expect(!outcome.notes.contains { $0.contains("not in the baseline") }, "\(outcome.notes)")
        #expect(throws: CacheBenchError.self) {
            try RegressionGate.parse(Data(Self.result([("2q", 100, twoQ), ("twoq", 100, twoQ)]).utf8), name: "b.json", tolerance: 0)
        }
    }

    @Test("a baseline made behind another admission rule, or none, is not compared as alike")
    func baselineAdmission() throws {
        let trace = TraceSpec(path: Repository.trace("lirs-cs.csv"))
        var job = CompareJob(trace: trace, policies: ["lru"], capacities: try CapacityList.parse("100"), ignoreSize: true)
        let plain = try Compare.run(job)
        job.admission = try LibCacheSimAdmission(AdmissionChoice(name: "prob", parameters: [("prob", "0.5")]))
        let admitted = try Compare.run(job)
        func baseline(_ result: CompareResult) throws -> RegressionGate {
            try RegressionGate.parse(Data(CompareReport.render(result, as: .json).utf8), name: "b.json", tolerance: 1)
        }
        #expect(try baseline(plain).check(plain).passed && baseline(admitted).check(admitted).passed)
        for (made, run) in [(plain, admitted), (admitted, plain)] {
            let outcome = try baseline(made).check(run)
            #expect(!outcome.passed && outcome.mismatches.contains { $0.contains("admission prob") }, "\(outcome)")
            #expect(try baseline(made).check(run, allowPartial: true).passed)
        }
    }

    @Test("what the gate does not check is said: baseline results the run lacks, a baseline without a trace or request counts; a null ratio with requests is malformed")
    func uncheckedIsSaid() throws {
        let trace = TraceSpec(path: Repository.trace("lirs-cs.csv"))
        let run = try Compare.run(CompareJob(trace: trace, policies: ["fifo"], capacities: try CapacityList.parse("100"), ignoreSize: true))
        let ratio = try #require(run.results[0].hitRatio), requests = run.results[0].requests
        let wider = try RegressionGate.parse(Data(Self.result([("fifo", 100, ratio), ("lru", 100, ratio), ("fifo", 700, ratio)],
                                                              requests: requests).utf8), name: "b.json", tolerance: 0).check(run)
        #expect(wider.passed && wider.notes == ["2 of the baseline's results are not in this run, not checked: fifo at 700 objects; lru at 100 objects"],
                "\(wider.notes)")
        let bare = try RegressionGate.parse(Data("{\"results\": [{\"policy\": \"fifo\", \"capacity\": 100, \"ignoreSize\": true, \"hitRatio\": \(ratio)}]}".utf8),
                                            name: "b.json", tolerance: 0).check(run)
        #expect(bare.passed && bare.notes.contains { $0.contains("names no trace") } && bare.notes.contains { $0.contains("no request counts") },
                "\(bare.notes)")
        let nullRatio = #expect(throws: CacheBenchError.self) {
            _ = try RegressionGate.parse(Data("{\"trace\": \"lirs-cs.csv\", \"results\": [{\"policy\": \"fifo\", \"capacity\": 100, \"ignoreSize\": true, \"hitRatio\": null, \"requests\": \(requests)}]}".utf8),
                                         name: "b.json", tolerance: 0)
        }
        #expect("\(String(describing: nullRatio))".contains("\"hitRatio\" is null (no requests) but \"requests\" is \(requests)"))
        // Null with 0 requests (or none given) is a run without requests: a note.
        #expect(try RegressionGate.parse(Data("{\"trace\": \"lirs-cs.csv\", \"results\": [{\"policy\": \"fifo\", \"capacity\": 100, \"ignoreSize\": true, \"hitRatio\": null, \"requests\": 0}]}".utf8),
                                         name: "b.json", tolerance: 0).check(run).notes.contains { $0.contains("no requests, not checked") })
    }

    @Test("a report passes against itself at tolerance 0 (ratios read back exactly, via hits and requests)")
    func selfBaseline() throws {
        let trace = TraceSpec(path: Repository.trace("cache2k-web12.csv"))
        let run = try Compare.run(CompareJob(trace: trace, policies: ["fifo", "lru", "clock"],
                                             capacities: try CapacityList.parse("100...10000:9"), ignoreSize: true))
        let gate = try RegressionGate.parse(Data(run.json.serialized().utf8), name: "self.json", tolerance: 0)
        let outcome = gate.check(run)
        #expect(outcome.regressions.isEmpty, "\(outcome.regressions)")
        #expect(outcome.notes.isEmpty)
    }

    @Test("malformed baselines are exit 65 with FILE: reason", arguments: [
        "not json", "[]", "{\"results\": 3}", "{\"results\": [3]}", "{\"results\": [{\"capacity\": 1, \"hitRatio\": 0.5}]}",
        "{\"results\": [{\"policy\": \"lru\", \"capacity\": 1}]}", "{\"results\": [{\"policy\": \"lru\", \"capacity\": \"big\", \"hitRatio\": 0.5}]}",
        "{\"results\": [{\"policy\": \"lru\", \"capacity\": 1, \"hitRatio\": 1.5}]}",
        "{\"results\": [{\"policy\": \"lru\", \"capacity\": 1, \"hitRatio\": 0.5, \"hits\": \"3\", \"requests\": 6}]}",
        "{\"results\": [{\"policy\": \"lru\", \"capacity\": 1, \"hitRatio\": 0.5, \"hits\": 7, \"requests\": 6}]}",
        "{\"results\": [{\"policy\": \"lru\", \"capacity\": 1, \"hitRatio\": 0.5, \"hits\": -1}]}",
        "{\"results\": [{\"policy\": \"lru\", \"capacity\": 1, \"hitRatio\": 0.5, \"hits\": 1.5, \"requests\": 6}]}",
    ])
    func malformed(_ text: String) {
        do {
            _ = try RegressionGate.parse(Data(text.utf8), name: "base.json", tolerance: 0)
            Issue.record("accepted \(text)")
        } catch {
            #expect(error.exitCode == 65)
            // Text that is not JSON at all is located at its line; a JSON document of the wrong
            // shape names the file and what is wrong.
            #expect(error.description.hasPrefix(text == "not json" ? "base.json:1: " : "base.json: "))
        }
    }

    @Test("tolerance: a ratio or percentage points")
    func tolerance() throws {
        #expect(try RegressionGate.parseTolerance("0.01") == 0.01)
        #expect(try RegressionGate.parseTolerance("1%") == 0.01)
        #expect(throws: UsageError.self) { try RegressionGate.parseTolerance("-1") }
        #expect(throws: UsageError.self) { try RegressionGate.parseTolerance("lots") }
    }

    @Test("ordered colours are distinct past the palette; round ticks are distinct and cover the range")
    func chartScales() {
        for count in [3, 16, 17, 30, 60] {
            let colors = (0..<count).map { SVGLineChart.orderedColor($0, of: count) }
            #expect(Set(colors).count == count, "\(count): \(colors)")
            #expect(colors.allSatisfy { $0.count == 7 && $0.hasPrefix("#") })
        }
        for (low, high, minimum) in [(0.0, 1.0, 1.0), (0.0, 1.0, 0.0), (0.0, 37.0, 1.0), (1e6, 1.3e6, 0.0), (0.0, 0.003, 0.0)] {
            let (ticks, decimals) = SVGLineChart.roundTicks(low, high, atLeast: minimum)
            let labels = ticks.map { SVGLineChart.trimmed($0, decimals: decimals) }
            #expect(ticks.count >= 2 && ticks.count <= 11 && Set(labels).count == labels.count, "\(low)…\(high): \(labels)")
            #expect(ticks.allSatisfy { $0 >= low - 1e-9 && $0 <= high + 1e-9 })
        }
    }
}
