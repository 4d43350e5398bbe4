// flashProb: a DRAM cache in front of a flash cache that admits the DRAM's victims with a fixed
// probability, the simplest flash admission policy (see Eisenman et al., "Flashield: a hybrid
// key-value cache that controls flash write amplification", NSDI'19, and McAllister et al.,
// "Kangaroo", SOSP'21, for the probabilistic-admission baseline), as libCacheSim 0.3.5's
// other/flashProb.c (PyPI `libcachesim` 0.3.5, src/libCacheSim/cache/eviction/other/flashProb.c):
// defaults `ram-size-ratio=0.05,disk-admit-prob=0.2,ram-cache=LRU,disk-cache=FIFO`.

/// A RAM list in front of a FIFO "disk" that admits each object leaving RAM with a probability.
///
/// **Rule** (libCacheSim 0.3.5 `flashProb.c`). The disk holds `capacity - ram-size-ratio ×
/// capacity` (truncated); the RAM holds whatever the disk leaves free: libCacheSim inserts into
/// its RAM cache without that cache's own limit, and only the total is enforced.
/// - **Hit** in RAM: moves to RAM's head (`ram-cache=lru`; nothing for `fifo`). Hit on disk: nothing.
/// - **Miss**: an object larger than the capacity is never inserted; otherwise, while the total
///   exceeds the capacity, one *eviction step*; then the object enters RAM's head.
/// - **Eviction step**: RAM empty → the disk's oldest object leaves. Otherwise RAM's tail leaves
///   RAM; with probability 1/⌊1/`disk-admit-prob`⌋ (libCacheSim's `inv_prob`) it is written to
///   disk, where it is served as a disk request: larger than the disk, it is lost; otherwise the
///   disk's oldest objects leave until it fits, and it enters the disk's head. Not admitted, it
///   leaves the cache.
///
/// Counters: `ramAdmits` and `diskAdmits` (objects, the latter counting admitted objects too
/// large for the disk), as libCacheSim's `n_obj_admit_to_*`. The
/// draws come from a generator seeded by `seed`.
///
/// - Complexity: lookup, insert and remove are O(1) expected; an eviction step is O(1) amortised.
public struct FlashProbCache<Key: Hashable, Value>: SlotPolicy {
    public static var descriptor: PolicyDescriptor {
        PolicyDescriptor(
            name: "flashprob", reproduces: "probabilistic flash admission as libCacheSim 0.3.5 other/flashProb.c",
            rule: "new objects enter a RAM LRU; an object leaving RAM is written to a FIFO disk with probability disk-admit-prob, otherwise dropped; the disk holds all but ram-size-ratio of the capacity",
            family: .research, isDeterministic: false,
            parameters: [
                PolicyParameter("ram-size-ratio", default: "0.05", "RAM's share of the capacity (the disk gets the rest, truncated)"),
                PolicyParameter("disk-admit-prob", default: "0.2", "probability that an object leaving RAM is written to disk, used as 1/floor(1/p)"),
                PolicyParameter("ram-cache", default: "lru", "RAM's order: lru or fifo"),
                PolicyParameter("disk-cache", default: "fifo", "the disk's order: fifo (the only one offered)"),
                PolicyParameter("seed", default: "1", "seed of the random generator"),
            ])
    }

    @usableFromInline static var ramTag: UInt32 { 0 }
    @usableFromInline static var diskTag: UInt32 { 1 }

    // aux = which list the slot is in.
    public var store = SlotArena<Key, Value>()
    @usableFromInline var ram = SlotList()
    @usableFromInline var disk = SlotList()
    @usableFromInline var generator: SeededGenerator
    /// An object leaving RAM is written to disk when a draw is a multiple of this.
    @usableFromInline let inverseProbability: UInt64
    @usableFromInline let ramIsLRU: Bool
    @usableFromInline let diskCapacity: Int
    @usableFromInline var diskAdmits = 0
    @usableFromInline var ramAdmits = 0
    public let capacity: Int
    public let countLimit: Int

