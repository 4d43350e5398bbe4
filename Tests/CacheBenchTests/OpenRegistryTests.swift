import CacheBench
import CacheBenchCommandLine
import EvictionPolicies
import TestSupport
import Testing

/// What a test's FIFO gives as its victim: its oldest entry, or, broken, nothing (-1), a number
/// out of the arena's range, or every other time the slot it gave last (released by then).
private enum VictimRule { case oldest, none, outOfRange, released }

/// The names a test's own FIFO answers to, and whether its rule is broken.
private protocol TestPolicyNaming {
    static var descriptor: PolicyDescriptor { get }
    static var victimRule: VictimRule { get }
    /// Whether its count and total cost are broken to read 0, so that it never evicts.
    static var countsNothing: Bool { get }
}
extension TestPolicyNaming {
    static var victimRule: VictimRule { .oldest }
    static var countsNothing: Bool { false }
}

/// FIFO's rule under another name (and, when asked, an alias), as a caller's own policy would be.
private enum CallerNaming: TestPolicyNaming {
    static var descriptor: PolicyDescriptor {
        PolicyDescriptor(name: "caller-fifo", reproduces: "a test's own FIFO", rule: "evict the oldest insertion",
                         family: .research, supportsCountLimit: true)
    }
}

/// The same rule under a name and an alias spelled with capitals.
private enum CamelNaming: TestPolicyNaming {
    static var descriptor: PolicyDescriptor {
        PolicyDescriptor(name: "CamelFIFO", reproduces: "a test's FIFO with a capitalised name", rule: "evict the oldest insertion",
                         family: .research, supportsCountLimit: true, aliases: ["Camel-Alias"])
    }
}

private struct NamedFIFO<Key: Hashable, Value, Naming: TestPolicyNaming>: SingleListPolicy {
    static var descriptor: PolicyDescriptor { Naming.descriptor }
    var store = SlotArena<Key, Value>()
    var residents: LimitedList
    init(limits: CacheLimits, options: PolicyOptions) throws(PolicyConfigurationError) {
        residents = try LimitedList(for: Self.descriptor, limits: limits, options: options)
    }
    var count: Int { Naming.countsNothing ? 0 : residents.list.count }
    var totalCost: Int { Naming.countsNothing ? 0 : residents.list.cost }
    mutating func didHit(_ slot: Int32) {}
    var lastVictim: Int32 = -1, victimCalls = 0
    mutating func victim() -> Int32 {
        switch Naming.victimRule {
        case .oldest: return residents.tail
        case .none: return -1
        case .outOfRange: return 1_000_000
        case .released:
            victimCalls += 1
            if victimCalls % 2 == 0, lastVictim >= 0 { return lastVictim }
            lastVictim = residents.tail
            return lastVictim
        }
    }
}

/// A broken plug-in that keeps its own count and keeps it wrong (always empty), so it never evicts.
private enum MiscountingNaming: TestPolicyNaming {
    static var descriptor: PolicyDescriptor {
        PolicyDescriptor(name: "miscounting-fifo", reproduces: "a broken test policy", rule: "count and totalCost are 0", family: .research)
    }
    static var countsNothing: Bool { true }
}

/// A plug-in that declares itself slow by design.
private enum SlowNaming: TestPolicyNaming {
    static var descriptor: PolicyDescriptor {
        PolicyDescriptor(name: "slow-fifo", reproduces: "a test policy", rule: "FIFO", family: .research,
                         slowByDesign: "walks every resident on each hit")
    }
}

/// A broken plug-in whose rule has no victim to give: the pass ends, and the run is reported, not trapped.
private enum VictimlessNaming: TestPolicyNaming {
    static var descriptor: PolicyDescriptor {
        PolicyDescriptor(name: "victimless-fifo", reproduces: "a broken test policy", rule: "victim() is -1", family: .research)
    }
    static var victimRule: VictimRule { .none }
}
private enum OutOfRangeNaming: TestPolicyNaming {
    static var descriptor: PolicyDescriptor {
        PolicyDescriptor(name: "wild-fifo", reproduces: "a broken test policy", rule: "victim() is slot 1,000,000", family: .research)
    }
    static var victimRule: VictimRule { .outOfRange }
}
private enum ReleasedNaming: TestPolicyNaming {
    static var descriptor: PolicyDescriptor {
        PolicyDescriptor(name: "stale-fifo", reproduces: "a broken test policy", rule: "victim() repeats a released slot", family: .research)
    }
    static var victimRule: VictimRule { .released }
}

