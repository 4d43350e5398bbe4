/// What every sampling policy keeps of its residents (Random, RandomTwo, RandomLRU, Hyperbolic,
/// BeladySize): the chained-hash sample it draws its candidates from and the seeded generator of
/// those draws. A policy keeps only its own scores beside it (see ``_SampledPolicy``).
///
/// - Complexity: ``insert(_:hash:)`` O(1) amortised; ``remove(_:hash:)`` and ``draw()`` O(1)
///   expected (see `_ChainedSample`).
public struct _SampledResidents {
    @usableFromInline var sample: _ChainedSample
    /// The seeded generator of the draws; its outputs may be drawn early
    /// (``_SampledPolicy/_prefetchNextDraw()``), and are used in its order all the same.
    @usableFromInline var generator: _LookaheadGenerator
    /// How much of the next draws' memory has been asked for since the last draw: 0 nothing,
    /// 1 their buckets, 2 their first slots, 3 those slots' index buckets.
    @usableFromInline var aheadStage: UInt8 = 0

    /// An empty sample of `buckets` hash buckets, its generator seeded by the `seed` option (1 by default).
    init(options: PolicyOptions, buckets: Int = 1 << 16) throws(PolicyConfigurationError) {
        sample = _ChainedSample(buckets: buckets)
        generator = _LookaheadGenerator(try SeededGenerator(seedOption: options))
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
        aheadStage = 0
        return sample.draw(using: &generator)
    }

    /// The first slots of the chains the next two draws start from, as far as the outputs
    /// drawn early tell (-1 where they do not): a guess, for prefetching. O(1).
    @inlinable
    func nextChainHeads() -> (Int32, Int32) {
        var heads: (Int32, Int32) = (-1, -1)
        var i = 0
        while i < generator.count {
            let chain = sample.chain(startingAt: generator.peek(i))
            if chain.length == 0 {
                i += 1
            } else if heads.0 < 0 {
                heads.0 = chain.head
                i += 2  // the next output is the position in the chain
            } else {
                heads.1 = chain.head
                break
            }
        }
        return heads
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

    /// Asks for the next draws' memory one step per call, from the policy's prefetch hook
    /// between evictions: the buckets their outputs (drawn early) pick, then the first slots of
    /// the next two draws' chains (their lines and chain links), then the index buckets of those
    /// slots' keys, which evicting them will update. Each step reads only what the one before
    /// asked for, so none waits on memory.
    ///
    /// Why: Random's victim is a chain of misses (bucket, slot, index bucket; an empty bucket,
    /// four in ten, is a redraw and another miss), most of its eviction's time; a miss comes
    /// every three requests or so, time enough to load them ahead. A hint only: the draws read
    /// the table as it is then, from the same outputs. O(1).
    @inlinable @inline(__always)
    public mutating func _prefetchNextDraw() {
        let stage = residents.aheadStage
        guard stage < 3 else { return }
        residents.aheadStage = stage + 1
        if stage == 0 {
            residents.generator.fill()
            for i in 0..<residents.generator.count {
                residents.sample.prefetchBucket(startingAt: residents.generator.peek(i))
            }
            return
        }
        let heads = residents.nextChainHeads()
        if stage == 1 {
            _inPlace { $0.prefetchSlot(heads.0); $0.prefetchSlot(heads.1) }
            residents.sample.links.prefetch(heads.0)
            residents.sample.links.prefetch(heads.1)
        } else {
            _inPlace { $0.prefetchIndex(ofSlot: heads.0); $0.prefetchIndex(ofSlot: heads.1) }
        }
    }

    /// The prefetch hook of a policy that evicts its draws (Random, RandomTwo): the request's
    /// memory; at each entry stage also a step of the next draws' (``_prefetchNextDraw()``)
    /// and, for a key the index surely lacks (a miss), the sample's bucket its insertion writes.
    /// O(1).
    @inlinable @inline(__always)
    public mutating func _prefetchWithNextDraws(_ key: Key, _ stage: PrefetchStage) {
        _inPlace { $0.prefetch(key, stage) }
        guard stage == .entry else { return }
        _prefetchNextDraw()
        let (hash, candidate) = _inPlace { store in
            let hash = store.hash(key)
            return (hash, store.candidateSlot(hash: hash))
        }
        if candidate < 0 { residents.sample.prefetchBucket(startingAt: hash) }
    }

    @inlinable public mutating func unlink(_ slot: Int32) {
        // The hash comes from the key, in the slot's line that the eviction loads anyway.
        let (hash, cost) = _inPlace { ($0.hash($0.key(slot)), $0.cost(slot)) }
        residents.remove(slot, hash: hash)
        budget.cost -= cost
    }
}
