// LeCaRv0: libCacheSim's first LeCaR (Vietri et al., "Driving cache replacement with ML-based
// LeCaR", HotStorage'18), as libCacheSim 0.3.5's LeCaRv0.c (PyPI `libcachesim` 0.3.5,
// src/libCacheSim/cache/eviction/LeCaRv0.c), built from its LRU and LFU caches and two LRU ghost
// caches of half the capacity. No parameters besides the seed.

/// LeCaR as libCacheSim first wrote it, from separate LRU, LFU and ghost caches.
///
/// **Rule.** The same as ``LeCaRCache`` (read there) with the weights always learned from 0.5
/// each: LeCaRv0.c composes libCacheSim's `LRU` and `LFU` caches (whose LFU evicts the oldest
/// entry of the lowest frequency, as LeCaR.c's own chain does) and checks the LRU ghost before
/// the LFU ghost, which never both hold a key. The one difference: its ghosts are `LRU` caches of
/// half the capacity, which refuse a key larger than that, where LeCaR.c's ghost lists take it
/// and then drop their oldest keys until within half the capacity, emptying themselves. Only
/// byte-mode runs with objects over half the capacity tell the two apart.
///
/// - Complexity: as ``LeCaRCache``.
public struct LeCaRv0Cache<Key: Hashable, Value>: EvictionPolicy {
    public static var descriptor: PolicyDescriptor {
        PolicyDescriptor(
            name: "lecarv0", reproduces: "LeCaR (Vietri et al., HotStorage'18) as libCacheSim 0.3.5 LeCaRv0.c",
            rule: "LeCaR built from LRU, LFU and two ghost LRU caches of half the capacity (which refuse larger keys)",
            family: .research, isDeterministic: false,
            parameters: [PolicyParameter("seed", default: "1", "seed of the random generator")])
    }

    @usableFromInline var lecar: LeCaRCache<Key, Value>

    public init(limits: CacheLimits, options: PolicyOptions) throws(PolicyConfigurationError) {
        try options.validate(against: Self.descriptor)
        var forwarded = PolicyOptions()
        if let seed = options.values["seed"] { forwarded = PolicyOptions(["seed": seed]) }
        lecar = try LeCaRCache(limits: limits, options: forwarded)
        lecar.ghostsRefuseOversized = true
    }

    @inlinable public var count: Int { lecar.count }
    @inlinable public var totalCost: Int { lecar.totalCost }
    public var extraMetrics: [PolicyMetric] { lecar.extraMetrics }

    @inlinable @inline(__always)
    public mutating func prefetch(_ key: Key, _ stage: PrefetchStage) { lecar.prefetch(key, stage) }

    @inlinable public func contains(_ key: Key) -> Bool { lecar.contains(key) }

    @inlinable
    public mutating func lookup(_ key: Key, observer: inout some EvictionObserver<Key, Value>) -> Value? {
        lecar.lookup(key, observer: &observer)
    }

    @inlinable
    public mutating func access(_ key: Key, cost: Int, orInsert value: @autoclosure () -> Value,
                                observer: inout some EvictionObserver<Key, Value>) -> Bool {
        lecar.access(key, cost: cost, orInsert: value(), observer: &observer)
    }

    @inlinable
    public mutating func insert(_ value: Value, forKey key: Key, cost: Int, observer: inout some EvictionObserver<Key, Value>) {
        lecar.insert(value, forKey: key, cost: cost, observer: &observer)
    }

    @inlinable
    @discardableResult
    public mutating func remove(_ key: Key, observer: inout some EvictionObserver<Key, Value>) -> Value? {
        lecar.remove(key, observer: &observer)
    }
}