/// Parameters no option could reach, or two reached by one key.
private enum CollidingParameters: TestPolicyNaming {
    static var descriptor: PolicyDescriptor {
        PolicyDescriptor(name: "colliding-fifo", reproduces: "a test", rule: "fifo", family: .research,
                         parameters: [PolicyParameter("ratio", default: "0.1", "a ratio"),
                                      PolicyParameter("size", default: "1", "a size", aliases: ["RATIO"])])
    }
}
private enum UntypableParameter: TestPolicyNaming {
    static var descriptor: PolicyDescriptor {
        PolicyDescriptor(name: "untypable-fifo", reproduces: "a test", rule: "fifo", family: .research,
                         parameters: [PolicyParameter("a=b", default: "1", "a key with an equals sign")])
    }
}
/// FIFO's rule, claiming to evict as LRU.
private enum FalseLRUNaming: TestPolicyNaming {
    static var descriptor: PolicyDescriptor {
        PolicyDescriptor(name: "false-lru", reproduces: "a test", rule: "fifo", family: .research, evictsAsLRU: true)
    }
}
/// A randomized plug-in without a seed option, and one with `|` and a backtick in its names.
private enum UnseededNaming: TestPolicyNaming {
    static var descriptor: PolicyDescriptor {
        PolicyDescriptor(name: "pipe|fifo", reproduces: "a test", rule: "fifo", family: .research, aliases: ["tick`fifo"], isDeterministic: false)
    }
}

/// Names no list of policies could select.
private enum EmptyNaming: TestPolicyNaming {
    static var descriptor: PolicyDescriptor { PolicyDescriptor(name: " ", reproduces: "a test", rule: "fifo", family: .research) }
}
private enum CommaNaming: TestPolicyNaming {
    static var descriptor: PolicyDescriptor { PolicyDescriptor(name: "lru,2c", reproduces: "a test", rule: "fifo", family: .research) }
}
private enum GroupNaming: TestPolicyNaming {
    static var descriptor: PolicyDescriptor {
        PolicyDescriptor(name: "mine", reproduces: "a test", rule: "fifo", family: .research, aliases: ["Research"])
    }
}

/// An alias that repeats the policy's own name in other capitals.
private enum EchoNaming: TestPolicyNaming {
    static var descriptor: PolicyDescriptor {
        PolicyDescriptor(name: "echo-fifo", reproduces: "a test", rule: "fifo", family: .research, aliases: ["Echo-FIFO"])
    }
}

/// Names with white space, which lists of policies trim.
private enum SpacedNaming: TestPolicyNaming {
    static var descriptor: PolicyDescriptor { PolicyDescriptor(name: " pad", reproduces: "a test", rule: "fifo", family: .research) }
}
/// A library default capacity no run could take.
private enum ZeroDefaultNaming: TestPolicyNaming {
    static var descriptor: PolicyDescriptor {
        PolicyDescriptor(name: "zero-default", reproduces: "a test", rule: "fifo", family: .library, defaultCapacity: .library(0))
    }
}

/// LRU, declared as evicting as LRU, that refuses capacities below 10 objects.
private struct PickyLRU<Key: Hashable, Value>: SingleListPolicy {
    static var descriptor: PolicyDescriptor {
        PolicyDescriptor(name: "picky-lru", reproduces: "a test's LRU", rule: "LRU, at 10 objects or more",
                         family: .research, supportsCountLimit: true, evictsAsLRU: true)
    }
    var store = SlotArena<Key, Value>()
    var residents: LimitedList
    init(limits: CacheLimits, options: PolicyOptions) throws(PolicyConfigurationError) {
        if let capacity = limits.capacity, capacity < 10 { throw .invalidLimit(.capacity, value: capacity, expected: "at least 10") }
        residents = try LimitedList(for: Self.descriptor, limits: limits, options: options)
    }
    mutating func didHit(_ slot: Int32) { store.moveToHead(slot, &residents.list) }
    mutating func victim() -> Int32 { residents.tail }
}

/// LRU that inserts at the tail with `insert-at=tail` (LIP), declared as evicting as LRU: its
/// options must reach its runs, not a one-pass LRU profile.
private struct CallerLRU<Key: Hashable, Value>: SlotPolicy {
    static var descriptor: PolicyDescriptor {
        PolicyDescriptor(name: "caller-lru", reproduces: "a test's LRU", rule: "LRU; LIP with insert-at=tail",
                         family: .research, supportsCountLimit: true,
                         parameters: [PolicyParameter("insert-at", default: "head", "where a new object enters", aliases: ["insertAt"])],
                         evictsAsLRU: true)
    }
    var store = SlotArena<Key, Value>()
    var queue = SlotList()
    let capacity: Int
    let countLimit: Int
    let atTail: Bool
    init(limits: CacheLimits, options: PolicyOptions) throws(PolicyConfigurationError) {
        (capacity, countLimit) = try limits.validated(for: Self.descriptor, options: options)
        let place = options.string("insert-at", default: "head")
        guard place == "head" || place == "tail" else { throw .invalidOption("insert-at", value: place, expected: "head or tail") }
        atTail = place == "tail"
    }
    var count: Int { queue.count }
    var totalCost: Int { queue.cost }
    mutating func didHit(_ slot: Int32) { store.moveToHead(slot, &queue) }
    mutating func didInsert(_ slot: Int32) { if atTail { store.pushTail(slot, &queue) } else { store.pushHead(slot, &queue) } }
    mutating func victim() -> Int32 { queue.tail }
    mutating func unlink(_ slot: Int32) { store.unlink(slot, &queue) }
    mutating func setCost(_ slot: Int32, _ cost: Int) { store.setCost(slot, cost, in: &queue) }
}

