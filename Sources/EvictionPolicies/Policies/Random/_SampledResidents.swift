/// What every sampling policy keeps of its residents (Random, RandomTwo, RandomLRU, Hyperbolic,
/// BeladySize): the chained-hash sample it draws its candidates from and the seeded generator of
/// those draws. A policy keeps only its own scores beside it (see ``_SampledPolicy``).
///
/// - Complexity: ``insert(_:hash:)`` O(1) amortised; ``remove(_:hash:)`` and ``draw()`` O(1)
///   expected (see `_ChainedSample`).
public struct _SampledResidents {
    @usableFromInline var sample: _ChainedSample
    @usableFromInline var generator: SeededGenerator
    /// The generator's next output, drawn one draw early: it picks the bucket the next draw
    /// starts from, so that bucket, its first slot and that slot's index bucket can be loaded
    /// while the requests before the next eviction run (``_SampledPolicy/_prefetchNextDraw()``).
    /// The outputs are still used in the generator's order, so every draw is the same.
    @usableFromInline var ahead: UInt64
    /// How much of the next draw's memory has been asked for: 0 nothing, 1 its bucket, 2 its
    /// first slot, 3 that slot's index bucket.
    @usableFromInline var aheadStage: UInt8 = 0

    /// An empty sample of `buckets` hash buckets, its generator seeded by the `seed` option (1 by default).
    init(options: PolicyOptions, buckets: Int = 1 << 16) throws(PolicyConfigurationError) {
        sample = _ChainedSample(buckets: buckets)
        generator = try SeededGenerator(seedOption: options)
        ahead = generator.next()
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
    mutating func draw() -> Int32 {
        let slot = sample.draw(first: ahead, using: &generator)
        ahead = generator.next()
        aheadStage = 0
        return slot
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
    @inlinable
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

    /// Asks for the next draw's memory one step per call, from the policy's prefetch hook
    /// between evictions: its bucket, then the first slot of that bucket's chain (its line and
    /// chain link), then the index bucket of that slot's key, which evicting it will update.
    /// Each step reads only what the one before asked for, so none waits on memory.
    ///
    /// Why: the victim of Random is a dependent chain of misses (bucket, slot, index bucket), most
    /// of its eviction's time; the next draw's first output is known an eviction early (the
    /// residents' `ahead`) and a miss comes every three requests or so, time enough for
    /// all three. A hint only: the draw itself reads the table as it is then. O(1).
    @inlinable @inline(__always)
    public mutating func _prefetchNextDraw() {
        let stage = residents.aheadStage
        guard stage < 3 else { return }
        residents.aheadStage = stage + 1
        if stage == 0 {
            residents.sample.prefetchBucket(startingAt: residents.ahead)
            return
        }
        let chain = residents.sample.chain(startingAt: residents.ahead)
        guard chain.length > 0 else { return }
        if stage == 1 {
            _inPlace { $0.prefetchSlot(chain.head) }
            if chain.length > 1 { residents.sample.links.prefetch(chain.head) }
        } else {
            _inPlace { $0.prefetchIndex(ofSlot: chain.head) }
        }
    }

    @inlinable public mutating func unlink(_ slot: Int32) {
        // The hash comes from the key, in the slot's line that the eviction loads anyway.
        let (hash, cost) = _inPlace { ($0.hash($0.key(slot)), $0.cost(slot)) }
        residents.remove(slot, hash: hash)
        budget.cost -= cost
    }
}
