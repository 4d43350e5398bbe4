import EvictionPolicies

/// Records every eviction and trim pass, in order, for assertions.
struct RecordingObserver<Key, Value>: EvictionObserver {
    var evicted: [Key] = []
    var evictedCosts: [Int] = []
    var passes: [TrimKind] = []
    var openPass: TrimKind?

    mutating func trimWillBegin(_ kind: TrimKind) {
        precondition(openPass == nil, "trim passes must not nest")
        openPass = kind
    }

    mutating func didEvict(_ key: Key, value: Value, cost: Int) {
        precondition(openPass != nil, "evictions must happen inside a trim pass")
        evicted.append(key)
        evictedCosts.append(cost)
    }

    mutating func trimDidEnd(_ kind: TrimKind) {
        precondition(openPass == kind, "trimDidEnd must match trimWillBegin")
        openPass = nil
        passes.append(kind)
    }

    /// Returns and clears what was evicted since the last call.
    mutating func take() -> [Key] {
        defer { evicted.removeAll(); evictedCosts.removeAll() }
        return evicted
    }
}

/// A small deterministic generator (SplitMix64) so random tests replay exactly from a seed.
struct SeededRandom: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9e37_79b9_7f4a_7c15
        var z = state
        z = (z ^ (z >> 30)) &* 0xbf58_476d_1ce4_e5b9
        z = (z ^ (z >> 27)) &* 0x94d0_49bb_1331_11eb
        return z ^ (z >> 31)
    }
}

extension EvictionPolicy {
    /// Creates a cache or fails the test with the configuration error.
    static func make(capacity: Int? = nil, countLimit: Int? = nil, options: [String: String] = [:]) throws -> Self {
        try Self(limits: CacheLimits(capacity: capacity, countLimit: countLimit), options: PolicyOptions(options))
    }
}
