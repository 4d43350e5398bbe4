// nuke-clock: Nuke's memory cache (`ImageCache`, over its internal `Cache`) from 13.0.5 on:
// CLOCK / second chance (commit a01bcfb3 "Switch to CLOCK LRU in Cache"; in 13.0.5, 13.1.0, 13.2.0).
// Source: kean/Nuke @ c4fc70af4ca5 (13.2.0+61), Sources/Nuke/Caching/Cache.swift and ImageCache.swift.
// Spec: ``<doc:Nuke>``; test vectors NK1 (CLOCK column) and NK2.
// The strict LRU of 13.0.4 and earlier is nuke-lru (NukeLRUCache.swift).
//
// Rule: a map plus a linked list whose first node is the next candidate, and a reference bit
// per entry.
//   - get: an entry whose TTL has passed (`expirationTimestamp < now`) is removed and the get is
//     a miss; otherwise the entry's reference bit is set. Nothing moves.
//   - set: a cost of at least `entryMaxCost = Int(clamp(entryCostLimit, 0…1) × costLimit)`
//     (precomputed, .max when the product reaches Int.max; 0.1 by default) is silently
//     IGNORED: nothing is stored and the key's old value, if any, stays (NK2). From 13.0.5 the
//     check always applies. A set of a resident key reuses its node in place (new value, cost
//     and expiry) and sets its reference bit; a new key is appended at the end, unreferenced.
//     Then `_trim()`: nothing when within both limits; otherwise the CLOCK sweep to the cost
//     limit, then to the count limit: while over, take `list.first`; if referenced, clear the
//     bit and move it to the end (second chance); else remove it. Synchronous.
//   - memory pressure (the trace's memory-warning) removes everything; entering the background
//     runs the same sweep to 10 % of the cost limit, then 10 % of the count limit.
//
// NK1: countLimit 3; set a, b, c; get a, b, c; set d. The sweep clears and rotates a, b and c,
// then meets d, new and unreferenced, and evicts it: {a, b, c} stay.
//
// Modelling choices as in nuke-lru: trace time, +infinity for "never expires", caller passes,
// and the `ignoredSets` metric. A sweep that only clears bits evicts nothing and reports nothing,
// but a sweep starts only when a limit is exceeded, so it always evicts at least one entry.

/// Nuke's memory cache from 13.0.5: CLOCK (second chance) with a per-entry cost cap at 10 % of
/// the cost limit, a lazy TTL, removal of everything under memory pressure and a sweep to 10 %
/// in the background.
///
/// - Complexity: lookup, insert and remove are O(1) expected; a trim is O(k + r) for k evictions
///   and r second chances, and each entry gets at most one second chance per trim.
public struct NukeClockCache<Key: Hashable, Value>: EvictionPolicy {
    public static var descriptor: PolicyDescriptor {
        PolicyDescriptor(
            name: "nuke-clock",
            reproduces: "Nuke 13.0.5 and later ImageCache / Cache, CLOCK",
            rule: "CLOCK second chance: get sets a reference bit, the sweep spares referenced entries once; a set costing at least 10 % of the cost limit is ignored; sync trim on set; lazy TTL; memory warning removes all; background sweeps to 10 %",
            family: .library, supportsCountLimit: true, defaultCapacity: .workingSetFraction,
            parameters: [
                PolicyParameter("ttl", default: "none", "seconds an entry lives after its set; checked on get (none: no TTL)"),
                PolicyParameter("entry-cost-limit", default: "0.1",
                                "fraction of the cost limit an entry must stay below to be stored (0 to 1)"),
            ])
    }

    @usableFromInline var store = SlotArena<Key, Value>()
    /// The head is Nuke's `list.last` (newest), the tail Nuke's `list.first` (next candidate).
    /// A slot's `aux` is its reference bit.
    @usableFromInline var clock = SlotList()
    /// Each slot's expiry in trace time (+infinity: never).
    @usableFromInline var expiry: ContiguousArray<Double> = []
    @usableFromInline let costLimit: Int
    @usableFromInline let countLimit: Int
    @usableFromInline let ttl: Double
    @usableFromInline let entryMaxCost: Int
    @usableFromInline var now: Double = 0
    @usableFromInline var ignoredSets = 0

