/// What a policy is: its command-line name, what it reproduces, and its parameters.
///
/// The replay tool lists these with `cachebench policies`; nothing else lists policies.
public struct PolicyDescriptor: Sendable {
    /// Whether a policy follows the research conventions or models an app library.
    public enum Family: String, Sendable {
        /// A research algorithm with libCacheSim's conventions: objects larger than the
        /// capacity are never inserted, hits never change sizes, events are ignored.
        case research
        /// A model of an app library, which does what that library does, even where that is odd.
        case library
    }

    /// Where a policy's capacity comes from when the user gives none.
    public enum DefaultCapacity: Sendable, Equatable {
        /// 10 % of the trace's working set, measured by a first pass.
        case workingSetFraction
        /// The library ships a bounded default: this many cost units.
        case library(Int)
        /// The library's default cost limit is a share of the device's memory (Kingfisher's
        /// quarter, Nuke's fifth), which a replay cannot know: 10 % of the trace's working set
        /// stands in for it, also when only a count limit is given (the library would still bound
        /// the cost), so that a result does not depend on the machine it ran on.
        case deviceShare
    }

    /// The command-line name, e.g. `yy-lru`.
    public var name: String
    /// What it reproduces: the library and version, or the paper.
    public var reproduces: String
    /// The eviction rule in one sentence.
    public var rule: String
    /// Research algorithm or library model.
    public var family: Family
    /// Whether the behaviour is documented approximately rather than read from source.
    public var isApproximation: Bool
    /// Whether the policy has an object-count limit (`--count-limit`).
    public var supportsCountLimit: Bool
    /// Where the capacity comes from when none is given.
    public var defaultCapacity: DefaultCapacity
    /// The parameters `--option KEY=VALUE` accepts, with their defaults.
    public var parameters: [PolicyParameter]
    /// Whether the policy needs each request's next-access time (an offline policy).
    public var needsFuture: Bool
    /// Other names the policy answers to, lowercase: libCacheSim's names and aliases for it
    /// (`twoq` for `2q`, `fifo-reinsertion` for `clock`). Names are matched case-insensitively.
    public var aliases: [String]
    /// Whether two runs on the same requests always evict the same entries; a randomized
    /// policy draws from a generator seeded by its `seed` parameter.
    public var isDeterministic: Bool
    /// Whether the policy evicts exactly as LRU does under the research conventions, so a replay
    /// tool may take its counts at every capacity from one stack-distance pass instead of one
    /// simulation per capacity (cachebench does so only when no option reaches the policy:
    /// options may change the rule, and the pass knows only LRU's, and its registry refuses a
    /// policy that claims this but hits otherwise than LRU on a short check sequence).
    public var evictsAsLRU: Bool
    /// The fewest objects a miniature of this policy needs to evict as a full-size cache of it
    /// does, for miss-ratio curves from miniature simulations (a cache scaled down with a sampled
    /// trace). 0 for a rule with no proportions and nothing that adapts (FIFO, LIFO, LRU, CLOCK), which
    /// is faithful at any size; by default 32, so that a segment of a tenth holds three objects
    /// (S3-FIFO's small queue, 2Q's, an adaptive target such as ARC's). A policy with a smaller
    /// segment states more: a 1 % window needs 100 objects to hold one.
    public var faithfulMiniatureObjects: Int

    /// Why the policy slows down as its residents grow, when it repeats on purpose work that the
    /// library it models does per operation (a sort of every entry on a purge); `nil` for a rule
    /// whose operations take constant time. Tools name it, so a long run is not taken for a hang.
    public var slowByDesign: String?

    /// Cost limits at which the rule changes, fixed in the library's code rather than relative to
    /// the limit: the rule acts one way under a bound and another from it on (YYDiskCache skips
    /// its cost trim from 2^31 − 1 bytes on). Empty for most policies. A miniature cache (a
    /// sampled run) has its limits scaled but not these bounds, so tools warn when a scaled
    /// limit falls under a bound that the full limit reaches: that miniature does not stand for
    /// the full cache.
    public var fixedCostLimitBounds: [Int]
    /// Count limits at which the rule changes, fixed in the library's code, as
    /// ``fixedCostLimitBounds`` are for cost limits.
    public var fixedCountLimitBounds: [Int]

    /// The floor of ``faithfulMiniatureObjects`` when a policy does not state one.
    public static let defaultFaithfulMiniatureObjects = 32

