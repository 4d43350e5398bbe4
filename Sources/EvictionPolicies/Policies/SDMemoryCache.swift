// sd-memory: SDWebImage's SDMemoryCache (4.3.1 and later; 5.x).
// Source: SDWebImage/SDWebImage @ 36e79ba485e9 (5.21.5), SDWebImage/Core/SDMemoryCache.m
// (weak map and memory warning, lines 60–150), SDImageCacheConfig.m.
// Spec: ``<doc:SDWebImage>``
//
// Rule: `SDMemoryCache : NSCache`, so every limit-based eviction is Apple's NSCache, which is not
// open source. The NSCache under this model is nscache-darwin (DarwinNSCacheApproximation.swift,
// ``<doc:SDWebImage>``): oldest insertion first under the limits (totalCostLimit =
// maxMemoryCost = --capacity, countLimit = maxMemoryCount = --count-limit), everything purged on
// entering the background. THE EVICTION ORDER IS THEREFORE AN APPROXIMATION. SD adds:
//   - memory warning: `[super removeAllObjects]`, the strong NSCache part only (lines 78–81);
//   - the optional weak map (`shouldUseWeakMemoryCache`: on by default in 4.4.2–5.11.x, off from
//     5.12.0, so `weak-cache=false` by default). Every set also stores the object in an
//     NSMapTable with weak values. A get that misses the NSCache finds the object there if it
//     is still alive, re-inserts it into the NSCache with its cost (`sd_memoryCost`), and is a
//     hit. remove clears both stores; the memory warning and Darwin's own purges clear only the
//     NSCache.
//
// "Still alive" depends on who else holds the image, which a trace does not say. The model's
// rule, documented in the descriptor: `held-window=N` views (cells on screen, default 20) hold
// the images of the last N distinct keys served by a get (a hit, a weak-map hit, or a miss the
// app then stored). An object is alive while the NSCache holds it or a view does; once neither
// does it is freed, and the weak entry with it. A set gives the weak map a new object that no
// view holds yet: the key's view keeps its place in the held window (the window is the last N
// gets, whatever was stored since) but shows the old object, which the weak map no longer has,
// until the next get serves the new one. A removal leaves the view the same way.
// This is exact for the weak map under that rule: its live entries are the NSCache's plus the
// held window's, and the model keeps the held window, with the objects the views hold.
//
// Modelling choices. count, totalCost and contains are the NSCache's (the weak map owns nothing;
// isRecoverable says whether a get would bring an object back from it). The memory-warning purge is a caller pass
// (SD's notification handler); Darwin's background purge and its limit evictions are reported as
// nscache-darwin reports them. Views releasing images are not evictions. The `weakCacheHits`
// metric counts gets served from the weak map.

/// SDWebImage's `SDMemoryCache`: an NSCache (the Darwin approximation) that a memory warning
/// empties, with an optional weak map that recovers images still held by views.
///
/// **Rule.** SDWebImage 5.21.5's `SDMemoryCache` is an NSCache (``DarwinNSCacheApproximation``:
/// oldest insertion first under the limits; entering the background purges it); a memory warning
/// removes the NSCache's objects (a caller pass). With `weak-cache=true` every set also stores the
/// object in a weak map, and a get that misses the NSCache but finds the object alive there
/// re-inserts it with its cost and hits. An object is alive while the NSCache holds it or one of
/// the views showing the last `held-window` distinct keys served by a get does.
///
/// - Complexity: lookup, insert and remove are O(1) expected; each eviction is O(1).
public struct SDMemoryCache<Key: Hashable, Value>: EvictionPolicy {
    public static var descriptor: PolicyDescriptor {
        PolicyDescriptor(
            name: "sd-memory",
            reproduces: "SDWebImage 5.21.5 SDMemoryCache over NSCache (the nscache-darwin approximation)",
            rule: "NSCache (Darwin approximation: oldest insertion first under the limits, background purges all); memory warning removes the strong part only; with weak-cache=true, a miss is served from the weak map while one of the last held-window distinct keys got by a get still holds the image",
            family: .library, isApproximation: true, supportsCountLimit: true, defaultCapacity: .workingSetFraction,
            parameters: [
                PolicyParameter("weak-cache", default: "false",
                                "shouldUseWeakMemoryCache (off since SD 5.12.0, on in 4.4.2–5.11.x)"),
                PolicyParameter("held-window", default: "20",
                                "with weak-cache: views hold the images of the last N distinct keys served by a get"),
                PolicyParameter("keep-position-on-reset", default: "true",
                                "the NSCache model: re-setting a key keeps its insertion position (false: it becomes the newest)"),
                PolicyParameter("remove-all-on-background", default: "true",
                                "the NSCache model: entering the background purges the strong part"),
            ])
    }

    /// The NSCache that SDMemoryCache is.
    @usableFromInline var nscache: DarwinNSCacheApproximation<Key, Value>
    /// The images views hold, newest get at the head, at most `heldWindow` of them.
    @usableFromInline var held = SlotArena<Key, Value>()
    @usableFromInline var heldOrder = SlotList()
    /// `shouldUseWeakMemoryCache`.
    public let usesWeakCache: Bool
    /// How many distinct recently got keys views hold.
    public let heldWindow: Int
    @usableFromInline var weakCacheHits = 0

