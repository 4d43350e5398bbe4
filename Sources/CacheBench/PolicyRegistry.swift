import EvictionPolicies

/// A policy type the replay engine can drive: 64-bit keys, no values.
public typealias ReplayPolicy = EvictionPolicy<UInt64, Void>

/// One registered policy: its type, and the replay engine specialized for that type.
///
/// The replay closure is created here, where the concrete type is known, so the optimizer
/// instantiates `Replay.run` (and through it the replay loop, the policy and the observer) for
/// that type. Dispatching through an existential metatype instead would run the generic,
/// unspecialized code for every request: runtime metadata lookups and witness-table calls that
/// cost more than the policy itself (10–30× on trim passes).
public struct RegisteredPolicy {
    /// The policy type.
    public let type: any ReplayPolicy.Type
    let replay: (ReplayJob) throws(CacheBenchError) -> ReplayResult

    /// Registers `type`.
    public init<P: ReplayPolicy>(_ type: P.Type) {
        self.type = type
        replay = { job throws(CacheBenchError) in try Replay.run(type, job) }
    }

    /// The policy's descriptor.
    public var descriptor: PolicyDescriptor { type.descriptor }
}

/// The one list of policies. The command line, `cachebench policies` and `compare` read it;
/// adding a policy means adding its line here.
public enum PolicyRegistry {
    /// Every policy, in the order `cachebench policies` lists them.
    public static var registered: [RegisteredPolicy] {
        [
            .init(FIFOCache<UInt64, Void>.self),
            .init(LIFOCache<UInt64, Void>.self),
            .init(LRUCache<UInt64, Void>.self),
            .init(CorelibsNSCache<UInt64, Void>.self),
            .init(FoundationNSCache<UInt64, Void>.self),
            .init(DarwinNSCacheApproximation<UInt64, Void>.self),
            .init(AFAutoPurgingImageCache<UInt64, Void>.self),
            .init(AlamofireAutoPurgingImageCache<UInt64, Void>.self),
            .init(YYMemoryCache<UInt64, Void>.self),
        ]
    }

    /// Every policy type, in the order `cachebench policies` lists them.
    public static var all: [any ReplayPolicy.Type] { registered.map(\.type) }

    /// The descriptors of every policy.
    public static var descriptors: [PolicyDescriptor] { registered.map(\.descriptor) }

    /// The registered policy with the command-line name `name`.
    ///
    /// - Throws: ``UsageError`` naming the known policies.
    public static func entry(named name: String) throws(UsageError) -> RegisteredPolicy {
        if let found = registered.first(where: { $0.descriptor.name == name }) { return found }
        throw UsageError("unknown policy '\(name)' (known: \(descriptors.map(\.name).joined(separator: ", ")); see 'cachebench policies')")
    }

    /// The policy type with the command-line name `name`.
    ///
    /// - Throws: ``UsageError`` naming the known policies.
    public static func policy(named name: String) throws(UsageError) -> any ReplayPolicy.Type {
        try entry(named: name).type
    }
}
