/// One of libCacheSim 0.3.5's admission algorithms, chosen by name at run time, as its
/// `cachesim -a NAME --admission-params "k=v,..."` chooses them.
///
/// An enum rather than an existential, so a replay loop specialized for it calls the chosen rule
/// through one switch per request, with no dynamic dispatch.
public enum LibCacheSimAdmission<Key: Hashable>: AdmissionRule {
    /// ``SizeAdmission``.
    case size(SizeAdmission<Key>)
    /// ``BloomFilterAdmission``.
    case bloomFilter(BloomFilterAdmission<Key>)
    /// ``ProbabilisticAdmission``.
    case probabilistic(ProbabilisticAdmission<Key>)
    /// ``SizeProbabilisticAdmission``.
    case sizeProbabilistic(SizeProbabilisticAdmission<Key>)
    /// ``AdaptSizeAdmission``.
    case adaptSize(AdaptSizeAdmission<Key>)

    /// The rule `choice` names, with its parameters.
    ///
    /// - Throws: ``AdmissionConfigurationError`` for an unknown name, an unknown parameter or a
    ///   value the rule cannot use.
    public init(_ choice: AdmissionChoice) throws(AdmissionConfigurationError) {
        let rule = try AdmissionChoice.canonicalName(choice.name)
        var values: [String: String] = [:]
        for (name, value) in choice.parameters {
            let key = name.lowercased()
            let known = AdmissionChoice.parameters[rule] ?? []
            guard known.contains(key) else { throw .unknownParameter(name, rule: rule, known: known) }
            values[key] = value
        }
        func integer(_ name: String, _ fallback: Int) throws(AdmissionConfigurationError) -> Int {
            guard let text = values[name] else { return fallback }
            guard let value = Int(text) else {
                throw .invalidParameter(name, rule: rule, value: text, expected: "a whole number")
            }
            return value
        }
        func number(_ name: String, _ fallback: Double) throws(AdmissionConfigurationError) -> Double {
            guard let text = values[name] else { return fallback }
            guard let value = Double(text), value.isFinite else {
                throw .invalidParameter(name, rule: rule, value: text, expected: "a number")
            }
            return value
        }
        var seed: UInt64 = 1
        if let text = values["seed"] {
            guard let value = UInt64(text) else {
                throw .invalidParameter("seed", rule: rule, value: text, expected: "a whole number from 0 to \(UInt64.max)")
            }
            seed = value
        }
        switch rule {
        case "size":
            // A threshold below 1 would refuse every object without a word.
            let threshold = try integer("size", .max)
            guard threshold >= 1 else {
                throw .invalidParameter("size", rule: rule, value: String(threshold), expected: "a whole number of at least 1")
            }
            self = .size(SizeAdmission(threshold: threshold))
        case "bloomfilter":
            self = .bloomFilter(BloomFilterAdmission())
        case "prob":
            self = .probabilistic(try ProbabilisticAdmission(probability: try number("prob", 0.5), seed: seed))
        case "sizeprob":
            self = .sizeProbabilistic(try SizeProbabilisticAdmission(exponent: try number("exponent", 1e-6), seed: seed))
        default:
            self = .adaptSize(try AdaptSizeAdmission(maximumIterations: try integer("max-iteration", 15),
                                                     reconfigurationInterval: try integer("reconf-interval", 30000),
                                                     seed: seed))
        }
    }

    /// The rule's canonical name: `size`, `bloomfilter`, `prob`, `sizeprob` or `adaptsize`.
    public var name: String {
        switch self {
        case .size: "size"
        case .bloomFilter: "bloomfilter"
        case .probabilistic: "prob"
        case .sizeProbabilistic: "sizeprob"
        case .adaptSize: "adaptsize"
        }
    }

    @inlinable
    public mutating func observe(_ key: Key, cost: Int, capacity: Int) {
        // Only AdaptSize keeps statistics of every request.
        guard case .adaptSize(var rule) = self else { return }
        self = .size(SizeAdmission())
        rule.observe(key, cost: cost, capacity: capacity)
        self = .adaptSize(rule)
    }

