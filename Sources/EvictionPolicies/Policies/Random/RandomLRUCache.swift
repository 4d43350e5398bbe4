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
public struct RandomLRUCache<Key: Hashable, Value>: SlotPolicy {
    public static var descriptor: PolicyDescriptor {
        PolicyDescriptor(
            name: "randomlru", reproduces: "sampled LRU as libCacheSim 0.3.5 RandomLRU.c",
            rule: "draw n-samples random residents (with replacement) and evict the least recently used of them",
            family: .research, supportsCountLimit: true, isDeterministic: false,
            parameters: [
                PolicyParameter("n-samples", default: "16", "residents drawn per eviction", aliases: ["n-sample"]),
                PolicyParameter("seed", default: "1", "seed of the random generator"),
            ])
    }

    public var store = SlotArena<Key, Value>()
    @usableFromInline var residents: _SampledResidents
    @usableFromInline var lastAccess = SideTable<Int64>(filling: 0)
    @usableFromInline var clock: Int64 = 0
    @usableFromInline let samples: Int
    @inlinable public var totalCost: Int { residents.cost }
    public let capacity: Int
    public let countLimit: Int

    public init(limits: CacheLimits, options: PolicyOptions) throws(PolicyConfigurationError) {
        (capacity, countLimit) = try limits.validated(for: Self.descriptor, options: options)
        samples = try options.integer("n-samples", default: 16, in: 1...1_000_000)
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

    /// The oldest of the draws; the first drawn among equals, as a sort by access time would
    /// put it (stamps are distinct, so only a slot drawn twice ties).
    @inlinable public mutating func victim() -> Int32 {
        var oldest = residents.draw()
        for _ in 1..<samples {
            let drawn = residents.draw()
            if lastAccess[drawn] < lastAccess[oldest] { oldest = drawn }
        }
        return oldest
    }

    @inlinable public mutating func unlink(_ slot: Int32) {
        residents.remove(slot, of: store)
    }

    @inlinable public mutating func setCost(_ slot: Int32, _ cost: Int) {
        store.setCost(slot, cost, adjusting: &residents.cost)
    }
}