    /// Creates a descriptor.
    public init(name: String, reproduces: String, rule: String, family: Family,
                isApproximation: Bool = false, supportsCountLimit: Bool = false, aliases: [String] = [],
                isDeterministic: Bool = true, defaultCapacity: DefaultCapacity = .workingSetFraction,
                parameters: [PolicyParameter] = [], needsFuture: Bool = false, evictsAsLRU: Bool = false,
                faithfulMiniatureObjects: Int = PolicyDescriptor.defaultFaithfulMiniatureObjects, slowByDesign: String? = nil,
                fixedCostLimitBounds: [Int] = [], fixedCountLimitBounds: [Int] = []) {
        self.fixedCostLimitBounds = fixedCostLimitBounds
        self.fixedCountLimitBounds = fixedCountLimitBounds
        self.slowByDesign = slowByDesign
        self.evictsAsLRU = evictsAsLRU
        self.faithfulMiniatureObjects = max(0, faithfulMiniatureObjects)
        self.aliases = aliases
        self.isDeterministic = isDeterministic
        self.name = name
        self.reproduces = reproduces
        self.rule = rule
        self.family = family
        self.isApproximation = isApproximation
        self.supportsCountLimit = supportsCountLimit
        self.defaultCapacity = defaultCapacity
        self.parameters = parameters
        self.needsFuture = needsFuture
    }
}

/// One `--option KEY=VALUE` parameter of a policy.
public struct PolicyParameter: Sendable, Equatable {
    /// The key, e.g. `auto-trim-interval`.
    public var name: String
    /// The default, as the user would type it.
    public var defaultValue: String
    /// What it does.
    public var summary: String
    /// Other keys accepted for it, such as libCacheSim's name (`fifo-size-ratio`), in any case,
    /// wherever options go through ``PolicyOptions/resolvingAliases(of:)``: the command line and
    /// ``Cache/init(policyType:costLimit:countLimit:options:timeToLive:clock:memoryWarningResponse:observesSystemEvents:)``
    /// do. A policy's own initializer takes the parameter's ``name``.
    public var aliases: [String]
    /// Whether the value is an amount in the capacity's units (bytes, or objects with
    /// `--ignore-size`), such as YYDiskCache's `free-disk-space-limit`: a miniature simulation
    /// (sampling, MINISIM) scales it as it scales the capacity, even when it is written as a bare
    /// number. (A size with a unit, `60MB`, is scaled whatever the parameter.)
    public var scalesWithCapacity: Bool
    /// Whether the value works on the objects' sizes in bytes, such as SDWebImage's disk `block-size`
    /// (sizes rounded up to whole blocks): meaningless when every size is 1, so a replay that
    /// ignores sizes refuses a value given for it.
    public var actsOnSizes: Bool

    /// Creates a parameter description.
    public init(_ name: String, default defaultValue: String, _ summary: String, aliases: [String] = [],
                scalesWithCapacity: Bool = false, actsOnSizes: Bool = false) {
        self.aliases = aliases
        self.scalesWithCapacity = scalesWithCapacity
        self.actsOnSizes = actsOnSizes
        self.name = name
        self.defaultValue = defaultValue
        self.summary = summary
    }
}

/// The limits a cache enforces. `nil` means no limit.
///
/// Costs are bounded so that no sum a policy keeps (residents, ghosts, one more entry) can
/// overflow an `Int`: an entry's cost counts as at most ``maximumCost`` and a cost limit as at
/// most ``maximumCapacity``, which is also what "no cost limit" enforces.
public struct CacheLimits: Sendable, Equatable {
    /// The most one entry's cost counts: 2^53 (8 PiB), the largest size a trace reader accepts.
    public static let maximumCost = 1 << 53
    /// The largest cost limit a policy enforces: 2^60 (1 EiB). A larger limit counts as this, and
    /// so does none, for the policies that work without one.
    public static let maximumCapacity = 1 << 60

    /// The cost limit (bytes in replay, or objects with `--ignore-size`), at most
    /// ``maximumCapacity``: a larger value is stored as that.
    public var capacity: Int? {
        didSet { if let capacity, capacity > Self.maximumCapacity { self.capacity = Self.maximumCapacity } }
    }
    /// The object-count limit.
    public var countLimit: Int?

    /// Creates limits; `nil` means unlimited.
    public init(capacity: Int? = nil, countLimit: Int? = nil) {
        self.capacity = capacity.map { min($0, Self.maximumCapacity) }
        self.countLimit = countLimit
    }

