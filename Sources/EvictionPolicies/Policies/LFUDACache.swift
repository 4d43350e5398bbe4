// LFUDA: LFU with dynamic aging (Arlitt et al., "Evaluating content management techniques for
// Web proxy caches", ACM SIGMETRICS PER 27(4), 2000), as libCacheSim 0.3.5's LFUDA.c (PyPI
// `libcachesim` 0.3.5, src/libCacheSim/cache/eviction/LFUDA.c). Exact on every golden row.

/// LFU with dynamic aging, in libCacheSim's form: frequencies are bucketed, and the cache age
/// `L` (the frequency of the last evicted bucket) is added to an object's frequency.
///
/// **Rule** (libCacheSim 0.3.5 `LFUDA.c`, whose aging differs from the paper's `K = L + 1`).
/// - **Miss**: the object enters the bucket `L + 1`, newest.
/// - **Hit**: its frequency becomes `f + L` (unchanged while `L` is 0), and it moves to the
///   newest end of that bucket; if it left the bucket `L` empty, `L` first moves up to the
///   lowest non-empty bucket above it (at most the highest frequency seen).
/// - **Evict**: the oldest object of bucket `L` (bucket 1 while `L` ≤ 1); `L` becomes that
///   bucket's frequency, and moves up the same way when the bucket empties.
/// Objects left in a bucket below `L` are not chosen again while bucket `L` has objects. When it
/// has none (libCacheSim dereferences null there), the victim comes from the lowest non-empty
/// bucket, whose frequency `L` becomes.
///
/// Only non-empty buckets are kept (libCacheSim keeps every bucket it made, which is most of its
/// memory on a long trace, as frequencies grow by `L` per hit).
///
/// - Complexity: a hit and an eviction are O(1) expected plus O(log b) when a bucket is made or
///   emptied, b non-empty buckets (libCacheSim scans every frequency between two buckets).
public struct LFUDACache<Key: Hashable, Value>: BudgetedPolicy {
    public static var descriptor: PolicyDescriptor {
        PolicyDescriptor(
            name: "lfuda", reproduces: "LFUDA (Arlitt et al., 2000) as libCacheSim 0.3.5 LFUDA.c",
            rule: "evict the oldest object of the lowest live frequency L; a hit adds L to the frequency, a miss enters at L + 1",
            family: .research)
    }

    /// A resident's aux word is its bucket.
    public var store = SlotArena<Key, Value>()
    /// The non-empty buckets, each a slot keyed by its frequency.
    @usableFromInline var buckets = SlotArena<Int, Void>()
    /// Each bucket's objects, head newest.
    @usableFromInline var members = SideTable<SlotList>(filling: SlotList())
    /// The non-empty buckets above `L`, lowest frequency first: where `L` moves next.
    @usableFromInline var above = IndexedMinHeap()
    /// `L`, libCacheSim's `min_freq`.
    @usableFromInline var age = 0
    @usableFromInline var maxFrequency = 0
    /// The limits and the residents' total cost.
    public var budget: PolicyBudget

    public init(limits: CacheLimits, options: PolicyOptions) throws(PolicyConfigurationError) {
        budget = try PolicyBudget(for: Self.descriptor, limits: limits, options: options)
    }

    /// The arena holds residents only.
    @inlinable public var count: Int { store.occupiedSlots }

    @inlinable public mutating func didInsert(_ slot: Int32) {
        let f = age == .max ? age : age + 1
        // libCacheSim raises max_freq only when the insertion makes the bucket. A bucket it finds
        // was made by an insertion or a hit, which raised max_freq to its frequency then, except
        // bucket 1, made at the start without raising it.
        if f != 1 { maxFrequency = max(maxFrequency, f) }
        budget.cost += store.cost(slot)
        push(slot, into: f)
    }

    @inlinable public mutating func didHit(_ slot: Int32) {
        let bucket = Int32(bitPattern: store.aux(slot))
        let old = buckets.key(bucket)
        // Frequencies grow by L per hit; saturate rather than overflow.
        let f = old > Int.max - age ? Int.max : old + age
        maxFrequency = max(maxFrequency, f)
        if f == old {
            store.moveToHead(slot, &members[bucket])
            return
        }
        take(slot, from: bucket, frequency: old)
        push(slot, into: f)
    }

