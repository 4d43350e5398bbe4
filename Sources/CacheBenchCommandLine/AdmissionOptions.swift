import CacheBench
import EvictionPolicies

/// `--admission NAME` and `--admission-option KEY=VALUE`: libCacheSim's admission algorithms
/// (`cachesim -a NAME --admission-params "k=v,..."`) in front of any policy.
enum AdmissionOptions {
    static let valueOptions: Set<String> = ["--admission"]
    static let repeatableOptions: Set<String> = ["--admission-option"]

    static let help = """
      --admission NAME        Put libCacheSim's admission algorithm NAME in front of the policy
                              (any case; a miss enters only if it admits it): size, bloomfilter
                              (second miss), prob, sizeprob (probability e^(-exponent x size)) or
                              adaptsize. The report adds the rule with its admitted and rejected
                              misses, in every format.
      --admission-option KEY=VALUE
                              Its parameters, by libCacheSim's names (repeatable; "a=1,b=2" gives
                              several, as libCacheSim's --admission-params): size: size (refuse
                              sizes >= it; default none); prob: prob=0.5; sizeprob:
                              exponent=1e-6; adaptsize: max-iteration=15, reconf-interval=30000.
                              prob, sizeprob and adaptsize also take seed=1 (libCacheSim's
                              generator, seeded as its set_rand_seed).
    """

    /// The rule the arguments name, or `nil` without `--admission`.
    static func parse(_ arguments: Arguments) throws(UsageError) -> LibCacheSimAdmission<UInt64>? {
        guard let choice = try choice(arguments) else { return nil }
        do {
            return try LibCacheSimAdmission(choice)
        } catch {
            throw UsageError(error.commandLineMessage)
        }
    }

    /// The rule's name and parameters as given, checked (an unknown rule, parameter or value is a
    /// usage error), or `nil` without `--admission`.
    static func choice(_ arguments: Arguments) throws(UsageError) -> AdmissionChoice? {
        let pairs = arguments.all("--admission-option")
        guard let name = arguments.value("--admission") else {
            if !pairs.isEmpty { throw UsageError("--admission-option needs --admission") }
            return nil
        }
        var parameters: [(String, String)] = []
        for (key, value) in try TraceOptions.keyValuePairs(pairs, option: "--admission-option") {
            guard !parameters.contains(where: { $0.0.lowercased() == key.lowercased() }) else {
                throw UsageError("--admission-option \(key) is given more than once")
            }
            parameters.append((key, value))
        }
        let choice = AdmissionChoice(name: name, parameters: parameters)
        do {
            _ = try LibCacheSimAdmission<UInt64>(choice)
        } catch {
            throw UsageError(error.commandLineMessage)
        }
        return choice
    }
}

extension AdmissionConfigurationError {
    /// The error in the command line's words: the rule by `--admission`, parameters by
    /// `--admission-option`.
    var commandLineMessage: String {
        switch self {
        case let .unknownRule(name, known):
            "--admission \(name): unknown admission algorithm (known: \(known.joined(separator: ", ")))"
        case let .unknownParameter(parameter, rule, known):
            "--admission-option \(parameter): unknown parameter for admission \(rule) (\(known.isEmpty ? "it takes none" : "known: " + known.joined(separator: ", ")))"
        case let .invalidParameter(parameter, _, value, expected):
            "--admission-option \(parameter)=\(value): expected \(expected)"
        }
    }
}
