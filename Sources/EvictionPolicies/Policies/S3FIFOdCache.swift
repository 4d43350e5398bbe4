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
public struct S3FIFOdCache<Key: Hashable, Value>: EvictionPolicy {
    public static var descriptor: PolicyDescriptor {
        PolicyDescriptor(
            name: "s3fifod",
            reproduces: "S3-FIFO with a dynamic small queue (Yang et al., SOSP'23) as libCacheSim 0.3.5 S3FIFOd.c (main-cache=Clock2)",
            rule: "S3-FIFO whose small-queue share grows or shrinks by the hits on the keys each queue recently evicted",
            family: .research,
            parameters: [
                PolicyParameter("small-ratio", default: "0.1", "initial small FIFO share of the capacity, truncated",
                                aliases: ["fifo-size-ratio", "small-size-ratio"]),
                PolicyParameter("move-to-main-threshold", default: "1", "requests in the small FIFO needed to move to main"),
            ])
    }

    @usableFromInline static var smallTag: UInt32 { 0 }
    @usableFromInline static var mainTag: UInt32 { 1 }
    @usableFromInline static var ghostTag: UInt32 { 2 }
    /// Main's CLOCK counter ceiling (libCacheSim `Clock` with `n-bit-counter=2`).
    @usableFromInline static var maximumCounter: UInt32 { 3 }
    /// Small's request count saturates here; only `>= threshold` is ever asked of it.
    @usableFromInline static var maximumRequests: UInt32 { 1 << 28 }

    // aux = queue tag in bits 0–1, then small's request count or main's CLOCK counter.
    @usableFromInline var store = SlotArena<Key, Value>()
    @usableFromInline var small = SlotList()
    @usableFromInline var main = SlotList()
    @usableFromInline var ghost = SlotList()
    @usableFromInline var evictedFromSmall: _EvictedKeyFIFO<Key>
    @usableFromInline var evictedFromMain: _EvictedKeyFIFO<Key>
    @usableFromInline let capacity: Int
    @usableFromInline var smallCapacity: Int
    @usableFromInline var mainCapacity: Int
    @usableFromInline var ghostCapacity: Int
    @usableFromInline let threshold: UInt32
    /// Requests for keys recently evicted from small and from main, since the last decay.
    @usableFromInline var smallEvictionHits = 0
    @usableFromInline var mainEvictionHits = 0

    public init(limits: CacheLimits, options: PolicyOptions) throws(PolicyConfigurationError) {
        try options.validate(against: Self.descriptor)
        try limits.validate(for: Self.descriptor)
        guard let capacity = limits.capacity else { throw .missingLimit(.capacity, policy: Self.descriptor.name) }
        let smallRatio = try options.double("small-ratio", default: 0.1, in: 0...1)
        threshold = UInt32(try options.integer("move-to-main-threshold", default: 1, in: 0...1_000_000))
        self.capacity = capacity
        smallCapacity = _proportion(of: capacity, smallRatio)
        mainCapacity = capacity - smallCapacity
        ghostCapacity = mainCapacity
        evictedFromSmall = _EvictedKeyFIFO(capacity: capacity / 10)
        evictedFromMain = _EvictedKeyFIFO(capacity: capacity / 10)
    }

    @inlinable public var count: Int { small.count + main.count }
    @inlinable public var totalCost: Int { small.cost + main.cost }

    @inlinable @inline(__always)
    public func prefetch(_ key: Key, _ stage: PrefetchStage) { store.prefetch(key, stage) }

    @inlinable
    public func contains(_ key: Key) -> Bool {
        let slot = store.find(key)
        return slot >= 0 && store.aux(slot) & 3 != Self.ghostTag
    }

    /// A lookup of a resident key is a request for it; of any other key, nothing.
    @inlinable
    public mutating func lookup(_ key: Key, observer: inout some EvictionObserver<Key, Value>) -> Value? {
        guard contains(key) else { return nil }
        _ = request(key, cost: 0, value: nil, observer: &observer)
        return store.value(store.find(key))
    }

    @inlinable
    public mutating func access(_ key: Key, cost: Int, orInsert value: @autoclosure () -> Value,
                                observer: inout some EvictionObserver<Key, Value>) -> Bool {
        request(key, cost: cost, value: value(), observer: &observer)
    }

    /// Re-inserting a resident key with its cost is a request; with another cost the old object
    /// is removed (not an eviction) and the new one requested.
    @inlinable
    public mutating func insert(_ value: Value, forKey key: Key, cost: Int,
                                observer: inout some EvictionObserver<Key, Value>) {
        let slot = store.find(key)
        if slot >= 0 && store.aux(slot) & 3 != Self.ghostTag {
            if store.cost(slot) == max(cost, 0) {
                store.setValue(slot, value)
                _ = request(key, cost: cost, value: nil, observer: &observer)
                return
            }
            remove(key, observer: &observer)
        }
        _ = request(key, cost: cost, value: value, observer: &observer)
    }

    @inlinable
    @discardableResult
    public mutating func remove(_ key: Key, observer: inout some EvictionObserver<Key, Value>) -> Value? {
        let slot = store.find(key)
        guard slot >= 0 else { return nil }
        switch store.aux(slot) & 3 {
        case Self.smallTag: store.unlink(slot, &small)
        case Self.mainTag: store.unlink(slot, &main)
        default: store.unlink(slot, &ghost)
        }
        return store.release(slot)
    }

    // MARK: The rule

