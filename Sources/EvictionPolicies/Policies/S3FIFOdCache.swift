// S3-FIFO-d: S3-FIFO with a small queue sized dynamically (Yang et al., "FIFO queues are all you
// need for cache eviction", SOSP'23, §6 discussion of adaptive sizing), as libCacheSim 0.3.5's
// S3FIFOd.c (PyPI `libcachesim` 0.3.5, src/libCacheSim/cache/eviction/S3FIFOd.c) with its
// defaults `fifo-size-ratio=0.10,main-cache=Clock2,move-to-main-threshold=1`. Exact on every
// golden row.
//
// The two queues of recently evicted keys that steer the sizing (libCacheSim's `small_eviction`
// and `main_eviction`, each a FIFO of C/10 in the cache's units) are kept privately here in
// their own key-only arenas (``_EvictedKeyFIFO``): a key may sit in one of them and in the
// cache's own ghost at once, which one list link per slot cannot express.

/// S3-FIFO-d: a small FIFO, a 2-bit CLOCK main and a ghost FIFO, as S3-FIFO, with the small
/// queue's share moved toward whichever queue's recent evictions are requested more.
///
/// **Rule** (libCacheSim 0.3.5 `S3FIFOd.c`). Small S = ⌊capacity × 0.1⌋, main M = capacity − S,
/// ghost G = M; two FIFOs of evicted keys, E_S and E_M, of ⌊capacity / 10⌋ each.
/// - **Sizing**, before every request: when E_M holds something and the hits on E_S and E_M
///   (`h_S`, `h_M`) sum above 100: `h_S > 2 h_M` moves `step` = max(1, min(S, M) / 1000) from M
///   to S (and G) if M > capacity / 100; `h_M > 2 h_S` moves it back if S > capacity / 100;
///   both counts then decay to ⌊0.8 ×⌋. When E_M is empty both counts reset to 0.
/// - **Hit** in S: its request count +1, nothing else. Otherwise the key leaves G if there;
///   a hit in M adds 1 to its CLOCK counter (saturating at 3); a key in E_S leaves it (`h_S` +1),
///   a key in E_M leaves it (`h_M` +1) — for hits in M and for misses alike.
/// - **Miss**: an object larger than S is never inserted. Otherwise evict until S + M + the
///   object fit in the capacity, then a key that was in G enters M (M first evicting within its
///   own share, unrecorded) and any other key enters S's head.
/// - **Evict**: S empty → M's CLOCK evicts (counters ≥ 1 decremented and sent to the head; the
///   first at 0 leaves and enters E_M). Otherwise S's tail leaves S: requested there at least
///   once, it enters M's head with counter 0 and M evicts (into E_M) while over its share;
///   otherwise it leaves the cache and enters G and E_S.
///
/// - Complexity: lookups O(1) expected; evictions amortised O(1). Three index probes per request
///   that misses S (the cache's and the two evicted-key queues'), as libCacheSim's five.
public struct S3FIFOdCache<Key: Hashable, Value>: _SmallMainGhostPolicy {
    public static var descriptor: PolicyDescriptor {
        PolicyDescriptor(
            name: "s3fifod",
            reproduces: "S3-FIFO with a dynamic small queue (Yang et al., SOSP'23) as libCacheSim 0.3.5 S3FIFOd.c (main-cache=Clock2)",
            rule: "S3-FIFO whose small-queue share grows or shrinks by the hits on the keys each queue recently evicted",
            family: .research,
            parameters: _SmallMainGhostShares.parameters(small: "initial small FIFO share of the capacity, truncated", ghost: false,
                                                         threshold: 1, counting: "requests")
                + [PolicyParameter("main-cache", default: "Clock2", "the main cache: only libCacheSim's default, a 2-bit CLOCK, is provided")])
    }

