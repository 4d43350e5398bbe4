import EvictionPolicies

/// A replay or comparison that cannot run as asked, in the engine's own words: which policy,
/// option or limit, and why. A command-line tool names its flags instead by switching over the
/// cases (`cachebench` does, in `CacheBenchCommandLine`).
public enum RunConfigurationError: Error, Sendable, Equatable, CustomStringConvertible {
    /// No registered policy answers to the name.
    case unknownPolicy(PolicyLookupError)
    /// The policy refused its limits or options.
    case policy(PolicyConfigurationError)
    /// The disk tier's policy (the lower tier of a tiered run) refused its limits or options.
    case diskTier(PolicyConfigurationError)
    /// In a sampled run, the policy refused the miniature cache's limit: the limit as given
    /// (`given`), scaled by the sampling ratio (`scaled`), and what the policy expected.
    case sampledLimit(PolicyConfigurationError.Limit, given: Int, scaled: Int, ratio: Double, expected: String)
    /// In a sampled run, the policy refused an option's value as scaled for the miniature cache:
    /// the option, its value as given, as scaled by the sampling ratio, and what was expected.
    case sampledOption(String, given: String, scaled: String, ratio: Double, expected: String)
    /// A comparison names no policy and no tier pair.
    case noPolicies
    /// A comparison names this policy twice.
    case policyNamedTwice(String)
    /// No selected policy declares this option; the selected policies are listed.
    case optionTakenByNone(String, policies: [String])
    /// A count limit was given, but no selected policy has one.
    case countLimitTakenByNone
    /// A capacity that is not greater than 0 (only a list built in code can hold one).
    case capacityNotPositive(Int)
    /// An offline policy (it needs each request's next access) cannot be a tier.
    case offlineTier(String)
    /// A tiered run drives its two tiers from one thread.
    case tierWithThreads
    /// An offline policy (it needs each request's next access) on several threads, which take
    /// requests out of the trace's order.
    case offlineWithThreads(String)
    /// A warm-up, request cap, sample or report interval (``RequestWindow``) with a tiered run.
    case windowWithTier
    /// A warm-up, request cap, sample or report interval (``RequestWindow``) with a threaded run.
    case windowWithThreads
    /// An admission rule with a tiered or threaded run, which take none.
    case admissionWithTierOrThreads
    /// A memory-warning response (``MemoryWarningOverride``) with a tiered, threaded or admitted run.
    case memoryWarningOverrideUnsupported
    /// One policy's refusal in a comparison of several: the policy's name and its error.
    indirect case inPolicy(String, RunConfigurationError)

    /// The problem in one line, in the engine's words.
    public var description: String {
        switch self {
        case .unknownPolicy(let error): error.description
        case .policy(let error): error.description
        case .diskTier(let error): "disk tier: \(error.description)"
        case let .sampledLimit(limit, given, scaled, ratio, expected):
            "\(limit.rawValue) \(given) at a sampling ratio of \(ratio) is \(scaled) for the sampled cache: must be \(expected)"
        case let .sampledOption(option, given, scaled, ratio, expected):
            "option '\(option)' = '\(given)' at a sampling ratio of \(ratio) is '\(scaled)' for the sampled cache: expected \(expected)"
        case .noPolicies: "no policy to run: name at least one policy or tier pair"
        case .policyNamedTwice(let name): "policy \(name) is named twice"
        case let .optionTakenByNone(option, policies):
            "option \(option): none of the selected policies (\(policies.joined(separator: ", "))) takes it"
        case .countLimitTakenByNone: "count limit: none of the selected policies has one"
        case .capacityNotPositive(let capacity): "capacity \(capacity): must be greater than 0"
        case .offlineTier(let name): "\(name) needs the future and cannot be a tier"
        case .tierWithThreads: "a tiered run cannot be shared by several threads"
        case .offlineWithThreads(let name):
            "\(name) needs the future in the trace's order, which several threads taking requests out of order do not keep: run it on one thread"
        case .windowWithTier: "a warm-up, request cap, sample or report interval cannot be combined with a tiered run"
        case .windowWithThreads: "a warm-up, request cap, sample or report interval cannot be combined with a threaded run"
        case .admissionWithTierOrThreads: "an admission rule cannot be combined with a tiered or threaded run"
        case .memoryWarningOverrideUnsupported:
            "a memory-warning response cannot be combined with a tiered, threaded or admission-controlled run"
        case let .inPolicy(name, error): "policy \(name): \(error.description)"
        }
    }
}

extension RunConfigurationError {
    /// Whether the policy refused a limit (too small for it, or none given where it needs
    /// one), not a name or an option.
    var isLimitRefusal: Bool {
        switch self {
        case .sampledLimit: return true
        case .policy(.invalidLimit), .diskTier(.invalidLimit), .policy(.missingLimit), .diskTier(.missingLimit): return true
        case .inPolicy(_, let error): return error.isLimitRefusal
        default: return false
        }
    }
}

extension PolicyConfigurationError {
    /// Whether the error names its policy (so that a comparison's message need not again).
    var namesItsPolicy: Bool {
        switch self {
        case .unknownOption, .missingLimit, .unsupportedLimit: true
        case .invalidOption, .missingOption, .invalidLimit: false
        }
    }
}

extension PolicyLookupError {
    var asRunError: CacheBenchError { .configuration(.unknownPolicy(self)) }
}

extension PolicyConfigurationError {
    @usableFromInline var asRunError: CacheBenchError { .configuration(.policy(self)) }

    /// ``asRunError`` for a policy made with limits `given` and options `givenOptions` scaled by
    /// `window`'s sampling ratio: a refused limit or option value is named as given, with the
    /// ratio, not as the scaled number alone.
    func asRunError(given: CacheLimits, givenOptions: PolicyOptions, window: RequestWindow) -> CacheBenchError {
        guard let ratio = window.sampleRatio, ratio < 1 else { return asRunError }
        switch self {
        case let .invalidLimit(limit, value, expected):
            guard let original = limit == .capacity ? given.capacity : given.countLimit else { return asRunError }
            return .configuration(.sampledLimit(limit, given: original, scaled: value, ratio: ratio, expected: expected))
        case let .invalidOption(option, value, expected):
            // The option as the caller keyed it (the error names it so); unchanged by the scaling, it is as given.
            guard let original = givenOptions.values.first(where: { $0.key.lowercased() == option.lowercased() })?.value,
                  original != value else { return asRunError }
            return .configuration(.sampledOption(option, given: original, scaled: value, ratio: ratio, expected: expected))
        default:
            return asRunError
        }
    }
}
