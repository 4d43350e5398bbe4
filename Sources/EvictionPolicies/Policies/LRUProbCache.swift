// Probabilistic LRU: a hit promotes its object to the head only with a probability, which keeps
// most hits free of list writes (the "lazy promotion" studied in Yang et al., "FIFO can be better
// than LRU: the power of lazy promotion and quick demotion", HotOS'23), as libCacheSim 0.3.5's
// LRUProb.c (PyPI `libcachesim` 0.3.5, src/libCacheSim/cache/eviction/LRUProb.c), default `prob=0.5`.

/// A least-recently-used list whose hits move their object to the head only with a probability.
///
/// **Rule** (libCacheSim 0.3.5 `LRUProb.c`). One list; a miss evicts from the tail until the new
/// object fits (cost and count) and inserts it at the head. A hit moves its object to the head
/// when a random draw is a multiple of `threshold`, the integer part of `1 / prob` with `prob`
/// read as a 32-bit float, as libCacheSim computes it (`strtof`, then `(int)1.0 / prob` truncated
/// into an `int`): so `prob=0.5` promotes half the hits, `prob=0.3` a third of them, `prob=1`
/// every hit (plain LRU), and `prob=0.2`, whose float is 0.2000000030, a quarter of them (1/prob
/// is 4.99999992), as `prob=0.1` a ninth and `prob=0.05` a nineteenth. An object
/// larger than the capacity is never inserted. The draws come from a generator seeded by `seed`.
///
/// - Complexity: lookup, insert and remove are O(1) expected; each eviction is O(1).
public struct LRUProbCache<Key: Hashable, Value>: SlotPolicy {
    public static var descriptor: PolicyDescriptor {
        PolicyDescriptor(
            name: "lru-prob", reproduces: "probabilistic LRU as libCacheSim 0.3.5 LRUProb.c",
            rule: "evict the tail of an LRU list; a hit moves the entry to the head only with probability 1/floor(1/prob)",
            family: .research, supportsCountLimit: true, isDeterministic: false,
            parameters: [
                PolicyParameter("prob", default: "0.5", "probability that a hit promotes its entry, used as 1/floor(1/prob); in (0, 1]"),
                PolicyParameter("seed", default: "1", "seed of the random generator"),
            ])
    }

    public var store = SlotArena<Key, Value>()
    @usableFromInline var list = SlotList()
    @usableFromInline var generator: SeededGenerator
    /// A hit promotes when a draw is a multiple of this.
    @usableFromInline let threshold: UInt64
    public let capacity: Int
    public let countLimit: Int

    public init(limits: CacheLimits, options: PolicyOptions) throws(PolicyConfigurationError) {
        (capacity, countLimit) = try limits.validated(for: Self.descriptor, options: options)
        let probability = try options.double("prob", default: 0.5, in: 1e-9...1)
        // libCacheSim reads `prob` with strtof (the text rounded once, to a float) and stores
        // `(int)1.0 / prob` in an int: the integer part of 1/prob in double arithmetic.
        let single = options.values["prob"].flatMap { Float($0) } ?? Float(probability)
        threshold = UInt64(max(1, (1 / Double(single)).rounded(.towardZero)))
        generator = SeededGenerator(seed: UInt64(bitPattern: Int64(try options.integer("seed", default: 1))))
    }

    @inlinable public var count: Int { list.count }
    @inlinable public var totalCost: Int { list.cost }

    @inlinable @inline(__always)
    public func prefetch(_ key: Key, _ stage: PrefetchStage) { store.prefetch(key, stage) }

    @inlinable public mutating func didHit(_ slot: Int32) {
        if generator.next() % threshold == 0 { store.moveToHead(slot, &list) }
    }

    @inlinable public mutating func didInsert(_ slot: Int32) { store.pushHead(slot, &list) }
    @inlinable public mutating func victim() -> Int32 { list.tail }
    @inlinable public mutating func unlink(_ slot: Int32) { store.unlink(slot, &list) }
    @inlinable public mutating func setCost(_ slot: Int32, _ cost: Int) { store.setCost(slot, cost, in: &list) }
}

extension LRUProbCache: SlotRelocatingPolicy {
    /// Renumbers the list's ends after a compaction.
    @inlinable public mutating func relocateSlots(_ relocation: SlotRelocation) { relocation.relocate(&list) }
}