    public init(limits: CacheLimits, options: PolicyOptions) throws(PolicyConfigurationError) {
        try options.validate(against: Self.descriptor)
        try limits.validate(for: Self.descriptor)
        usesWeakCache = try options.bool("weak-cache", default: false)
        heldWindow = try options.integer("held-window", default: 20, in: 0...100_000_000)
        var nscacheOptions: [String: String] = [:]
        for name in ["keep-position-on-reset", "remove-all-on-background"] {
            if let value = options.values[name] { nscacheOptions[name] = value }
        }
        nscache = try DarwinNSCacheApproximation(limits: limits, options: PolicyOptions(nscacheOptions))
    }

    @inlinable public var count: Int { nscache.count }
    @inlinable public var totalCost: Int { nscache.totalCost }

    /// Whether `key` is in the NSCache. The weak map owns nothing, so its live objects are not
    /// resident (``count`` leaves them out too); ``isRecoverable(_:)`` says whether a get would
    /// bring one back.
    @inlinable
    public func contains(_ key: Key) -> Bool { nscache.contains(key) }

    /// Whether `key` is out of the NSCache but alive in the weak map, so a get would re-insert it.
    @inlinable
    public func isRecoverable(_ key: Key) -> Bool {
        guard usesWeakCache && !nscache.contains(key) else { return false }
        let slot = held.find(key)
        return slot >= 0 && held.isResident(slot)
    }

    /// `objectForKey:`.
    @inlinable
    public mutating func lookup(_ key: Key, observer: inout some EvictionObserver<Key, Value>) -> Value? {
        let strong = nscache.store.find(key)
        if strong >= 0 {
            guard let value = nscache.store.values[Int(strong)] else { return nil }
            if usesWeakCache { hold(value, forKey: key, cost: nscache.store.cost(strong)) }
            return value
        }
        guard usesWeakCache else { return nil }
        let weak = held.find(key)
        guard weak >= 0, let value = held.values[Int(weak)] else { return nil }
        // The object is alive: `[super setObject:obj forKey:key cost:obj.sd_memoryCost]`.
        weakCacheHits += 1
        held.moveToHead(weak, &heldOrder)
        nscache.insert(value, forKey: key, cost: held.cost(weak), observer: &observer)
        return value
    }

    @inlinable
    public mutating func access(_ key: Key, cost: Int, orInsert value: @autoclosure () -> Value,
                                observer: inout some EvictionObserver<Key, Value>) -> Bool {
        if lookup(key, observer: &observer) != nil { return true }
        let created = value()
        insert(created, forKey: key, cost: cost, observer: &observer)
        if usesWeakCache { hold(created, forKey: key, cost: max(cost, 0)) }
        return false
    }

    /// `setObject:forKey:cost:`: the NSCache, and the weak map, whose new object no view holds yet.
    @inlinable
    public mutating func insert(_ value: Value, forKey key: Key, cost: Int,
                                observer: inout some EvictionObserver<Key, Value>) {
        nscache.insert(value, forKey: key, cost: cost, observer: &observer)
        if usesWeakCache { unmap(key) }
    }

    /// `removeObjectForKey:`: both stores; not an eviction.
    @inlinable
    @discardableResult
    public mutating func remove(_ key: Key, observer: inout some EvictionObserver<Key, Value>) -> Value? {
        let strong = nscache.remove(key, observer: &observer)
        let weak = usesWeakCache ? unmap(key) : nil
        return strong ?? weak
    }

    /// The limits SDWebImage's config syncs to its NSCache (KVO on `maxMemoryCost` and
    /// `maxMemoryCount`): the NSCache's change, the weak map untouched.
    @inlinable public mutating func adoptLimits(of other: Self) -> Bool { nscache.adoptLimits(of: other.nscache) }

    /// The NSCache's own victims, oldest first; what leaves it stays in the weak map while a
    /// view holds it, as any NSCache eviction does.
    @inlinable
    public mutating func evictVictims(downToCount count: Int, cost: Int, observer: inout some EvictionObserver<Key, Value>) -> Bool {
        nscache.evictVictims(downToCount: count, cost: cost, observer: &observer)
    }

    /// Memory warning: `[super removeAllObjects]`, the weak map untouched. Background: Darwin's purge.
    @inlinable
    public mutating func handle(_ event: CacheEvent, observer: inout some EvictionObserver<Key, Value>) {
        nscache.handleAsLibraryStore(event, observer: &observer)
    }

    public var extraMetrics: [PolicyMetric] { [PolicyMetric("weakCacheHits", weakCacheHits)] }

    /// A view now shows `value` for `key`: it joins (or moves to the front of) the held window,
    /// and the view that held the oldest image lets it go.
    @inlinable
    mutating func hold(_ value: Value, forKey key: Key, cost: Int) {
        let slot = held.find(key)
        if slot >= 0 {
            held.setValue(slot, value)
            held.setCost(slot, cost, in: &heldOrder)
            held.moveToHead(slot, &heldOrder)
            return
        }
        guard heldWindow > 0 else { return }
        held.pushHead(held.allocate(key: key, value: value, cost: cost), &heldOrder)
        if heldOrder.count > heldWindow {
            let oldest = heldOrder.tail
            held.unlink(oldest, &heldOrder)
            held.release(oldest)
        }
    }

    /// The weak map no longer maps `key` to the object its view holds (a set replaced it, or a
    /// removal cleared it): the view keeps its place in the held window, and the object is no
    /// longer recoverable. Returns that object, if the weak map had it.
    @inlinable
    @discardableResult
    mutating func unmap(_ key: Key) -> Value? {
        let slot = held.find(key)
        guard slot >= 0 else { return nil }
        let value = held.value(slot)
        held.setValue(slot, nil)
        return value
    }
}
