import EvictionPolicies
import Testing

@Suite("Parameter aliases: any case, in the library's Cache as on the command line")
struct PolicyOptionAliasTests {
    /// A descriptor whose parameter declares an alias in camel case, as a third-party policy may.
    static let descriptor = PolicyDescriptor(
        name: "test-lfu", reproduces: "a test", rule: "none", family: .research,
        parameters: [PolicyParameter("max-freq", default: "8", "the frequency cap", aliases: ["maxFreq"])])

    @Test("an alias declared in any case matches a key in any case; the name does too")
    func aliasCase() throws {
        for key in ["maxFreq", "maxfreq", "MAXFREQ", "max-freq", "Max-Freq"] {
            let resolved = try PolicyOptions([key: "3"]).resolvingAliases(of: Self.descriptor)
            #expect(resolved.values == ["max-freq": "3"], "\(key)")
            #expect(Self.descriptor.parameters[0].answers(to: key.lowercased()), "\(key)")
        }
        #expect(!Self.descriptor.parameters[0].answers(to: "max"))
        // Unknown keys are kept, for the policy's validation to report.
        #expect(try PolicyOptions(["colour": "red"]).resolvingAliases(of: Self.descriptor).values == ["colour": "red"])
    }

    @Test("Cache(policyType:options:) takes libCacheSim's parameter names, as the command line does")
    func cacheTakesAliases() throws {
        // CLOCK's `bits` is libCacheSim's `n-bit-counter`; S3-FIFO's `small-ratio` its `fifo-size-ratio`.
        let clock = try Cache<String, Int>(policyType: ClockCache<String, CacheEntry<Int>>.self, costLimit: 10,
                                           options: ["N-Bit-Counter": "2"], observesSystemEvents: false)
        clock["a"] = 1
        #expect(clock["a"] == 1)
        _ = try Cache<String, Int>(policyType: S3FIFOCache<String, CacheEntry<Int>>.self, costLimit: 100,
                                   options: ["fifo-size-ratio": "0.2"], observesSystemEvents: false)
        // A value the policy refuses is still refused, under the parameter's name.
        #expect(throws: PolicyConfigurationError.self) {
            _ = try Cache<String, Int>(policyType: S3FIFOCache<String, CacheEntry<Int>>.self, costLimit: 100,
                                       options: ["fifo-size-ratio": "NaN"], observesSystemEvents: false)
        }
        // A key that is neither name nor alias is unknown, as before.
        #expect(throws: PolicyConfigurationError.self) {
            _ = try Cache<String, Int>(policyType: ClockCache<String, CacheEntry<Int>>.self, costLimit: 10,
                                       options: ["colour": "red"], observesSystemEvents: false)
        }
    }
}
