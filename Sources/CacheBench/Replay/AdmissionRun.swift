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
        return try withResolvedOptions(options, ignoreSize: ignoreSize) { (resolved) throws(PolicyConfigurationError) in
            try admittedFactory(limits, resolved, ignoreSize, admission)
        }
    }
}

extension PolicyRun {
    /// A run of `P` behind `rule`: the plain run's replayer, with the rule in its observer, so
    /// no second copy of the loop is compiled for it. Inlinable, as ``RegisteredPolicy/of(_:)``.
    @inlinable
    static func admitted<P: ReplayPolicy>(_ type: P.Type, limits: CacheLimits, options: PolicyOptions, ignoreSize: Bool,
                                          rule: LibCacheSimAdmission<UInt64>) throws(PolicyConfigurationError) -> PolicyRun {
        var replayer = try Replayer<P>(limits: limits, options: options, ignoreSize: ignoreSize)
        let control = _AdmissionStorage(AdmissionControl(rule: rule, capacity: limits.capacity ?? 0))
        replayer.driver.observer.admission = control.pointer
        let box = _ReplayerBox(replayer)
        // Every closure holds `control`, which keeps the observer's pointer valid while the run lives.
        var run = PolicyRun(apply: { batch in withExtendedLifetime(control) { box.replayer.apply(batch) } },
                            counters: { box.replayer.counters },
                            trims: { box.replayer.trims },
                            extraMetrics: { box.replayer.policy.extraMetrics })
        run.occupancy = { (box.replayer.policy.count, box.replayer.policy.totalCost) }
        run.residents = { _arenaResidents(box.replayer.policy) }
        run.admission = {
            AdmissionCounts(rule: rule.name, admitted: control.pointer.pointee.admitted, rejected: control.pointer.pointee.rejected)
        }
        return run
    }
}

/// The admission state of one run, at a stable address for the run's observer to point at.
@usableFromInline
final class _AdmissionStorage {
    @usableFromInline let pointer: UnsafeMutablePointer<AdmissionControl<LibCacheSimAdmission<UInt64>>>

    @usableFromInline
    init(_ control: AdmissionControl<LibCacheSimAdmission<UInt64>>) {
        pointer = .allocate(capacity: 1)
        pointer.initialize(to: control)
    }

    deinit {
        pointer.deinitialize(count: 1)
        pointer.deallocate()
    }
}
