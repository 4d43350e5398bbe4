// nuke-lru: Nuke's memory cache (`ImageCache`, over its internal `Cache`) up to 13.0.4: strict LRU.
// Source: kean/Nuke tags 12.8.0 and 13.0.0–13.0.4, Sources/Nuke/Caching/Cache.swift and
// ImageCache.swift. Spec: ``<doc:Nuke>``; test vectors NK1 (LRU column) and NK2.
// The CLOCK cache of 13.0.5 and later is nuke-clock (NukeClockCache.swift).
//
// Rule: a map plus a linked list whose first node is the least recently used.
//   - get: an entry whose TTL has passed (`expiration < now`) is removed and the get is a miss;
//     otherwise the node moves to the most-recently-used end (`list.remove; list.append`).
//   - set: a cost of at least `Int(entryCostLimit × costLimit)` (0.1 by default) is silently
//     IGNORED: nothing is stored and the key's old value, if any, stays (NK2). The check is
//     skipped when costLimit > 2_147_483_647 (Int32.max), as in 12.x–13.0.4. Otherwise the old
//     node, if any, is removed and a new one appended at the MRU end, and `_trim()` removes
//     `list.first` while totalCost > costLimit, then while count > countLimit. Synchronous.
//   - TTL (`ttl`, none by default) is checked lazily on get; there is no timer.
//   - memory pressure (DispatchSource .warning/.critical; the trace's memory-warning) removes
//     everything; entering the background trims to 10 % of the cost limit, then to 10 % of the
//     count limit (`Int(Double(limit) * 0.1)`), from the LRU end.
//
// Modelling choices. Time is trace time, set by `advance(to:)`; an expiry is `now + ttl` at the
// set. Nuke marks "never expires" with a timestamp of 0; here it is +infinity, so a trace that
// starts at time 0 cannot collide with it. Removing an expired entry on get, the set's trim and
// the two notification handlers are caller passes (the lock holder waits for them). The
// `ignoredSets` metric counts sets dropped by the entry cost cap.

/// Nuke's memory cache up to 13.0.4: LRU with a per-entry cost cap at 10 % of the cost limit, a
/// lazy TTL, removal of everything under memory pressure and a trim to 10 % in the background.
///
/// - Complexity: lookup, insert and remove are O(1) expected; each eviction is O(1).
public struct NukeLRUCache<Key: Hashable, Value>: EvictionPolicy {
    public static var descriptor: PolicyDescriptor {
        PolicyDescriptor(
            name: "nuke-lru",
            reproduces: "Nuke 12.x–13.0.4 ImageCache / Cache",
            rule: "LRU; a set costing at least 10 % of the cost limit is ignored (old value kept); sync trim to the limits on set; lazy TTL; memory warning removes all; background trims to 10 %",
            family: .library, supportsCountLimit: true, defaultCapacity: .workingSetFraction,
            parameters: [
                PolicyParameter("ttl", default: "none", "seconds an entry lives after its set; checked on get (none: no TTL)"),
                PolicyParameter("entry-cost-limit", default: "0.1",
                                "fraction of the cost limit an entry must stay below to be stored (0 to 1; skipped above 2^31-1 bytes)"),
            ])
    }

    @usableFromInline var store = SlotArena<Key, Value>()
    /// The head is the most recently used entry (Nuke's `list.last`), the tail Nuke's `list.first`.
    @usableFromInline var lru = SlotList()
    /// Each slot's expiry in trace time (+infinity: never).
    @usableFromInline var expiry: ContiguousArray<Double> = []
    @usableFromInline let costLimit: Int
    @usableFromInline let countLimit: Int
    @usableFromInline let ttl: Double
    /// The cost a set must stay below, or `Int.max` when the check is skipped.
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
        // 12.x–13.0.4: `costLimit > 2_147_483_647 || cost < Int(sanitized * Double(costLimit))`.
        entryMaxCost = costLimit > 2_147_483_647 ? .max : Int(fraction * Double(costLimit))
    }

    @inlinable public var count: Int { lru.count }
    @inlinable public var totalCost: Int { lru.cost }

    @inlinable @inline(__always)
    public func prefetch(_ key: Key, _ stage: PrefetchStage) { store.prefetch(key, stage) }

    /// Whether `key` is resident, expired or not (an expired entry stays until a get finds it).
    @inlinable
    public func contains(_ key: Key) -> Bool { store.find(key) >= 0 }

    /// `value(forKey:)`.
    @inlinable
    public mutating func lookup(_ key: Key, observer: inout some EvictionObserver<Key, Value>) -> Value? {
        let slot = store.find(key)
        guard slot >= 0 else { return nil }
        guard !(expiry[Int(slot)] < now) else {
            observer.trimWillBegin(.caller)
            store.evict(slot, from: &lru, observer: &observer)
            observer.trimDidEnd(.caller)
            return nil
        }
        store.moveToHead(slot, &lru)
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
            store.values[Int(slot)] = value
            store.setCost(slot, cost, in: &lru)
            store.moveToHead(slot, &lru)
        } else {
            slot = store.allocate(key: key, hash: hash, value: value, cost: cost)
            store.pushHead(slot, &lru)
            while expiry.count <= Int(slot) { expiry.append(.infinity) }
        }
        expiry[Int(slot)] = now + ttl
        trim(toCost: costLimit, toCount: countLimit, observer: &observer)
    }

    /// `removeValue(forKey:)`: not an eviction.
    @inlinable
    @discardableResult
    public mutating func remove(_ key: Key, observer: inout some EvictionObserver<Key, Value>) -> Value? {
        return store.remove(key, from: &lru)
    }

    /// Memory pressure removes everything; the background trims to 10 % of each limit.
    @inlinable
    public mutating func handle(_ event: CacheEvent, observer: inout some EvictionObserver<Key, Value>) {
        switch event {
        case .memoryWarning:
            store.evictAll(from: &lru, as: .caller, observer: &observer)
        case .background:
            trim(toCost: Int(Double(costLimit) * 0.1), toCount: Int(Double(countLimit) * 0.1), observer: &observer)
        case .terminate:
            break
        }
    }

    @inlinable
    public mutating func advance(to time: Double, observer: inout some EvictionObserver<Key, Value>) {
        if time > now { now = time }
    }

    public var extraMetrics: [PolicyMetric] { [PolicyMetric("ignoredSets", ignoredSets)] }

    /// `_trim(toCost:)` then `_trim(toCount:)`: remove `list.first` while over each; one caller pass.
    @inlinable
    mutating func trim(toCost costTarget: Int, toCount countTarget: Int, observer: inout some EvictionObserver<Key, Value>) {
        guard lru.cost > costTarget || lru.count > countTarget else { return }
        observer.trimWillBegin(.caller)
        while !lru.isEmpty && lru.cost > costTarget { store.evict(lru.tail, from: &lru, observer: &observer) }
        while lru.count > countTarget { store.evict(lru.tail, from: &lru, observer: &observer) }
        observer.trimDidEnd(.caller)
    }
}