    /// `cost` as a policy counts it: at least 0 and at most ``maximumCost``.
    @inlinable @inline(__always)
    public static func clampedCost(_ cost: Int) -> Int { min(max(cost, 0), maximumCost) }

    /// These limits as a ``Cache`` hands them to its policy: no limit at all is a cost limit of
    /// ``maximumCapacity``, which every policy takes (those that size their queues as shares of
    /// the capacity, such as S3-FIFO and ARC, refuse none), and which no sum of costs reaches.
    @inlinable
    var _forCache: CacheLimits {
        capacity == nil && countLimit == nil ? CacheLimits(capacity: Self.maximumCapacity) : self
    }
}

/// Why a policy could not be configured: which option or limit, which value, what was expected.
///
/// The library describes the problem in its own terms (`option 'bits' = '9': expected an integer
/// between 1 and 8`); a command-line tool may name its own flags instead by switching over the cases.
public enum PolicyConfigurationError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A limit of ``CacheLimits``.
    public enum Limit: String, Sendable, Equatable {
        /// ``CacheLimits/capacity``.
        case capacity
        /// ``CacheLimits/countLimit``.
        case countLimit = "count limit"
    }

    /// `option` is not one of `policy`'s parameters, which are `known` (sorted; maybe none).
    case unknownOption(String, policy: String, known: [String])
    /// `option` was given `value`, but `expected` (e.g. "a number", "true or false") was expected.
    case invalidOption(String, value: String, expected: String)
    /// `option` needs `other`, which was not given.
    case missingOption(String, neededBy: String)
    /// `limit` was given `value`, which must be `expected` (e.g. "greater than 0").
    case invalidLimit(Limit, value: Int, expected: String)
    /// `policy` needs `limit` and none was given.
    case missingLimit(Limit, policy: String)
    /// `policy` has no such limit, yet one was given.
    case unsupportedLimit(Limit, policy: String)

    /// A one-line explanation in the library's terms.
    public var description: String {
        switch self {
        case let .unknownOption(option, policy, known):
            "option '\(option)' is unknown to policy \(policy) (\(known.isEmpty ? "it takes no options" : "known: " + known.joined(separator: ", ")))"
        case let .invalidOption(option, value, expected): "option '\(option)' = '\(value)': expected \(expected)"
        case let .missingOption(other, option): "option '\(option)' needs option '\(other)'"
        case let .invalidLimit(limit, value, expected): "\(limit.rawValue) \(value): must be \(expected)"
        case let .missingLimit(limit, policy): "policy \(policy) needs a \(limit.rawValue)"
        case let .unsupportedLimit(limit, policy): "policy \(policy) has no \(limit.rawValue)"
        }
    }

    /// The same as ``description``.
    public var message: String { description }
}

/// Policy parameters given by name, e.g. `["preferred": "0.5"]` (a dictionary literal is one).
///
/// A policy reads each parameter it knows with one of the typed accessors, which validate the
/// value and name the option in their ``PolicyConfigurationError``. Unknown keys are rejected by ``validate(against:)``.
public struct PolicyOptions: Sendable, Equatable, ExpressibleByDictionaryLiteral {
    /// The raw values by key.
    public var values: [String: String]

    /// Creates options from raw values.
    public init(_ values: [String: String] = [:]) { self.values = values }

    /// Creates options from a literal such as `["auto-trim-interval": "5"]`; a key given twice
    /// keeps its last value.
    public init(dictionaryLiteral elements: (String, String)...) {
        self.values = Dictionary(elements, uniquingKeysWith: { _, last in last })
    }

    /// Throws if any key is not one of `descriptor`'s parameters.
    public func validate(against descriptor: PolicyDescriptor) throws(PolicyConfigurationError) {
        let known = Set(descriptor.parameters.map(\.name))
        for key in values.keys.sorted() where !known.contains(key) {
            throw .unknownOption(key, policy: descriptor.name, known: known.sorted())
        }
    }

    /// `text` as a finite decimal number (`0.5`, `-3`, `1e-3`, `.5`, spaces around it allowed),
    /// or `nil`: not hexadecimal (`0x10`, which `Double(_:)` reads), `nan` or `inf`, so that every
    /// parameter reads numbers one way, as integer parameters do.
    public static func decimal(_ text: String) -> Double? {
        let trimmed = text.trimmingSpacesAndTabs
        guard !trimmed.isEmpty, trimmed.allSatisfy({ $0.isASCII && ($0.isNumber || "+-.eE".contains($0)) }),
              let value = Double(trimmed), value.isFinite else { return nil }
        return value
    }

