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

    /// Creates a descriptor.
    public init(name: String, reproduces: String, rule: String, family: Family,
                isApproximation: Bool = false, supportsCountLimit: Bool = false,
                defaultCapacity: DefaultCapacity = .workingSetFraction,
                parameters: [PolicyParameter] = [], needsFuture: Bool = false) {
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

    /// Creates a parameter description.
    public init(_ name: String, default defaultValue: String, _ summary: String) {
        self.name = name
        self.defaultValue = defaultValue
        self.summary = summary
    }
}

/// The limits a cache enforces. `nil` means no limit.
public struct CacheLimits: Sendable, Equatable {
    /// The cost limit (bytes in replay, or objects with `--ignore-size`).
    public var capacity: Int?
    /// The object-count limit.
    public var countLimit: Int?

    /// Creates limits; `nil` means unlimited.
    public init(capacity: Int? = nil, countLimit: Int? = nil) {
        self.capacity = capacity
        self.countLimit = countLimit
    }
}

/// Why a policy could not be configured. The message names the option or limit.
public struct PolicyConfigurationError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A one-line explanation naming the option or limit at fault.
    public var message: String
    /// Creates an error with a one-line message.
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}

/// Policy parameters given by name, e.g. `["preferred": "0.5"]`.
///
/// A policy reads each parameter it knows with one of the typed accessors, which validate the
/// value and name the option in their error. Unknown keys are rejected by ``validate(against:)``.
public struct PolicyOptions: Sendable, Equatable {
    /// The raw values by key.
    public var values: [String: String]

    /// Creates options from raw values.
    public init(_ values: [String: String] = [:]) { self.values = values }

    /// Throws if any key is not one of `descriptor`'s parameters.
    public func validate(against descriptor: PolicyDescriptor) throws(PolicyConfigurationError) {
        let known = Set(descriptor.parameters.map(\.name))
        for key in values.keys.sorted() where !known.contains(key) {
            let list = known.isEmpty ? "it takes no options" : "known: " + known.sorted().joined(separator: ", ")
            throw PolicyConfigurationError("--option \(key): unknown option for policy \(descriptor.name) (\(list))")
        }
    }

    /// A floating-point parameter in `range`, or `defaultValue` when absent.
    public func double(_ key: String, default defaultValue: Double,
                       in range: ClosedRange<Double> = -Double.greatestFiniteMagnitude...Double.greatestFiniteMagnitude)
        throws(PolicyConfigurationError) -> Double {
        guard let raw = values[key] else { return defaultValue }
        guard let value = Double(raw), value.isFinite else {
            throw PolicyConfigurationError("--option \(key)=\(raw): not a number")
        }
        guard range.contains(value) else {
            throw PolicyConfigurationError("--option \(key)=\(raw): must be between \(range.lowerBound) and \(range.upperBound)")
        }
        return value
    }

    /// An integer parameter in `range`, or `defaultValue` when absent.
    public func integer(_ key: String, default defaultValue: Int, in range: ClosedRange<Int> = Int.min...Int.max)
        throws(PolicyConfigurationError) -> Int {
        guard let raw = values[key] else { return defaultValue }
        guard let value = Int(raw) else {
            throw PolicyConfigurationError("--option \(key)=\(raw): not an integer")
        }
        guard range.contains(value) else {
            throw PolicyConfigurationError("--option \(key)=\(raw): must be between \(range.lowerBound) and \(range.upperBound)")
        }
        return value
    }

    /// A boolean parameter (`true/false`, `yes/no`, `1/0`), or `defaultValue` when absent.
    public func bool(_ key: String, default defaultValue: Bool) throws(PolicyConfigurationError) -> Bool {
        guard let raw = values[key] else { return defaultValue }
        switch raw.lowercased() {
        case "true", "yes", "1", "on": return true
        case "false", "no", "0", "off": return false
        default: throw PolicyConfigurationError("--option \(key)=\(raw): expected true or false")
        }
    }

    /// A raw string parameter, or `defaultValue` when absent.
    public func string(_ key: String, default defaultValue: String) -> String {
        values[key] ?? defaultValue
    }
}

extension CacheLimits {
    /// Throws unless the limits are positive and, for a policy without a count limit, there is none.
    public func validate(for descriptor: PolicyDescriptor) throws(PolicyConfigurationError) {
        if let capacity, capacity <= 0 {
            throw PolicyConfigurationError("--capacity \(capacity): must be greater than 0")
        }
        if let countLimit {
            guard descriptor.supportsCountLimit else {
                throw PolicyConfigurationError("--count-limit: policy \(descriptor.name) has no count limit")
            }
            if countLimit <= 0 { throw PolicyConfigurationError("--count-limit \(countLimit): must be greater than 0") }
        }
    }
}
