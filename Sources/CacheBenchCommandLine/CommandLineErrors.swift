import CacheBench
import EvictionPolicies

extension CacheBenchError {
    /// The exit code the contract assigns: 2 usage, 3 regression gate, 65 malformed input,
    /// 66 cannot open, 74 cannot write.
    public var exitCode: Int32 {
        switch self {
        case .usage, .configuration: 2
        case .trace(let error): error.kind == .cannotOpen ? 66 : 65
        case .output: 74
        case .regression: 3
        }
    }

    /// The error as the command line reports it: each option or limit named by its flag.
    var commandLineDescription: String {
        if case .configuration(let error) = self { return error.commandLineMessage }
        return description
    }
}

extension RunConfigurationError {
    /// The error in the command line's words.
    var commandLineMessage: String {
        let catalog = "see 'cachebench policies'"
        switch self {
        case .unknownPolicy(let error): return "\(error.description); \(catalog)"
        case .policy(let error): return error.commandLineMessage
        case .noPolicies: return "--policies: name at least one policy (\(catalog)), or give --tier"
        case .policyNamedTwice(let name): return "--policies: \(name) is named twice"
        case let .optionTakenByNone(option, policies):
            return "--option \(option): none of the selected policies (\(policies.joined(separator: ", "))) takes it; \(catalog)"
        case .countLimitTakenByNone: return "--count-limit: none of the selected policies has a count limit"
        case .capacityNotPositive(let capacity): return "--capacities: \(capacity) is not a capacity (must be greater than 0)"
        case .offlineTier(let name): return "--tier: \(name) needs the future and cannot be a tier"
        case .tierWithThreads: return "--tier and --threads cannot be combined"
        case .windowWithTier: return "--warmup, --max-requests, --sample and --report-interval cannot be combined with --tier"
        case .windowWithThreads: return "--warmup, --max-requests, --sample and --report-interval cannot be combined with --threads"
        case .admissionWithTierOrThreads: return "--admission cannot be combined with --tier or --threads"
        }
    }
}

extension PolicyConfigurationError {
    /// The error in the command line's words: each option or limit named by the flag that sets it.
    var commandLineMessage: String {
        func flag(_ limit: Limit) -> String { limit == .capacity ? "--capacity" : "--count-limit" }
        switch self {
        case let .unknownOption(option, policy, known):
            let list = known.isEmpty ? "it takes no options" : "known: " + known.joined(separator: ", ")
            return "--option \(option): unknown option for policy \(policy) (\(list))"
        case let .invalidOption(option, value, expected): return "--option \(option)=\(value): expected \(expected)"
        case let .missingOption(other, option): return "--option \(option) needs --option \(other)"
        case let .invalidLimit(limit, value, expected): return "\(flag(limit)) \(value): must be \(expected)"
        case let .missingLimit(limit, policy): return "\(flag(limit)): policy \(policy) needs a \(limit.rawValue)"
        case let .unsupportedLimit(limit, policy): return "\(flag(limit)): policy \(policy) has no \(limit.rawValue)"
        }
    }
}