    @usableFromInline typealias Lists = _SmallMainGhostLists
    /// Main's CLOCK counter ceiling (libCacheSim `Clock` with `n-bit-counter=2`).
    @usableFromInline static var maximumCounter: UInt32 { 3 }
    /// Small's request count saturates here; only `>= threshold` is ever asked of it.
    @usableFromInline static var maximumRequests: UInt32 { 1 << 28 }
    /// libCacheSim's find-then-insert: a re-insert at the same cost is a request, at a new cost
    /// the old object is removed (not an eviction) and the new one requested.
    public static var updatesInPlace: Bool { false }

    // aux = queue tag in bits 0–1, then small's request count or main's CLOCK counter.
    public var store = SlotArena<Key, Value>()
    /// The queues; their shares move with the sizing rule (the ghost's with small's).
    public var lists: _SmallMainGhostLists
    @usableFromInline var evictedFromSmall: _EvictedKeyFIFO<Key>
    @usableFromInline var evictedFromMain: _EvictedKeyFIFO<Key>
    /// Requests for keys recently evicted from small and from main, since the last decay.
    @usableFromInline var smallEvictionHits = 0
    @usableFromInline var mainEvictionHits = 0

    public init(limits: CacheLimits, options: PolicyOptions) throws(PolicyConfigurationError) {
        var shares = try _SmallMainGhostShares(limits, options, for: Self.descriptor, threshold: 1)
        try options.requireOnly("main-cache", "Clock2")
        shares.ghost = shares.main
        lists = Lists(shares)
        evictedFromSmall = _EvictedKeyFIFO(capacity: shares.capacity / 10)
        evictedFromMain = _EvictedKeyFIFO(capacity: shares.capacity / 10)
    }

    @inlinable @inline(__always)
    public func prefetch(_ key: Key, _ stage: PrefetchStage) { store.prefetch(key, stage) }

    // MARK: The rule

    /// A hit, after `S3FIFOd_get` resizes: counted; a hit in small returns before the
    /// evicted-key queues are consulted.
    @inlinable
    public mutating func didHit(_ slot: Int32) {
        resize()
        _countHit(slot)
        if !Lists.isSmall(store.aux(slot)) { consultEvictedKeys(store.key(slot)) }
    }

    /// A hit counts until the counter's ceiling: small's request count, main's 2-bit CLOCK.
    @inlinable @inline(__always)
    public func counts(hit slot: Int32, aux: UInt32) -> Bool {
        Lists.counter(aux) < (Lists.isSmall(aux) ? Self.maximumRequests : Self.maximumCounter)
    }

    /// A miss, after `S3FIFOd_get` resizes: the key leaves the ghost and the evicted-key queues;
    /// an object larger than small is refused; eviction steps run until it fits; a ghost key
    /// enters main (main making room, unrecorded), any other small.
    @inlinable
    public mutating func miss(_ key: Key, hash: UInt64, ghost slot: Int32, cost: Int, value: () -> Value,
                              observer: inout some EvictionObserver<Key, Value>) {
        resize()
        consultEvictedKeys(key)
        var pass = TrimPass(.caller)
        guard _makeRoom(forMiss: slot, key: key, cost: cost, &pass, observer: &observer) else { return }
        if slot < 0 {
            store.pushHead(store.allocate(key: key, hash: hash, value: value(), cost: cost), &lists.small, tag: Lists.smallTag)
        } else if lists.makeRoomInMain(for: cost, &store, &pass, observer: &observer) {
            lists.reviveInMain(slot, value: value(), cost: cost, in: &store)
        } else {
            store.release(slot)
        }
        pass.end(&observer)
    }

    /// A request for a key not in small: it leaves the evicted-key queues, each hit counted.
    @inlinable
    mutating func consultEvictedKeys(_ key: Key) {
        if evictedFromSmall.remove(key) { smallEvictionHits += 1 }
        if evictedFromMain.remove(key) { mainEvictionHits += 1 }
    }

