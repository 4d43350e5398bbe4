// What Nuke's two memory caches (nuke-lru up to 13.0.4, nuke-clock from 13.0.5) share around
// their eviction rule: the per-entry cost cap, the lazy TTL, trace time, the memory-pressure and
// background handlers. Spec: ``<doc:Nuke>``.

/// The limits and entry rules of Nuke's `Cache`: a set costing at least `entryMaxCost` is
/// ignored, and an entry expires `ttl` seconds after its set (checked lazily, on get).
public struct _NukeEntryRules: Sendable {
    /// `costLimit` and `countLimit` (`Int.max` for none).
    @usableFromInline var capacity = Int.max
    @usableFromInline var countLimit = Int.max
    @usableFromInline let ttl: Double
    /// The cost a set must stay below, or `Int.max` when the check is skipped.
    @usableFromInline var entryMaxCost: Int
    /// Each slot's expiry in trace time (+infinity: never, where Nuke writes 0).
    @usableFromInline var expiry = SideTable<Double>(filling: .infinity)
    @usableFromInline var now: Double = 0
    @usableFromInline var ignoredSets = 0

    /// Reads `ttl` ("none" or seconds) and `entry-cost-limit` (a fraction of `costLimit`);
    /// `entryMaxCost` turns the fraction into the cap as the modelled Nuke version does.
    @usableFromInline
    init(options: PolicyOptions, entryMaxCost: (Double) -> Int) throws(PolicyConfigurationError) {
        ttl = options.string("ttl", default: "none") == "none" ? .infinity
            : try options.double("ttl", default: .infinity, in: 0...1e15)
        self.entryMaxCost = entryMaxCost(try options.double("entry-cost-limit", default: 0.1, in: 0...1))
    }

    /// Validates `options` and `limits` against `descriptor`: the limits (`Int.max` for none) and
    /// the entry rules, whose cap `entryMaxCost(costLimit, fraction)` computes.
    static func configure(_ descriptor: PolicyDescriptor, limits: CacheLimits, options: PolicyOptions,
                          entryMaxCost: (Int, Double) -> Int)
        throws(PolicyConfigurationError) -> _NukeEntryRules {
        let (capacity, countLimit) = try limits.validated(for: descriptor, options: options)
        var rules = try _NukeEntryRules(options: options) { entryMaxCost(capacity, $0) }
        (rules.capacity, rules.countLimit) = (capacity, countLimit)
        return rules
    }

    /// The limits of `other` and the entry cap they give; the entries' expiries and the time stay.
    @inlinable
    mutating func adoptLimits(of other: _NukeEntryRules) {
        (capacity, countLimit, entryMaxCost) = (other.capacity, other.countLimit, other.entryMaxCost)
    }

    /// A set starts the entry's TTL. Called on the model's own stored `rules`: written through
    /// the protocol's `rules` accessor, the table would be copied whole on every set.
    @inlinable
    mutating func startTTL(_ slot: Int32) { expiry[slot] = now + ttl }

    /// The options both caches take; `entryCostLimitNote` ends the cap's description.
    static func parameters(entryCostLimitNote: String) -> [PolicyParameter] {
        [PolicyParameter("ttl", default: "none", "seconds an entry lives after its set; checked on get (none: no TTL)"),
         PolicyParameter("entry-cost-limit", default: "0.1",
                         "fraction of the cost limit an entry must stay below to be stored" + entryCostLimitNote)]
    }
}

/// One of Nuke's memory caches: ``_NukeEntryRules`` around an eviction rule that a set trims to
/// (cost limit, then count limit) synchronously.
public protocol _NukeCacheModel: LibraryModelPolicy {
    /// The cost cap, the TTL and the clock.
    var rules: _NukeEntryRules { get set }
    /// Memory pressure: removes every entry as one caller pass.
    mutating func removeAll(observer: inout some EvictionObserver<Key, Value>)
}

extension _NukeCacheModel {
    @inlinable public var capacity: Int { rules.capacity }
    @inlinable public var countLimit: Int { rules.countLimit }

    /// Nuke's `costLimit` and `countLimit` setters: the new limits and the entry cap they give,
    /// each entry's place (and reference bit) and expiry kept.
    @inlinable
    public mutating func adoptLimits(of other: Self) -> Bool {
        rules.adoptLimits(of: other.rules)
        return true
    }

    /// Keeps the time across a new, empty model (see ``EvictionPolicy/continueClock(of:)``), so
    /// the entries stored next expire `ttl` after their set, not after time 0.
    @inlinable
    public mutating func continueClock(of previous: Self) { rules.now = previous.rules.now }

    /// An entry's expiry: Nuke's `costLimit` and `countLimit` setters trim, and leave the
    /// survivors' expiration dates alone.
    @inlinable
    public func entryTime(forKey key: Key) -> Double? { rules.expiry.element(forKey: key, in: store) }

    @inlinable
    public mutating func restoreEntryTime(_ time: Double, forKey key: Key) { rules.expiry.setElement(time, forKey: key, in: store) }

    /// A set (new key or resident) costing at least `entryMaxCost` is ignored; the old value stays.
    @inlinable
    public mutating func admits(_ key: Key, cost: Int) -> Bool {
        guard cost < rules.entryMaxCost else {
            rules.ignoredSets += 1
            return false
        }
        return true
    }

    /// A get of an entry whose TTL has passed (`expiration < now`) removes it and misses.
    @inlinable
    public mutating func refusesHit(_ slot: Int32, observer: inout some EvictionObserver<Key, Value>) -> Bool {
        guard rules.expiry[slot] < rules.now else { return false }
        var pass = TrimPass(.caller)
        pass.willRemove(&observer)
        evict(slot, observer: &observer)
        pass.end(&observer)
        return true
    }

    /// Memory pressure removes everything; entering the background trims to 10 % of the cost
    /// limit, then of the count limit (`Int(Double(limit) * 0.1)`).
    @inlinable
    public mutating func handle(_ event: CacheEvent, observer: inout some EvictionObserver<Key, Value>) {
        switch event {
        case .memoryWarning:
            removeAll(observer: &observer)
        case .background:
            evictVictims(toCost: Int(Double(capacity) * 0.1), toCount: Int(Double(countLimit) * 0.1),
                         as: .caller, observer: &observer)
        case .terminate:
            break
        }
    }

    @inlinable
    public mutating func advance(to time: Double, observer: inout some EvictionObserver<Key, Value>) {
        if time > rules.now { rules.now = time }
    }

    /// `ignoredSets`: sets dropped by the entry cost cap.
    public var extraMetrics: [PolicyMetric] { [PolicyMetric("ignoredSets", rules.ignoredSets)] }
}
