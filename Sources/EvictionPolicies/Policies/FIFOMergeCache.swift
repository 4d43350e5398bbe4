// FIFO-Merge: the FIFO with a "merge" of examined segments of the log (Yang et al., the FIFO-Merge
// baseline of "FIFO queues are all you need for cache eviction", SOSP'23, after Segcache, NSDI'21),
// as libCacheSim 0.3.5's FIFO_Merge.c (PyPI `libcachesim` 0.3.5,
// src/libCacheSim/cache/eviction/FIFO_Merge.c): defaults `n-exam=100`, `n-keep=50`,
// `retain-policy=freq`.

/// A FIFO whose evictions examine `n-exam` objects at a time, walking from the tail toward the
/// head, and evict the ones least worth keeping.
///
/// **Rule** (libCacheSim 0.3.5 `FIFO_Merge.c`). A new object enters the head with frequency 0; a
/// hit adds 1 to its frequency and stamps its last access. To evict:
/// 1. While a round is under way, the next examined object in metric order is evicted, until
///    `n-exam - n-keep - 1` of them have gone after the round's first (49 per round by default):
///    libCacheSim's position check runs after its increment, so the round ends one early.
/// 2. With at most `n-exam` residents, the tail is evicted (and the walk restarts at the tail).
/// 3. Otherwise a new round: the `n-exam` objects from where the last round stopped (the tail at
///    first, wrapping from the head back to the tail) are scored and sorted, lowest first, and the
///    lowest is evicted. The kept ones stay where they are in the FIFO.
///
/// The score (`retain-policy`): `freq`, 10^6 × (frequency + a random 0–0.0999 tie-break) / size;
/// `recency`, 10^12 / (requests since the last access) / size; `none`, no score and `n-keep` set
/// to `n-exam`, so each round evicts one of its objects and the next round moves on. libCacheSim's `belady` needs the future and is not offered.
/// A size of 0 scores as 1, where libCacheSim divides by zero. Objects removed by the caller
/// while examined are skipped (libCacheSim would evict freed memory). An object larger than the
/// capacity is never inserted. The tie-break draws come from a generator seeded by `seed`.
///
/// - Complexity: lookup, insert and remove are O(1) expected; an eviction is amortised
///   O(`n-exam` log `n-exam` / (`n-exam` - `n-keep`)).
public struct FIFOMergeCache<Key: Hashable, Value>: SlotPolicy {
    public static var descriptor: PolicyDescriptor {
        PolicyDescriptor(
            name: "fifo-merge", reproduces: "FIFO-Merge (Yang et al., SOSP'23 baseline) as libCacheSim 0.3.5 FIFO_Merge.c",
            rule: "walk the FIFO from the tail n-exam objects at a time and evict the n-exam - n-keep - 1 scored lowest (frequency per byte), keeping the rest in place",
            family: .research, supportsCountLimit: true, aliases: ["fifomerge"], isDeterministic: false,
            parameters: [
                PolicyParameter("n-exam", default: "100", "objects examined per round"),
                PolicyParameter("n-keep", default: "50", "objects a round keeps (half of n-exam unless given)"),
                PolicyParameter("retain-policy", default: "freq", "what a round keeps: freq (frequency), recency or none"),
                PolicyParameter("seed", default: "1", "seed of the tie-break draws"),
            ])
    }

    /// What a round's score rewards.
    @usableFromInline enum Retain { case frequency, recency, none }

    public var store = SlotArena<Key, Value>()
    @usableFromInline var queue = SlotList()
    // A slot's frequency is its arena `aux` word, in the line the lookup has just loaded.
    /// The last access of each slot, kept only for `retain-policy=recency`, the one score that reads it.
    @usableFromInline var lastAccess = SideTable<Int64>(filling: 0)
    /// The round in which a slot was examined (0: not in the current round's list).
    @usableFromInline var examinedIn = SideTable<UInt32>(filling: 0)
    @usableFromInline var round: UInt32 = 0
    @usableFromInline var clock: Int64 = 0
    /// Where the next round starts examining, toward the head; -1 for the tail.
    @usableFromInline var nextToExamine: Int32 = -1
    @usableFromInline var candidates: [(score: Double, slot: Int32)]
    @usableFromInline var position: Int
    @usableFromInline var generator: SeededGenerator
    @usableFromInline let examined: Int
    @usableFromInline let kept: Int
    @usableFromInline let retain: Retain
    public let capacity: Int
    public let countLimit: Int

