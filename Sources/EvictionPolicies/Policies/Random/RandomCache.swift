// Random eviction, as libCacheSim 0.3.5's Random.c (`Random_evict` evicts `hashtable_rand_obj`).

/// A cache that evicts a resident entry chosen at random, as libCacheSim draws it.
///
/// **Rule.** Hits change nothing. A miss evicts random residents until the new object fits (cost
/// and count), then inserts it. A draw picks a random non-empty bucket of a chained hash table of
/// the residents, then a random entry of that bucket, as libCacheSim's `hashtable_rand_obj` does
/// (so entries that share a bucket are drawn less often; the buckets are the residents' hashes'
/// top bits, see `_DenseSample`). An object larger than the capacity is never inserted. Re-inserting a
/// resident key replaces its cost in place. The draws come from a generator seeded by the
/// `seed` option, so a run is reproducible.
///
/// - Complexity: lookup, insert and remove are O(1) expected; each eviction is O(1) expected.
public struct RandomCache<Key: Hashable, Value>: _SampledPolicy {
    public static var descriptor: PolicyDescriptor {
        PolicyDescriptor(
            name: "random", reproduces: "Random (libCacheSim Random.c)",
            rule: "evict a random resident entry (a random hash bucket, then a random entry in it); hits change nothing",
            family: .research, supportsCountLimit: true, isDeterministic: false,
            parameters: [PolicyParameter("seed", default: "1", "seed of the random generator")])
    }

    public var store = SlotArena<Key, Value>()
    /// The residents drawn from.
    public var residents: _SampledResidents<_DenseSample>
    /// The limits and the residents' total cost.
    public var budget: PolicyBudget

    public init(limits: CacheLimits, options: PolicyOptions) throws(PolicyConfigurationError) {
        budget = try PolicyBudget(for: Self.descriptor, limits: limits, options: options)
        residents = try _SampledResidents(options: options)
    }

    @inlinable @inline(__always)
    public func prefetch(_ key: Key, _ stage: PrefetchStage) { store.prefetch(key, stage) }

    @inlinable public mutating func didHit(_ slot: Int32) {}

    @inlinable public mutating func didInsert(_ slot: Int32) {
        _sample(slot)
    }

    @inlinable public mutating func victim() -> Int32 { _draw() }

    @inlinable @inline(__always)
    public mutating func _withResidents<Result>(
        _ body: (inout SlotArena<Key, Value>, inout _SampledResidents<_DenseSample>) -> Result
    ) -> Result { body(&store, &residents) }
}

extension RandomCache: SlotRelocatingPolicy {
    /// Renumbers the residents' draws after a compaction; the draws stay the same.
    @inlinable public mutating func relocateSlots(_ relocation: SlotRelocation) { _relocateResidents(relocation) }
}
