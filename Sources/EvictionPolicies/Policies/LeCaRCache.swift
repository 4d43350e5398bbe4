import Foundation

// LeCaR: learning cache replacement with two experts, LRU and LFU, weighted by regret (Vietri et
// al., "Driving cache replacement with ML-based LeCaR", HotStorage'18), as libCacheSim 0.3.5's
// LeCaR.c (PyPI `libcachesim` 0.3.5, src/libCacheSim/cache/eviction/LeCaR.c): learning rate 0.45,
// discount rate 0.005^(1/capacity), defaults `update-weight=1,lru-weight=0.5`.

/// A cache that evicts either the least recently or the least frequently used entry, choosing
/// at random by weights it learns from the mistakes each choice made.
///
/// **Rule** (libCacheSim 0.3.5 `LeCaR.c`).
/// - **Hit**: the entry moves to the head of the LRU list and its frequency goes up by 1 (it
///   joins the end of its new frequency's FIFO).
/// - **Miss on a key in a ghost list**: the expert that evicted it made a mistake `t` requests
///   ago: its weight is multiplied by e^(−0.45 × dr^t), plus 10^−10, and both weights are
///   renormalised (dr = 0.005^(1/capacity)); the key leaves the ghost list, then is a miss.
/// - **Eviction** (until the new object fits): the LRU candidate is the LRU tail, the LFU
///   candidate the oldest entry of the lowest frequency. The same entry → it goes, and is
///   forgotten. Otherwise a draw r ∈ {0, 0.01, …, 0.99}: r < w_lru evicts the LRU candidate into
///   the LRU ghost, else the LFU candidate into the LFU ghost. Each ghost keeps its newest keys
///   within half the capacity.
/// - A new entry enters the LRU head with frequency 1. An object larger than the capacity is
///   never inserted. With `update-weight=0` the weights stay at `lru-weight`.
///
/// The draws come from a generator seeded by `seed`.
///
/// - Complexity: lookup, insert, remove and eviction are O(1) expected (the frequencies in use
///   are chained in order, so the lowest is at hand).
public struct LeCaRCache<Key: Hashable, Value>: SlotPolicy {
    public static var descriptor: PolicyDescriptor {
        PolicyDescriptor(
            name: "lecar", reproduces: "LeCaR (Vietri et al., HotStorage'18) as libCacheSim 0.3.5 LeCaR.c",
            rule: "evict the LRU or the LFU candidate at random by learned weights; a request for a key an expert evicted lowers that expert's weight",
            family: .research, isDeterministic: false,
            parameters: [
                PolicyParameter("update-weight", default: "1", "1 learns the weights, 0 keeps lru-weight"),
                PolicyParameter("lru-weight", default: "0.5", "the LRU expert's initial weight"),
                PolicyParameter("seed", default: "1", "seed of the random generator"),
            ])
    }

    @usableFromInline static var lruExpert: UInt32 { 1 }
    @usableFromInline static var lfuExpert: UInt32 { 2 }

    public var store = SlotArena<Key, Value>()
    @usableFromInline var recency = SlotList()
    @usableFromInline var frequencies = _FrequencyLists()
    /// Evicted keys, aux = the expert that evicted them; one list per expert.
    @usableFromInline var ghosts = SlotArena<Key, Void>()
    @usableFromInline var ghostLists = (lru: SlotList(), lfu: SlotList())
    @usableFromInline var evictedAt = SideTable<Int64>(filling: 0)
    @usableFromInline var requests: Int64 = 0
    @usableFromInline var lruWeight: Double
    @usableFromInline var lfuWeight: Double
    @usableFromInline let learns: Bool
    @usableFromInline let discountRate: Double
    /// LeCaRv0's ghosts are LRU caches of half the capacity: a key larger than that is not
    /// remembered, where LeCaR's ghost takes it and then drops its oldest keys, itself last.
    @usableFromInline var ghostsRefuseOversized = false
    @usableFromInline var generator: SeededGenerator
    public let capacity: Int
    public let countLimit: Int