    @inlinable public mutating func victim() -> Int32 {
        var bucket = buckets.find(age <= 1 ? 1 : age)
        if bucket < 0 { bucket = lowestBucket() }
        let f = buckets.key(bucket)
        if f != age { moveAge(to: f) }
        return members[bucket].tail
    }

    @inlinable public mutating func unlink(_ slot: Int32) {
        let bucket = Int32(bitPattern: store.aux(slot))
        take(slot, from: bucket, frequency: buckets.key(bucket))
        budget.cost -= store.cost(slot)
    }

    @inlinable public mutating func setCost(_ slot: Int32, _ cost: Int) {
        budget.cost += cost - store.cost(slot)
        store.setCost(slot, cost, in: &members[Int32(bitPattern: store.aux(slot))])
    }

    @inlinable @inline(__always)
    public func prefetch(_ key: Key, _ stage: PrefetchStage) { store.prefetch(key, stage) }

    /// Puts `slot` at the newest end of the bucket `f`, making the bucket if it has none.
    @inlinable mutating func push(_ slot: Int32, into f: Int) {
        let hash = buckets.hash(f)
        var bucket = buckets.find(f, hash: hash)
        if bucket < 0 {
            bucket = buckets.allocate(key: f, hash: hash, value: (), cost: 0)
            if f > age { above.insert(bucket, priority: Double(f), tie: Int64(f)) }
        }
        store.pushHead(slot, &members[bucket], tag: UInt32(bitPattern: bucket))
    }

    /// Takes `slot` out of `bucket`, of frequency `f`; a bucket left empty goes, and when it was
    /// bucket `L`, `L` moves up (`update_min_freq`).
    @inlinable mutating func take(_ slot: Int32, from bucket: Int32, frequency f: Int) {
        store.unlink(slot, &members[bucket])
        guard members[bucket].isEmpty else { return }
        buckets.release(bucket)
        if f > age { above.remove(bucket) } else if f == age { raiseAge() }
    }

    /// `update_min_freq`: `L` moves to the lowest non-empty bucket in (L, highest frequency],
    /// and stays when there is none.
    @inlinable mutating func raiseAge() {
        guard !above.isEmpty else { return }
        // `above` orders by the frequency as a `Double`, rounded, then exactly by the tie.
        let next = buckets.key(above.minimum)
        guard next <= maxFrequency else { return }
        age = next
        above.popMinimum()
    }

    /// `L` becomes `f`, the frequency of a non-empty bucket below or above it, and ``above``
    /// follows. Off the common path: `L` moves from 0 to 1 once, and below itself only where
    /// libCacheSim fails.
    @inlinable @inline(never)
    mutating func moveAge(to f: Int) {
        if f < age {
            above = IndexedMinHeap()
            for bucket in 0..<Int32(truncatingIfNeeded: buckets.slotCapacity) where isLive(bucket) {
                let frequency = buckets.key(bucket)
                if frequency > f { above.insert(bucket, priority: Double(frequency), tie: Int64(frequency)) }
            }
        }
        age = f
        while !above.isEmpty && buckets.key(above.minimum) <= age { above.popMinimum() }
    }

    /// Whether slot `bucket` of ``buckets`` is a bucket now. A bucket is released when it
    /// empties, so the live ones are those with members. (Not `buckets.isResident`: in an arena
    /// of `Void` values a released slot keeps its resident mark.)
    @inlinable func isLive(_ bucket: Int32) -> Bool { !members[bucket].isEmpty }

    /// The non-empty bucket of the lowest frequency. O(b).
    @inlinable @inline(never)
    func lowestBucket() -> Int32 {
        var lowest: Int32 = -1
        for bucket in 0..<Int32(truncatingIfNeeded: buckets.slotCapacity) where isLive(bucket) {
            if lowest < 0 || buckets.key(bucket) < buckets.key(lowest) { lowest = bucket }
        }
        return lowest
    }
}

extension LFUDACache: SlotRelocatingPolicy {
    /// Renumbers the ends of every bucket's member list after a compaction (an entry's bucket is
    /// its aux word, which moves with it; the buckets have an arena of their own).
    @inlinable public mutating func relocateSlots(_ relocation: SlotRelocation) {
        for bucket in members.storage.indices { relocation.relocate(&members.storage[bucket]) }
    }
}
