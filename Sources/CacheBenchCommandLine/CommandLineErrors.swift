import CacheBench
import EvictionPolicies

/// A command-line mistake (exit 2): an unknown option, a bad value, a conflict.
public struct UsageError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A one-line message naming the option at fault.
    public var message: String
    /// Creates an error with a one-line message.
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}

/// Any failure of a command: a mistake in its arguments, or the engine's failure to run it.
enum CommandLineError: Error, Sendable {
    /// A command-line mistake (exit 2).
    case usage(UsageError)
    /// The engine could not run the command as asked (see ``CacheBenchError/exitCode``).
    case run(CacheBenchError)
    /// As ``run(_:)``, for a command whose capacities came from `--capacities`: a capacity a
    /// policy refused is named by that flag, not `--capacity`.
    case runOverCapacities(CacheBenchError)
    /// As ``run(_:)``, for a command that chose its capacities itself (`mrc --points`): a
    /// capacity a policy refused is named as one of its points, not by a flag the user did not give.
    case runOverChosenCapacities(CacheBenchError)

    /// The exit code the contract assigns.
    var exitCode: Int32 {
        switch self {
        case .usage: 2
        case .run(let error), .runOverCapacities(let error), .runOverChosenCapacities(let error): error.exitCode
        }
    }

    /// The error as the command line reports it: each option or limit named by its flag.
    var message: String {
        switch self {
        case .usage(let error): error.message
        case .run(let error): error.commandLineDescription
        case .runOverCapacities(let error):
            error.commandLineDescription.hasPrefix("--capacity ")
                ? "--capacities " + error.commandLineDescription.dropFirst("--capacity ".count)
                : error.commandLineDescription
        case .runOverChosenCapacities(let error):
            error.commandLineDescription.hasPrefix("--capacity ")
                ? "the curve's capacity " + error.commandLineDescription.dropFirst("--capacity ".count)
                    + " (name the capacities with --capacities)"
                : error.commandLineDescription
        }
    }
}

extension CacheBenchError {
    /// The exit code the contract assigns: 2 usage, 3 regression gate, 65 malformed input,
    /// 66 cannot open, 74 cannot write.
    public var exitCode: Int32 {
        switch self {
        case .configuration, .invalidValue, .generator, .sweep: 2
        case .trace(let error): error.kind == .cannotOpen ? 66 : 65
        case .output: 74
        case .regression: 3
        }
    }

    /// The error as the command line reports it: each option or limit named by its flag.
    var commandLineDescription: String {
        switch self {
        case .configuration(let error): error.commandLineMessage
        case .invalidValue(let error): error.commandLineMessage(flag: "--" + error.setting)
        case .generator(let error): error.commandLineMessage
        case .sweep(let error): error.commandLineMessage
        case .trace(let error): error.commandLineMessage
        case .output, .regression: description
        }
    }
}

extension InvalidValueError {
    /// The error naming `flag` where the engine names its setting.
    func commandLineMessage(flag: String) -> String { "\(flag) \(value): \(expected)" }
}

/// Parses `text`, the value of `flag`, with one of the engine's parsers; a value it cannot take
/// is reported against the flag.
func parseValue<T>(_ text: String, of flag: String,
                   _ parse: (String) throws(InvalidValueError) -> T) throws(UsageError) -> T {
    do { return try parse(text) } catch { throw UsageError(error.commandLineMessage(flag: flag)) }
}

extension GeneratorError {
    /// The error in the command line's words: each parameter named by its flag.
    var commandLineMessage: String {
        func flags(_ names: [String]) -> String { GeneratorError.list(names.map { "--" + $0 }) }
        switch self {
        case .unknownKind: return description
        case let .parameterNotTaken(name, kind, taken):
            let list = taken.isEmpty ? "it takes only --seed and --requests" : "it takes " + taken.map { "--" + $0 }.joined(separator: ", ")
            return "--\(name) does not apply to '\(kind)' (\(list))"
        case .invalidValue(let error): return error.commandLineMessage(flag: "--" + error.setting)
        case let .sizeRangeInverted(minimum, maximum): return "--max-size \(maximum) is below --min-size \(minimum)"
        case .weightsAllZero(let names): return "\(flags(names)) cannot all be 0"
        case .sharesAboveOne(let names): return "\(flags(names)) add up to more than 1"
        case .sizesPastLimit(let row):
            return "the sizes of the first \(row) rows add up to more than 2^63-1 bytes, which no trace can hold: lower --requests or the sizes"
        }
    }
}

extension TraceError {
    /// The error in the command line's words: its hint named by the option or command that gives it.
    var commandLineMessage: String {
        guard let hint else { return description }
        return located(reason.replacing(hint.phrase, with: hint.commandLinePhrase))
    }
}

extension TraceError.Hint {
    /// What ``phrase`` says, by the option or command that gives it.
    var commandLinePhrase: String {
        switch self {
        case .columnMap: "use --columns"
        case .binaryFormat(let format): "try --trace-format \(format.rawValue)"
        case .sweepRecordsFolder: "the folder given to 'sweep --output'"
        case .comparisonReport: "the output of 'cachebench compare --format json'"
        case .sampleRatio(let ratio): "--sample \(ratio)"
        case .csvLayout: "a CSV layout (--columns or --header)"
        }
    }
}

