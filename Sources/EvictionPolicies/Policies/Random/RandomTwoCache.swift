// RandomTwo: the power of two random choices applied to eviction (Mitzenmacher, "The power of two
// choices in randomized load balancing", IEEE TPDS 2001; Psounis and Prabhakar, "A randomized
// web-cache replacement scheme", INFOCOM 2001), as libCacheSim 0.3.5's RandomTwo.c (PyPI
// `libcachesim` 0.3.5, src/libCacheSim/cache/eviction/RandomTwo.c). No parameters besides the seed.

/// A cache that draws two random residents and evicts the one used less recently.
///
/// **Rule** (libCacheSim 0.3.5 `RandomTwo.c`). Every request stamps its object with the request
/// count (its *last access time*). A miss evicts until the new object fits (cost and count): each
/// eviction draws two residents as libCacheSim's `hashtable_rand_obj` draws them (a random
/// non-empty bucket, then a random entry of it; see `_DenseSample`), independently, so both
/// draws may be the same object, and evicts the one whose last access is older (the second on a
/// tie). An object larger than the capacity is never inserted. The draws come from a generator
/// seeded by the `seed` option, so a run is reproducible.
///
/// - Complexity: lookup, insert and remove are O(1) expected; each eviction is O(1) expected.
public struct RandomTwoCache<Key: Hashable, Value>: _SampledRecencyPolicy, SlotRelocatingPolicy {
    public static var descriptor: PolicyDescriptor {
        PolicyDescriptor(
            name: "randomtwo", reproduces: "RandomTwo (libCacheSim 0.3.5 RandomTwo.c)",
            rule: "draw two random residents and evict the one used less recently",
            family: .research, supportsCountLimit: true, isDeterministic: false,
            parameters: [PolicyParameter("seed", default: "1", "seed of the random generator")])
    }

    public var store = SlotArena<Key, Value>()
    /// The residents drawn from.
    public var residents: _SampledResidents<_DenseSample>
    /// The limits and the residents' total cost.
    public var budget: PolicyBudget
    /// The residents' last access times.
    public var recency = _RecencyStamps()
    /// Two draws per eviction. libCacheSim keeps the second of two equals, which only a slot
    /// drawn twice can be (stamps are distinct), so keeping the first is the same choice.
    @inlinable public var samples: Int { 2 }

    public init(limits: CacheLimits, options: PolicyOptions) throws(PolicyConfigurationError) {
        budget = try PolicyBudget(for: Self.descriptor, limits: limits, options: options)
        residents = try _SampledResidents(options: options)
    }

    @inlinable @inline(__always)
    public mutating func _withResidents<Result>(
        _ body: (inout SlotArena<Key, Value>, inout _SampledResidents<_DenseSample>) -> Result
    ) -> Result { body(&store, &residents) }
}
