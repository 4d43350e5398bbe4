// kingfisher: Kingfisher's memory cache, `MemoryStorage.Backend`.
// Source: onevcat/Kingfisher @ 410984bf301f (8.11.0), Sources/Cache/MemoryStorage.swift (store,
// value(forKey:), removeExpired, StorageObject), Sources/Cache/Storage.swift (StorageExpiration),
// Sources/Utility/ExtensionHelpers.swift (Date.isPast), Sources/Cache/ImageCache.swift (lines
// 205–207: notifications). Spec: ``<doc:Kingfisher>``; test vector K1.
//
// Rule: an Apple NSCache of StorageObjects (value + sliding expiry), plus a key set for the sweep.
// The NSCache under this model is nscache-darwin (DarwinNSCacheApproximation.swift, §2.2):
// oldest insertion first under totalCostLimit (--capacity) and countLimit (--count-limit),
// everything purged on entering the background. THE LIMIT EVICTION ORDER IS THEREFORE AN
// APPROXIMATION; Kingfisher adds no order of its own.
//   - store: if the configured expiration is already expired (`.seconds(s)` with s <= 0), nothing
//     is stored; otherwise `setObject(StorageObject(value, expiry = now + expiration), cost:)`.
//   - get: an NSCache hit whose expiry has passed (`expiry − now <= 0`, Date.isPast) is a MISS,
//     but the object is NOT removed; otherwise the expiry slides to now + expiration (300 s by
//     default: "evict if idle for 5 minutes") and it is a hit.
//   - sweep: a repeating Timer every cleanInterval (120 s) from the backend's init runs
//     removeExpired(): every expired object is removed from the NSCache. O(n) per sweep.
//   - memory warning: ImageCache.clearMemoryCache, removeAll. Background and terminate: disk
//     cleanup only, but the values are plain objects (keepWhenEnteringBackground = false), so
//     Darwin's NSCache purges them on entering the background; keep-when-entering-background=true
//     wraps them in NSDiscardableContent, which that purge spares.
//
// K1: set a at 0; get a at 200 is a hit and moves the expiry to 500; get a at 501 is a miss but a
// stays resident; the sweep at 600 (sweeps at 120·k) removes it.
//
// Modelling choices. Trace time stands for Date(); the backend's init is the first advance. The
// sweep is a deferred pass (a main-run-loop timer, off the caller's path); the memory-warning
// purge is a caller pass (the notification handler); Darwin's purges are reported as
// nscache-darwin reports them. Kingfisher's `isCached` (resident and not expired) is
// `isCached(_:)`; `contains`, `count` and `totalCost` include expired entries still resident. The
// `expiredMisses` metric counts gets that found an expired object.

/// Kingfisher 8.11.0's `MemoryStorage.Backend`: the Darwin NSCache approximation with a sliding
/// per-object expiry (300 s), expired objects refused on get and removed by a 120 s sweep.
///
/// **Rule.** An NSCache (``DarwinNSCacheApproximation``: oldest insertion first under the
/// limits) of objects with an expiry. A store with an expiration of 0 or less stores nothing;
/// otherwise the object expires `expiration` seconds later. A get of an object whose expiry has
/// come is a miss but leaves it stored; a hit slides its expiry to now + `expiration`. A sweep
/// every `clean-interval` seconds from the init removes every expired object, oldest insertion
/// first (a deferred pass). A memory warning removes everything (a caller pass); entering the
/// background is the NSCache's purge unless `keep-when-entering-background`.
///
/// - Complexity: lookup, insert and remove are O(1) expected; a sweep is O(n).
public struct KingfisherMemoryStorage<Key: Hashable, Value>: ForwardingPolicy, _TimerDriven {
    public static var descriptor: PolicyDescriptor {
        PolicyDescriptor(
            name: "kingfisher",
            reproduces: "Kingfisher 8.11.0 MemoryStorage.Backend over NSCache (the nscache-darwin approximation)",
            rule: "NSCache (Darwin approximation: oldest insertion first under the limits, background purges all) with a sliding 300 s expiry: expired objects are misses but stay until a 120 s sweep removes them; memory warning removes all",
            family: .library, isApproximation: true, supportsCountLimit: true, defaultCapacity: .deviceShare,
            parameters: [
                PolicyParameter("expiration", default: "300", "seconds an object lives after its last store or hit (never: no expiry; 0 or less: nothing is stored, as Kingfisher's .seconds(s) with s <= 0 is expired at once)"),
                PolicyParameter("clean-interval", default: "120", "seconds between sweeps of expired objects"),
                PolicyParameter("keep-when-entering-background", default: "false",
                                "wrap values in NSDiscardableContent so the background purge spares them"),
                PolicyParameter("keep-position-on-reset", default: "true",
                                "the NSCache model: re-storing a key keeps its insertion position (false: it becomes the newest)"),
            ])
    }

    /// `storage`: the NSCache. Counts, removal and events are its; gets and stores add the expiry.
    public var base: DarwinNSCacheApproximation<Key, Value>
    /// Each NSCache slot's `estimatedExpiration`, in trace time.
    @usableFromInline var expiry = SideTable<Double>(filling: 0)
    /// `config.expiration` in seconds (+infinity: `.never`).
    public let expiration: Double
    /// The sweep timer, `cleanInterval` apart.
    @usableFromInline var timer: _Ticker
    @usableFromInline var now: Double = 0
    /// The earliest expiry among the objects the last sweep kept.
    @usableFromInline var earliestKept: Double = .infinity
    @usableFromInline var expiredMisses = 0

