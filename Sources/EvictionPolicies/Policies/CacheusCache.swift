import Foundation

// Cacheus: LeCaR's successor, two scan- and churn-resistant experts, SR-LRU and CR-LFU, weighted
// by regret with an adaptive learning rate (Rodriguez et al., "Learning cache replacement with
// CACHEUS", FAST'21), as libCacheSim 0.3.5's Cacheus.c with SR_LRU.c and CR_LFU.c (PyPI
// `libcachesim` 0.3.5, src/libCacheSim/cache/eviction/). libCacheSim's `Cacheus_init` parses no
// parameters; its one setting, `ghost_list_factor` (1), is offered as `ghost-list-factor`.

/// A cache that evicts either SR-LRU's or CR-LFU's candidate, choosing at random by weights it
/// learns from the keys each expert evicted too early, at a learning rate it tunes itself.
///
/// **Rule** (libCacheSim 0.3.5 `Cacheus.c`, `SR_LRU.c`, `CR_LFU.c`). C is the capacity.
/// - **SR-LRU** keeps the residents in two LRU lists, *R* (reused) and *SR* (scan-resistant),
///   sized C/2 each at first, and a history *H* of evicted keys (at most C, strictly less in
///   cost). A key neither resident nor in H enters SR's head marked *new*. A key in H enters R's
///   head; if it was marked new, SR grows by max(1, ⌊demoted/new⌋ + ½) (to at most the residents'
///   cost − 1) and R is C − SR. Objects R no longer holds move to SR's head marked *demoted*.
///   After an insertion, SR's LRU objects beyond its size go to H (leaving the cache; the new
///   mark goes with them and counts the *new* total; the *demoted* total counts down); H keeps
///   its newest keys. A hit in R moves to R's head; a hit in SR moves to R's head unmarked (as
///   a new object of R), and R's excess moves to SR.
/// - **CR-LFU** counts requests per resident; a key coming back from H resumes at its count
///   there plus 1. Its candidate is the *most* recently arrived object of the lowest count.
/// - **Eviction** (until the new object fits): SR-LRU's candidate is SR's LRU object (R's if SR
///   is empty). A draw r ∈ {0, 0.01, …, 0.99} picks SR-LRU's candidate if r < w_lru, else
///   CR-LFU's; the object goes to H with its count, and unless both experts named it, its key
///   joins that expert's ghost, an LRU list of C/2 × `ghost-list-factor`.
/// - **Miss on a key in an expert's ghost**: that expert's weight is multiplied by e^(−lr),
///   the weights are renormalised, and the key leaves the ghosts.
/// - **Learning rate**: at first 0.001 + a draw in {0, 0.001, …, 0.999}, drawn as libCacheSim
///   draws it (see `learning-rate`; 0.001–0.007 for seeds 1–8); every C requests it
///   moves against the sign of (change of hit rate / change of rate), by |lr × change of rate|,
///   to 0.0001 when that would fall to 0.001 or below; after 10 updates without a change in the
///   rate or a hit-rate gain, a new draw.
/// - An object larger than the capacity, or than the list it would enter, is not inserted.
///
/// **Where libCacheSim departs from the paper, reproduced here because its counts are the
/// reference:** the hit rate is an integer division (hits / C), so it is 0 unless every request
/// of the interval hit, and the learning rate only decays; a hit in SR re-creates the object in
/// R unmarked, so the paper's "a demoted object hit in SR grows R" never fires and the demoted
/// total is not counted down for it. A removal by the caller forgets the key, where libCacheSim
/// files it in H. The draws come from a generator seeded by `seed`.
///
/// - Complexity: lookup, remove and eviction O(1) expected; an insert O(1), except that a key
///   revived from H at count c walks the counts in use below c; one learning-rate update per C
///   requests.
public struct CacheusCache<Key: Hashable, Value>: GhostListPolicy {
    public static var descriptor: PolicyDescriptor {
        PolicyDescriptor(
            name: "cacheus", reproduces: "Cacheus (Rodriguez et al., FAST'21) as libCacheSim 0.3.5 Cacheus.c, SR_LRU.c, CR_LFU.c",
            rule: "evict SR-LRU's or CR-LFU's candidate at random by learned weights; a request for a key an expert evicted lowers its weight at an adaptive learning rate",
            family: .research, isDeterministic: false,
            parameters: [
                PolicyParameter("ghost-list-factor", default: "1", "each expert's ghost list holds this times half the capacity"),
                PolicyParameter("learning-rate", default: "seeded", "initial learning rate; by default libCacheSim's draw: 0.001 + (its generator's first output for the seed mod 1000) / 1000"),
                PolicyParameter("seed", default: "1", "seed of the random generator"),
            ])
    }