    /// `S3FIFOd_update_fifo_size`: moves a step of capacity toward the queue whose evicted keys
    /// are requested more than twice as often as the other's.
    @inlinable
    mutating func resize() {
        let step = max(1, min(lists.shares.small, lists.shares.main) / 1000)
        guard evictedFromMain.cost > 0 else {
            smallEvictionHits = 0
            mainEvictionHits = 0
            return
        }
        guard smallEvictionHits + mainEvictionHits > 100 else { return }
        let capacity = lists.shares.capacity
        if smallEvictionHits > mainEvictionHits * 2 {
            if lists.shares.main > capacity / 100 { moveShare(step) }
        } else if mainEvictionHits > smallEvictionHits * 2 {
            if lists.shares.small > capacity / 100 { moveShare(-step) }
        }
        smallEvictionHits = Int(Double(smallEvictionHits) * 0.8)
        mainEvictionHits = Int(Double(mainEvictionHits) * 0.8)
    }

    /// Moves `step` of capacity from main to small and the ghost (back when negative).
    @inlinable
    mutating func moveShare(_ step: Int) {
        lists.shares.small += step
        lists.shares.ghost += step
        lists.shares.main -= step
    }

    /// One call of `S3FIFOd_evict`.
    @inlinable
    public mutating func evictionStep(_ pass: inout TrimPass, observer: inout some EvictionObserver<Key, Value>) {
        guard lists.small.cost > 0 || lists.main.isEmpty else {
            evictFromMain(&pass, observer: &observer)
            return
        }
        let slot = lists.small.tail
        store.unlink(slot, &lists.small)
        if Lists.counter(store.aux(slot)) >= lists.shares.threshold {
            store.pushHead(slot, &lists.main, tag: Lists.mainTag)
            while lists.main.cost > lists.shares.main && !lists.main.isEmpty { evictFromMain(&pass, observer: &observer) }
            return
        }
        evictedFromSmall.add(store.key(slot), cost: store.cost(slot))
        // The ghost's own `get`: refused above its share, else its oldest keys make room.
        store.demote(slot, to: &lists.ghost, limit: lists.shares.ghost, tag: Lists.ghostTag, pass: &pass, observer: &observer)
    }

    /// Main's 2-bit CLOCK evicts, and its victim's key enters the evicted-from-main queue.
    @inlinable
    mutating func evictFromMain(_ pass: inout TrimPass, observer: inout some EvictionObserver<Key, Value>) {
        let victim = lists.mainVictim(&store, renewing: Lists.decrementing)
        evictedFromMain.add(store.key(victim), cost: store.cost(victim))
        pass.willRemove(&observer)
        store.evict(victim, from: &lists.main, observer: &observer)
    }
}

/// A FIFO of keys with costs and a cost limit, as a libCacheSim FIFO cache used only to remember
/// evicted keys: adding a key already present does nothing; adding one larger than the limit
/// does nothing; otherwise the oldest keys leave until it fits.
///
/// - Complexity: O(1) expected per operation, amortised over the keys it drops.
@usableFromInline
struct _EvictedKeyFIFO<Key: Hashable> {
    @usableFromInline var store = SlotArena<Key, Void>()
    @usableFromInline var queue = SlotList()
    @usableFromInline let capacity: Int

    @inlinable init(capacity: Int) { self.capacity = capacity }

    @inlinable var cost: Int { queue.cost }

    /// Forgets `key`; whether it was there.
    @inlinable
    mutating func remove(_ key: Key) -> Bool {
        let slot = store.find(key)
        guard slot >= 0 else { return false }
        store.forgetGhost(slot, from: &queue)
        return true
    }

    @inlinable
    mutating func add(_ key: Key, cost: Int) {
        let hash = store.hash(key)
        guard store.find(key, hash: hash) < 0, cost <= capacity else { return }
        store.trimGhosts(&queue, toCost: capacity - cost)
        store.pushHead(store.allocate(key: key, hash: hash, value: (), cost: cost), &queue)
    }
}

extension S3FIFOdCache: SlotRelocatingPolicy {
    /// Renumbers the ends of the small, main and ghost FIFOs after a compaction (the FIFOs of
    /// evicted keys hold keys, not slots).
    @inlinable public mutating func relocateSlots(_ relocation: SlotRelocation) { lists.relocate(relocation) }
}
