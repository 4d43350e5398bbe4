import EvictionPolicies

/// A policy type the replay engine can drive: 64-bit keys, no values.
public typealias ReplayPolicy = EvictionPolicy<UInt64, Void>

/// The one list of policies. The command line, `cachebench policies` and `compare` read it;
/// adding a policy means adding its line here.
public enum PolicyRegistry {
    /// Every policy, in the order `cachebench policies` lists them.
    public static var all: [any ReplayPolicy.Type] {
        [
            FIFOCache<UInt64, Void>.self,
            LIFOCache<UInt64, Void>.self,
            LRUCache<UInt64, Void>.self,
            S3FIFOCache<UInt64, Void>.self,
            ARCCache<UInt64, Void>.self,
            TwoQCache<UInt64, Void>.self,
            LIRSCache<UInt64, Void>.self,
            WTinyLFUCache<UInt64, Void>.self,
        ]
    }

    /// The descriptors of every policy.
    public static var descriptors: [PolicyDescriptor] { all.map { $0.descriptor } }

    /// The policy with the command-line name `name`.
    ///
    /// - Throws: ``UsageError`` naming the known policies.
    public static func policy(named name: String) throws(UsageError) -> any ReplayPolicy.Type {
        if let found = all.first(where: { $0.descriptor.name == name }) { return found }
        throw UsageError("unknown policy '\(name)' (known: \(descriptors.map(\.name).joined(separator: ", ")); see 'cachebench policies')")
    }
}
