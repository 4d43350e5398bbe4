// SIEVE: Zhang, Yang, Yue, Vigfusson, Rashmi, "SIEVE is Simpler than LRU: an Efficient
// Turn-Key Eviction Algorithm for Web Caches", NSDI'24; as libCacheSim's Sieve.c
// (1a1a11a/libCacheSim @ aa0fc40, `Sieve_find`, `Sieve_insert`, `Sieve_evict`, `Sieve_remove_obj`).
//
// Rule: one FIFO list (new objects at the head), a visited bit per object and a hand. A hit sets
// the visited bit and moves nothing. To make room, start at the hand (or at the tail when the hand
// is unset); while the object there is visited, clear its bit and step toward the head, wrapping
// from the head back to the tail; evict the first unvisited object and leave the hand on the
// object just newer than it (unset if it was the head). Survivors keep their place, so retained
// and new objects never mix. Repeat until the new object fits (cost and count), then insert it
// unvisited. An object larger than the capacity is never inserted. An explicit removal of the
// object under the hand moves the hand to its newer neighbour, as libCacheSim does. Re-inserting a
// resident key replaces its cost in place and counts as a hit. No parameters.

/// A SIEVE cache: a FIFO queue swept by a hand that spares visited entries once.
///
/// - Complexity: lookup, insert and remove are O(1) expected; one eviction is O(1) amortised
///   (each step of the hand clears a bit that a hit set).
public struct SieveCache<Key: Hashable, Value>: EvictionPolicy {
    public static var descriptor: PolicyDescriptor {
        PolicyDescriptor(
            name: "sieve", reproduces: "SIEVE (Zhang et al., NSDI'24; libCacheSim Sieve.c)",
            rule: "FIFO with a visited bit and a hand moving from the oldest toward the newest: a hit sets the bit; "
                + "the hand clears set bits and evicts the first unvisited object, then stays where it stopped",
            family: .research, supportsCountLimit: true)
    }

    @usableFromInline var store = SlotArena<Key, Value>()
    /// Head: newest insertion; tail: oldest. Entries never move within it.
    @usableFromInline var queue = SlotList()
    /// The slot the next eviction looks at first, or -1 to start from the tail.
    @usableFromInline var hand: Int32 = -1
    @usableFromInline let capacity: Int
    @usableFromInline let countLimit: Int

    public init(limits: CacheLimits, options: PolicyOptions) throws(PolicyConfigurationError) {
        try options.validate(against: Self.descriptor)
        try limits.validate(for: Self.descriptor)
        capacity = limits.capacity ?? .max
        countLimit = limits.countLimit ?? .max
    }

    @inlinable public var count: Int { queue.count }
    @inlinable public var totalCost: Int { queue.cost }

    @inlinable @inline(__always)
    public func prefetch(_ key: Key, _ stage: PrefetchStage) { store.prefetch(key, stage) }

    @inlinable
    public func contains(_ key: Key) -> Bool { store.find(key) >= 0 }

    @inlinable
    public mutating func lookup(_ key: Key, observer: inout some EvictionObserver<Key, Value>) -> Value? {
        let slot = store.find(key)
        guard slot >= 0 else { return nil }
        store.setAux(slot, 1)
        return store.values[Int(slot)]
    }

    @inlinable
    public mutating func access(_ key: Key, cost: Int, orInsert value: @autoclosure () -> Value,
                                observer: inout some EvictionObserver<Key, Value>) -> Bool {
        let hash = store.hash(key)
        let slot = store.find(key, hash: hash)
        if slot >= 0 {
            store.setAux(slot, 1)
            return true
        }
        insertNew(value(), forKey: key, hash: hash, cost: cost, observer: &observer)
        return false
    }

    @inlinable
    public mutating func insert(_ value: Value, forKey key: Key, cost: Int,
                                observer: inout some EvictionObserver<Key, Value>) {
        let cost = max(cost, 0)
        let hash = store.hash(key)
        let slot = store.find(key, hash: hash)
        if slot >= 0 {
            guard cost <= capacity else { remove(key, observer: &observer); return }
            store.values[Int(slot)] = value
            store.setCost(slot, cost, in: &queue)
            store.setAux(slot, 1)
            makeRoom(forCost: 0, count: 0, observer: &observer)
        } else {
            insertNew(value, forKey: key, hash: hash, cost: cost, observer: &observer)
        }
    }

    @inlinable
    @discardableResult
    public mutating func remove(_ key: Key, observer: inout some EvictionObserver<Key, Value>) -> Value? {
        let slot = store.find(key)
        guard slot >= 0 else { return nil }
        if slot == hand { hand = store.prev(slot) }
        store.unlink(slot, &queue)
        return store.release(slot)
    }

    @inlinable
    mutating func insertNew(_ value: Value, forKey key: Key, hash: UInt64, cost: Int,
                            observer: inout some EvictionObserver<Key, Value>) {
        guard cost <= capacity else { return }
        makeRoom(forCost: cost, count: 1, observer: &observer)
        store.pushHead(store.allocate(key: key, hash: hash, value: value, cost: cost), &queue)
    }

    /// Sweeps the hand until `cost` more and `count` more entries fit.
    @inlinable
    mutating func makeRoom(forCost cost: Int, count extra: Int, observer: inout some EvictionObserver<Key, Value>) {
        guard queue.cost > capacity - cost || queue.count > countLimit - extra else { return }
        observer.trimWillBegin(.caller)
        while !queue.isEmpty && (queue.cost > capacity - cost || queue.count > countLimit - extra) {
            // The hand passes over visited entries, clearing their bit, to the first unvisited one.
            let victim = store.sweepClearingAux(from: hand >= 0 ? hand : queue.tail, in: queue)
            hand = store.prev(victim)
            store.evict(victim, from: &queue, observer: &observer)
        }
        observer.trimDidEnd(.caller)
    }
}