    public init(limits: CacheLimits, options: PolicyOptions) throws(PolicyConfigurationError) {
        (capacity, countLimit) = try limits.validated(for: Self.descriptor, options: options)
        switch options.string("retain-policy", default: "freq").lowercased() {
        case "freq", "frequency": retain = .frequency
        case "recency": retain = .recency
        case "none": retain = .none
        case let other:
            throw .invalidOption("retain-policy", value: other, expected: "freq, recency or none")
        }
        examined = try options.integer("n-exam", default: 100, in: 1...1_000_000)
        kept = retain == .none ? examined : try options.integer("n-keep", default: examined / 2, in: 0...examined)
        candidates = Array(repeating: (0, -1), count: examined)
        position = Int.max
        generator = try SeededGenerator(seedOption: options)
    }

    @inlinable public var count: Int { queue.count }
    @inlinable public var totalCost: Int { queue.cost }

    @inlinable @inline(__always)
    public func prefetch(_ key: Key, _ stage: PrefetchStage) { store.prefetch(key, stage) }

    @inlinable public mutating func didHit(_ slot: Int32) {
        clock += 1
        store.setAux(slot, store.aux(slot) &+ 1)
        if retain == .recency { lastAccess[slot] = clock }
    }

    @inlinable public mutating func didInsert(_ slot: Int32) {
        clock += 1
        store.setAux(slot, 0)
        if retain == .recency { lastAccess[slot] = clock }
        examinedIn[slot] = 0
        store.pushHead(slot, &queue)
    }

    @inlinable public mutating func victim() -> Int32 {
        // 1. The rest of the current round.
        while position < examined {
            let slot = candidates[position].slot
            position += 1
            guard position < examined - kept else { break }
            // -1: a candidate removed before a compaction (see `relocateSlots`).
            if slot >= 0 && examinedIn[slot] == round { return slot }
        }
        // 2. A cache no larger than a round is plain FIFO.
        if count <= examined {
            nextToExamine = -1
            return queue.tail
        }
        // 3. A new round.
        round &+= 1
        if round == 0 { round = 1 }
        var slot = nextToExamine
        for i in 0..<examined {
            if slot < 0 { slot = queue.tail }
            candidates[i] = (score(slot), slot)
            examinedIn[slot] = round
            slot = store.prev(slot)
        }
        nextToExamine = slot
        candidates.sort { $0.score < $1.score }
        position = 1
        return candidates[0].slot
    }

    @inlinable public mutating func unlink(_ slot: Int32) {
        if slot == nextToExamine { nextToExamine = store.prev(slot) }
        examinedIn[slot] = 0
        store.unlink(slot, &queue)
    }

    @inlinable public mutating func setCost(_ slot: Int32, _ cost: Int) { store.setCost(slot, cost, in: &queue) }

    /// How much `slot` is worth keeping; the lowest scores leave first.
    @inlinable func scoreBase(_ slot: Int32) -> Double { Double(Swift.max(store.cost(slot), 1)) }

    @inlinable mutating func score(_ slot: Int32) -> Double {
        switch retain {
        case .frequency:
            // libCacheSim adds a small random number to tell equal frequencies apart.
            let tieBreak = Double(generator.next() % 1000) / 10_000
            return 1.0e6 * (Double(store.aux(slot)) + tieBreak) / scoreBase(slot)
        case .recency:
            // The eviction runs within the current request, which libCacheSim has counted already.
            return 1.0e12 / Double(clock + 1 - lastAccess[slot]) / scoreBase(slot)
        case .none:
            return 0
        }
    }
}

extension FIFOMergeCache: SlotRelocatingPolicy {
    /// Renumbers the queue's ends, the side tables, where the next round starts and the current
    /// round's candidates after a compaction. A candidate removed since it was examined is
    /// dropped first: a moved entry may take its number, and must not be taken for it.
    @inlinable public mutating func relocateSlots(_ relocation: SlotRelocation) {
        relocation.relocate(&queue)
        for i in candidates.indices {
            let slot = candidates[i].slot
            candidates[i].slot = slot >= 0 && examinedIn[slot] == round ? relocation[slot] : -1
        }
        lastAccess.relocate(relocation)
        examinedIn.relocate(relocation)
        nextToExamine = relocation[nextToExamine]
    }
}
