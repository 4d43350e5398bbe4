import EvictionPolicies

extension EvictionPolicy {
    /// Creates a cache from plain limits and string options; a configuration error fails the test.
    public static func make(capacity: Int? = nil, countLimit: Int? = nil, options: [String: String] = [:]) throws -> Self {
        try Self(limits: CacheLimits(capacity: capacity, countLimit: countLimit), options: PolicyOptions(options))
    }
}
