import EvictionPolicies
import Foundation
import TestSupport
import Testing

/// A cache-aside request through `cache`, with no observer of its own.
private func get<P: EvictionPolicy>(_ cache: inout P, _ key: P.Key, cost: Int = 1) -> Bool where P.Value == Void {
    var observer = IgnoringObserver<P.Key, Void>()
    return cache.access(key, cost: cost, orInsert: (), observer: &observer)
}

@Suite("Admission rules (libCacheSim 0.3.5's admission algorithms)")
struct AdmissionTests {
    // MARK: Hand-worked vectors

    /// lehmer64 by hand (Python's exact integers): state = 42 × 0xda942042e4dd58b5ⁿ mod 2¹²⁸,
    /// high 64 bits: 0x23, 0x9e59b3705e44afb1, 0x17c3172c1a0923f, 0xf764eeef26126b4c.
    @Test("the generator draws libCacheSim's next_rand sequence")
    func lehmer() {
        var random = _Lehmer64(seed: 42)
        let draws = (0..<4).map { _ in random.next() }
        #expect(draws == [0x23, 0x9e59_b370_5e44_afb1, 0x17c_3172_c1a0_923f, 0xf764_eeef_2612_6b4c])
    }

    @Test("size admits below the threshold only")
    func size() {
        var rule = SizeAdmission<Int>(threshold: 10)
        let answers = [9, 10, 11].map { rule.admits(1, cost: $0) }
        #expect(answers == [true, false, false])
        var unlimited = SizeAdmission<Int>()
        let huge = unlimited.admits(1, cost: Int.max - 1)
        #expect(huge)
    }

    /// LRU of 2 objects behind the second-miss rule: 1 1 2 1 2 2.
    /// 1 miss refused (remembered), 1 miss admitted, 2 miss refused, 1 hit, 2 miss admitted, 2 hit.
    @Test("bloomfilter admits a key on its second miss")
    func bloomFilter() throws {
        var cache = AdmissionControlled(try LRUCache<Int, Void>.make(capacity: 2), rule: BloomFilterAdmission<Int>(), capacity: 2)
        var hits: [Bool] = []
        for key in [1, 1, 2, 1, 2, 2] { hits.append(get(&cache, key)) }
        #expect(hits == [false, false, false, true, false, true])
        #expect(cache.admitted == 2)
        #expect(cache.rejected == 2)
        #expect(cache.rule.rememberedKeys == 2)
    }

    /// Seed 42's draws mod 10⁷ are 35, 9131057, 4607935, 2601548 (above): with prob 0.5
    /// (threshold 5,000,000) the first, third and fourth misses are admitted, the second is not.
    @Test("prob admits when the draw mod 10^7 is below prob x 10^7")
    func probabilistic() throws {
        var rule = try ProbabilisticAdmission<Int>(probability: 0.5, seed: 42)
        let answers = [1, 2, 3, 4].map { rule.admits($0, cost: 1) }
        #expect(answers == [true, false, true, true])
        var always = try ProbabilisticAdmission<Int>(probability: 1, seed: 7)
        let all = (0..<1000).map { always.admits($0, cost: 1) }
        #expect(!all.contains(false))
    }

    /// exp(-exponent × size): size 0 gives probability 1, size 10⁹ with exponent 1e-6 gives
    /// e^-1000 = 0. Seed 42's third draw, 4607935 / 10⁷ = 0.46, is below e^-0.5 = 0.607 but not
    /// below e^-1 = 0.368.
    @Test("sizeprob admits with probability e^(-exponent x size)")
    func sizeProbabilistic() throws {
        var rule = try SizeProbabilisticAdmission<Int>(exponent: 1e-6, seed: 3)
        let small = (0..<1000).map { rule.admits($0, cost: 0) }
        #expect(!small.contains(false))
        let large = (0..<1000).map { rule.admits($0, cost: 1_000_000_000) }
        #expect(!large.contains(true))
        var half = try SizeProbabilisticAdmission<Int>(exponent: 0.5, seed: 42)
        let halfAnswers = (0..<3).map { _ in half.admits(1, cost: 1) }
        #expect(halfAnswers[2])
        var one = try SizeProbabilisticAdmission<Int>(exponent: 1, seed: 42)
        let oneAnswers = (0..<3).map { _ in one.admits(1, cost: 1) }
        #expect(!oneAnswers[2])
    }

