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

    @Test("size options read what --capacity reads: units, K M G T, percentages; too large and half bytes are said; numbers are decimal")
    func sizesAndNumbers() throws {
        func preferred(_ text: String, maximum: Double? = nil) throws -> Int {
            try PolicyOptions(["preferred": text]).fractionOrSize("preferred", of: 1000, default: 600, maximumFraction: maximum)
        }
        #expect(try preferred("1K") == 1024 && preferred("1k") == 1024 && preferred("2M") == 2 << 20 && preferred("1.5KiB") == 1536)
        #expect(try preferred("60%") == 600 && preferred("0.6") == 600 && preferred("60B") == 60 && preferred(" 40 MiB ") == 40 << 20)
        #expect(try preferred("\(Int.max)B") == Int.max)
        for (text, expected) in [("9300000TB", "at most"), ("99999999999999999999B", "at most"), ("0.5B", "whole number of bytes"),
                                 ("0x10", "a fraction of the capacity"), ("60%%", "a fraction of the capacity"), ("-1", "at least 0"),
                                 ("2", "between 0 and 1.0")] {
            #expect { _ = try preferred(text, maximum: text == "2" ? 1 : nil) } throws: { "\($0)".contains(expected) }
        }
        // The same grammar as --capacity (SizeText), which CacheBench's SizeFormat words.
        guard case .success(let size) = SizeText.parse("1.5G") else { Issue.record("1.5G"); return }
        #expect(size.bytes == 3 << 29 && size.hasUnit)
        #expect(SizeText.parse("12") .map(\.hasUnit) == .success(false))
        // Decimal numbers only: hexadecimal, nan and inf are refused, as integer parameters refuse them.
        for text in ["0x10", "nan", "inf", "1e400", "", "1,5"] { #expect(PolicyOptions.decimal(text) == nil, "\(text)") }
        for (text, value) in [(" 0.25", 0.25), ("-3", -3.0), ("1e-3", 0.001), (".5", 0.5)] { #expect(PolicyOptions.decimal(text) == value) }
        #expect { _ = try PolicyOptions(["aout-ratio": "0x10"]).double("aout-ratio", default: 0.5) } throws: { "\($0)".contains("a number") }
    }
}