    public init(limits: CacheLimits, options: PolicyOptions) throws(PolicyConfigurationError) {
        try options.validate(against: Self.descriptor)
        try limits.validate(for: Self.descriptor)
        expiration = options.string("expiration", default: "300") == "never" ? .infinity
            : try options.double("expiration", default: 300)
        timer = _Ticker(period: try options.double("clean-interval", default: 120, in: 0.001...1e12))
        let keep = try options.bool("keep-when-entering-background", default: false)
        var nscacheOptions = ["remove-all-on-background": String(!keep)]
        if let value = options.values["keep-position-on-reset"] { nscacheOptions["keep-position-on-reset"] = value }
        base = try DarwinNSCacheApproximation(limits: limits, options: PolicyOptions(nscacheOptions))
        // The expiry times are kept by the NSCache's slot numbers: the NSCache must not renumber
        // them behind this model's back; this model compacts it (``compactIfSparse()``).
        base.compactsArena = false
    }

    /// Gives back the storage of a large purge: compacts the NSCache's arena and moves the expiry
    /// times with its slots. At the start of a get or a store, and after a removal, when no slot
    /// number is held. O(1) unless the arena is sparse.
    @inlinable @inline(__always)
    mutating func compactIfSparse() {
        guard let relocation = base.store.compactIfSparse() else { return }
        base.relocateSlots(relocation)
        expiry.relocate(relocation)
    }

    /// `isCached(forKey:)`: resident and not expired, so a get would hit.
    @inlinable
    public func isCached(_ key: Key) -> Bool {
        let slot = base.store.find(key)
        return slot >= 0 && now < expiry[slot]
    }

    /// `value(forKey:extendingExpiration: .cacheTime)`.
    @inlinable
    public mutating func lookup(_ key: Key, observer: inout some EvictionObserver<Key, Value>) -> Value? {
        compactIfSparse()
        let slot = base.store.find(key)
        guard slot >= 0 else { return nil }
        guard now < expiry[slot] else {
            expiredMisses += 1
            return nil
        }
        expiry[slot] = now + expiration
        return base.store.values[Int(slot)]
    }

    /// `store(value:forKey:)`.
    @inlinable
    public mutating func insert(_ value: Value, forKey key: Key, cost: Int,
                                observer: inout some EvictionObserver<Key, Value>) {
        guard expiration > 0 else { return }                   // already expired: not stored
        compactIfSparse()
        base.insert(value, forKey: key, cost: cost, observer: &observer)
        let slot = base.store.find(key)                        // gone if NSCache dropped it at once
        guard slot >= 0 else { return }
        expiry[slot] = now + expiration
    }

    /// A get, then a store on a miss: the NSCache's own access would not see the expiry.
    @inlinable
    public mutating func access(_ key: Key, cost: Int, orInsert value: @autoclosure () -> Value,
                                observer: inout some EvictionObserver<Key, Value>) -> Bool {
        lookupOrInsert(key, cost: cost, orInsert: value(), observer: &observer)
    }

    /// `removeObject(forKey:)`: the NSCache's removal, then the compaction it may allow.
    @inlinable
    @discardableResult
    public mutating func remove(_ key: Key, observer: inout some EvictionObserver<Key, Value>) -> Value? {
        defer { compactIfSparse() }
        return base.remove(key, observer: &observer)
    }

    /// Memory warning: `clearMemoryCache()`. Background: Darwin's purge. Terminate: disk only.
    @inlinable
    public mutating func handle(_ event: CacheEvent, observer: inout some EvictionObserver<Key, Value>) {
        base.handleAsLibraryStore(event, observer: &observer)
    }

    /// Keeps the sweep timer's beat and the time across a new, empty model (see
    /// ``EvictionPolicy/continueClock(of:)``).
    @inlinable
    public mutating func continueClock(of previous: Self) {
        continueTimer(of: previous)
        base.continueClock(of: previous.base)
    }

    /// Moves trace time forward, running each due sweep at its own time.
    @inlinable
    public mutating func advance(to time: Double, observer: inout some EvictionObserver<Key, Value>) {
        advanceTimer(to: time, observer: &observer)
    }

    public var extraMetrics: [PolicyMetric] { [PolicyMetric("expiredMisses", expiredMisses)] }

    /// `removeExpired()`: one deferred pass over every object, oldest insertion first.
    @inlinable
    mutating func timerDidFire(observer: inout some EvictionObserver<Key, Value>) {
        var earliest = Double.infinity
        let expiry = self.expiry, now = self.now
        var pass = TrimPass(.deferred)
        base.store.evictOldestFirst(from: &base.residents.list, pass: &pass, observer: &observer) { slot in
            let expires = expiry[slot]
            if expires <= now { return true }
            earliest = min(earliest, expires)
            return false
        }
        pass.end(&observer)
        earliestKept = earliest
    }

    /// A sweep removes something once the earliest expiry the last sweep kept has come.
    @inlinable
    func timerWouldEvict(at time: Double) -> Bool { earliestKept <= time }
}

extension KingfisherMemoryStorage {
    /// An entry's expiry: Kingfisher's `config` setter changes the limits and leaves the entries'
    /// expiration dates alone.
    @inlinable
    public func entryTime(forKey key: Key) -> Double? { expiry.element(forKey: key, in: base.store) }

    @inlinable
    public mutating func restoreEntryTime(_ time: Double, forKey key: Key) { expiry.setElement(time, forKey: key, in: base.store) }
}