    public init(limits: CacheLimits, options: PolicyOptions) throws(PolicyConfigurationError) {
        (capacity, countLimit) = try limits.validated(for: Self.descriptor, options: options)
        let ramRatio = try options.double("ram-size-ratio", default: 0.05, in: 0...1)
        let probability = try options.double("disk-admit-prob", default: 0.2, in: 1e-9...1)
        switch options.string("ram-cache", default: "lru").lowercased() {
        case "lru": ramIsLRU = true
        case "fifo": ramIsLRU = false
        case let other: throw .invalidOption("ram-cache", value: other, expected: "lru or fifo")
        }
        let diskOrder = options.string("disk-cache", default: "fifo").lowercased()
        guard diskOrder == "fifo" else { throw .invalidOption("disk-cache", value: diskOrder, expected: "fifo") }
        diskCapacity = capacity - _proportion(of: capacity, ramRatio)
        inverseProbability = UInt64((1.0 / probability).rounded(.towardZero))
        generator = SeededGenerator(seed: UInt64(bitPattern: Int64(try options.integer("seed", default: 1))))
    }

    @inlinable public var count: Int { ram.count + disk.count }
    @inlinable public var totalCost: Int { ram.cost + disk.cost }

    public var extraMetrics: [PolicyMetric] {
        [PolicyMetric("ramAdmits", ramAdmits), PolicyMetric("diskAdmits", diskAdmits)]
    }

    @inlinable @inline(__always)
    public func prefetch(_ key: Key, _ stage: PrefetchStage) { store.prefetch(key, stage) }

    @inlinable public mutating func didHit(_ slot: Int32) {
        if ramIsLRU && store.aux(slot) == Self.ramTag { store.moveToHead(slot, &ram) }
    }

    @inlinable public mutating func didInsert(_ slot: Int32) {
        ramAdmits += 1
        store.setAux(slot, Self.ramTag)
        store.pushHead(slot, &ram)
    }

    /// The slot the next eviction step starts from: RAM's tail, or the disk's when RAM is empty.
    @inlinable public mutating func victim() -> Int32 { ram.isEmpty ? disk.tail : ram.tail }

    @inlinable public mutating func unlink(_ slot: Int32) {
        if store.aux(slot) == Self.ramTag { store.unlink(slot, &ram) } else { store.unlink(slot, &disk) }
    }

    @inlinable public mutating func setCost(_ slot: Int32, _ cost: Int) {
        if store.aux(slot) == Self.ramTag { store.setCost(slot, cost, in: &ram) } else { store.setCost(slot, cost, in: &disk) }
    }

    @inlinable
    public mutating func makeRoom(forCost cost: Int, count extra: Int, observer: inout some EvictionObserver<Key, Value>) {
        var pass = TrimPass(.caller)
        while count > 0 && totalCost > capacity - cost {
            guard !ram.isEmpty else {
                pass.willRemove(&observer)
                store.evict(disk.tail, from: &disk, observer: &observer)
                continue
            }
            let slot = ram.tail
            let cost = store.cost(slot)
            let admitted = generator.next() % inverseProbability == 0
            if admitted { diskAdmits += 1 }
            guard admitted, cost <= diskCapacity else {
                pass.willRemove(&observer)
                store.evict(slot, from: &ram, observer: &observer)
                continue
            }
            // Written to disk: out of RAM first, then the disk makes room as a FIFO of its own.
            store.unlink(slot, &ram)
            while disk.cost + cost > diskCapacity {
                pass.willRemove(&observer)
                store.evict(disk.tail, from: &disk, observer: &observer)
            }
            store.setAux(slot, Self.diskTag)
            store.pushHead(slot, &disk)
        }
        pass.end(&observer)
    }
}

extension FlashProbCache: SlotRelocatingPolicy {
    /// Renumbers the ends of the RAM and disk lists after a compaction.
    @inlinable public mutating func relocateSlots(_ relocation: SlotRelocation) {
        relocation.relocate(&ram)
        relocation.relocate(&disk)
    }
}
