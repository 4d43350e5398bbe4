// RandomTwo: the power of two random choices applied to eviction (Mitzenmacher, "The power of two
// choices in randomized load balancing", IEEE TPDS 2001; Psounis and Prabhakar, "A randomized
// web-cache replacement scheme", INFOCOM 2001), as libCacheSim 0.3.5's RandomTwo.c (PyPI
// `libcachesim` 0.3.5, src/libCacheSim/cache/eviction/RandomTwo.c). No parameters besides the seed.

/// A cache that draws two random residents and evicts the one used less recently.
///
/// **Rule** (libCacheSim 0.3.5 `RandomTwo.c`). Every request stamps its object with the request
/// count (its *last access time*). A miss evicts until the new object fits (cost and count): each
/// eviction draws two residents as libCacheSim's `hashtable_rand_obj` draws them (a random
/// non-empty bucket, then a random entry of it; see `_ChainedSample`), independently, so both
/// draws may be the same object, and evicts the one whose last access is older (the second on a
/// tie). An object larger than the capacity is never inserted. The draws come from a generator
/// seeded by the `seed` option, so a run is reproducible.
///
/// - Complexity: lookup, insert and remove are O(1) expected; each eviction is O(1) expected.
public struct RandomTwoCache<Key: Hashable, Value>: SlotPolicy {
    public static var descriptor: PolicyDescriptor {
        PolicyDescriptor(
            name: "randomtwo", reproduces: "RandomTwo (libCacheSim 0.3.5 RandomTwo.c)",
            rule: "draw two random residents and evict the one used less recently",
            family: .research, supportsCountLimit: true, isDeterministic: false,
            parameters: [PolicyParameter("seed", default: "1", "seed of the random generator")])
    }

    public var store = SlotArena<Key, Value>()
    @usableFromInline var residents: _SampledResidents
    @usableFromInline var lastAccess = SideTable<Int64>(filling: 0)
    @usableFromInline var clock: Int64 = 0
    @inlinable public var totalCost: Int { residents.cost }
    public let capacity: Int
    public let countLimit: Int

    public init(limits: CacheLimits, options: PolicyOptions) throws(PolicyConfigurationError) {
        (capacity, countLimit) = try limits.validated(for: Self.descriptor, options: options)
        residents = try _SampledResidents(options: options)
    }

    @inlinable public var count: Int { residents.count }

    @inlinable @inline(__always)
    public func prefetch(_ key: Key, _ stage: PrefetchStage) { store.prefetch(key, stage) }

    @inlinable public mutating func didHit(_ slot: Int32) {
        clock += 1
        lastAccess[slot] = clock
    }

    @inlinable public mutating func didInsert(_ slot: Int32) {
        clock += 1
        lastAccess[slot] = clock
        residents.insert(slot, of: store)
    }

    @inlinable public mutating func victim() -> Int32 {
        let first = residents.draw()
        let second = residents.draw()
        return lastAccess[first] < lastAccess[second] ? first : second
    }

    @inlinable public mutating func unlink(_ slot: Int32) {
        residents.remove(slot, of: store)
    }

    @inlinable public mutating func setCost(_ slot: Int32, _ cost: Int) {
        store.setCost(slot, cost, adjusting: &residents.cost)
    }
}
