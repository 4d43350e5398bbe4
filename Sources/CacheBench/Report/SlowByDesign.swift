import EvictionPolicies

/// Policies whose model repeats, on purpose, work the library itself does per operation that
/// grows with the number of residents: faithful, and slow with many residents. Each says so in its
/// descriptor (``PolicyDescriptor/slowByDesign``), a policy of another package too; named in
/// `cachebench policies` and in the progress line so that a long run is not mistaken for a hang.
public enum SlowByDesign {
    /// Why the policy `registry` knows as `policy` (any name or alias, in any case) slows down as
    /// residents grow, or `nil` for one with constant-time operations or a name it does not know.
    public static func reason(_ policy: String, in registry: PolicyRegistry = .standard) -> String? {
        (try? registry.policy(named: policy))?.descriptor.slowByDesign
    }

    /// What a progress line for runs of `policies` adds: ` [slow by design: a, b]` naming those
    /// that are, or nothing.
    public static func label(_ policies: [String], in registry: PolicyRegistry = .standard) -> String {
        let slow = policies.filter { reason($0, in: registry) != nil }
        return slow.isEmpty ? "" : " [slow by design: \(slow.joined(separator: ", "))]"
    }
}