    /// A floating-point parameter in `range`, or `defaultValue` when absent.
    public func double(_ key: String, default defaultValue: Double,
                       in range: ClosedRange<Double> = -Double.greatestFiniteMagnitude...Double.greatestFiniteMagnitude)
        throws(PolicyConfigurationError) -> Double {
        guard let raw = values[key] else { return defaultValue }
        guard let value = Self.decimal(raw) else {
            throw .invalidOption(key, value: raw, expected: "a number")
        }
        guard range.contains(value) else {
            throw .invalidOption(key, value: raw, expected: "a value between \(range.lowerBound) and \(range.upperBound)")
        }
        return value
    }

    /// An integer parameter in `range`, or `defaultValue` when absent.
    public func integer(_ key: String, default defaultValue: Int, in range: ClosedRange<Int> = Int.min...Int.max)
        throws(PolicyConfigurationError) -> Int {
        guard let raw = values[key] else { return defaultValue }
        guard let value = Int(raw) else {
            throw .invalidOption(key, value: raw, expected: "an integer")
        }
        guard range.contains(value) else {
            throw .invalidOption(key, value: raw, expected: "a value between \(range.lowerBound) and \(range.upperBound)")
        }
        return value
    }

    /// An amount in bytes: a whole number (`500000000`) or a size with a unit (`500MB`,
    /// `1.5GiB`; see ``SizeText``), or `defaultValue` when absent.
    public func bytes(_ key: String, default defaultValue: Int, in range: ClosedRange<Int> = 0...Int.max)
        throws(PolicyConfigurationError) -> Int {
        guard let raw = values[key] else { return defaultValue }
        guard case .success(let size) = SizeText.parse(raw) else {
            throw .invalidOption(key, value: raw, expected: "a whole number of bytes or a size with a unit (500MB, 1.5GiB)")
        }
        guard range.contains(size.bytes) else {
            throw .invalidOption(key, value: raw, expected: "a value between \(range.lowerBound) and \(range.upperBound) bytes")
        }
        return size.bytes
    }

    /// A boolean parameter (`true/false`, `yes/no`, `1/0`), or `defaultValue` when absent.
    public func bool(_ key: String, default defaultValue: Bool) throws(PolicyConfigurationError) -> Bool {
        guard let raw = values[key] else { return defaultValue }
        switch raw.lowercased() {
        case "true", "yes", "1", "on": return true
        case "false", "no", "0", "off": return false
        default: throw .invalidOption(key, value: raw, expected: "true or false")
        }
    }

    /// A raw string parameter, or `defaultValue` when absent.
    public func string(_ key: String, default defaultValue: String) -> String {
        values[key] ?? defaultValue
    }
}

extension PolicyOptions {
    /// Throws unless parameter `key` is absent or names `only` (any case): for libCacheSim's
    /// parameters that choose among variants of which only its default is provided here, so
    /// that its parameter strings are taken as they are.
    func requireOnly(_ key: String, _ only: String) throws(PolicyConfigurationError) {
        guard let raw = values[key], raw.lowercased() != only.lowercased() else { return }
        throw .invalidOption(key, value: raw, expected: "\(only), libCacheSim's default and the only one provided")
    }
}

extension CacheLimits {
    /// Validates `options` against `descriptor`'s parameters and these limits for it, once, and
    /// returns the cost and count limits: ``maximumCapacity`` for no cost limit, `Int.max` for no
    /// count limit.
    public func validated(for descriptor: PolicyDescriptor, options: PolicyOptions)
        throws(PolicyConfigurationError) -> (capacity: Int, countLimit: Int) {
        try options.validate(against: descriptor)
        try validate(for: descriptor)
        return (capacity ?? Self.maximumCapacity, countLimit ?? .max)
    }

    /// Throws unless the limits are positive and, for a policy without a count limit, there is none.
    public func validate(for descriptor: PolicyDescriptor) throws(PolicyConfigurationError) {
        if let capacity, capacity <= 0 {
            throw .invalidLimit(.capacity, value: capacity, expected: "greater than 0")
        }
        if let countLimit {
            guard descriptor.supportsCountLimit else {
                throw .unsupportedLimit(.countLimit, policy: descriptor.name)
            }
            if countLimit <= 0 { throw .invalidLimit(.countLimit, value: countLimit, expected: "greater than 0") }
        }
    }
}