    // aux: the place in bits 0–1, then the demoted and new marks.
    @usableFromInline static var recentTag: UInt32 { 0 }
    @usableFromInline static var screenTag: UInt32 { 1 }
    @usableFromInline static var historyTag: UInt32 { 2 }
    @usableFromInline static var demotedMark: UInt32 { 4 }
    @usableFromInline static var newMark: UInt32 { 8 }
    @usableFromInline static var lruExpert: UInt32 { 1 }
    @usableFromInline static var lfuExpert: UInt32 { 2 }

    /// Residents (in R or SR) and H's keys (value-less slots).
    public var store = SlotArena<Key, Value>()
    @usableFromInline var recent = SlotList()
    @usableFromInline var screen = SlotList()
    @usableFromInline var history = SlotList()
    @usableFromInline var frequencies = _FrequencyLists()
    /// CR-LFU's count of each key in H.
    @usableFromInline var historyFrequency = SideTable<Int>(filling: 0)
    /// The experts' ghosts, aux = the expert that evicted the key; one LRU list per expert.
    @usableFromInline var ghosts = SlotArena<Key, Void>()
    @usableFromInline var ghostLists = (lru: SlotList(), lfu: SlotList())
    @usableFromInline let ghostCapacity: Int
    @usableFromInline var recentCapacity: Int
    @usableFromInline var screenCapacity: Int
    @usableFromInline var demotedCount = 0
    @usableFromInline var newCount = 0
    /// H's key slot of the key being inserted, -1 once H has forgotten it.
    @usableFromInline var comingBack: Int32 = -1
    @usableFromInline var lruWeight = 0.5
    @usableFromInline var lfuWeight = 0.5
    @usableFromInline var learningRate: Double
    @usableFromInline var previousLearningRate = 0.0
    @usableFromInline var previousHitRate = 0.0
    @usableFromInline var unlearnCount = 0
    @usableFromInline var hitsSinceUpdate = 0
    @usableFromInline var requests = 0
    @usableFromInline let updateInterval: Int
    @usableFromInline var generator: SeededGenerator
    public let capacity: Int
    public let countLimit: Int

    public init(limits: CacheLimits, options: PolicyOptions) throws(PolicyConfigurationError) {
        (capacity, countLimit) = try limits.validated(for: Self.descriptor, options: options)
        let factor = try options.double("ghost-list-factor", default: 1, in: 0...1_000)
        ghostCapacity = Int(Swift.min(Double(capacity) / 2 * factor, Double(Int.max / 2)))
        recentCapacity = capacity / 2
        screenCapacity = capacity / 2
        updateInterval = capacity
        let seed = UInt64(bitPattern: Int64(try options.integer("seed", default: 1)))
        generator = SeededGenerator(seed: seed)
        if options.values["learning-rate"] != nil {
            learningRate = try options.double("learning-rate", default: 0.001, in: 0.0001...1)
        } else {
            learningRate = 0.001 + Double(_lehmerFirstOutput(seed: seed) % 1000) / 1000
        }
    }

    @inlinable public var count: Int { recent.count + screen.count }
    @inlinable public var totalCost: Int { recent.cost + screen.cost }

    @inlinable @inline(__always)
    public func prefetch(_ key: Key, _ stage: PrefetchStage) { store.prefetch(key, stage) }

    @inlinable public func isResident(_ slot: Int32) -> Bool { store.aux(slot) & 3 != Self.historyTag }

    // MARK: Hit

    @inlinable public mutating func didHit(_ slot: Int32) {
        requests += 1
        if store.aux(slot) & 3 == Self.recentTag {
            store.moveToHead(slot, &recent)
        } else {
            // Re-created in R: its marks are lost, the demoted total is not counted down.
            store.unlink(slot, &screen)
            store.setAux(slot, Self.recentTag)
            store.pushHead(slot, &recent)
            while recent.cost > recentCapacity && !recent.isEmpty { demoteRecentTail() }
        }
        frequencies.increment(slot)
        hitsSinceUpdate += 1
        endRequest()
    }

