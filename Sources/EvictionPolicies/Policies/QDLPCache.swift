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
public struct QDLPCache<Key: Hashable, Value>: EvictionPolicy {
    public static var descriptor: PolicyDescriptor {
        PolicyDescriptor(
            name: "qdlp", reproduces: "QD-LP (Yang et al., HotOS'23) as libCacheSim 0.3.5 QDLP.c (main-cache=Clock2)",
            rule: "new keys enter a small FIFO; a key requested there moves to a 2-bit CLOCK when it reaches the tail, the others leave and are remembered in a ghost FIFO that admits them straight to the CLOCK",
            family: .research,
            parameters: [
                PolicyParameter("small-ratio", default: "0.1", "small FIFO share of the capacity, truncated", aliases: ["fifo-size-ratio"]),
                PolicyParameter("ghost-ratio", default: "0.9", "ghost FIFO size as a share of the capacity, truncated; 0 disables it",
                                aliases: ["ghost-size-ratio"]),
                PolicyParameter("move-to-main-threshold", default: "1", "requests in the small FIFO needed to move to main"),
            ])
    }

    @usableFromInline static var smallTag: UInt32 { 0 }
    @usableFromInline static var mainTag: UInt32 { 1 }
    @usableFromInline static var ghostTag: UInt32 { 2 }
    /// Main's CLOCK counter ceiling (libCacheSim `Clock` with `n-bit-counter=2`).
    @usableFromInline static var maximumCounter: UInt32 { 3 }

    // aux = queue tag in bits 0–1, then small's request count or main's CLOCK counter.
    @usableFromInline var store = SlotArena<Key, Value>()
    @usableFromInline var small = SlotList()
    @usableFromInline var main = SlotList()
    @usableFromInline var ghost = SlotList()
    @usableFromInline let capacity: Int
    @usableFromInline let smallCapacity: Int
    @usableFromInline let mainCapacity: Int
    @usableFromInline let ghostCapacity: Int
    @usableFromInline let threshold: UInt32

