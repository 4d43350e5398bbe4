import CacheBench
import EvictionPolicies
import TestSupport
import Testing

@Suite("registry: the seed library models")
struct SeedPolicyRegistryTests {
    @Test("each model is registered once with its library facts")
    func descriptors() throws {
        let byName = Dictionary(grouping: PolicyRegistry.descriptors, by: \.name)
        #expect(byName.values.allSatisfy { $0.count == 1 })
        let expected: [(String, PolicyDescriptor.DefaultCapacity, Bool, Bool)] = [
            ("nscache", .workingSetFraction, false, true),
            ("foundation-nscache", .workingSetFraction, false, true),
            ("nscache-darwin", .workingSetFraction, true, true),
            ("af-lru", .library(100 * 1024 * 1024), false, false),
            ("afi-lru", .library(100_000_000), false, false),
            ("yy-lru", .workingSetFraction, false, true),
        ]
        for (name, capacity, approximation, countLimit) in expected {
            let d = try #require(byName[name]?.first, "\(name) is not registered")
            #expect(d.family == .library && d.defaultCapacity == capacity)
            #expect(d.isApproximation == approximation && d.supportsCountLimit == countLimit, "\(name)")
        }
        for name in ["fifo", "lifo", "lru"] { #expect(byName[name] != nil) }
    }

    @Test("a replay through the registry resolves each model's capacity source")
    func capacitySources() throws {
        let trace = TraceSpec(path: Repository.trace("image-feed.csv"))
        let af = try Replay.run(ReplayJob(trace: trace, policy: "af-lru"))
        #expect(af.capacity == 104_857_600 && af.capacitySource == .libraryDefault)
        let yy = try Replay.run(ReplayJob(trace: trace, policy: "yy-lru"))
        #expect(yy.capacitySource == .workingSet && yy.capacity == 27_930_878_640 / 10)
        #expect(yy.counters.events == 8)
        // With sizes ignored, a library default in bytes is no count of objects: the working set's give it.
        let afObjects = try Replay.run(ReplayJob(trace: trace, policy: "af-lru", ignoreSize: true))
        #expect(afObjects.capacitySource == .workingSet && afObjects.capacity == 16_539 / 10)
        // A library whose default is a share of the device's memory keeps the stand-in beside a
        // count limit: a count limit above the trace's objects changes nothing.
        for name in ["nuke-lru", "nuke-clock", "kingfisher"] {
            let plain = try Replay.run(ReplayJob(trace: trace, policy: name))
            let counted = try Replay.run(ReplayJob(trace: trace, policy: name, countLimit: 100_000))
            #expect(counted.capacitySource == .workingSet && counted.capacity == plain.capacity, "\(name)")
            #expect(counted.counters.hits == plain.counters.hits, "\(name)")
        }
        // One whose default is none keeps none.
        let nscache = try Replay.run(ReplayJob(trace: trace, policy: "nscache", countLimit: 100_000))
        #expect(nscache.capacity == nil && nscache.capacitySource == .libraryDefault)
    }
}