    @inlinable
    public mutating func admits(_ key: Key, cost: Int) -> Bool {
        switch self {
        case .size(let rule):
            return rule.threshold > cost
        case .bloomFilter(var rule):
            self = .size(SizeAdmission())  // releases the payload, so the set is not copied
            let answer = rule.admits(key, cost: cost)
            self = .bloomFilter(rule)
            return answer
        case .probabilistic(var rule):
            let answer = rule.admits(key, cost: cost)
            self = .probabilistic(rule)
            return answer
        case .sizeProbabilistic(var rule):
            let answer = rule.admits(key, cost: cost)
            self = .sizeProbabilistic(rule)
            return answer
        case .adaptSize(var rule):
            self = .size(SizeAdmission())
            let answer = rule.admits(key, cost: cost)
            self = .adaptSize(rule)
            return answer
        }
    }
}

/// An admission rule by libCacheSim's name and parameters, as a user gives it.
public struct AdmissionChoice: Sendable, Equatable {
    /// The rule's name, any case: `size`, `bloomfilter` (`bloom-filter`), `prob`
    /// (`probabilistic`), `sizeprob` (`sizeProbabilistic`, `size-prob`), `adaptsize`.
    public var name: String
    /// Parameters by libCacheSim's names, any case, in the order given.
    public var parameters: [(String, String)]

    /// A choice of rule `name` with `parameters`.
    public init(name: String, parameters: [(String, String)] = []) {
        self.name = name
        self.parameters = parameters
    }

    public static func == (a: AdmissionChoice, b: AdmissionChoice) -> Bool {
        a.name == b.name && a.parameters.map(\.0) == b.parameters.map(\.0) && a.parameters.map(\.1) == b.parameters.map(\.1)
    }

    /// The choice as canonical text, `NAME` or `NAME(key=value,...)`: the rule's canonical name
    /// and its parameters by lower-case name, sorted, so two spellings of one choice have one
    /// text (a sweep's cells are keyed by it).
    public var canonicalText: String {
        let rule = (try? Self.canonicalName(name)) ?? name.lowercased()
        let pairs = parameters.map { "\($0.0.lowercased())=\($0.1)" }.sorted()
        return pairs.isEmpty ? rule : "\(rule)(\(pairs.joined(separator: ",")))"
    }

    /// Each rule's canonical name, its libCacheSim aliases, and its parameters with defaults.
    public static let rules: [(name: String, aliases: [String], parameters: String)] = [
        ("size", [], "size=<no limit> (objects of this size or more are refused)"),
        ("bloomfilter", ["bloom-filter"], "none (admits a key on its second miss)"),
        ("prob", ["probabilistic"], "prob=0.5, seed=1"),
        ("sizeprob", ["sizeprobabilistic", "size-prob"], "exponent=1e-6, seed=1 (admits with probability e^(-exponent x size))"),
        ("adaptsize", [], "max-iteration=15, reconf-interval=30000, seed=1"),
    ]

    static let parameters: [String: [String]] = [
        "size": ["size"], "bloomfilter": [], "prob": ["prob", "seed"],
        "sizeprob": ["exponent", "seed"], "adaptsize": ["max-iteration", "reconf-interval", "seed"],
    ]

    static func canonicalName(_ name: String) throws(AdmissionConfigurationError) -> String {
        // Any case, `-` and `_` ignored, as every other named value: bloom_filter is bloomfilter.
        func spelling(_ text: String) -> String { String(text.lowercased().unicodeScalars.filter { $0 != "-" && $0 != "_" }) }
        let wanted = spelling(name)
        guard let rule = rules.first(where: { spelling($0.name) == wanted || $0.aliases.contains { spelling($0) == wanted } }) else {
            throw .unknownRule(name, known: rules.map(\.name))
        }
        return rule.name
    }
}

extension LibCacheSimAdmission: Sendable where Key: Sendable {}