    /// c starts at 2^15; reconfiguration waits for `reconf-interval` requests and for the
    /// objects seen to weigh more than 3 × the capacity (else it retries 1000 requests later).
    @Test("adaptsize keeps c = 2^15 until a reconfiguration is due and the working set is large")
    func adaptSizeSchedule() throws {
        var rule = try AdaptSizeAdmission<Int>(maximumIterations: 15, reconfigurationInterval: 10, seed: 1)
        // 10 requests of one 100-byte object against 1000 bytes: too little seen, c stays.
        for _ in 0..<10 { rule.observe(1, cost: 100, capacity: 1000) }
        #expect(rule.sizeParameter == 32768)
        // Many distinct objects, one hot small one: at the 1010th request c is tuned.
        for i in 0..<999 { rule.observe(i % 2 == 0 ? 1 : 1000 + i, cost: i % 2 == 0 ? 10 : 500, capacity: 1000) }
        #expect(rule.sizeParameter == 32768)
        rule.observe(2, cost: 500, capacity: 1000)
        #expect(rule.sizeParameter != 32768)
        // The model prefers admitting the hot 10-byte object over the one-off 500-byte ones:
        // e^(-10/c) is near 1 and e^(-500/c) well below it.
        #expect(exp(-10 / rule.sizeParameter) > 0.9)
        #expect(exp(-500 / rule.sizeParameter) < exp(-10 / rule.sizeParameter))
    }

    /// Counts libCacheSim 0.3.5 gives with `set_rand_seed(1)` before the run (a driver over
    /// `cache_get_base` with the admissioner attached, as `cachesim -a` attaches it).
    @Test("a randomized rule draws for an object too large to keep, and arcv0 keeps its ghost flag after a refusal")
    func libCacheSimDrawOrder() throws {
        let prob = AdmissionChoice(name: "prob", parameters: [("prob", "0.5"), ("seed", "1")])
        // The 5,000-byte object is refused by the size after its draw: the later draws stay in step.
        var lru = AdmissionControlled(try LRUCache<UInt64, Void>.make(capacity: 1000),
                                      rule: try LibCacheSimAdmission<UInt64>(prob), capacity: 1000)
        let requests: [(UInt64, Int)] = [(1, 100), (2, 5000), (3, 100), (4, 100), (4, 100)]
        #expect(requests.filter { !get(&lru, $0.0, cost: $0.1) }.count == 5)
        // arcv0, 4 objects: a refused B2 ghost hit leaves "found in B2" set for a later REPLACE.
        var arc = AdmissionControlled(try ARCv0Cache<UInt64, Void>(limits: CacheLimits(capacity: 4), options: PolicyOptions()),
                                      rule: try LibCacheSimAdmission<UInt64>(prob), capacity: 4)
        let keys: [UInt64] = [1, 2, 2, 3, 4, 5, 6, 5, 2, 6, 4, 3, 1, 7, 2, 4, 5, 5, 7, 3]
        #expect(keys.filter { !get(&arc, $0) }.count == 13)
    }

    // MARK: A reference model on random sequences

    /// A straightforward LRU (an array, most recent last) with admission written out by hand.
    struct ReferenceLRU {
        var order: [UInt64] = []
        var costs: [UInt64: Int] = [:]
        let capacity: Int
        var admitted = 0, rejected = 0

        mutating func get(_ key: UInt64, cost: Int, admits: (UInt64, Int) -> Bool) -> Bool {
            if let i = order.firstIndex(of: key) {
                order.append(order.remove(at: i))
                return true
            }
            // libCacheSim's cache_can_insert_default: the rule first (it draws, and the bloom
            // filter remembers the key, even for an object too large to keep), then the size.
            guard admits(key, cost) else { rejected += 1; return false }
            admitted += 1
            guard cost <= capacity else { return false }
            while order.reduce(0, { $0 + costs[$1]! }) + cost > capacity {
                costs[order.removeFirst()] = nil
            }
            order.append(key)
            costs[key] = cost
            return false
        }
    }

    static let rules = ["size", "bloomfilter", "prob", "sizeprob"]