    public init(limits: CacheLimits, options: PolicyOptions) throws(PolicyConfigurationError) {
        try options.validate(against: Self.descriptor)
        try limits.validate(for: Self.descriptor)
        guard let capacity = limits.capacity else { throw .missingLimit(.capacity, policy: Self.descriptor.name) }
        let smallRatio = try options.double("small-ratio", default: 0.1, in: 0...1)
        let ghostRatio = try options.double("ghost-ratio", default: 0.9, in: 0...100)
        threshold = UInt32(try options.integer("move-to-main-threshold", default: 1, in: 0...1_000_000))
        self.capacity = capacity
        smallCapacity = _proportion(of: capacity, smallRatio)
        mainCapacity = capacity - smallCapacity
        ghostCapacity = _proportion(of: capacity, ghostRatio)
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

    @inlinable
    public mutating func lookup(_ key: Key, observer: inout some EvictionObserver<Key, Value>) -> Value? {
        let slot = store.find(key)
        guard slot >= 0, store.aux(slot) & 3 != Self.ghostTag else { return nil }
        recordHit(slot)
        return store.value(slot)
    }

    @inlinable
    public mutating func access(_ key: Key, cost: Int, orInsert value: @autoclosure () -> Value,
                                observer: inout some EvictionObserver<Key, Value>) -> Bool {
        let hash = store.hash(key)
        let slot = store.find(key, hash: hash)
        if slot >= 0 && store.aux(slot) & 3 != Self.ghostTag {
            recordHit(slot)
            return true
        }
        admit(key, hash: hash, ghostSlot: slot, cost: max(cost, 0), value: value, observer: &observer)
        return false
    }

    /// Re-inserting a resident key replaces its value and cost in place and counts as a request.
    @inlinable
    public mutating func insert(_ value: Value, forKey key: Key, cost: Int,
                                observer: inout some EvictionObserver<Key, Value>) {
        let hash = store.hash(key)
        let slot = store.find(key, hash: hash)
        guard slot >= 0 && store.aux(slot) & 3 != Self.ghostTag else {
            admit(key, hash: hash, ghostSlot: slot, cost: max(cost, 0), value: { value }, observer: &observer)
            return
        }
        let cost = max(cost, 0)
        store.setValue(slot, value)
        if store.aux(slot) & 3 == Self.smallTag { store.setCost(slot, cost, in: &small) } else { store.setCost(slot, cost, in: &main) }
        recordHit(slot)
        var pass = TrimPass(.caller)
        while totalCost > capacity { evictionStep(&pass, observer: &observer) }
        pass.end(&observer)
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

    @inlinable @inline(__always)
    mutating func recordHit(_ slot: Int32) {
        let aux = store.aux(slot)
        if aux & 3 == Self.smallTag || aux >> 2 < Self.maximumCounter { store.setAux(slot, aux &+ 4) }
    }

    /// The miss: consume a ghost entry, refuse what `QDLP_can_insert` refuses, run eviction steps
    /// until the object fits, then insert into main (ghost hit) or small.
    @inlinable
    mutating func admit(_ key: Key, hash: UInt64, ghostSlot: Int32, cost: Int, value: () -> Value,
                        observer: inout some EvictionObserver<Key, Value>) {
        if ghostSlot >= 0 {
            store.unlink(ghostSlot, &ghost)
            store.release(ghostSlot)
        }
        guard cost <= capacity, cost <= smallCapacity else { return }
        var pass = TrimPass(.caller)
        while count > 0 && totalCost > capacity - cost { evictionStep(&pass, observer: &observer) }
        if ghostSlot >= 0 {
            if makeRoomInMain(for: cost, &pass, observer: &observer) {
                enterMain(store.allocate(key: key, hash: hash, value: value(), cost: cost))
            }
        } else if cost < smallCapacity {
            let slot = store.allocate(key: key, hash: hash, value: value(), cost: cost)
            store.setAux(slot, Self.smallTag)
            store.pushHead(slot, &small)
        }
        pass.end(&observer)
    }

    /// One call of libCacheSim's `QDLP_evict`.
    @inlinable
    mutating func evictionStep(_ pass: inout TrimPass, observer: inout some EvictionObserver<Key, Value>) {
        guard !small.isEmpty else {
            evictFromMain(&pass, observer: &observer)
            return
        }
        let slot = small.tail
        let cost = store.cost(slot)
        if store.aux(slot) >> 2 >= threshold {
            let fits = makeRoomInMain(for: cost, &pass, observer: &observer)
            store.unlink(slot, &small)
            if fits { enterMain(slot) } else { pass.willRemove(&observer); report(slot, &observer); store.release(slot) }
            return
        }
        store.unlink(slot, &small)
        pass.willRemove(&observer)
        report(slot, &observer)
        guard ghostCapacity > 0 && cost <= ghostCapacity else {
            store.release(slot)
            return
        }
        while !ghost.isEmpty && ghost.cost + cost > ghostCapacity {
            let oldest = ghost.tail
            store.unlink(oldest, &ghost)
            store.release(oldest)
        }
        store.setValue(slot, nil)
        store.setAux(slot, Self.ghostTag)
        store.pushHead(slot, &ghost)
    }

    /// Main's `get` of a new object: refused when larger than main's share; otherwise main's
    /// CLOCK evicts until it fits. Returns whether it fits.
    @inlinable
    mutating func makeRoomInMain(for cost: Int, _ pass: inout TrimPass,
                                 observer: inout some EvictionObserver<Key, Value>) -> Bool {
        guard cost <= mainCapacity else { return false }
        while !main.isEmpty && main.cost + cost > mainCapacity { evictFromMain(&pass, observer: &observer) }
        return true
    }

    @inlinable
    mutating func enterMain(_ slot: Int32) {
        store.setAux(slot, Self.mainTag)
        store.pushHead(slot, &main)
    }

    /// `Clock_evict` with 2-bit counters: a counter ≥ 1 is decremented and its object goes back
    /// to the head; the first at 0 leaves.
    @inlinable
    mutating func evictFromMain(_ pass: inout TrimPass, observer: inout some EvictionObserver<Key, Value>) {
        while true {
            let slot = main.tail
            let counter = store.aux(slot) >> 2
            guard counter >= 1 else { break }
            store.setAux(slot, Self.mainTag | (counter - 1) << 2)
            store.moveToHead(slot, &main)
        }
        pass.willRemove(&observer)
        store.evict(main.tail, from: &main, observer: &observer)
    }

    @inlinable
    func report(_ slot: Int32, _ observer: inout some EvictionObserver<Key, Value>) {
        if let value = store.value(slot) { observer.didEvict(store.key(slot), value: value, cost: store.cost(slot)) }
    }
}
