/// What every sampling policy keeps of its residents (Random, RandomTwo, RandomLRU, Hyperbolic,
/// BeladySize): the chained-hash sample it draws its candidates from and the seeded generator of
/// those draws. A policy keeps only its own scores beside it (see ``_SampledPolicy``).
///
/// - Complexity: ``insert(_:hash:)`` O(1) amortised; ``remove(_:)`` and ``draw()`` O(1)
///   expected (see `_ChainedSample`); ``lowest(of:by:)`` O(samples) expected.
public struct _SampledResidents {
    @usableFromInline var sample: _ChainedSample
    @usableFromInline var generator: SeededGenerator

    /// An empty sample of `buckets` hash buckets, its generator seeded by the `seed` option (1 by default).
    init(options: PolicyOptions, buckets: Int = 1 << 16) throws(PolicyConfigurationError) {
        sample = _ChainedSample(buckets: buckets)
        generator = SeededGenerator(seed: UInt64(bitPattern: Int64(try options.integer("seed", default: 1))))
    }

    @inlinable var count: Int { sample.count }

    /// Files a newly stored slot, whose key hashes to `hash`.
    @inlinable
    mutating func insert(_ slot: Int32, hash: UInt64) { sample.insert(slot, hash: hash) }

    /// Takes a slot that is leaving out of the sample.
    @inlinable
    mutating func remove(_ slot: Int32) { sample.remove(slot) }

    /// One resident, drawn as libCacheSim's `hashtable_rand_obj` draws. There must be one.
    @inlinable
    mutating func draw() -> Int32 { sample.draw(using: &generator) }

    /// The lowest-scoring of `samples` residents drawn with replacement; the first drawn among
    /// equals (a later draw wins only if its score is lower), as libCacheSim's sampling loops
    /// compare. There must be a resident.
    @inlinable
    mutating func lowest<Score: Comparable>(of samples: Int, by score: (Int32) -> Score) -> Int32 {
        var best = draw()
        var bestScore = score(best)
        for _ in 1..<samples {
            let drawn = draw()
            let drawnScore = score(drawn)
            if drawnScore < bestScore { (best, bestScore) = (drawn, drawnScore) }
        }
        return best
    }
}

/// A policy that evicts residents drawn at random (``_SampledResidents``): the count, filing a
/// new resident and the unlink step are written once here, the limits and costs in
/// ``BudgetedPolicy``; the policy supplies its scores (hit and insert rules) and its choice among
/// the draws.
///
/// - Complexity: every step here is O(1) expected.
public protocol _SampledPolicy: BudgetedPolicy {
    /// The residents the policy draws from.
    var residents: _SampledResidents { get set }
}

extension _SampledPolicy {
    @inlinable public var count: Int { residents.count }

    /// Files newly stored `slot` in the sample and its cost in the budget. O(1) amortised.
    @inlinable public mutating func _sample(_ slot: Int32) {
        residents.insert(slot, hash: store.hash(store.key(slot)))
        budget.cost += store.cost(slot)
    }

    @inlinable public mutating func unlink(_ slot: Int32) {
        residents.remove(slot)
        budget.cost -= store.cost(slot)
    }
}
