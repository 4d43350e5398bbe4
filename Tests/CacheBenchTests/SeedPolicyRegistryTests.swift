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
    }
}
