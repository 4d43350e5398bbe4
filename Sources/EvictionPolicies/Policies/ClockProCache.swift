// CLOCK-Pro (Song Jiang, Feng Chen and Xiaodong Zhang, "CLOCK-Pro: An Effective Improvement of
// the CLOCK Replacement", USENIX ATC 2005) as libCacheSim 0.3.5 actually runs it: PyPI
// `libcachesim` 0.3.5, src/libCacheSim/cache/eviction/ClockPro.c (`ClockPro_can_insert`,
// `ClockPro_insert`, `ClockPro_find`, `ClockPro_remove`; defaults `init-ref=0,init-ratio-cold=1`).
// Exact on every golden row, which measure this rule and not the paper's.

/// libCacheSim 0.3.5's `clockpro`: new objects are admitted while they fit in the cold budget,
/// and nothing is ever evicted.
///
/// **Why this is not the paper's CLOCK-Pro.** libCacheSim's `ClockPro.c` implements the paper's
/// three hands (hot, cold, test) and its adaptive cold budget, but they are run only from its
/// `evict` function, and `evict` is never reached: `ClockPro_can_insert` refuses a new object
/// unless the cold pages plus the object fit in the cold budget (`mem_cold + size <=
/// mem_cold_max`), while `cache_get_base` calls `evict` only when the whole cache plus the object
/// would exceed the capacity. Every object enters cold, and objects only leave cold through the
/// hands, so the cache's occupancy always equals its cold size, which is at most the cold budget,
/// which is at most the capacity: whenever an object passes `can_insert` it also fits without an
/// eviction. The budget itself changes only inside the hands. So the cache fills up to
/// ⌊init-ratio-cold × capacity⌋ with the first objects that fit, then refuses every newcomer
/// forever. A counting wrapper around the `evict` and `insert` pointers of libCacheSim's own
/// cache showed zero `evict` calls on all 27 golden rows (see Traces/README.md). The golden table
/// measures this rule, so it is what `clockpro` does; the paper's algorithm is not provided here.
///
/// **Rule.**
/// - **Hit**: nothing changes (libCacheSim sets a reference bit that only the hands would read).
/// - **Miss**: an object larger than the capacity is not inserted. Otherwise it is inserted if
///   the resident cost plus its own is at most the cold budget, ⌊init-ratio-cold × capacity⌋
///   (truncated, as libCacheSim's `int64_t` cast), and (cachebench's count limit, which
///   libCacheSim lacks) the count stays within the count limit; if not, it is refused and the
///   cache is left as it was.
/// - **Update** of a resident key: the same cost is a hit; a new cost drops the old entry (not an
///   eviction) and the object is a miss under the rule above (libCacheSim's find-then-insert).
/// - **Remove** frees the entry's cost, so a later newcomer may fit again.
///
/// - Complexity: every operation is O(1) expected.
public struct ClockProCache<Key: Hashable, Value>: SingleListPolicy {
    public static var descriptor: PolicyDescriptor {
        PolicyDescriptor(
            name: "clockpro", reproduces: "CLOCK-Pro as libCacheSim 0.3.5 ClockPro.c runs it (never evicts)",
            rule: "admit a new object while the resident cost plus its own fits in the cold budget "
                + "(init-ratio-cold × capacity), otherwise refuse it; nothing is ever evicted, because libCacheSim's "
                + "admission check refuses before its CLOCK-Pro hands could run",
            family: .research, supportsCountLimit: true,
            parameters: [
                PolicyParameter("init-ratio-cold", default: "1",
                                "cold budget as a share of the capacity, truncated: the most the cache ever holds"),
                PolicyParameter("init-ref", default: "false",
                                "reference bit of a new object; read only by libCacheSim's hands, which never run, "
                                    + "so it changes no outcome"),
            ])
    }

    public var store = SlotArena<Key, Value>()
    /// The resident entries, newest at the head: libCacheSim's clock list, where every object
    /// stays where it entered.
    public var residents: LimitedList
    /// libCacheSim's `mem_cold_max`: the most cost the cache admits.
    @usableFromInline let coldBudget: Int

    /// The cold budget is a share of the capacity: new limits take a new policy.
    @inlinable public mutating func adoptLimits(of other: Self) -> Bool { false }

    public init(limits: CacheLimits, options: PolicyOptions) throws(PolicyConfigurationError) {
        residents = try LimitedList(for: Self.descriptor, limits: limits, options: options)
        coldBudget = _proportion(of: residents.capacity, try options.double("init-ratio-cold", default: 1, in: 0...1))
        // Validated so that a typo is reported, though no decision reads it.
        _ = try options.bool("init-ref", default: false)
    }

    /// No decision depends on a hit.
    @inlinable public mutating func didHit(_ slot: Int32) {}

    /// `ClockPro_can_insert`: the newcomer must fit in the cold budget beside everything resident.
    @inlinable public mutating func admits(_ key: Key, cost: Int) -> Bool {
        totalCost <= coldBudget - cost && count < countLimit
    }

    /// Never asked: ``admits(_:cost:)`` keeps the resident cost within the cold budget (at most
    /// the capacity) and the count within its limit, so ``makeRoom(forCost:count:observer:)``
    /// finds room already, and an update re-enters through the miss. Answers the oldest entry,
    /// which is what a FIFO of the clock list would give up.
    @inlinable public mutating func victim() -> Int32 { residents.tail }

    /// libCacheSim's find-then-insert: a new cost is a new object, admitted or refused as a miss.
    @inlinable
    public mutating func replace(_ slot: Int32, with value: Value, cost: Int,
                                 observer: inout some EvictionObserver<Key, Value>) {
        _updateAsHitOrNewObject(slot, with: value, cost: cost, observer: &observer)
    }
}

extension ClockProCache: SlotRelocatingPolicy {
    /// Renumbers the list's ends after a compaction.
    @inlinable public mutating func relocateSlots(_ relocation: SlotRelocation) { residents.relocate(relocation) }
}