    public init(limits: CacheLimits, options: PolicyOptions) throws(PolicyConfigurationError) {
        (capacity, countLimit) = try limits.validated(for: Self.descriptor, options: options)
        learns = try options.integer("update-weight", default: 1, in: 0...1) == 1
        lruWeight = try options.double("lru-weight", default: 0.5, in: 0...1)
        // libCacheSim sets both weights to 0.5, then parses lru-weight into the LRU one only.
        lfuWeight = 0.5
        discountRate = _lecarDiscountRate(capacity: capacity)
        generator = try SeededGenerator(seedOption: options)
    }

    @inlinable public var count: Int { recency.count }
    @inlinable public var totalCost: Int { recency.cost }

    @inlinable @inline(__always)
    public func prefetch(_ key: Key, _ stage: PrefetchStage) {
        let hash = store.hash(key)
        let slot = store.prefetch(hash: hash, stage)
        switch stage {
        case .index:
            // A miss looks the key up among the ghosts: their bucket was 56 % of the miss step.
            ghosts.prefetch(hash: hash, .index)
        case .entry:
            // A hit reads and rewrites the entry's frequency links: load them with the entry.
            frequencies.links.prefetch(slot)
        }
    }

    @inlinable public mutating func didHit(_ slot: Int32) {
        requests += 1
        store.moveToHead(slot, &recency)
        frequencies.increment(slot)
    }

    /// The flow's miss step, after a request for a ghost has taught the weights.
    @inlinable
    public mutating func insertNew(_ value: Value, forKey key: Key, hash: UInt64, cost: Int,
                                   observer: inout some EvictionObserver<Key, Value>) {
        requests += 1
        let ghost = ghosts.find(key, hash: hash)   // every arena hashes with one seed
        if ghost >= 0 {
            let age = requests - evictedAt[ghost]
            if ghosts.aux(ghost) == Self.lruExpert {
                ghosts.unlink(ghost, &ghostLists.lru)
                _lecarPenalize(&lruWeight, &lfuWeight, rate: discountRate, age: age, learns: learns)
            } else {
                ghosts.unlink(ghost, &ghostLists.lfu)
                _lecarPenalize(&lfuWeight, &lruWeight, rate: discountRate, age: age, learns: learns)
            }
            ghosts.release(ghost)
        }
        // can_insert (the admissioner) after LeCaR_find updated the weights.
        guard observer.admits(key, cost: cost), cost <= capacity else { return }   // libCacheSim's order: admissioner, then size
        makeRoom(forCost: cost, count: 1, observer: &observer)
        didInsert(store.allocate(key: key, hash: hash, value: value, cost: cost))
    }

    @inlinable public mutating func didInsert(_ slot: Int32) {
        store.pushHead(slot, &recency)
        frequencies.insert(slot)
    }

    @inlinable
    public mutating func makeRoom(forCost cost: Int, count extra: Int, observer: inout some EvictionObserver<Key, Value>) {
        var pass = TrimPass(.caller)
        while count > 0 && totalCost > capacity - cost {
            pass.willRemove(&observer)
            let lruCandidate = recency.tail
            let lfuCandidate = frequencies.oldestOfLowest
            guard lruCandidate != lfuCandidate else {
                evict(lruCandidate, observer: &observer)
                continue
            }
            let draw = Double(generator.next() % 100) / 100
            let expert = draw < lruWeight ? Self.lruExpert : Self.lfuExpert
            let slot = expert == Self.lruExpert ? lruCandidate : lfuCandidate
            let key = store.key(slot), slotCost = store.cost(slot)
            // The victim's key is filed among the ghosts after the eviction: ask for its bucket now.
            ghosts.prefetch(hash: store.hash(key), .index)
            evict(slot, observer: &observer)
            remember(key, cost: slotCost, expert: expert)
        }
        pass.end(&observer)
    }