    /// R's LRU object moves to SR's head, marked demoted.
    @inlinable mutating func demoteRecentTail() {
        let slot = recent.tail
        store.unlink(slot, &recent)
        store.setAux(slot, Self.screenTag | Self.demotedMark)
        demotedCount += 1
        store.pushHead(slot, &screen)
    }

    // MARK: Miss

    @inlinable
    public mutating func miss(_ key: Key, hash: UInt64, ghost: Int32, cost: Int, value: () -> Value,
                              observer: inout some EvictionObserver<Key, Value>) {
        requests += 1
        learn(from: key, hash: hash)
        defer { endRequest() }
        guard cost <= capacity else { return }
        comingBack = ghost
        var pass = TrimPass(.caller)
        while count > 0 && totalCost > capacity - cost { evictOne(&pass, observer: &observer) }
        defer {
            pass.end(&observer)
            shrinkStorageIfSparse()
        }
        let fromHistory = comingBack
        // SR-LRU refuses an object larger than the list it would enter.
        guard cost <= (fromHistory >= 0 ? recentCapacity : screenCapacity) else { return }
        let slot: Int32
        if fromHistory >= 0 {
            slot = fromHistory
            let wasNew = store.aux(slot) & Self.newMark != 0
            frequencies.insert(slot, frequency: historyFrequency[slot] + 1)
            store.unlinkGhost(slot, from: &history)
            while recent.cost + cost > recentCapacity && !recent.isEmpty { demoteRecentTail() }
            store.revive(slot, value: value(), cost: cost)
            store.setAux(slot, Self.recentTag)
            store.pushHead(slot, &recent)
            if wasNew { growScreen() }
        } else {
            slot = store.allocate(key: key, hash: hash, value: value(), cost: cost)
            frequencies.insert(slot, frequency: 1)
            store.setAux(slot, Self.screenTag | Self.newMark)
            store.pushHead(slot, &screen)
        }
        while screen.cost > screenCapacity && !screen.isEmpty { retire(screen.tail, &pass, observer: &observer) }
    }

    /// A new object came back from H: SR was too small.
    @inlinable mutating func growScreen() {
        let ratio = newCount > 0 ? demotedCount / newCount : 0
        let delta = 1.0 > Double(ratio) + 0.5 ? 1.0 : Double(ratio) + 0.5
        let occupied = totalCost
        if Double(screenCapacity) + delta > Double(occupied - 1) {
            screenCapacity = Swift.max(occupied - 1, 0)
        } else {
            screenCapacity = Int(Double(screenCapacity) + delta)
        }
        recentCapacity = capacity - screenCapacity
    }

    /// A miss teaches the weights if an expert evicted the key, and the key leaves the ghosts.
    @inlinable mutating func learn(from key: Key, hash: UInt64) {
        let ghost = ghosts.find(key, hash: hash)
        if ghost >= 0 {
            if ghosts.aux(ghost) == Self.lruExpert {
                lruWeight *= exp(-learningRate)
                ghosts.forgetGhost(ghost, from: &ghostLists.lru)
            } else {
                lfuWeight *= exp(-learningRate)
                ghosts.forgetGhost(ghost, from: &ghostLists.lfu)
            }
        }
        lruWeight /= lruWeight + lfuWeight
        lfuWeight = 1 - lruWeight
    }

    // MARK: Eviction

    @inlinable
    mutating func evictOne(_ pass: inout TrimPass, observer: inout some EvictionObserver<Key, Value>) {
        let lruCandidate = screen.isEmpty ? recent.tail : screen.tail
        let lfuCandidate = frequencies.newestOfLowest
        let draw = Double(generator.next() % 100) / 100
        if lruCandidate == lfuCandidate {
            retire(lruCandidate, &pass, observer: &observer)
            return
        }
        let expert = draw < lruWeight ? Self.lruExpert : Self.lfuExpert
        let slot = expert == Self.lruExpert ? lruCandidate : lfuCandidate
        let key = store.key(slot), cost = store.cost(slot)
        retire(slot, &pass, observer: &observer)
        remember(key, cost: cost, expert: expert)
    }

