import EvictionPolicies

/// What an admission rule did in a run: its name, and how many misses it admitted and refused.
public struct AdmissionCounts: Sendable, Equatable {
    /// The rule's canonical name (``LibCacheSimAdmission/name``).
    public var rule: String
    /// Misses the rule admitted.
    public var admitted: Int
    /// Misses the rule refused.
    public var rejected: Int

    /// Counts of `rule`.
    public init(rule: String, admitted: Int, rejected: Int) {
        self.rule = rule
        self.admitted = admitted
        self.rejected = rejected
    }
}

extension RegisteredPolicy {
    /// Creates an empty policy behind the admission rule `admission` (a fresh copy of it), and a
    /// replayer around the two; without a rule, ``makeRun(limits:options:ignoreSize:)``.
    public func makeRun(limits: CacheLimits, options: PolicyOptions, ignoreSize: Bool,
                        admission: LibCacheSimAdmission<UInt64>?) throws(PolicyConfigurationError) -> PolicyRun {
        guard let admission else { return try makeRun(limits: limits, options: options, ignoreSize: ignoreSize) }
        return try withResolvedOptions(options) { (resolved) throws(PolicyConfigurationError) in
            try admittedFactory(limits, resolved, ignoreSize, admission)
        }
    }
}

extension PolicyRun {
    /// A run of `P` behind `rule`, specialized for both: the rule is an enum, so each request
    /// costs one switch, and a run without a rule does not go through here at all. Inlinable, as
    /// ``RegisteredPolicy/of(_:)``: for a policy registered from another module the loop is
    /// compiled there, where `P` is concrete (it ran generic code, 6 to 10 times slower, before).
    @inlinable
    static func admitted<P: ReplayPolicy>(_ type: P.Type, limits: CacheLimits, options: PolicyOptions, ignoreSize: Bool,
                                          rule: LibCacheSimAdmission<UInt64>) throws(PolicyConfigurationError) -> PolicyRun {
        let replayer = try Replayer<P>(limits: limits, options: options, ignoreSize: ignoreSize)
        let gated = AdmissionControlled(replayer.policy, rule: rule, capacity: limits.capacity ?? 0)
        let box = _ReplayerBox(Replayer(policy: gated, driver: replayer.driver))
        var run = PolicyRun(apply: { box.replayer.apply($0) },
                            counters: { box.replayer.counters },
                            trims: { box.replayer.trims },
                            extraMetrics: { box.replayer.policy.base.extraMetrics })
        run.admission = {
            AdmissionCounts(rule: rule.name, admitted: box.replayer.policy.admitted, rejected: box.replayer.policy.rejected)
        }
        return run
    }
}

extension Replayer {
    /// A replayer around `policy`, continuing `driver`'s counts.
    @inlinable
    init(policy: Policy, driver: RequestDriver) {
        self.policy = policy
        self.driver = driver
    }
}