    /// One request, as `S3FIFOd_get`: resize, find, and on a miss evict and insert `value`
    /// (`nil` only for keys known to be resident).
    @inlinable
    mutating func request(_ key: Key, cost: Int, value: @autoclosure () -> Value?,
                          observer: inout some EvictionObserver<Key, Value>) -> Bool {
        let cost = max(cost, 0)
        resize()
        let hash = store.hash(key)
        let slot = store.find(key, hash: hash)
        let tag = slot >= 0 ? store.aux(slot) & 3 : Self.ghostTag
        if slot >= 0 && tag != Self.ghostTag {
            let aux = store.aux(slot)
            let ceiling = tag == Self.smallTag ? Self.maximumRequests : Self.maximumCounter
            if aux >> 2 < ceiling { store.setAux(slot, aux &+ 4) }
            // A hit in small returns before the evicted-key queues are consulted.
            if tag == Self.smallTag { return true }
        }
        let ghostHit = slot >= 0 && tag == Self.ghostTag
        if ghostHit {
            store.unlink(slot, &ghost)
            store.release(slot)
        }
        if evictedFromSmall.remove(key) { smallEvictionHits += 1 }
        if evictedFromMain.remove(key) { mainEvictionHits += 1 }
        if slot >= 0 && tag == Self.mainTag { return true }

        // S3FIFOd_can_insert: the small FIFO's size, then the admissioner.
        guard cost <= smallCapacity, observer.admits(key, cost: cost), cost <= capacity, let value = value() else { return false }
        var pass = TrimPass(.caller)
        while small.cost + main.cost + cost > capacity && count > 0 { evictionStep(&pass, observer: &observer) }
        if ghostHit {
            // main's own `get`: refused above its share, else its CLOCK makes room, unrecorded.
            if cost <= mainCapacity {
                while main.cost + cost > mainCapacity && !main.isEmpty {
                    evictFromMain(recording: false, &pass, observer: &observer)
                }
                enter(store.allocate(key: key, hash: hash, value: value, cost: cost), Self.mainTag)
            }
        } else {
            enter(store.allocate(key: key, hash: hash, value: value, cost: cost), Self.smallTag)
        }
        pass.end(&observer)
        return false
    }

    /// `S3FIFOd_update_fifo_size`: moves a step of capacity toward the queue whose evicted keys
    /// are requested more than twice as often as the other's.
    @inlinable
    mutating func resize() {
        let step = max(1, min(smallCapacity, mainCapacity) / 1000)
        guard evictedFromMain.cost > 0 else {
            smallEvictionHits = 0
            mainEvictionHits = 0
            return
        }
        guard smallEvictionHits + mainEvictionHits > 100 else { return }
        if smallEvictionHits > mainEvictionHits * 2 {
            if mainCapacity > capacity / 100 {
                smallCapacity += step
                ghostCapacity += step
                mainCapacity -= step
            }
        } else if mainEvictionHits > smallEvictionHits * 2 {
            if smallCapacity > capacity / 100 {
                smallCapacity -= step
                ghostCapacity -= step
                mainCapacity += step
            }
        }
        smallEvictionHits = Int(Double(smallEvictionHits) * 0.8)
        mainEvictionHits = Int(Double(mainEvictionHits) * 0.8)
    }

    /// One call of `S3FIFOd_evict`.
    @inlinable
    mutating func evictionStep(_ pass: inout TrimPass, observer: inout some EvictionObserver<Key, Value>) {
        guard small.cost > 0 || main.isEmpty else {
            evictFromMain(recording: true, &pass, observer: &observer)
            return
        }
        let slot = small.tail
        store.unlink(slot, &small)
        if store.aux(slot) >> 2 >= threshold {
            enter(slot, Self.mainTag)
            while main.cost > mainCapacity && !main.isEmpty {
                evictFromMain(recording: true, &pass, observer: &observer)
            }
            return
        }
        let key = store.key(slot), cost = store.cost(slot)
        pass.willRemove(&observer)
        if let value = store.value(slot) { observer.didEvict(key, value: value, cost: cost) }
        evictedFromSmall.add(key, cost: cost)
        // The ghost's own `get`: refused above its share, else its oldest keys make room.
        guard cost <= ghostCapacity else {
            store.release(slot)
            return
        }
        while ghost.cost + cost > ghostCapacity && !ghost.isEmpty {
            let oldest = ghost.tail
            store.unlink(oldest, &ghost)
            store.release(oldest)
        }
        store.setValue(slot, nil)
        enter(slot, Self.ghostTag)
    }

    @inlinable
    mutating func enter(_ slot: Int32, _ tag: UInt32) {
        store.setAux(slot, tag)
        switch tag {
        case Self.smallTag: store.pushHead(slot, &small)
        case Self.mainTag: store.pushHead(slot, &main)
        default: store.pushHead(slot, &ghost)
        }
    }

    /// `Clock_evict` with 2-bit counters: a counter ≥ 1 is decremented and its object goes back
    /// to the head; the first at 0 leaves, and enters the evicted-from-main queue if `recording`.
    @inlinable
    mutating func evictFromMain(recording: Bool, _ pass: inout TrimPass,
                                observer: inout some EvictionObserver<Key, Value>) {
        while true {
            let slot = main.tail
            let counter = store.aux(slot) >> 2
            guard counter >= 1 else { break }
            store.setAux(slot, Self.mainTag | (counter - 1) << 2)
            store.moveToHead(slot, &main)
        }
        let victim = main.tail
        if recording { evictedFromMain.add(store.key(victim), cost: store.cost(victim)) }
        pass.willRemove(&observer)
        store.evict(victim, from: &main, observer: &observer)
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
