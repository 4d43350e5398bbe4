// CLOCK (second chance / FIFO-reinsertion; Corbató 1968), as libCacheSim's Clock.c
// (1a1a11a/libCacheSim @ aa0fc40, `Clock_find`, `Clock_insert`, `Clock_evict`, default
// `n-bit-counter=1`).
//
// Rule: one FIFO list and an n-bit counter per object (`bits`, default 1: a reference bit).
// A new object enters at the head with its counter at 0. A hit adds 1 to the counter, saturating
// at 2^bits - 1; it never moves the object. To make room, look at the tail (the oldest): while
// its counter is >= 1, subtract 1 and move it to the head; the first tail object with counter 0
// is evicted. Repeat until the new object fits (cost and count), then insert it. An object larger
// than the capacity is never inserted and leaves the cache untouched (`cache_can_insert_default`).
// Re-inserting a resident key replaces its cost in place and counts as a hit.

/// A CLOCK cache with an n-bit reference counter per entry.
///
/// - Complexity: lookup, insert and remove are O(1) expected. One eviction moves at most
///   `count × (2^bits − 1)` entries, O(1) amortised per counter increment.
public struct ClockCache<Key: Hashable, Value>: EvictionPolicy {
    public static var descriptor: PolicyDescriptor {
        PolicyDescriptor(
            name: "clock", reproduces: "CLOCK (libCacheSim Clock.c, n-bit-counter=1)",
            rule: "FIFO with a reference counter: a hit increments it (saturating); eviction scans from the oldest, "
                + "decrementing and reinserting at the head objects with a non-zero counter, and evicts the first at 0; "
                + "new objects start at 0",
            family: .research, supportsCountLimit: true, aliases: ["fifo-reinsertion"],
            parameters: [
                PolicyParameter("bits", default: "1",
                                "counter width in bits (libCacheSim n-bit-counter); a hit saturates at 2^bits-1",
                                aliases: ["n-bit-counter"]),
            ])
    }

    @usableFromInline var store = SlotArena<Key, Value>()
    /// Head: newest insertion or reinsertion; tail: where the hand looks first.
    @usableFromInline var queue = SlotList()
    @usableFromInline let capacity: Int
    @usableFromInline let countLimit: Int
    /// 2^bits − 1: the counter's ceiling.
    @usableFromInline let maximumCounter: UInt32

    public init(limits: CacheLimits, options: PolicyOptions) throws(PolicyConfigurationError) {
        try options.validate(against: Self.descriptor)
        try limits.validate(for: Self.descriptor)
        capacity = limits.capacity ?? .max
        countLimit = limits.countLimit ?? .max
        let bits = try options.integer("bits", default: 1, in: 1...16)
        maximumCounter = (UInt32(1) << UInt32(bits)) - 1
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
        touch(slot)
        return store.values[Int(slot)]
    }

    @inlinable
    public mutating func access(_ key: Key, cost: Int, orInsert value: @autoclosure () -> Value,
                                observer: inout some EvictionObserver<Key, Value>) -> Bool {
        let hash = store.hash(key)
        let slot = store.find(key, hash: hash)
        if slot >= 0 {
            touch(slot)
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
            touch(slot)
            makeRoom(forCost: 0, count: 0, observer: &observer)
        } else {
            insertNew(value, forKey: key, hash: hash, cost: cost, observer: &observer)
        }
    }

    @inlinable
    @discardableResult
    public mutating func remove(_ key: Key, observer: inout some EvictionObserver<Key, Value>) -> Value? {
        return store.remove(key, from: &queue)
    }

    /// A hit: one more reference, up to the counter's ceiling. The entry stays where it is.
    @inlinable @inline(__always)
    mutating func touch(_ slot: Int32) {
        let counter = store.aux(slot)
        if counter < maximumCounter { store.setAux(slot, counter + 1) }
    }

    @inlinable
    mutating func insertNew(_ value: Value, forKey key: Key, hash: UInt64, cost: Int,
                            observer: inout some EvictionObserver<Key, Value>) {
        guard cost <= capacity else { return }
        makeRoom(forCost: cost, count: 1, observer: &observer)
        // A fresh slot's counter is 0: a new object has not been referenced since it entered.
        store.pushHead(store.allocate(key: key, hash: hash, value: value, cost: cost), &queue)
    }

    /// Runs the hand until `cost` more and `count` more entries fit.
    @inlinable
    mutating func makeRoom(forCost cost: Int, count extra: Int, observer: inout some EvictionObserver<Key, Value>) {
        guard queue.cost > capacity - cost || queue.count > countLimit - extra else { return }
        observer.trimWillBegin(.caller)
        while !queue.isEmpty && (queue.cost > capacity - cost || queue.count > countLimit - extra) {
            var victim = queue.tail
            while store.aux(victim) >= 1 {
                store.setAux(victim, store.aux(victim) - 1)
                store.moveToHead(victim, &queue)
                victim = queue.tail
            }
            store.evict(victim, from: &queue, observer: &observer)
        }
        observer.trimDidEnd(.caller)
    }
}
