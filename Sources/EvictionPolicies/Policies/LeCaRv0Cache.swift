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
public struct LeCaRv0Cache<Key: Hashable, Value>: ForwardingPolicy {
    public static var descriptor: PolicyDescriptor {
        PolicyDescriptor(
            name: "lecarv0", reproduces: "LeCaR (Vietri et al., HotStorage'18) as libCacheSim 0.3.5 LeCaRv0.c",
            rule: "LeCaR built from LRU, LFU and two ghost LRU caches of half the capacity (which refuse larger keys)",
            family: .research, isDeterministic: false,
            parameters: [PolicyParameter("seed", default: "1", "seed of the random generator")])
    }

    /// The LeCaR cache this one runs, its ghosts refusing keys over half the capacity.
    public var base: LeCaRCache<Key, Value>

    public init(limits: CacheLimits, options: PolicyOptions) throws(PolicyConfigurationError) {
        try options.validate(against: Self.descriptor)
        var forwarded = PolicyOptions()
        if let seed = options.values["seed"] { forwarded = PolicyOptions(["seed": seed]) }
        base = try LeCaRCache(limits: limits, options: forwarded)
        base.ghostsRefuseOversized = true
    }
}
