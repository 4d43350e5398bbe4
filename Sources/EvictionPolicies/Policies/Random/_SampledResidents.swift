/// What every sampling policy keeps of its residents (Random, RandomTwo, RandomLRU, Hyperbolic,
/// BeladySize): the chained-hash sample it draws its candidates from and the seeded generator of
/// those draws. A policy keeps only its own scores beside it (see ``_SampledPolicy``).
///
/// - Complexity: ``insert(_:hash:)`` O(1) amortised; ``remove(_:hash:)`` and ``draw()`` O(1)
///   expected (see `_ChainedSample`).
public struct _SampledResidents {
    @usableFromInline var sample: _ChainedSample
    @usableFromInline var generator: _LookaheadGenerator
    /// The draws ``prefetchUpcoming(draws:)`` has guessed: how many random numbers each will use
    /// (8 bits a draw, the next lowest) and how many are planned.
    @usableFromInline var plan: (spans: UInt64, count: Int) = (0, 0)
    /// ``_LookaheadGenerator/taken`` when the plan was made.
    @usableFromInline var plannedFrom = 0

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

    /// Starts loading the bucket a key hashing to `hash` would be filed in, for a request that
    /// may miss: a new resident's bucket is a random line. O(1).
    @inlinable @inline(__always)
    func prefetchFiling(hash: UInt64) { sample.prefetchBucket(Int(UInt32(truncatingIfNeeded: hash) & sample.mask)) }

    /// One resident, drawn as libCacheSim's `hashtable_rand_obj` draws. There must be one.
    @inlinable @inline(__always)
    mutating func draw() -> Int32 { sample.draw(using: &generator) }

    /// Guesses the next `2 × draws` draws (`draws` is 1 or 2, one eviction's) from the random
    /// numbers they will use and the table as it is now, and starts loading what they will
    /// read: the buckets of the eviction after next, and for the next eviction, whose buckets
    /// were loaded by the previous call, the drawn slots' links here; their slots and hashes are
    /// returned for the caller to load their slot lines and index buckets. Call it after each
    /// eviction's draws.
    ///
    /// Why: an eviction is three dependent cache misses (the bucket, the drawn slot's line, its
    /// index bucket to remove it), and the draw's numbers are known ahead, so loading the bucket
    /// two evictions early and the rest one eviction early leaves none for the eviction to wait
    /// for. A guess that the table's changes make wrong costs a useless load, never another draw.
    ///
    /// The guesses are kept (``plan``) and only the newest eviction's are made here: finding a
    /// draw's bucket skips empty ones on branches no predictor can learn, and redoing it for
    /// every planned draw cost more than the misses it saved. The plan is dropped when a draw
    /// used more or fewer numbers than it planned (the table changed under it).
    ///
    /// - Returns: the guessed slot of each of the next eviction's draws, -1 where a draw walks
    ///   past a chain's second slot or is not guessed, with its hash's low 31 bits if known.
    /// - Complexity: O(draws) expected.
    @inlinable @inline(__always)
    mutating func prefetchUpcoming(draws: Int) -> ((slot: Int32, hash: UInt32?), (slot: Int32, hash: UInt32?)) {
        // Keep the plan's later draws if the draws just made used the numbers it planned.
        let used = generator.taken &- plannedFrom
        let planned = plan.spans & (draws == 1 ? 0xff : 0xffff)
        if plan.count >= draws && used == Int((planned & 0xff) &+ (planned >> 8)) {
            plan.spans >>= UInt64(8 &* draws)
            plan.count &-= draws
        } else {
            plan = (0, 0)
        }
        plannedFrom = generator.taken
        var guessed: ((slot: Int32, hash: UInt32?), (slot: Int32, hash: UInt32?)) = ((-1, nil), (-1, nil))
        let mask = sample.mask
        var offset = 0
        for draw in 0..<(2 &* draws) {
            var span = Int(truncatingIfNeeded: (plan.spans >> UInt64(8 &* draw)) & 0xff)
            let isNew = draw >= plan.count
            if isNew {
                // The bucket a draw takes is the first occupied one its numbers name.
                var end = offset
                repeat {
                    guard end < _LookaheadGenerator.capacity &- 1 else { return guessed }
                    end &+= 1
                } while !sample.isOccupied(Int(UInt32(truncatingIfNeeded: generator.peek(end &- 1)) & mask))
                span = end &+ 1 &- offset
                plan.spans |= UInt64(span) << UInt64(8 &* draw)
                plan.count &+= 1
            }
            let index = Int(UInt32(truncatingIfNeeded: generator.peek(offset &+ span &- 2)) & mask)
            if draw >= draws {
                if isNew { sample.prefetchBucket(index) }
            } else {
                let guess = sample.guess(bucket: index, position: generator.peek(offset &+ span &- 1))
                // Removing the victim reads its link when its chain is longer than one.
                if guess.slot >= 0 { sample.links.prefetch(guess.slot) }
                if draw == 0 { guessed.0 = guess } else { guessed.1 = guess }
            }
            offset &+= span
        }
        return guessed
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

    /// After an eviction's `draws` draws (1 or 2), starts loading what the next eviction's
    /// draws will read, as ``_SampledResidents/prefetchUpcoming(draws:)`` guesses them: their
    /// slot lines, their index buckets and, through `prefetch`, the policy's own scores. Only
    /// hints: the draws and choices are unchanged.
    /// O(draws) expected.
    @inlinable @inline(__always)
    public mutating func _prefetchUpcoming(draws: Int, prefetch: (inout Self, Int32) -> Void) {
        let (first, second) = residents.prefetchUpcoming(draws: draws)
        _inPlace { store in
            store._prefetchEntry(first.slot, hash: first.hash)
            store._prefetchEntry(second.slot, hash: second.hash)
        }
        if first.slot >= 0 { prefetch(&self, first.slot) }
        if second.slot >= 0 { prefetch(&self, second.slot) }
    }

    @inlinable public mutating func unlink(_ slot: Int32) {
        // The hash comes from the key, in the slot's line that the eviction loads anyway.
        let (hash, cost) = _inPlace { ($0.hash($0.key(slot)), $0.cost(slot)) }
        residents.remove(slot, hash: hash)
        budget.cost -= cost
    }
}
