/// Where a sampling policy draws its residents from, as libCacheSim's chained hash table draws
/// them (`hashtable_rand_obj`): chains walked (``_ChainedSample``) or counted beside a dense
/// array of the residents (``_DenseSample``). Each call gets the arena's index, for a table that
/// wants to start loading a resident's bucket.
public protocol _SampleTable {
    /// An empty table, sized as libCacheSim sizes Random's (2^16 chains).
    init()
    /// An empty table of `chains` chains (a power of two).
    init(chains: Int)
    /// The residents filed.
    var residentCount: Int { get }
    /// Files newly stored `slot`, whose key hashes to `hash`; `index` holds it already.
    mutating func insert(_ slot: Int32, hash: UInt64, index: borrowing SlotIndex)
    /// Takes out `slot`, whose key hashes to `hash`; `index` holds it still.
    mutating func remove(_ slot: Int32, hash: UInt64, index: borrowing SlotIndex)
    /// One resident, drawn as libCacheSim's `hashtable_rand_obj` draws. There must be one.
    mutating func draw(index: borrowing SlotIndex, using generator: inout SeededGenerator) -> Int32
    /// A slot a later draw will probably take, for prefetching, or -1; called after each draw
    /// with the generator as it is then. The table may start loading what later draws need, and
    /// keep what it foresaw for them.
    mutating func lookAhead(index: borrowing SlotIndex, generator: SeededGenerator) -> Int32
    /// Whether the last draw's slot and key should start loading as soon as it is drawn: after a
    /// draw that no look-ahead foresaw, whose eviction would otherwise read them one miss after
    /// the other. A table whose policies prefetch their candidates' scores themselves says no:
    /// loading every candidate's slot and key costs more than the one evicted saves.
    var lastDrawWasUnforeseen: Bool { get }
    /// The hash (its high 32 bits at least) of `slot`, read from what the last draws loaded (so
    /// no key is), or `nil`. Known at least for the last two drawn where the table keeps hashes;
    /// never a hash other than the slot's own.
    func drawnHash(_ slot: Int32) -> UInt64?
    /// Renumbers the slots the table keeps after the arena compacted; the draws stay the same.
    mutating func relocate(_ relocation: SlotRelocation)
}

/// What every sampling policy keeps of its residents (Random, RandomTwo, RandomLRU, Hyperbolic,
/// BeladySize): the table it draws its candidates from and the seeded generator of those draws.
/// A policy keeps only its own scores beside it (see ``_SampledPolicy``).
///
/// - Complexity: ``insert(_:hash:index:)`` O(1) amortised; ``remove(_:hash:index:)`` and
///   ``draw(index:)`` O(1) expected (see the table's type).
public struct _SampledResidents<Table: _SampleTable> {
    @usableFromInline var sample: Table
    @usableFromInline var generator: SeededGenerator

    /// An empty sample of `buckets` hash chains, its generator seeded by the `seed` option (1 by default).
    init(options: PolicyOptions, buckets: Int = 1 << 16) throws(PolicyConfigurationError) {
        sample = Table(chains: buckets)
        generator = try SeededGenerator(seedOption: options)
    }

    @inlinable var count: Int { sample.residentCount }

    /// Files a newly stored slot, whose key hashes to `hash`.
    @inlinable
    mutating func insert(_ slot: Int32, hash: UInt64, index: borrowing SlotIndex) { sample.insert(slot, hash: hash, index: index) }

    /// Takes a slot that is leaving, whose key hashes to `hash`, out of the sample.
    @inlinable
    mutating func remove(_ slot: Int32, hash: UInt64, index: borrowing SlotIndex) { sample.remove(slot, hash: hash, index: index) }

    /// One resident, drawn as libCacheSim's `hashtable_rand_obj` draws. There must be one.
    @inlinable @inline(__always)
    mutating func draw(index: borrowing SlotIndex) -> Int32 { sample.draw(index: index, using: &generator) }
}