    @Test("LRU behind each rule decides as the reference model on random sequences", arguments: rules)
    func referenceModel(_ name: String) throws {
        for seed in UInt64(1)...20 {
            var random = SeededRandom(seed: seed)
            let capacity = Int.random(in: 50...400, using: &random)
            let choice: AdmissionChoice = switch name {
            case "size": AdmissionChoice(name: "size", parameters: [("size", "60")])
            case "prob": AdmissionChoice(name: "PROB", parameters: [("prob", "0.3"), ("seed", "\(seed)")])
            case "sizeprob": AdmissionChoice(name: "sizeProbabilistic", parameters: [("exponent", "0.02"), ("seed", "\(seed)")])
            default: AdmissionChoice(name: "bloom-filter")
            }
            var cache = AdmissionControlled(try LRUCache<UInt64, Void>.make(capacity: capacity),
                                            rule: try LibCacheSimAdmission<UInt64>(choice), capacity: capacity)
            var reference = ReferenceLRU(capacity: capacity)
            var draws = _Lehmer64(seed: seed)
            var seen = Set<UInt64>()
            let admits: (UInt64, Int) -> Bool = { key, cost in
                switch name {
                case "size": return cost < 60
                case "prob": return draws.next() % 10_000_000 < 3_000_000
                case "sizeprob": return Double(draws.next() % 10_000_000) / 1e7 < exp(-0.02 * Double(cost))
                default: return !seen.insert(key).inserted
                }
            }
            for step in 0..<3000 {
                let key = UInt64.random(in: 0..<60, using: &random)
                let cost = Int.random(in: 1...100, using: &random)
                let expected = reference.get(key, cost: cost, admits: admits)
                let hit = get(&cache, key, cost: cost)
                #expect(hit == expected, "\(name) seed \(seed) step \(step)")
            }
            #expect(cache.admitted == reference.admitted, "\(name) seed \(seed)")
            #expect(cache.rejected == reference.rejected, "\(name) seed \(seed)")
            #expect(cache.count == reference.order.count, "\(name) seed \(seed)")
        }
    }

    /// A policy that never asks its observer: the wrapper decides after the insert and takes a
    /// refused object out again.
    struct Unasking: EvictionPolicy {
        static var descriptor: PolicyDescriptor {
            PolicyDescriptor(name: "unasking", reproduces: "a set without eviction", rule: "keep everything", family: .research)
        }
        var keys = Set<Int>()
        init(limits: CacheLimits, options: PolicyOptions) {}
        var count: Int { keys.count }
        var totalCost: Int { keys.count }
        func contains(_ key: Int) -> Bool { keys.contains(key) }
        mutating func lookup(_ key: Int, observer: inout some EvictionObserver<Int, Void>) -> Void? {
            keys.contains(key) ? () : nil
        }
        mutating func insert(_ value: Void, forKey key: Int, cost: Int, observer: inout some EvictionObserver<Int, Void>) {
            keys.insert(key)
        }
        mutating func remove(_ key: Int, observer: inout some EvictionObserver<Int, Void>) -> Void? {
            keys.remove(key).map { _ in () }
        }
    }

    @Test("a policy that never asks still gets the rule's decision")
    func unaskingPolicy() throws {
        var cache = AdmissionControlled(try Unasking.make(), rule: BloomFilterAdmission<Int>(), capacity: 10)
        var hits: [Bool] = []
        for key in [5, 5, 5, 6] { hits.append(get(&cache, key)) }
        #expect(hits == [false, false, true, false])
        #expect(cache.contains(5))
        #expect(!cache.contains(6))
        #expect((cache.admitted, cache.rejected) == (1, 2))
    }

    /// ARC consumes a ghost (and moves p) before asking, as libCacheSim's ARC_find does before
    /// can_insert; a refused ghost hit leaves no ghost behind.
    @Test("ARC and S3-FIFO ask after their own steps, before evicting")
    func ghostPoliciesAsk() throws {
        var arc = AdmissionControlled(try ARCCache<Int, Void>.make(capacity: 10), rule: SizeAdmission<Int>(threshold: 5), capacity: 10)
        for key in 1...3 { _ = get(&arc, key, cost: 4) }       // 1 leaves for the ghost list B1
        #expect(!arc.contains(1))
        let refusedHit = get(&arc, 1, cost: 5)                 // refused after consuming the ghost
        #expect(!refusedHit)
        #expect((arc.admitted, arc.rejected) == (3, 1))
        #expect(arc.count == 2)
        var s3 = AdmissionControlled(try S3FIFOCache<Int, Void>.make(capacity: 100), rule: BloomFilterAdmission<Int>(), capacity: 100)
        // An object over S3-FIFO's small queue (10 % of 100) is refused before the rule is asked.
        let large = get(&s3, 1, cost: 50)
        #expect(!large)
        #expect((s3.admitted, s3.rejected) == (0, 0))
        var hits: [Bool] = []
        for _ in 0..<3 { hits.append(get(&s3, 2, cost: 5)) }
        #expect(hits == [false, false, true])
        #expect((s3.admitted, s3.rejected) == (1, 1))
    }

