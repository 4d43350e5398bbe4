import EvictionPolicies

/// A policy type the replay engine can drive: 64-bit keys, no values.
public typealias ReplayPolicy = EvictionPolicy<UInt64, Void>

/// The one list of policies. The command line, `cachebench policies` and `compare` read it;
/// adding a policy means adding its line here.
public enum PolicyRegistry {
    /// Every registered policy with its replay entry point, in the order `cachebench policies`
    /// lists them.
    ///
    /// Each line names a concrete type in a generic call, so each policy gets a replay loop
    /// specialized for it. Dispatching through an opened existential instead would run
    /// the generic loop unspecialized, with a metadata lookup on every storage access (about 7×
    /// slower).
    static var registered: [RegisteredPolicy] {
        [
            RegisteredPolicy(FIFOCache<UInt64, Void>.self),
            RegisteredPolicy(LIFOCache<UInt64, Void>.self),
            RegisteredPolicy(LRUCache<UInt64, Void>.self),
            RegisteredPolicy(MRUCache<UInt64, Void>.self),
            RegisteredPolicy(ClockCache<UInt64, Void>.self),
            RegisteredPolicy(SieveCache<UInt64, Void>.self),
            RegisteredPolicy(LFUCache<UInt64, Void>.self),
            RegisteredPolicy(BeladyCache<UInt64, Void>.self),
        ]
    }

    /// Every policy, in the order `cachebench policies` lists them.
    public static var all: [any ReplayPolicy.Type] { registered.map(\.type) }

    /// The descriptors of every policy.
    public static var descriptors: [PolicyDescriptor] { all.map { $0.descriptor } }

    /// The policy with the command-line name `name`.
    ///
    /// - Throws: ``UsageError`` naming the known policies.
    public static func policy(named name: String) throws(UsageError) -> any ReplayPolicy.Type {
        try entry(named: name).type
    }

    /// The registration of the policy named `name`.
    static func entry(named name: String) throws(UsageError) -> RegisteredPolicy {
        if let found = registered.first(where: { $0.type.descriptor.name == name }) { return found }
        throw UsageError("unknown policy '\(name)' (known: \(descriptors.map(\.name).joined(separator: ", ")); see 'cachebench policies')")
    }
}

/// A policy type and its replay loop, specialized for that type when created with a concrete type.
struct RegisteredPolicy {
    let type: any ReplayPolicy.Type
    let replay: (ReplayJob) throws(CacheBenchError) -> ReplayResult

    init<P: ReplayPolicy>(_ type: P.Type) {
        self.type = type
        replay = { job throws(CacheBenchError) in try Replay.run(P.self, job) }
    }
}
