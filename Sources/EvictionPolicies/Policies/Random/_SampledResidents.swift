/// What every sampling policy keeps of its residents (Random, RandomTwo, RandomLRU, Hyperbolic,
/// BeladySize): the chained-hash sample it draws its candidates from and the seeded generator of
/// those draws. A policy keeps only its own scores beside it (see ``_SampledPolicy``).
///
/// - Complexity: ``insert(_:hash:)`` O(1) amortised; ``remove(_:hash:)`` and ``draw()`` O(1)
///   expected (see `_ChainedSample`).
public struct _SampledResidents {
    @usableFromInline var sample: _ChainedSample
    @usableFromInline var generator: SeededGenerator

    /// An empty sample of `buckets` hash buckets, its generator seeded by the `seed` option (1 by default).
    init(options: PolicyOptions, buckets: Int = 1 << 16) throws(PolicyConfigurationError) {
        sample = _ChainedSample(buckets: buckets)
        generator = try SeededGenerator(seedOption: options)
    }

    @inlinable var count: Int { sample.count }

    /// Files a newly stored slot, whose key hashes to `hash`.
    @inlinable
    mutating func insert(_ slot: Int32, hash: UInt64) { sample.insert(slot, hash: hash) }

    /// Takes a slot that is leaving, whose key hashes to `hash`, out of the sample.
    @inlinable
    mutating func remove(_ slot: Int32, hash: UInt64) { sample.remove(slot, hash: hash) }

    /// One resident, drawn as libCacheSim's `hashtable_rand_obj` draws. There must be one.
    @inlinable @inline(__always)
    mutating func draw() -> Int32 { sample.draw(using: &generator) }
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
        // `_inPlace`: a plain read of `store` here would copy the arena (see ArenaPolicy).
        let (hash, cost) = _inPlace { ($0.hash($0.key(slot)), $0.cost(slot)) }
        residents.insert(slot, hash: hash)
        budget.cost += cost
    }

    /// The lowest-scoring of `samples` residents drawn with replacement; the first drawn among
    /// equals (a later draw wins only if its score is lower), as libCacheSim's sampling loops
    /// compare. There must be a resident. O(samples) expected.
    ///
    /// The draws are made 16 at a time and `prefetch` is called on each before any is scored:
    /// each score reads a random slot's data, a cache miss, and scored as drawn those misses
    /// came one after another (half of Hyperbolic's replay); asked for together they overlap.
    /// The draws do not depend on the scores, so the choice is the same.
    ///
    /// `prefetch` and `score` read the policy they are given, in place: a closure that captured
    /// the policy's score tables instead would retain and release each of them on every eviction.
    // Always inlined, so that the two closures are too: called through their contexts they
    // cost more than the misses the batching saves.
    @inlinable @inline(__always)
    public mutating func _lowest<Score: Comparable>(
        of samples: Int, prefetch: (inout Self, Int32) -> Void, by score: (inout Self, Int32) -> Score
    ) -> Int32 {
        // A batch on the stack: no allocation per eviction.
        withUnsafeTemporaryAllocation(of: Int32.self, capacity: 16) { drawn in
            var best: Int32 = -1
            var bestScore: Score? = nil
            var left = samples
            while left > 0 {
                let count = Swift.min(left, drawn.count)
                left -= count
                for i in 0..<count {
                    drawn[i] = residents.draw()
                    prefetch(&self, drawn[i])
                }
                for i in 0..<count {
                    let slotScore = score(&self, drawn[i])
                    if let bestScore, !(slotScore < bestScore) { continue }
                    (best, bestScore) = (drawn[i], slotScore)
                }
            }
            return best
        }
    }

    @inlinable public mutating func unlink(_ slot: Int32) {
        // The hash comes from the key, in the slot's line that the eviction loads anyway.
        let (hash, cost) = _inPlace { ($0.hash($0.key(slot)), $0.cost(slot)) }
        residents.remove(slot, hash: hash)
        budget.cost -= cost
    }
}