    // MARK: Bad parameters

    static let badChoices: [(AdmissionChoice, AdmissionConfigurationError)] = [
        (AdmissionChoice(name: "lru"), .unknownRule("lru", known: ["size", "bloomfilter", "prob", "sizeprob", "adaptsize"])),
        (AdmissionChoice(name: "prob", parameters: [("probability", "0.5")]),
         .unknownParameter("probability", rule: "prob", known: ["prob", "seed"])),
        (AdmissionChoice(name: "bloomfilter", parameters: [("size", "1")]), .unknownParameter("size", rule: "bloomfilter", known: [])),
        (AdmissionChoice(name: "prob", parameters: [("prob", "0")]),
         .invalidParameter("prob", rule: "prob", value: "0.0", expected: "a probability in (0, 1]")),
        (AdmissionChoice(name: "prob", parameters: [("prob", "1.5")]),
         .invalidParameter("prob", rule: "prob", value: "1.5", expected: "a probability in (0, 1]")),
        (AdmissionChoice(name: "prob", parameters: [("prob", "nan")]),
         .invalidParameter("prob", rule: "prob", value: "nan", expected: "a number")),
        (AdmissionChoice(name: "sizeprob", parameters: [("exponent", "2")]),
         .invalidParameter("exponent", rule: "sizeprob", value: "2.0", expected: "a number in (0, 1]")),
        (AdmissionChoice(name: "size", parameters: [("size", "big")]),
         .invalidParameter("size", rule: "size", value: "big", expected: "a whole number")),
        (AdmissionChoice(name: "size", parameters: [("size", "-1")]),
         .invalidParameter("size", rule: "size", value: "-1", expected: "a whole number of at least 1")),
        (AdmissionChoice(name: "size", parameters: [("size", "0")]),
         .invalidParameter("size", rule: "size", value: "0", expected: "a whole number of at least 1")),
        (AdmissionChoice(name: "adaptsize", parameters: [("reconf-interval", "0")]),
         .invalidParameter("reconf-interval", rule: "adaptsize", value: "0", expected: "a whole number of at least 1")),
        (AdmissionChoice(name: "adaptsize", parameters: [("max-iteration", "-1")]),
         .invalidParameter("max-iteration", rule: "adaptsize", value: "-1", expected: "a whole number from 0 to 1000")),
        (AdmissionChoice(name: "prob", parameters: [("seed", "-1")]),
         .invalidParameter("seed", rule: "prob", value: "-1", expected: "a whole number from 0 to \(UInt64.max)")),
    ]

    @Test("bad names and parameters are typed errors in the library's words")
    func badParameters() {
        for (choice, expected) in Self.badChoices {
            #expect(throws: expected) { _ = try LibCacheSimAdmission<Int>(choice) }
            #expect(!expected.description.contains("--"), "\(expected.description)")
        }
    }

    @Test("names and parameter names are case-insensitive, with libCacheSim's aliases")
    func names() throws {
        for (name, canonical) in [("SIZE", "size"), ("Bloom-Filter", "bloomfilter"), ("Probabilistic", "prob"),
                                  ("sizeProb", "sizeprob"), ("SizeProbabilistic", "sizeprob"), ("AdaptSize", "adaptsize"),
                                  ("bloom_filter", "bloomfilter"), ("size_prob", "sizeprob"), ("ADAPT-SIZE", "adaptsize")] {
            #expect(try LibCacheSimAdmission<Int>(AdmissionChoice(name: name)).name == canonical)
        }
        guard case .probabilistic(let rule) = try LibCacheSimAdmission<Int>(AdmissionChoice(name: "prob", parameters: [("PROB", "0.25")]))
        else { Issue.record("not prob"); return }
        #expect(rule.probability == 0.25)
    }
}
