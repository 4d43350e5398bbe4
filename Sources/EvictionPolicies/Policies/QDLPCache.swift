// QD-LP: quick demotion, lazy promotion (Yang et al., "FIFO can be better than LRU: the power of
// lazy promotion and quick demotion", HotOS'23), as libCacheSim 0.3.5's QDLP.c with its default
// `main-cache=Clock2` (PyPI `libcachesim` 0.3.5, src/libCacheSim/cache/eviction/QDLP.c). Exact on
// every golden row.

/// QD-LP: a small probationary FIFO in front of a 2-bit CLOCK, with a ghost FIFO of keys the
/// small FIFO demoted, which admits them straight to the CLOCK.
///
/// **Rule** (libCacheSim 0.3.5 `QDLP.c`, defaults: small 10 %, ghost 90 %, threshold 1).
/// - **Hit** in small: its request count +1. Hit in main: its counter +1, saturating at 3.
/// - **Miss**: an object larger than small is never inserted; a key in the ghost leaves it. Then,
///   while small + main + the object exceed the capacity, one *eviction step*; then a ghost key
///   enters main (which first evicts within its own share, as a CLOCK) and any other key
///   smaller than small enters small's head.
/// - **Eviction step**: small empty → main's CLOCK evicts (counters ≥ 1 are decremented and go
///   back to the head). Otherwise small's tail leaves small: requested at least `threshold`
///   times while there, it enters main (main first evicting within its share); else it leaves
///   the cache and its key enters the ghost, which drops its oldest keys to stay within its share.
///
/// - Complexity: lookups O(1) expected; an eviction step is amortised O(1).
public struct QDLPCache<Key: Hashable, Value>: _SmallMainGhostPolicy {
    public static var descriptor: PolicyDescriptor {
        PolicyDescriptor(
            name: "qdlp", reproduces: "QD-LP (Yang et al., HotOS'23) as libCacheSim 0.3.5 QDLP.c (main-cache=Clock2)",
            rule: "new keys enter a small FIFO; a key requested there moves to a 2-bit CLOCK when it reaches the tail, the others leave and are remembered in a ghost FIFO that admits them straight to the CLOCK",
            family: .research,
            parameters: _SmallMainGhostShares.parameters(threshold: 1, counting: "requests")
                + [PolicyParameter("main-cache", default: "Clock2", "the main cache: only libCacheSim's default, a 2-bit CLOCK, is provided")])
    }

    @usableFromInline typealias Lists = _SmallMainGhostLists
    /// Main's CLOCK counter ceiling (libCacheSim `Clock` with `n-bit-counter=2`).
    @usableFromInline static var maximumCounter: UInt32 { 3 }
    /// Re-inserting a resident key replaces its value and cost in place and counts as a request;
    /// eviction steps then run until the cache fits again.
    public static var updatesInPlace: Bool { true }

    // aux = queue tag in bits 0–1, then small's request count or main's CLOCK counter.
    public var store = SlotArena<Key, Value>()
    public var lists: _SmallMainGhostLists

    public init(limits: CacheLimits, options: PolicyOptions) throws(PolicyConfigurationError) {
        lists = Lists(try _SmallMainGhostShares(limits, options, for: Self.descriptor, threshold: 1))
        try options.requireOnly("main-cache", "Clock2")
    }

    @inlinable @inline(__always)
    public func prefetch(_ key: Key, _ stage: PrefetchStage) { store.prefetch(key, stage) }

    // MARK: The rule

    /// A hit counts in small; in main until the counter reaches its ceiling.
    @inlinable @inline(__always)
    public func counts(hit slot: Int32, aux: UInt32) -> Bool {
        Lists.isSmall(aux) || Lists.counter(aux) < Self.maximumCounter
    }

    /// The miss: consume a ghost entry, refuse what `QDLP_can_insert` refuses, run eviction steps
    /// until the object fits, then insert into main (ghost hit) or small.
    @inlinable
    public mutating func miss(_ key: Key, hash: UInt64, ghost slot: Int32, cost: Int, value: () -> Value,
                              observer: inout some EvictionObserver<Key, Value>) {
        var pass = TrimPass(.caller)
        guard _makeRoom(forMiss: slot, key: key, cost: cost, &pass, observer: &observer) else { return }
        if slot >= 0 {
            if lists.makeRoomInMain(for: cost, &store, &pass, observer: &observer) {
                lists.reviveInMain(slot, value: value(), cost: cost, in: &store)
            } else {
                store.release(slot)
            }
        } else if cost < lists.shares.small {
            store.pushHead(store.allocate(key: key, hash: hash, value: value(), cost: cost), &lists.small, tag: Lists.smallTag)
        }
        pass.end(&observer)
    }

    /// One call of libCacheSim's `QDLP_evict`: small empty, main's 2-bit CLOCK evicts; otherwise
    /// small's tail leaves small, to main (which first makes room) if requested enough, else to
    /// the ghost.
    @inlinable
    public mutating func evictionStep(_ pass: inout TrimPass, observer: inout some EvictionObserver<Key, Value>) {
        guard !lists.small.isEmpty else {
            lists.evictFromMain(&store, &pass, observer: &observer, renewing: Lists.decrementing)
            return
        }
        let slot = lists.small.tail
        guard Lists.counter(store.aux(slot)) >= lists.shares.threshold else {
            lists.demoteSmallTail(&store, &pass, observer: &observer)
            return
        }
        if lists.makeRoomInMain(for: store.cost(slot), &store, &pass, observer: &observer) {
            store.unlink(slot, &lists.small)
            store.pushHead(slot, &lists.main, tag: Lists.mainTag)
        } else {
            pass.willRemove(&observer)
            store.evict(slot, from: &lists.small, observer: &observer)
        }
    }
}

extension QDLPCache: SlotRelocatingPolicy {
    /// Renumbers the ends of the probation, main and ghost FIFOs after a compaction.
    @inlinable public mutating func relocateSlots(_ relocation: SlotRelocation) {
        lists.relocate(relocation)
    }
}
