/// What every sampling policy keeps of its residents (Random, RandomTwo, RandomLRU, Hyperbolic,
/// BeladySize): the chained-hash sample it draws its candidates from, the seeded generator of
/// those draws, and the residents' total cost. A policy keeps only its own scores beside it.
///
/// - Complexity: ``insert(_:of:)`` O(1) amortised; ``remove(_:of:)`` and ``draw()`` O(1)
///   expected (see `_ChainedSample`).
@usableFromInline
struct _SampledResidents {
    @usableFromInline var sample: _ChainedSample
    @usableFromInline var generator: SeededGenerator
    /// The sum of the residents' costs.
    @usableFromInline var cost = 0

    /// An empty sample of `buckets` hash buckets, its generator seeded by the `seed` option (1 by default).
    init(options: PolicyOptions, buckets: Int = 1 << 16) throws(PolicyConfigurationError) {
        sample = _ChainedSample(buckets: buckets)
        generator = SeededGenerator(seed: UInt64(bitPattern: Int64(try options.integer("seed", default: 1))))
    }

    @inlinable var count: Int { sample.count }

    /// Files a newly stored slot and adds its cost.
    @inlinable
    mutating func insert<Key: Hashable, Value>(_ slot: Int32, of store: SlotArena<Key, Value>) {
        sample.insert(slot, hash: store.hash(store.key(slot)))
        cost += store.cost(slot)
    }

    /// Takes a slot that is leaving out of the sample and its cost out of the total.
    @inlinable
    mutating func remove<Key: Hashable, Value>(_ slot: Int32, of store: SlotArena<Key, Value>) {
        sample.remove(slot)
        cost -= store.cost(slot)
    }

    /// One resident, drawn as libCacheSim's `hashtable_rand_obj` draws. There must be one.
    @inlinable
    mutating func draw() -> Int32 { sample.draw(using: &generator) }
}