extension SweepError {
    /// The error in the command line's words, with a pointer to the policy catalog where it helps.
    var commandLineMessage: String {
        switch self {
        case .optionTakenByNone(let option): return "--option \(option): none of the sweep's policies takes it; see 'cachebench policies'"
        case .countLimitTakenByNone: return "--count-limit: none of the sweep's policies has one"
        case .policyNamedTwice(let name): return "--policies: \(name) is named twice"
        case let .invalidOption(error, policy): return "\(error.commandLineMessage) (policy \(policy))"
        case .noTraces: return "--traces: name at least one trace"
        case .noPolicies: return "--policies: name at least one policy; see 'cachebench policies'"
        case .noCapacities: return "--capacities: name at least one capacity"
        case .admission(let error): return error.commandLineMessage
        case .slurmArrayNotARange: return "\(description): append --shard K/N to each task's command"
        default: return description
        }
    }
}

extension RunConfigurationError {
    /// The error in the command line's words.
    var commandLineMessage: String {
        let catalog = "see 'cachebench policies'"
        switch self {
        case .unknownPolicy(let error):
            // A name cachebench knows but does not provide gets its reason alone.
            let guess = error.notProvidedBecause == nil ? error.nearest : nil
            return "\(error.description); " + (guess.map { "did you mean '\($0)'? (\(catalog))" } ?? catalog)
        case .policy(let error): return error.commandLineMessage
        case .diskTier(let error): return error.commandLineMessage(flagPrefix: "--disk-")
        case let .sampledLimit(limit, given, scaled, ratio, expected):
            let flag = limit == .capacity ? "--capacity" : "--count-limit"
            return "\(flag) \(given) with --sample \(ratio) is \(scaled) for the sampled cache: must be \(expected); raise \(flag) or --sample"
        case let .sampledOption(option, given, scaled, ratio, expected):
            return "--option \(option)=\(given) with --sample \(ratio) is \(scaled) for the sampled cache: expected \(expected); change --option or --sample"
        case .noPolicies: return "--policies: name at least one policy (\(catalog)), or give --tier"
        case .policyNamedTwice(let name): return "--policies: \(name) is named twice"
        case let .optionTakenByNone(option, policies):
            return "--option \(option): none of the selected policies (\(policies.joined(separator: ", "))) takes it; \(catalog)"
        case .countLimitTakenByNone: return "--count-limit: none of the selected policies has a count limit"
        case .capacityNotPositive(let capacity): return "--capacities: \(capacity) is not a capacity (must be greater than 0)"
        case .offlineTier(let name): return "--tier: \(name) needs the future and cannot be a tier"
        case .tierWithThreads: return "--tier and --threads cannot be combined"
        case .offlineWithThreads(let name):
            return "--threads: \(name) needs the future in the trace's order, which several threads taking requests out of order do not keep (run it with --threads 1)"
        case .windowWithTier: return "--warmup, --max-requests, --sample and --report-interval cannot be combined with --tier"
        case .windowWithThreads: return "--warmup, --max-requests, --sample and --report-interval cannot be combined with --threads"
        case .admissionWithTierOrThreads: return "--admission cannot be combined with --tier or --threads"
        case .memoryWarningOverrideUnsupported: return "--memory-warning cannot be combined with --tier, --threads or --admission"
        case let .inPolicy(name, error): return "\(error.commandLineMessage) (policy \(name))"
        }
    }
}

extension PolicyConfigurationError {
    /// The error in the command line's words: each option or limit named by the flag that sets it.
    var commandLineMessage: String { commandLineMessage(flagPrefix: "--") }

    /// ``commandLineMessage`` for the policy whose flags start with `flagPrefix` (`--disk-` for a
    /// tiered run's disk tier: `--disk-capacity`, `--disk-count-limit`, `--disk-option`).
    func commandLineMessage(flagPrefix: String) -> String {
        func flag(_ limit: Limit) -> String { flagPrefix + (limit == .capacity ? "capacity" : "count-limit") }
        let option = flagPrefix + "option"
        switch self {
        case let .unknownOption(name, policy, known):
            let list = known.isEmpty ? "it takes no options" : "known: " + known.joined(separator: ", ")
            return "\(option) \(name): unknown option for policy \(policy) (\(list))"
        case let .invalidOption(name, value, expected): return "\(option) \(name)=\(value): expected \(expected)"
        case let .missingOption(other, name): return "\(option) \(name) needs \(option) \(other)"
        case let .invalidLimit(limit, value, expected): return "\(flag(limit)) \(value): must be \(expected)"
        case let .missingLimit(limit, policy): return "\(flag(limit)): policy \(policy) needs a \(limit.rawValue)"
        case let .unsupportedLimit(limit, policy): return "\(flag(limit)): policy \(policy) has no \(limit.rawValue)"
        }
    }
}