    public init(limits: CacheLimits, options: PolicyOptions) throws(PolicyConfigurationError) {
        try options.validate(against: Self.descriptor)
        try limits.validate(for: Self.descriptor)
        costLimit = limits.capacity ?? .max
        countLimit = limits.countLimit ?? .max
        ttl = options.string("ttl", default: "none") == "none" ? .infinity
            : try options.double("ttl", default: .infinity, in: 0...1e15)
        let fraction = try options.double("entry-cost-limit", default: 0.1, in: 0...1)
        // `recomputeEntryMaxCost()`.
        let product = fraction * Double(costLimit)
        entryMaxCost = product >= Double(Int.max) ? .max : Int(product)
    }

    @inlinable public var count: Int { clock.count }
    @inlinable public var totalCost: Int { clock.cost }

    @inlinable @inline(__always)
    public func prefetch(_ key: Key, _ stage: PrefetchStage) { store.prefetch(key, stage) }

    /// Whether `key` is resident, expired or not (an expired entry stays until a get finds it).
    @inlinable
    public func contains(_ key: Key) -> Bool { store.find(key) >= 0 }

    /// `value(forKey:)`: sets the reference bit; an expired entry is removed.
    @inlinable
    public mutating func lookup(_ key: Key, observer: inout some EvictionObserver<Key, Value>) -> Value? {
        let slot = store.find(key)
        guard slot >= 0 else { return nil }
        guard !(expiry[Int(slot)] < now) else {
            observer.trimWillBegin(.caller)
            store.evict(slot, from: &clock, observer: &observer)
            observer.trimDidEnd(.caller)
            return nil
        }
        store.setAux(slot, 1)
        return store.values[Int(slot)]
    }

    /// `set(_:forKey:cost:)`.
    @inlinable
    public mutating func insert(_ value: Value, forKey key: Key, cost: Int,
                                observer: inout some EvictionObserver<Key, Value>) {
        let cost = max(cost, 0)
        guard cost < entryMaxCost else {
            ignoredSets += 1
            return
        }
        let hash = store.hash(key)
        var slot = store.find(key, hash: hash)
        if slot >= 0 {
            // The node is reused in place; an update counts as a use.
            store.values[Int(slot)] = value
            store.setCost(slot, cost, in: &clock)
            store.setAux(slot, 1)
        } else {
            slot = store.allocate(key: key, hash: hash, value: value, cost: cost)
            store.pushHead(slot, &clock)
            while expiry.count <= Int(slot) { expiry.append(.infinity) }
        }
        expiry[Int(slot)] = now + ttl
        sweep(toCost: costLimit, toCount: countLimit, observer: &observer)
    }

    /// `removeValue(forKey:)`: not an eviction.
    @inlinable
    @discardableResult
    public mutating func remove(_ key: Key, observer: inout some EvictionObserver<Key, Value>) -> Value? {
        return store.remove(key, from: &clock)
    }

    /// Memory pressure removes everything; the background sweeps to 10 % of each limit.
    @inlinable
    public mutating func handle(_ event: CacheEvent, observer: inout some EvictionObserver<Key, Value>) {
        switch event {
        case .memoryWarning:
            store.evictAll(from: &clock, as: .caller, observer: &observer)
        case .background:
            sweep(toCost: Int(Double(costLimit) * 0.1), toCount: Int(Double(countLimit) * 0.1), observer: &observer)
        case .terminate:
            break
        }
    }

    @inlinable
    public mutating func advance(to time: Double, observer: inout some EvictionObserver<Key, Value>) {
        if time > now { now = time }
    }

    public var extraMetrics: [PolicyMetric] { [PolicyMetric("ignoredSets", ignoredSets)] }

    /// `_trim(toCost:)` then `_trim(toCount:)` with the CLOCK sweep, as one caller pass.
    @inlinable
    mutating func sweep(toCost costTarget: Int, toCount countTarget: Int, observer: inout some EvictionObserver<Key, Value>) {
        guard clock.cost > costTarget || clock.count > countTarget else { return }
        observer.trimWillBegin(.caller)
        while clock.cost > costTarget && !clock.isEmpty { secondChanceOrEvict(observer: &observer) }
        while clock.count > countTarget { secondChanceOrEvict(observer: &observer) }
        observer.trimDidEnd(.caller)
    }

    @inlinable @inline(__always)
    mutating func secondChanceOrEvict(observer: inout some EvictionObserver<Key, Value>) {
        let candidate = clock.tail
        if store.aux(candidate) != 0 {
            store.setAux(candidate, 0)
            store.moveToHead(candidate, &clock)
        } else {
            store.evict(candidate, from: &clock, observer: &observer)
        }
    }
}