    /// Puts `key` at the head of the ghost list of the expert that evicted it; that list's oldest
    /// keys leave while it holds more than half the capacity.
    @inlinable
    mutating func remember(_ key: Key, cost: Int, expert: UInt32) {
        if ghostsRefuseOversized && cost > capacity / 2 { return }
        let ghost = ghosts.allocate(key: key, value: (), cost: cost)
        ghosts.setAux(ghost, expert)
        evictedAt[ghost] = requests
        if expert == Self.lruExpert {
            Self.push(ghost, &ghosts, &ghostLists.lru, limit: capacity / 2)
        } else {
            Self.push(ghost, &ghosts, &ghostLists.lfu, limit: capacity / 2)
        }
    }

    @inlinable
    static func push(_ ghost: Int32, _ ghosts: inout SlotArena<Key, Void>, _ list: inout SlotList, limit: Int) {
        ghosts.pushHead(ghost, &list)
        while list.cost > limit {
            let oldest = list.tail
            ghosts.unlink(oldest, &list)
            ghosts.release(oldest)
            // The next ghost to go is the new tail, which the unlink just wrote: ask for its
            // bucket and its newer neighbour, which its removal will read.
            ghosts.prefetchEviction(of: list.tail)
        }
    }

    /// The LRU tail, the candidate `makeRoom` weighs against the LFU one.
    @inlinable public mutating func victim() -> Int32 { recency.tail }

    @inlinable public mutating func unlink(_ slot: Int32) {
        store.unlink(slot, &recency)
        frequencies.remove(slot)
    }

    @inlinable public mutating func setCost(_ slot: Int32, _ cost: Int) { store.setCost(slot, cost, in: &recency) }
}

/// libCacheSim's `dr = pow(0.005, 1.0 / cache_size)`.
@inlinable
func _lecarDiscountRate(capacity: Int) -> Double { pow(0.005, 1.0 / Double(Swift.max(capacity, 1))) }

/// libCacheSim's `update_weight`: the expert that made a mistake `age` requests ago loses weight.
@inlinable
func _lecarPenalize(_ mistaken: inout Double, _ other: inout Double, rate: Double, age: Int64, learns: Bool) {
    guard learns else { return }
    let regret = pow(rate, Double(age))
    mistaken = mistaken * exp(-0.45 * regret) + 1e-10
    let sum = mistaken + other + 2e-10
    mistaken /= sum
    other = (other + 1e-10) / sum
}

/// The entries grouped by frequency, each group in the order its entries reached that frequency,
/// with the lowest frequency at hand: a ``_FrequencyChain`` of each group's ends, over links of
/// the frequencies' own (the arena's links hold LeCaR's LRU list).
///
/// Why a move runs on raw buffers: a hit detaches the entry from one group and appends it to
/// the next, a dozen writes to the slot links and group records; written through array
/// subscripts each paid a uniqueness check (a runtime call), a tenth of LeCaR's replay.
///
/// - Complexity: remove, increment, an insert at frequency 1 and the oldest or newest of the
///   lowest group are O(1); an insert at a higher frequency (Cacheus's revived ghosts) walks the
///   groups below it, O(distinct frequencies below).
@usableFromInline
struct _FrequencyLists {
    /// A group's oldest and newest slot and its size.
    @usableFromInline
    struct _Ends {
        @usableFromInline var first: Int32 = -1
        @usableFromInline var last: Int32 = -1
        @usableFromInline var size = 0
        @inlinable init() {}
    }

    /// A slot's neighbours in its group and its group's record, in one record: a hit reads and
    /// writes them together.
    @usableFromInline typealias _Link = (previous: Int32, next: Int32, group: Int32)

    @usableFromInline var groups = _FrequencyChain<_Ends>()
    @usableFromInline var links = SideTable<_Link>(filling: (previous: -1, next: -1, group: -1))

    @inlinable init() {}