/// FIFO that needs a count limit, and says so with `missingLimit`.
private struct CountedFIFO<Key: Hashable, Value>: SingleListPolicy {
    static var descriptor: PolicyDescriptor {
        PolicyDescriptor(name: "counted-fifo", reproduces: "a test", rule: "fifo, under a count limit", family: .research, supportsCountLimit: true)
    }
    var store = SlotArena<Key, Value>()
    var residents: LimitedList
    init(limits: CacheLimits, options: PolicyOptions) throws(PolicyConfigurationError) {
        guard limits.countLimit != nil else { throw .missingLimit(.countLimit, policy: Self.descriptor.name) }
        residents = try LimitedList(for: Self.descriptor, limits: limits, options: options)
    }
    mutating func didHit(_ slot: Int32) {}
    mutating func victim() -> Int32 { residents.tail }
}

/// FIFO that never evicts: a policy that ignores its limits.
private struct HoardingFIFO<Key: Hashable, Value>: SingleListPolicy {
    static var descriptor: PolicyDescriptor {
        PolicyDescriptor(name: "hoarding-fifo", reproduces: "a broken test policy", rule: "never evict", family: .research)
    }
    var store = SlotArena<Key, Value>()
    var residents: LimitedList
    init(limits: CacheLimits, options: PolicyOptions) throws(PolicyConfigurationError) {
        residents = try LimitedList(for: Self.descriptor, limits: limits, options: options)
    }
    mutating func didHit(_ slot: Int32) {}
    mutating func victim() -> Int32 { residents.tail }
    mutating func makeRoom(forCost cost: Int, count extra: Int, observer: inout some EvictionObserver<Key, Value>) {}
}

private typealias CallerFIFO<Key: Hashable, Value> = NamedFIFO<Key, Value, CallerNaming>
private typealias CamelFIFO<Key: Hashable, Value> = NamedFIFO<Key, Value, CamelNaming>

@Suite("registry: open to the caller's policies")
struct OpenRegistryTests {
    @Test("the standard policies answer to distinct names and aliases")
    func standardIsConsistent() throws {
        let rebuilt = try PolicyRegistry(PolicyRegistry.all)
        #expect(rebuilt.descriptors.map(\.name) == PolicyRegistry.standard.descriptors.map(\.name))
    }

    @Test("every app Cache policy's raw value names, in the registry, the very rule the Cache runs")
    func cachePolicyNames() throws {
        for policy in CachePolicy.allCases {
            #expect(policy.descriptor.name == policy.rawValue, "\(policy)")
            let registered = try PolicyRegistry.standard.policy(named: policy.rawValue)
            #expect(registered.descriptor.name == policy.descriptor.name, "\(policy)")
            #expect(registered.descriptor.rule == policy.descriptor.rule, "\(policy)")
        }
        // `tinylfu` is libCacheSim's port; the app's tinyLFU is Caffeine's rule.
        #expect(try PolicyRegistry.standard.policy(named: "tinylfu").descriptor.name == "wtinylfu")
        #expect(CachePolicy.tinyLFU.rawValue == "caffeine-wtinylfu")
    }

    @Test("libCacheSim's cachesim names, in any case, find the policy they run there")
    func libCacheSimNames() throws {
        let names: [(String, String)] = [
            ("LRU", "lru"), ("fifo-reinsertion", "clock"), ("second-chance", "clock"), ("Second-Chance", "clock"),
            ("twoq", "2q"), ("s3-fifo", "s3fifo"), ("multiqueue", "mq"), ("randomTwo", "randomtwo"),
            ("RandomLRU", "randomlru"), ("tinyLFU", "wtinylfu"), ("wtinyLFU", "wtinylfu"), ("beladySize", "beladysize"),
        ]
        for (name, policy) in names {
            #expect(try PolicyRegistry.standard.policy(named: name).descriptor.name == policy, "\(name)")
        }
    }

