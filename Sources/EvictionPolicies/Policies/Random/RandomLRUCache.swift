// Sampled LRU: evict the least recently used of k random residents (Psounis and Prabhakar, "A
// randomized web-cache replacement scheme", INFOCOM 2001; Redis's approximated LRU), as
// libCacheSim 0.3.5's RandomLRU.c (PyPI `libcachesim` 0.3.5,
// src/libCacheSim/cache/eviction/RandomLRU.c), default `n-samples=16`.

/// A cache that draws `n-samples` random residents and evicts the least recently used of them.
///
/// **Rule** (libCacheSim 0.3.5 `RandomLRU.c`). Every request stamps its object with the request
/// count (its *last access time*). A miss evicts until the new object fits (cost and count): each
/// eviction draws `n-samples` residents with replacement, as libCacheSim's `hashtable_rand_obj`
/// draws them (a random non-empty bucket, then a random entry of it; see `_ChainedSample`), and
/// evicts the one whose last access is oldest. An object larger than the capacity is never
/// inserted. The draws come from a generator seeded by the `seed` option.
///
/// - Complexity: lookup, insert and remove are O(1) expected; each eviction is O(`n-samples`) expected.
public struct RandomLRUCache<Key: Hashable, Value>: _SampledRecencyPolicy, SlotRelocatingPolicy {
    public static var descriptor: PolicyDescriptor {
        PolicyDescriptor(
            name: "randomlru", reproduces: "sampled LRU as libCacheSim 0.3.5 RandomLRU.c",
            rule: "draw n-samples random residents (with replacement) and evict the least recently used of them",
            family: .research, supportsCountLimit: true, isDeterministic: false,
            parameters: [
                PolicyParameter("n-samples", default: "16", "residents drawn per eviction, 1 to 10000", aliases: ["n-sample"]),
                PolicyParameter("seed", default: "1", "seed of the random generator"),
            ])
    }

    public var store = SlotArena<Key, Value>()
    /// The residents drawn from.
    public var residents: _SampledResidents<_ChainedSample>
    /// The limits and the residents' total cost.
    public var budget: PolicyBudget
    /// The residents' last access times.
    public var recency = _RecencyStamps()
    /// Residents drawn per eviction.
    public let samples: Int

    public init(limits: CacheLimits, options: PolicyOptions) throws(PolicyConfigurationError) {
        budget = try PolicyBudget(for: Self.descriptor, limits: limits, options: options)
        samples = try options.integer("n-samples", default: 16, in: 1...10_000)
        residents = try _SampledResidents(options: options)
    }

    @inlinable @inline(__always)
    public mutating func _withResidents<Result>(
        _ body: (inout SlotArena<Key, Value>, inout _SampledResidents<_ChainedSample>) -> Result
    ) -> Result { body(&store, &residents) }
}