    /// The frequency of `slot`, 0 when it is in no group.
    @inlinable func frequency(of slot: Int32) -> Int {
        let group = links[slot].group
        return group >= 0 ? groups.frequency(group) : 0
    }

    @inlinable var oldestOfLowest: Int32 { groups.lowest >= 0 ? groups[groups.lowest].first : -1 }

    @inlinable var newestOfLowest: Int32 { groups.lowest >= 0 ? groups[groups.lowest].last : -1 }

    /// Adds `slot`, in no group, at frequency `f` (at least 1), after the entries already there.
    @inlinable mutating func insert(_ slot: Int32, frequency f: Int = 1) {
        // Room for the slot's link first, so that the append runs on fixed buffers.
        if Int(slot) >= links.storage.count { links[slot] = links.fill }
        var below: Int32 = -1
        var next = groups.lowest
        while next >= 0 && groups.frequency(next) < f {
            below = next
            next = groups.higher(next)
        }
        append(slot, to: groups.record(for: f, above: below, making: _Ends()))
    }

    /// Moves `slot` to the next frequency, after the entries already there.
    @inlinable mutating func increment(_ slot: Int32) {
        let from = links[slot].group
        let to = groups.record(for: groups.frequency(from) + 1, above: from, making: _Ends())
        detach(slot)
        append(slot, to: to)
    }

    /// Renumbers every slot it links after the arena compacted: each moved slot's link moves
    /// with it, and every link and group end names the new numbers. O(n) in the slots.
    @inlinable mutating func relocate(_ relocation: SlotRelocation) {
        links.relocate(relocation)
        for i in links.storage.indices {
            links.storage[i].previous = relocation[links.storage[i].previous]
            links.storage[i].next = relocation[links.storage[i].next]
        }
        for i in groups.records.indices {
            groups.records[i].group.first = relocation[groups.records[i].group.first]
            groups.records[i].group.last = relocation[groups.records[i].group.last]
        }
    }

    /// Takes `slot` out of its group, if it is in one.
    @inlinable mutating func remove(_ slot: Int32) {
        guard links[slot].group >= 0 else { return }
        detach(slot)
    }

    /// Appends `slot`, in no group, to `group`'s newest end.
    @inlinable @inline(__always)
    mutating func append(_ slot: Int32, to group: Int32) {
        links.storage.withUnsafeMutableBufferPointer { links in
            groups.records.withUnsafeMutableBufferPointer { records in
                let newest = records[Int(group)].group.last
                links[Int(slot)] = (previous: newest, next: -1, group: group)
                if newest >= 0 { links[Int(newest)].next = slot } else { records[Int(group)].group.first = slot }
                records[Int(group)].group.last = slot
                records[Int(group)].group.size += 1
            }
        }
    }

    /// Takes `slot` out of its group, whose record is released when it empties.
    @inlinable @inline(__always)
    mutating func detach(_ slot: Int32) {
        let emptied: Int32 = links.storage.withUnsafeMutableBufferPointer { links in
            groups.records.withUnsafeMutableBufferPointer { records in
                let link = links[Int(slot)]
                let group = Int(link.group)
                if link.previous >= 0 { links[Int(link.previous)].next = link.next } else { records[group].group.first = link.next }
                if link.next >= 0 { links[Int(link.next)].previous = link.previous } else { records[group].group.last = link.previous }
                links[Int(slot)] = (previous: -1, next: -1, group: -1)
                records[group].group.size -= 1
                return records[group].group.size == 0 ? link.group : -1
            }
        }
        if emptied >= 0 { groups.release(emptied) }
    }
}

extension LeCaRCache: SlotRelocatingPolicy {
    /// Renumbers the recency list's ends and the frequency groups after a compaction (the ghosts
    /// have an arena of their own).
    @inlinable public mutating func relocateSlots(_ relocation: SlotRelocation) {
        relocation.relocate(&recency)
        frequencies.relocate(relocation)
    }
}
