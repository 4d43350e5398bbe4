// Admission: which missed objects may enter a cache at all, decided in front of any eviction
// policy, as libCacheSim's admission algorithms (libCacheSim/cache/admission/*) do.

/// A rule that decides whether a missed object may enter the cache, whatever the eviction policy.
///
/// ``AdmissionControlled`` puts a rule in front of a policy. The rule sees every request through
/// ``observe(_:cost:capacity:)`` and answers ``admits(_:cost:)`` for a miss at the point where
/// libCacheSim asks its admissioner (`cache_can_insert_default`): after the policy's own refusals
/// (an object larger than the cache, S3-FIFO's small-queue limit), before anything is evicted.
public protocol AdmissionRule<Key> {
    /// The cache's key type.
    associatedtype Key: Hashable

    /// Sees every request, hit or miss, with the cache's capacity (libCacheSim's `update` hook,
    /// which only AdaptSize uses). The default does nothing.
    mutating func observe(_ key: Key, cost: Int, capacity: Int)

    /// Whether the missed object `key` of `cost` may enter.
    mutating func admits(_ key: Key, cost: Int) -> Bool
}

extension AdmissionRule {
    @inlinable @inline(__always)
    public mutating func observe(_ key: Key, cost: Int, capacity: Int) {}
}

/// A parameter an admission rule cannot use. The messages speak of the rule's parameters by
/// libCacheSim's names (`size`, `prob`, `exponent`, `max-iteration`, `reconf-interval`).
public enum AdmissionConfigurationError: Error, Sendable, Equatable, CustomStringConvertible {
    /// No admission rule answers to this name; `known` lists those that do.
    case unknownRule(String, known: [String])
    /// `parameter` is not one of `rule`'s, which are `known` (maybe none).
    case unknownParameter(String, rule: String, known: [String])
    /// `parameter` of `rule` was given `value`, but `expected` was expected.
    case invalidParameter(String, rule: String, value: String, expected: String)

    /// A one-line explanation in the library's terms.
    public var description: String {
        switch self {
        case let .unknownRule(name, known):
            "unknown admission rule '\(name)' (known: \(known.joined(separator: ", ")))"
        case let .unknownParameter(parameter, rule, known):
            "admission rule \(rule) has no parameter '\(parameter)' (\(known.isEmpty ? "it takes none" : "known: " + known.joined(separator: ", ")))"
        case let .invalidParameter(parameter, rule, value, expected):
            "admission rule \(rule): parameter '\(parameter)' = '\(value)': expected \(expected)"
        }
    }
}
