// CLOCK-2Q+: a small FIFO with a correlation window in front of a CLOCK, with a ghost FIFO, as
// libCacheSim 0.3.5's Clock2QPlus.c (PyPI `libcachesim` 0.3.5,
// src/libCacheSim/cache/eviction/Clock2QPlus.c), which cites 2Q (Johnson & Shasha, VLDB'94) and
// CLOCK-Pro's correlated-reference idea. Exact on every golden row.

/// CLOCK-2Q+: S3-FIFO's shape with a correlation window: a request in the small FIFO counts only
/// when it comes at least half the small FIFO's size of admissions after the object entered.
///
/// **Rule** (libCacheSim 0.3.5 `Clock2QPlus.c`, defaults: small 10 %, ghost 90 %, threshold 1,
/// correlation window 0.5 × the small FIFO's size, in admissions to it).
/// - **Hit** in small: its count +1 if at least the window's admissions came after its own.
///   Hit in main: its count +1.
/// - **Miss**: an object larger than small is refused; a key in the ghost leaves it and enters
///   main's head. Otherwise, after evicting until it fits, an object at least as large as small
///   is dropped; before the first eviction an object that finds small full enters main; any
///   other enters small's head.
/// - **Evict**: from main when main is over its share or small is empty, else from small.
///   Small's tail with a count ≥ threshold moves to main's head (count 0) and the scan goes on;
///   the first below leaves the cache and its key enters the ghost, ending the step. Main's
///   tail with a count ≥ 1 goes back to main's head with count 0; the first at 0 leaves.
///
/// - Complexity: lookups O(1) expected; an eviction step is amortised O(1).
public struct Clock2QPlusCache<Key: Hashable, Value>: EvictionPolicy {
    public static var descriptor: PolicyDescriptor {
        PolicyDescriptor(
            name: "clock2qplus", reproduces: "CLOCK-2Q+ as libCacheSim 0.3.5 Clock2QPlus.c",
            rule: "new keys enter a small FIFO where only requests outside a correlation window count; counted ones move to a CLOCK main, the others leave and are remembered in a ghost FIFO that admits them straight to main",
            family: .research,
            parameters: [
                PolicyParameter("small-ratio", default: "0.1", "small FIFO share of the capacity, truncated", aliases: ["fifo-size-ratio"]),
                PolicyParameter("ghost-ratio", default: "0.9", "ghost FIFO size as a share of the capacity, truncated; 0 disables it",
                                aliases: ["ghost-size-ratio"]),
                PolicyParameter("move-to-main-threshold", default: "1", "counted requests in the small FIFO needed to move to main"),
                PolicyParameter("correlation-window-ratio", default: "0.5",
                                "admissions to the small FIFO, as a share of its size, before a request there counts",
                                aliases: ["corr-window-ratio"]),
            ])
    }

    @usableFromInline static var smallTag: UInt32 { 0 }
    @usableFromInline static var mainTag: UInt32 { 1 }
    @usableFromInline static var ghostTag: UInt32 { 2 }
    /// Main's CLOCK counter ceiling (libCacheSim `Clock` with `n-bit-counter=2`).
    // aux = queue tag in bits 0–1, then the object's count.
    @usableFromInline var store = SlotArena<Key, Value>()
    @usableFromInline var small = SlotList()
    @usableFromInline var main = SlotList()
    @usableFromInline var ghost = SlotList()
    @usableFromInline let capacity: Int
    @usableFromInline let smallCapacity: Int
    @usableFromInline let mainCapacity: Int
    @usableFromInline let ghostCapacity: Int
    @usableFromInline let threshold: UInt32
    @usableFromInline let correlationWindow: Double
    /// Admissions to small so far; each small entry remembers its number in `admittedAt`.
    @usableFromInline var admissions: Int64 = 0
    @usableFromInline var admittedAt = SideTable<Int64>(filling: 0)
    /// Whether the cache has ever evicted (the warm-up rule's switch).
    @usableFromInline var hasEvicted = false

    public init(limits: CacheLimits, options: PolicyOptions) throws(PolicyConfigurationError) {
        try options.validate(against: Self.descriptor)
        try limits.validate(for: Self.descriptor)
        guard let capacity = limits.capacity else { throw .missingLimit(.capacity, policy: Self.descriptor.name) }
        let smallRatio = try options.double("small-ratio", default: 0.1, in: 0...1)
        let ghostRatio = try options.double("ghost-ratio", default: 0.9, in: 0...100)
        threshold = UInt32(try options.integer("move-to-main-threshold", default: 1, in: 0...1_000_000))
        let windowRatio = try options.double("correlation-window-ratio", default: 0.5, in: 0...1_000)
        self.capacity = capacity
        smallCapacity = _proportion(of: capacity, smallRatio)
        correlationWindow = Double(smallCapacity) * windowRatio
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
        if aux & 3 == Self.smallTag && Double(admissions - admittedAt[slot]) < correlationWindow { return }
        store.setAux(slot, aux &+ 4)
    }

    /// The miss: consume a ghost entry, refuse what `Clock2QPlus_can_insert` refuses, evict
    /// until the object fits, then insert into main (ghost hit, or small full before any
    /// eviction) or small.
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
        pass.end(&observer)
        if ghostSlot < 0 && cost >= smallCapacity { return }
        let slot = store.allocate(key: key, hash: hash, value: value(), cost: cost)
        if ghostSlot >= 0 || (!hasEvicted && small.cost >= smallCapacity) {
            enterMain(slot)
        } else {
            admissions += 1
            admittedAt[slot] = admissions
            store.setAux(slot, Self.smallTag)
            store.pushHead(slot, &small)
        }
    }

    /// One call of libCacheSim's `Clock2QPlus_evict`.
    @inlinable
    mutating func evictionStep(_ pass: inout TrimPass, observer: inout some EvictionObserver<Key, Value>) {
        hasEvicted = true
        if main.cost > mainCapacity || small.isEmpty {
            evictFromMain(&pass, observer: &observer)
            return
        }
        while !small.isEmpty {
            let slot = small.tail
            store.unlink(slot, &small)
            if store.aux(slot) >> 2 >= threshold {
                enterMain(slot)
                continue
            }
            let cost = store.cost(slot)
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
            return
        }
    }

    @inlinable
    mutating func enterMain(_ slot: Int32) {
        store.setAux(slot, Self.mainTag)
        store.pushHead(slot, &main)
    }

    /// Main's tail with a count ≥ 1 goes back to the head with count 0; the first at 0 leaves.
    @inlinable
    mutating func evictFromMain(_ pass: inout TrimPass, observer: inout some EvictionObserver<Key, Value>) {
        while store.aux(main.tail) >> 2 >= 1 {
            let slot = main.tail
            store.setAux(slot, Self.mainTag)
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
