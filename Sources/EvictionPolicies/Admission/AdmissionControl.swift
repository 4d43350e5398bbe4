/// An admission rule with the bookkeeping of one cache-aside request around a policy's access,
/// written once for ``AdmissionControlled`` and for any loop that drives a policy with its own
/// observer: call ``willAccess(_:cost:to:)``, let the observer answer the policy's
/// ``EvictionObserver/admits(_:cost:)`` with ``admits(_:cost:)``, then call
/// ``didAccess(_:cost:hit:policy:observer:)``.
///
/// - Complexity: the rule's cost per request and per miss; O(1) besides.
public struct AdmissionControl<Rule: AdmissionRule> {
    /// The admission rule.
    public var rule: Rule
    /// The cost limit the rule is told (AdaptSize models it).
    public let capacity: Int
    /// Misses the rule admitted.
    public var admitted: Int { _admitted }
    /// Misses the rule refused.
    public var rejected: Int { _rejected }
    @usableFromInline var _admitted = 0
    @usableFromInline var _rejected = 0
    /// Whether the policy asked during the current request, and the rule's answer.
    @usableFromInline var asked = false
    @usableFromInline var answer = true

    /// `rule`, telling it the cost limit `capacity`.
    public init(rule: Rule, capacity: Int) {
        self.rule = rule
        self.capacity = capacity
    }

    /// Starts a cache-aside request for `key` to a policy of type `P`: the rule sees the request
    /// where `P`'s libCacheSim original shows it one (``EvictionPolicy/showsRequestsToAdmission``).
    @inlinable
    public mutating func willAccess<P: EvictionPolicy>(_ key: Rule.Key, cost: Int, to _: P.Type) {
        asked = false
        answer = true
        if P.showsRequestsToAdmission { rule.observe(key, cost: cost, capacity: capacity) }
    }

    /// The rule's answer to the policy asking whether the missed `key` may enter.
    @inlinable
    public mutating func admits(_ key: Rule.Key, cost: Int) -> Bool {
        asked = true
        answer = rule.admits(key, cost: cost)
        return answer
    }

    /// Ends the request: a policy that inserted the missed `key` without asking (a library
    /// model) is answered now, and a refused insert is removed again, so room made for it stays
    /// made; then the decision is counted.
    @inlinable
    public mutating func didAccess<P: EvictionPolicy>(_ key: P.Key, cost: Int, hit: Bool, policy: inout P,
                                                      observer: inout some EvictionObserver<P.Key, P.Value>)
    where P.Key == Rule.Key {
        if !hit && !asked && P.takesAdmission && policy.contains(key) {
            if !admits(key, cost: cost) { policy.remove(key, observer: &observer) }
        }
        if asked {
            if answer { _admitted += 1 } else { _rejected += 1 }
        }
    }
}

extension AdmissionControl: Sendable where Rule: Sendable {}