/// A policy that evicts residents drawn at random (``_SampledResidents``): the count, filing a
/// new resident and the unlink step are written once here, the limits and costs in
/// ``BudgetedPolicy``; the policy supplies its scores (hit and insert rules) and its choice among
/// the draws.
///
/// - Complexity: every step here is O(1) expected.
public protocol _SampledPolicy: BudgetedPolicy {
    /// Where the policy draws its residents from.
    associatedtype Sample: _SampleTable
    /// The residents the policy draws from.
    var residents: _SampledResidents<Sample> { get set }
    /// Runs `body` on the arena and the residents in place, together (a policy's stored
    /// properties can be; this generic code cannot reach both at once otherwise).
    mutating func _withResidents<Result>(_ body: (inout SlotArena<Key, Value>, inout _SampledResidents<Sample>) -> Result) -> Result
}

extension _SampledPolicy {
    @inlinable public var count: Int { residents.count }

    /// One resident, drawn as libCacheSim's `hashtable_rand_obj` draws. There must be one.
    /// Then starts loading what a later draw will read, where the table can foresee it
    /// (``_SampleTable/lookAhead(index:generator:)``).
    @inlinable @inline(__always)
    public mutating func _draw() -> Int32 { _drawAhead().slot }

    /// One resident, drawn as ``_draw()`` draws it, and the slot a later draw will probably
    /// take (-1: none foreseen), whose slot is being loaded and whose scores the caller may
    /// start loading too.
    @inlinable @inline(__always)
    public mutating func _drawAhead() -> (slot: Int32, ahead: Int32) {
        _withResidents { store, residents in
            let slot = residents.draw(index: store.index)
            // Its key and slot now, together, rather than the key, the bucket and then the slot
            // as the eviction reads them.
            if residents.sample.lastDrawWasUnforeseen { store.prefetchSlot(slot) }
            let ahead = residents.sample.lookAhead(index: store.index, generator: residents.generator)
            store.prefetchSlot(ahead)
            return (slot, ahead)
        }
    }

    /// The victim's hash as its draw read it, so its eviction loads no key. O(1).
    @inlinable @inline(__always)
    public func knownHash(ofVictim slot: Int32) -> UInt64? { residents.sample.drawnHash(slot) }

    /// Files newly stored `slot` in the sample and its cost in the budget. O(1) amortised.
    @inlinable public mutating func _sample(_ slot: Int32) {
        // In place: a plain read of `store` here would copy the arena (see ArenaPolicy).
        let cost = _withResidents { store, residents in
            residents.insert(slot, hash: store.hash(store.key(slot)), index: store.index)
            return store.cost(slot)
        }
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
                    // The score of a draw foreseen further on is asked for too: the misses of
                    // one eviction's draws are then hidden behind the eviction before.
                    let (slot, ahead) = _drawAhead()
                    drawn[i] = slot
                    prefetch(&self, slot)
                    if ahead >= 0 { prefetch(&self, ahead) }
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

    /// Renumbers the slots the residents' table keeps after the arena compacted. The draws do not
    /// change: the residents keep their places in the array (``_DenseSample``) or their
    /// chains' filing order (``_ChainedSample``), never ordered by slot number. The policy renumbers its own scores beside it.
    @inlinable public mutating func _relocateResidents(_ relocation: SlotRelocation) {
        residents.sample.relocate(relocation)
    }

    @inlinable public mutating func unlink(_ slot: Int32) {
        // The hash is the key's: the chained table files by it. The dense table ignores it (the
        // eviction took the victim out of the index by its drawn hash), so for Random and
        // RandomTwo the compiler drops the key's load.
        let cost = _withResidents { store, residents in
            residents.remove(slot, hash: store.hash(store.key(slot)), index: store.index)
            return store.cost(slot)
        }
        budget.cost -= cost
    }
}