    /// Resident `slot` leaves the cache: reported as evicted, its key goes to H's head with its
    /// count and its new mark, and H keeps its newest keys below the capacity.
    @inlinable
    mutating func retire(_ slot: Int32, _ pass: inout TrimPass, observer: inout some EvictionObserver<Key, Value>) {
        let aux = store.aux(slot)
        unlinkResident(slot, aux)
        historyFrequency[slot] = frequencies.frequency(of: slot)
        frequencies.remove(slot)
        if aux & Self.newMark != 0 { newCount += 1 }
        if aux & Self.demotedMark != 0 { demotedCount -= 1 }
        pass.willRemove(&observer)
        if let value = store.value(slot) { observer.didEvict(store.key(slot), value: value, cost: store.cost(slot)) }
        store.setValue(slot, nil)
        store.setAux(slot, Self.historyTag | (aux & Self.newMark))
        store.pushHead(slot, &history)
        while history.cost >= capacity && !history.isEmpty {
            let oldest = history.tail
            if oldest == comingBack { comingBack = -1 }
            store.forgetGhost(oldest, from: &history)
        }
    }

    /// The expert that evicted `key` files it in its ghost, an LRU list of `ghostCapacity`.
    @inlinable
    mutating func remember(_ key: Key, cost: Int, expert: UInt32) {
        guard cost <= ghostCapacity else { return }
        let ghost = ghosts.allocate(key: key, value: (), cost: cost)
        ghosts.setAux(ghost, expert)
        if expert == Self.lruExpert {
            ghosts.pushHead(ghost, &ghostLists.lru)
            ghosts.trimGhosts(&ghostLists.lru, toCost: ghostCapacity)
        } else {
            ghosts.pushHead(ghost, &ghostLists.lfu)
            ghosts.trimGhosts(&ghostLists.lfu, toCost: ghostCapacity)
        }
    }

    // MARK: Learning rate

    @inlinable mutating func endRequest() {
        if requests % updateInterval == 0 { updateLearningRate() }
    }

    /// libCacheSim's `update_lr`, its integer hit rate included.
    @usableFromInline mutating func updateLearningRate() {
        let hitRate = Double(hitsSinceUpdate / updateInterval)
        let hitRateChange = hitRate - previousHitRate
        let rateChange = learningRate - previousLearningRate
        previousLearningRate = learningRate
        previousHitRate = hitRate
        if rateChange != 0 {
            let sign = hitRateChange / rateChange > 0 ? 1.0 : -1.0
            let next = learningRate + sign * abs(learningRate * rateChange)
            learningRate = next > 0.001 ? next : 0.0001
            unlearnCount = 0
        } else if hitRate == 0 || hitRateChange <= 0 {
            unlearnCount += 1
        } else if unlearnCount >= 10 {
            unlearnCount = 0
            learningRate = 0.001 + Double(generator.next() % 1000) / 1000
        }
        hitsSinceUpdate = 0
    }

    // MARK: Removal

    @inlinable mutating func unlinkResident(_ slot: Int32, _ aux: UInt32) {
        if aux & 3 == Self.recentTag { store.unlink(slot, &recent) } else { store.unlink(slot, &screen) }
    }

    @inlinable public mutating func unlink(_ slot: Int32) {
        let aux = store.aux(slot)
        switch aux & 3 {
        case Self.historyTag:
            store.unlink(slot, &history)
        default:
            unlinkResident(slot, aux)
            frequencies.remove(slot)
            if aux & Self.demotedMark != 0 { demotedCount -= 1 }
        }
    }
}

/// The first output of libCacheSim's generator (`next_rand`, Lehmer64) after `set_rand_seed(seed)`:
/// the high 64 bits of seed × 0xda942042e4dd58b5. For small seeds it is small (0 for seed 1, 5
/// for seed 7), which is why libCacheSim's Cacheus starts at a learning rate near 0.001 on
/// every seed rather than uniformly in [0.001, 1]; its counts depend on that.
@inlinable
func _lehmerFirstOutput(seed: UInt64) -> UInt64 {
    seed.multipliedFullWidth(by: 0xda94_2042_e4dd_58b5).high
}

extension CacheusCache: SlotRelocatingPolicy {
    /// Renumbers R's, SR's and H's ends, the frequency groups, H's counts and the ghost key
    /// coming back after a compaction (the experts' ghosts have an arena of their own).
    @inlinable public mutating func relocateSlots(_ relocation: SlotRelocation) {
        relocation.relocate(&recent)
        relocation.relocate(&screen)
        relocation.relocate(&history)
        frequencies.relocate(relocation)
        historyFrequency.relocate(relocation)
        comingBack = relocation[comingBack]
    }
}