    @Test("a caller's policy is listed last, found by name, and refused when it takes a registered name")
    func adding() throws {
        let registry = PolicyRegistry.standard.adding(CallerFIFO<UInt64, Void>.self)
        #expect(registry.descriptors.last?.name == "caller-fifo")
        #expect(registry.descriptors.count == PolicyRegistry.standard.descriptors.count + 1)
        #expect(try registry.policy(named: "CALLER-FIFO").descriptor.name == "caller-fifo")
        #expect(throws: PolicyLookupError.self) { try PolicyRegistry.standard.policy(named: "caller-fifo") }

        var copy = PolicyRegistry.standard
        #expect(throws: PolicyRegistryError.duplicateName("fifo")) { try copy.add(.of(FIFOCache<UInt64, Void>.self)) }
        #expect(throws: PolicyRegistryError.duplicateName("caller-fifo")) {
            try copy.add(.of(CallerFIFO<UInt64, Void>.self))
            try copy.add(.of(CallerFIFO<UInt64, Void>.self))
        }
    }

    @Test("a name no list could select (empty, with a comma, a group's, an alias repeating the name) is refused, and nothing is added")
    func unusableNames() throws {
        var copy = PolicyRegistry.standard
        #expect(throws: PolicyRegistryError.unusableName(" ", reason: "it is empty")) { try copy.add(.of(NamedFIFO<UInt64, Void, EmptyNaming>.self)) }
        #expect(throws: PolicyRegistryError.unusableName("lru,2c", reason: "a comma separates names in lists of policies")) {
            try copy.add(.of(NamedFIFO<UInt64, Void, CommaNaming>.self))
        }
        #expect(throws: PolicyRegistryError.self) { try copy.add(.of(NamedFIFO<UInt64, Void, GroupNaming>.self)) }
        #expect(throws: PolicyRegistryError.unusableName(" pad", reason: "white space in a name (lists of policies trim it)")) {
            try copy.add(.of(NamedFIFO<UInt64, Void, SpacedNaming>.self))
        }
        #expect(throws: PolicyRegistryError.invalidDescriptor("zero-default", reason: "its default capacity, 0 bytes, is below 1")) {
            try copy.add(.of(NamedFIFO<UInt64, Void, ZeroDefaultNaming>.self))
        }
        #expect(throws: PolicyRegistryError.unusableName("Echo-FIFO", reason: "it repeats the policy's name or another of its aliases")) {
            try copy.add(.of(NamedFIFO<UInt64, Void, EchoNaming>.self))
        }
        #expect(copy.descriptors.count == PolicyRegistry.standard.descriptors.count)
    }

    @Test("parameters an option cannot reach, or two answering to one key, and a false claim to evict as LRU are refused")
    func invalidDescriptors() throws {
        var copy = PolicyRegistry.standard
        #expect(throws: PolicyRegistryError.invalidDescriptor("colliding-fifo", reason: "two of its parameters answer to 'RATIO'")) {
            try copy.add(.of(NamedFIFO<UInt64, Void, CollidingParameters>.self))
        }
        #expect(throws: PolicyRegistryError.invalidDescriptor("untypable-fifo", reason: "its parameter 'a=b' holds a comma, an equals sign or white space, which separate options")) {
            try copy.add(.of(NamedFIFO<UInt64, Void, UntypableParameter>.self))
        }
        do {
            try copy.add(.of(NamedFIFO<UInt64, Void, FalseLRUNaming>.self))
            Issue.record("FIFO claiming to evict as LRU was registered")
        } catch {
            guard case .invalidDescriptor("false-lru", let reason) = error else { Issue.record("\(error)"); return }
            #expect(reason.contains("evicts as LRU") && reason.contains("where LRU hits"), "\(reason)")
        }
        #expect(copy.descriptors.count == PolicyRegistry.standard.descriptors.count)
        // True claims pass: LRU itself under other names, and an LRU that refuses small capacities.
        try copy.add(.of(PickyLRU<UInt64, Void>.self))
        try copy.add(.of(CallerLRU<UInt64, Void>.self))
    }

    @Test("policies lists a plug-in's names with | and backticks in one Markdown cell each, and promises no seed it lacks")
    func catalogOfAnOddPlugIn() throws {
        let descriptor = UnseededNaming.descriptor
        let markdown = PolicyCatalog.render([descriptor], as: .markdown).split(separator: "\n")
        // Cells split on `|` not escaped: as many as the header's.
        func cells(_ line: Substring) -> Int { line.replacingOccurrences(of: "\\|", with: "").split(separator: "|", omittingEmptySubsequences: false).count }
        #expect(markdown.count == 3 && cells(markdown[2]) == cells(markdown[0]), "\(markdown)")
        #expect(markdown[2].contains("| no |"), "\(markdown[2])")
        let table = PolicyCatalog.render([descriptor], as: .table)
        #expect(table.contains("randomized, with no seed option") && !table.contains("seed=N"), "\(table)")
        let seeded = PolicyCatalog.render(PolicyRegistry.descriptors.filter { $0.name == "random" }, as: .table)
        #expect(seeded.contains("--option seed=N makes a run repeatable"), "\(seeded)")
    }

    @Test("a research policy that ends over its limits is reported, in replay's warnings and compare's notes; the built-in ones never are")
    func overLimitsIsReported() throws {
        let registry = PolicyRegistry.standard.adding(HoardingFIFO<UInt64, Void>.self)
        let trace = TraceSpec(path: Repository.trace("zipf.csv"))
        var job = ReplayJob(trace: trace, policy: "hoarding-fifo", capacity: 40, ignoreSize: true)
        job.registry = registry
        let hoarded = try Replay.run(job)
        #expect(hoarded.warnings.count == 1 && hoarded.warnings[0].contains("over its limits"), "\(hoarded.warnings)")
        var compare = CompareJob(trace: trace, policies: ["hoarding-fifo", "fifo"], capacities: CapacityList([.size(40)]),
                                 ignoreSize: true, threads: 1)
        compare.registry = registry
        #expect(try Compare.run(compare).notes.contains { $0.hasPrefix("hoarding-fifo at capacity 40: it holds") })
        // Shared by threads, or as a tier, it is held to its limits just the same.
        job.threads = 2
        #expect(try Replay.run(job).warnings.contains { $0.hasPrefix("hoarding-fifo at capacity 40: it holds") })
        job.threads = 1
        job.tier = TierJob(disk: "fifo", diskCapacity: 400)
        let tiered = try Replay.run(job)
        #expect(tiered.warnings.count == 1 && tiered.warnings[0].hasPrefix("memory tier hoarding-fifo at capacity 40: it holds"), "\(tiered.warnings)")
        job.policy = "fifo"
        job.tier = TierJob(disk: "hoarding-fifo", diskCapacity: 400)
        let hoardingDisk = try Replay.run(job)
        #expect(hoardingDisk.warnings.count == 1 && hoardingDisk.warnings[0].hasPrefix("disk tier hoarding-fifo at capacity 400: it holds"), "\(hoardingDisk.warnings)")
        // A policy that needs a limit it was not given is refused at that run, with a note; the others run.
        var counted = CompareJob(trace: trace, policies: ["counted-fifo", "fifo"], capacities: CapacityList([.size(40)]),
                                 ignoreSize: true, threads: 1)
        counted.registry = PolicyRegistry.standard.adding(CountedFIFO<UInt64, Void>.self)
        let partial = try Compare.run(counted)
        #expect(partial.results.map(\.policy) == ["fifo"] && partial.refusals.map(\.policy) == ["counted-fifo"], "\(partial.refusals)")
        // Every built-in research policy keeps within its limits, in objects and in bytes.
        for ignoreSize in [true, false] {
            let capacities = ignoreSize ? CapacityList([.size(3), .size(40), .size(400)]) : CapacityList([.size(100_000), .size(1 << 20)])
            var all = CompareJob(trace: trace, policies: PolicyRegistry.standard.descriptors
                                    .filter { $0.family == .research && !$0.needsFuture }.map(\.name),
                                 capacities: capacities, ignoreSize: ignoreSize, threads: 2)
            all.window = RequestWindow(maxRequests: 10_000)
            let notes = try Compare.run(all).notes.filter { $0.contains("over its limits") }
            #expect(notes.isEmpty, "\(notes)")
        }
    }

    @Test("slow by design is a descriptor's word: the five library models that sort or scan say so, under any spelling; a plug-in can too")
    func slowByDesign() throws {
        let slow = PolicyRegistry.standard.descriptors.filter { $0.slowByDesign != nil }.map(\.name).sorted()
        #expect(slow == ["af-lru", "afi-lru", "nscache", "pin-memory", "sd-disk"])
        #expect(SlowByDesign.reason("NSCache")?.contains("linear scan") == true)
        #expect(SlowByDesign.reason("lru") == nil && SlowByDesign.reason("no-such-policy") == nil)
        var descriptor = HoardingFIFO<UInt64, Void>.descriptor
        descriptor.slowByDesign = "scans"
        #expect(descriptor.slowByDesign == "scans")
        let registry = PolicyRegistry.standard.adding(NamedFIFO<UInt64, Void, SlowNaming>.self)
        #expect(SlowByDesign.reason("Slow-FIFO", in: registry) == "walks every resident on each hit")
        #expect(SlowByDesign.reason("slow-fifo") == nil)
    }

    @Test("a plug-in with no victim to give, or with a wrong count, ends its run with a warning naming it, not a trap or a silent count")
    func brokenPlugInsAreReported() throws {
        let registry = PolicyRegistry.standard.adding(NamedFIFO<UInt64, Void, VictimlessNaming>.self).adding(NamedFIFO<UInt64, Void, MiscountingNaming>.self)
        let trace = TraceSpec(path: Repository.trace("zipf.csv"))
        var job = ReplayJob(trace: trace, policy: "victimless-fifo", capacity: 50, ignoreSize: true)
        job.registry = registry
        let victimless = try Replay.run(job)
        #expect(victimless.counters.evictions == 0 && victimless.warnings.contains { $0.hasPrefix("victimless-fifo at capacity 50: it holds") },
                "\(victimless.warnings)")
        job.policy = "miscounting-fifo"
        let miscounted = try Replay.run(job)
        #expect(miscounted.warnings.contains { $0.hasPrefix("miscounting-fifo at capacity 50: it reports 0 objects costing 0") && $0.contains("its count or totalCost is wrong") },
                "\(miscounted.warnings)")
        // compare gathers every run's warnings: each names the run it is about.
        var compare = CompareJob(trace: trace, policies: ["miscounting-fifo"], capacities: CapacityList([.size(50), .size(100)]),
                                 ignoreSize: true, threads: 1)
        compare.registry = registry
        let notes = try Compare.run(compare).notes.filter { $0.contains("its count or totalCost is wrong") }
        #expect(notes.count == 2 && notes.contains { $0.hasPrefix("miscounting-fifo at capacity 50: it reports") }
                && notes.contains { $0.hasPrefix("miscounting-fifo at capacity 100: it reports") }, "\(notes)")
        // A victim that is no resident (released, or a number out of range) ends the pass, as -1
        // does: it corrupted the free list (a run that never ended) or read out of range (a trap).
        let broken = PolicyRegistry.standard.adding(NamedFIFO<UInt64, Void, OutOfRangeNaming>.self)
            .adding(NamedFIFO<UInt64, Void, ReleasedNaming>.self)
        // (The released slot is reused by the next insertion: only a pass that evicts several,
        // as one in bytes does, meets it released.)
        for (name, capacity, ignoreSize) in [("wild-fifo", 50, true), ("stale-fifo", 1 << 20, false)] {
            var job = ReplayJob(trace: trace, policy: name, capacity: capacity, ignoreSize: ignoreSize)
            job.registry = broken
            let result = try Replay.run(job)
            #expect(result.warnings.contains { $0.hasPrefix("\(name) at capacity \(capacity): it holds") }, "\(name): \(result.warnings)")
            #expect(name == "wild-fifo" ? result.counters.evictions == 0 : result.counters.evictions > 0)
        }
        // The arena's count also feeds the limit check the wrong count hid.
        #expect(miscounted.warnings.contains { $0.hasPrefix("miscounting-fifo at capacity 50: it holds") }, "\(miscounted.warnings)")
        // A built-in policy's count is its arena's: no such warning, in objects or bytes.
        for policy in ["fifo", "lru", "s3fifo", "arc", "lirs", "sieve"] {
            for ignoreSize in [true, false] {
                let result = try Replay.run(ReplayJob(trace: trace, policy: policy, capacity: ignoreSize ? 50 : 1 << 20, ignoreSize: ignoreSize))
                #expect(result.warnings.isEmpty, "\(policy): \(result.warnings)")
            }
        }
    }

    @Test("a run that admitted no object says so (S3-FIFO under 10 objects, objects larger than the capacity); one that cached anything does not")
    func cachedNothingIsReported() throws {
        let trace = TraceSpec(path: Repository.trace("lirs-cs.csv"))
        func warnings(_ policy: String, _ capacity: Int, ignoreSize: Bool = true) throws -> [String] {
            try Replay.run(ReplayJob(trace: trace, policy: policy, capacity: capacity, ignoreSize: ignoreSize)).warnings
        }
        #expect(try warnings("s3fifo", 5).contains { $0.hasPrefix("s3fifo at capacity 5 cached nothing: it missed all 6781 requests") })
        #expect(try warnings("wtinylfu", 10).contains { $0.contains("cached nothing") })
        #expect(try warnings("s3fifo", 20).isEmpty)
        #expect(try warnings("lru", 1).isEmpty)
        // lirs-cs's objects are of size 1 in bytes mode too; a zipf object is larger than 1,000 bytes.
        let zipf = TraceSpec(path: Repository.trace("zipf.csv"))
        let tooSmall = try Replay.run(ReplayJob(trace: zipf, policy: "lru", capacity: 1_000, ignoreSize: false))
        #expect(tooSmall.warnings.contains { $0.contains("cached nothing") } && tooSmall.counters.hits == 0)
        // Set, event and tick rows do not hide it: what a set stores is held or counted as
        // evicted. A delete may take out what was stored, so a trace with one is not judged.
        let rows = (0..<3).flatMap { round in (0..<40).map { "\(round * 40 + $0),k\($0),5000,get" } }.joined(separator: "\n")
        for (extra, warns) in [("", true), ("200,x,5000,set", true), ("200,,0,tick", true), ("200,,0,memory-warning", true),
                               ("200,k1,0,delete", false)] {
            let path = try temporaryFile("time,key,size,op\n" + rows + "\n" + extra + (extra.isEmpty ? "" : "\n"))
            let result = try Replay.run(ReplayJob(trace: TraceSpec(path: path), policy: "lru", capacity: 1_000, ignoreSize: false))
            #expect(result.counters.hits == 0 && result.warnings.contains { $0.contains("cached nothing") } == warns,
                    "\(extra): \(result.warnings)")
        }
        // One that stored something through a set, evicted by a memory warning, is not warned about;
        // nor one whose stored set a later set too large to keep took out (no eviction is counted).
        let stored = try temporaryFile("time,key,size,op\n0,a,10,set\n1,b,5000,get\n2,,0,memory-warning\n")
        let resetTooLarge = try temporaryFile("time,key,size,op\n0,1,10,set\n1,1,2000,set\n2,2,2000,get\n")
        for (path, policy) in [(stored, "lru"), (resetTooLarge, "lru"), (resetTooLarge, "sieve"), (resetTooLarge, "arc"), (resetTooLarge, "s3fifo")] {
            let result = try Replay.run(ReplayJob(trace: TraceSpec(path: path), policy: policy, capacity: 1_000, ignoreSize: false))
            #expect(result.warnings.isEmpty, "\(policy): \(result.warnings)")
        }
        var compare = CompareJob(trace: trace, policies: ["s3fifo", "fifo"], capacities: CapacityList([.size(5), .size(40)]),
                                 ignoreSize: true, threads: 1)
        compare.registry = .standard
        #expect(try Compare.run(compare).notes.filter { $0.contains("cached nothing") } == [
            "s3fifo at capacity 5 cached nothing: it missed all 6781 requests, evicted nothing and holds no object, so at these limits it admits none (every object larger than the capacity, or a rule whose queues hold nothing at this size)"])
    }

    @Test("a sampled run scaled under a library's fixed bound that the full limit reaches is warned about (YYDiskCache and Nuke's 2^31-1 bytes)")
    func sampledAcrossAFixedBound() throws {
        let trace = TraceSpec(path: Repository.trace("image-feed.csv"))
        func warnings(_ policy: String, capacity: Int, countLimit: Int? = nil, ratio: Double?) throws -> [String] {
            var job = ReplayJob(trace: trace, policy: policy, capacity: capacity, countLimit: countLimit, ignoreSize: false)
            job.window = RequestWindow(sampleRatio: ratio)
            return try Replay.run(job).warnings.filter { $0.contains("sampled to") }
        }
        let gib3 = 3 << 30
        #expect(try warnings("yy-disk", capacity: gib3, ratio: 0.25) == [
            "yy-disk at capacity 3221225472: sampled to capacity 805306368, under 2147483647, where the rule changes in the library's code whatever the scale, so this sampled run does not stand for the full cache at 3221225472"])
        #expect(try warnings("nuke-lru", capacity: gib3, ratio: 0.5).count == 1)
        #expect(try warnings("yy-disk", capacity: 1 << 20, countLimit: Int(Int32.max), ratio: 0.5).count == 1)
        // Both sides of the bound on the same side, no sampling, or a policy with no fixed bound: no warning.
        #expect(try warnings("yy-disk", capacity: 1 << 30, ratio: 0.25).isEmpty)
        #expect(try warnings("yy-disk", capacity: 1 << 40, ratio: 0.5).isEmpty)
        #expect(try warnings("yy-disk", capacity: gib3, ratio: nil).isEmpty)
        #expect(try warnings("nuke-clock", capacity: gib3, ratio: 0.25).isEmpty)
        #expect(try warnings("lru", capacity: gib3, ratio: 0.25).isEmpty)
    }

    @Test("a policy that evicts as LRU but is given options runs as itself in compare and mrc, not as one LRU pass")
    func optionsReachAnLRUPolicy() throws {
        let registry = PolicyRegistry.standard.adding(CallerLRU<UInt64, Void>.self)
        let trace = TraceSpec(path: Repository.trace("zipf.csv"))
        func replayed(_ capacity: Int, _ options: PolicyOptions) throws -> ReplayCounters {
            var job = ReplayJob(trace: trace, policy: "caller-lru", capacity: capacity, ignoreSize: true)
            job.registry = registry
            job.options = options
            return try Replay.run(job).counters
        }
        let lip: PolicyOptions = ["insertAt": "tail"]
        #expect(try replayed(50, lip) != (try replayed(50, [:])))
        var compare = CompareJob(trace: trace, policies: ["caller-lru"], capacities: CapacityList([.size(10), .size(50)]),
                                 ignoreSize: true, options: lip, threads: 1)
        compare.registry = registry
        let compared = try Compare.run(compare).results
        #expect(try compared.map(\.counters) == [replayed(10, lip), replayed(50, lip)])
        // A value the policy refuses is refused, not passed over by a one-pass LRU.
        compare.options = ["insert-at": "bogus"]
        #expect(throws: CacheBenchError.self) { try Compare.run(compare) }
        let curve = try MissRatioCurve.run(trace: trace, capacities: CapacityList([.size(10), .size(50)]), points: nil, ignoreSize: true,
                                           policy: "caller-lru", window: RequestWindow(), options: lip, registry: registry)
        #expect(try curve.results.map(\.counters) == [replayed(10, lip), replayed(50, lip)])
    }

    @Test("a policy that evicts as LRU and refuses small capacities: the one-pass profile leaves out the refused runs too")
    func profiledRefusals() throws {
        let registry = PolicyRegistry.standard.adding(PickyLRU<UInt64, Void>.self)
        let trace = TraceSpec(path: Repository.trace("zipf.csv"))
        var compare = CompareJob(trace: trace, policies: ["picky-lru"], capacities: CapacityList([.size(5), .size(20), .size(50)]),
                                 ignoreSize: true, threads: 1)
        compare.registry = registry
        let compared = try Compare.run(compare)
        #expect(compared.results.map(\.capacity) == [20, 50] && compared.results.allSatisfy { $0.method == .stackDistance })
        #expect(compared.refusals.map(\.capacity) == [5] && compared.refusals.first?.reason.contains("at least 10") == true,
                "\(compared.refusals)")
        // One capacity left: simulated, as a single LRU capacity always is.
        compare.capacities = CapacityList([.size(5), .size(50)])
        let one = try Compare.run(compare)
        #expect(one.results.map(\.capacity) == [50] && one.results.first?.method == .simulation && one.refusals.count == 1)
        compare.capacities = CapacityList([.size(5), .size(6)])
        #expect(throws: CacheBenchError.self) { try Compare.run(compare) }
    }

    @Test("a policy whose own name or alias has capitals is found by any spelling")
    func capitalisedNames() throws {
        let registry = PolicyRegistry.standard.adding(CamelFIFO<UInt64, Void>.self)
        for spelling in ["CamelFIFO", "camelfifo", "CAMELFIFO", "Camel-Alias", "camel-alias"] {
            #expect(try registry.policy(named: spelling).descriptor.name == "CamelFIFO", "\(spelling)")
            #expect(registry.canonicalName(spelling) == "CamelFIFO", "\(spelling)")
        }
        #expect(registry.canonicalName("TwoQ") == "2q")
        #expect(registry.canonicalName("LRU") == "lru")
        #expect(registry.canonicalName("no-such-policy") == "no-such-policy")
        var copy = registry
        #expect(throws: PolicyRegistryError.duplicateName("CamelFIFO")) { try copy.add(.of(CamelFIFO<UInt64, Void>.self)) }
    }

    @Test("replay and compare run a caller's policy exactly as the built-in policy with its rule")
    func runs() throws {
        let registry = PolicyRegistry.standard.adding(CallerFIFO<UInt64, Void>.self)
        let trace = TraceSpec(path: Repository.trace("zipf.csv"))
        var job = ReplayJob(trace: trace, policy: "caller-fifo", capacity: 40, ignoreSize: true)
        job.registry = registry
        let mine = try Replay.run(job)
        let fifo = try Replay.run(ReplayJob(trace: trace, policy: "fifo", capacity: 40, ignoreSize: true))
        #expect(mine.policy == "caller-fifo")
        #expect(mine.counters == fifo.counters)
        #expect(mine.hits > 0 && mine.counters.evictions > 0)

        var unknown = job
        unknown.registry = .standard
        #expect(throws: CacheBenchError.self) { try Replay.run(unknown) }

        var compare = CompareJob(trace: trace, policies: ["caller-fifo", "fifo"], capacities: CapacityList([.size(40), .size(400)]),
                                 ignoreSize: true, threads: 1)
        compare.registry = registry
        let results = try Compare.run(compare).results
        #expect(results.map(\.policy) == ["caller-fifo", "caller-fifo", "fifo", "fifo"])
        #expect(results[0].counters == results[2].counters && results[1].counters == results[3].counters)
        #expect(results[0].counters == fifo.counters)
    }
}
