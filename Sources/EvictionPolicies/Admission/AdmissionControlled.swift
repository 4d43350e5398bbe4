/// Any eviction policy with an ``AdmissionRule`` in front of it: a missed object enters only if
/// the rule admits it.
///
/// The rule sees every request (``AdmissionRule/observe(_:cost:capacity:)``; none where the
/// policy's libCacheSim original never shows them, ``EvictionPolicy/showsRequestsToAdmission``) and is asked at the
/// point where libCacheSim 0.3.5 asks its admissioner, `cache_can_insert_default`: every research
/// policy asks the request's observer (``EvictionObserver/admits(_:cost:)``) where its libCacheSim
/// original's `can_insert` consults the admissioner (after the ghost lookups its `find` makes,
/// before it evicts; before or after its own size checks as the original orders them), and this
/// wrapper answers through the observer it passes down. A policy whose original never consults
/// it (Clock2QPlus) says so with ``EvictionPolicy/takesAdmission``, and the rule refuses
/// nothing there. A policy that never asks otherwise (a library model) is handled after its
/// insert: if the missed key is now resident and the rule refuses it, it is removed again, so
/// room made for it stays made.
///
/// Only cache-aside misses (``access(_:cost:orInsert:observer:)``) are subject to admission, as in
/// libCacheSim, whose requests are all gets; explicit inserts are not.
///
/// - Complexity: the rule's cost per request and per miss, on top of the policy's.
public struct AdmissionControlled<Base: EvictionPolicy, Rule: AdmissionRule>: ForwardingPolicy
where Rule.Key == Base.Key {
    public typealias Key = Base.Key
    public typealias Value = Base.Value

    /// The eviction policy.
    public var base: Base
    /// The rule and its counts.
    @usableFromInline var control: AdmissionControl<Rule>
    /// The admission rule.
    public var rule: Rule {
        get { control.rule }
        set { control.rule = newValue }
    }
    /// Misses the rule admitted.
    public var admitted: Int { control.admitted }
    /// Misses the rule refused.
    public var rejected: Int { control.rejected }

    /// `base` behind `rule`; `capacity` is the cost limit the rule is told (AdaptSize models it).
    public init(_ base: Base, rule: Rule, capacity: Int) {
        self.base = base
        self.control = AdmissionControl(rule: rule, capacity: capacity)
    }

    public static var descriptor: PolicyDescriptor { Base.descriptor }
    public static var takesAdmission: Bool { Base.takesAdmission }
    public static var showsRequestsToAdmission: Bool { Base.showsRequestsToAdmission }

    /// Unavailable without a rule: use ``init(_:rule:capacity:)``.
    public init(limits: CacheLimits, options: PolicyOptions) throws(PolicyConfigurationError) {
        throw .invalidOption("admission", value: "", expected: "a rule given to AdmissionControlled.init(_:rule:capacity:)")
    }

    /// The policy's own figures, then `admitted` and `rejected`.
    public var extraMetrics: [PolicyMetric] {
        base.extraMetrics + [PolicyMetric("admitted", admitted), PolicyMetric("rejected", rejected)]
    }

    @inlinable
    public mutating func access(_ key: Key, cost: Int, orInsert value: @autoclosure () -> Value,
                                observer: inout some EvictionObserver<Key, Value>) -> Bool {
        control.willAccess(key, cost: cost, to: Base.self)
        // The gate reaches the caller's observer and the rule's bookkeeping through pointers for
        // the one call, so neither is copied (no copy-on-write of their storage per request).
        let hit = withUnsafeMutablePointer(to: &observer) { inner in
            withUnsafeMutablePointer(to: &control) { control in
                var gate = _AdmissionGate(inner: inner, control: control)
                return base.access(key, cost: cost, orInsert: value(), observer: &gate)
            }
        }
        control.didAccess(key, cost: cost, hit: hit, policy: &base, observer: &observer)
        return hit
    }
}

/// The observer ``AdmissionControlled`` passes to its policy: forwards evictions and trim passes
/// to the caller's observer and answers ``EvictionObserver/admits(_:cost:)`` with the rule.
@usableFromInline
struct _AdmissionGate<Inner: EvictionObserver, Rule: AdmissionRule>: EvictionObserver where Rule.Key == Inner.Key {
    @usableFromInline typealias Key = Inner.Key
    @usableFromInline typealias Value = Inner.Value
    @usableFromInline let inner: UnsafeMutablePointer<Inner>
    @usableFromInline let control: UnsafeMutablePointer<AdmissionControl<Rule>>

    @inlinable
    init(inner: UnsafeMutablePointer<Inner>, control: UnsafeMutablePointer<AdmissionControl<Rule>>) {
        self.inner = inner
        self.control = control
    }

    @inlinable mutating func trimWillBegin(_ kind: TrimKind) { inner.pointee.trimWillBegin(kind) }
    @inlinable mutating func didEvict(_ key: Key, value: Value, cost: Int) {
        inner.pointee.didEvict(key, value: value, cost: cost)
    }
    @inlinable mutating func trimDidEnd(_ kind: TrimKind) { inner.pointee.trimDidEnd(kind) }

    @inlinable
    mutating func admits(_ key: Key, cost: Int) -> Bool { control.pointee.admits(key, cost: cost) }
}
