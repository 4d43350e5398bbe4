// Hyperbolic caching (Blankstein, Sen and Freedman, "Hyperbolic caching: flexible caching for web
// applications", USENIX ATC'17), as libCacheSim 0.3.5's Hyperbolic.c (PyPI `libcachesim` 0.3.5,
// src/libCacheSim/cache/eviction/Hyperbolic.c), default `n-sample=64`.

/// A cache that evicts, among random residents, the one with the lowest request rate since it
/// entered the cache: its hits plus one, divided by its age.
///
/// **Rule** (libCacheSim 0.3.5 `Hyperbolic.c`). A new object enters with frequency 1 and the
/// current request count as its entry time; a hit adds 1 to its frequency. A miss evicts until
/// the new object fits (cost and count): each eviction draws `n-sample` residents with
/// replacement as libCacheSim's `hashtable_rand_obj` draws them (see `_ChainedSample`; its table
/// starts at 2^12 buckets, as `cachesim` sizes Hyperbolic's) and evicts the lowest
/// 10^8 × frequency / (requests since entry), the first drawn among equals. The age counts every
/// request, the current one included. An object larger than the capacity is never inserted.
/// The draws come from a generator seeded by `seed`.
///
/// - Complexity: lookup, insert and remove are O(1) expected; each eviction is O(`n-sample`) expected.
public struct HyperbolicCache<Key: Hashable, Value>: _SampledPolicy {
    public static var descriptor: PolicyDescriptor {
        PolicyDescriptor(
            name: "hyperbolic", reproduces: "Hyperbolic caching (Blankstein et al., ATC'17) as libCacheSim 0.3.5 Hyperbolic.c",
            rule: "draw n-sample random residents and evict the one with the fewest requests per request since it entered",
            family: .research, supportsCountLimit: true, isDeterministic: false,
            parameters: [
                PolicyParameter("n-sample", default: "64", "residents drawn per eviction, 1 to 10000", aliases: ["n-samples"]),
                PolicyParameter("seed", default: "1", "seed of the random generator"),
            ])
    }

    public var store = SlotArena<Key, Value>()
    /// The residents drawn from.
    public var residents: _SampledResidents<_ChainedSample>
    /// The limits and the residents' total cost.
    public var budget: PolicyBudget
    /// Per slot: its frequency and entry time, side by side, so a draw's score loads one line.
    @usableFromInline var rates = SideTable<(frequency: UInt32, entered: Int64)>(filling: (frequency: 0, entered: 0))
    /// Requests so far, the current one included (libCacheSim's `n_req`).
    @usableFromInline var requests: Int64 = 0
    @usableFromInline let samples: Int

    public init(limits: CacheLimits, options: PolicyOptions) throws(PolicyConfigurationError) {
        budget = try PolicyBudget(for: Self.descriptor, limits: limits, options: options)
        samples = try options.integer("n-sample", default: 64, in: 1...10_000)
        residents = try _SampledResidents(options: options, buckets: 1 << 12)
    }

    @inlinable @inline(__always)
    public func prefetch(_ key: Key, _ stage: PrefetchStage) { store.prefetch(key, stage) }

    @inlinable @inline(__always)
    public mutating func _withResidents<Result>(
        _ body: (inout SlotArena<Key, Value>, inout _SampledResidents<_ChainedSample>) -> Result
    ) -> Result { body(&store, &residents) }

    @inlinable public mutating func didHit(_ slot: Int32) {
        requests += 1
        rates[slot].frequency &+= 1
    }

    /// The flow's miss step, counting the request first so that evictions see its age.
    @inlinable
    public mutating func insertNew(_ value: Value, forKey key: Key, hash: UInt64, cost: Int,
                                   observer: inout some EvictionObserver<Key, Value>) {
        requests += 1
        guard observer.admits(key, cost: cost), cost <= capacity else { return }   // libCacheSim's order: admissioner, then size
        makeRoom(forCost: cost, count: 1, observer: &observer)
        didInsert(store.allocate(key: key, hash: hash, value: value, cost: cost))
    }

    @inlinable public mutating func didInsert(_ slot: Int32) {
        rates[slot] = (frequency: 1, entered: requests)
        _sample(slot)
    }

    /// The lowest rate among the draws. libCacheSim starts from a score of 10^16, which every
    /// resident is below (an age of 0 would need an object inserted by this same request, and
    /// none is resident yet), so starting from the first draw is the same choice.
    @inlinable public mutating func victim() -> Int32 {
        _lowest(of: samples, prefetch: { policy, slot in policy.rates.prefetch(slot) }) { policy, slot in
            _HyperbolicRate(policy.rates[slot], at: policy.requests)
        }
    }
}

/// A resident's rate as libCacheSim scores it, 10^8 × frequency / age in a `Double`, ordered
/// exactly as those scores are but mostly without dividing.
///
/// Why: an eviction compares 64 draws with the best so far, and 64 divisions were a tenth of
/// the replay. 10^8 × frequency is exact in a `Double` (it is 2^8 × 390 625 × frequency, and
/// 390 625 × frequency < 2^51), so is an age below 2^53, and a correctly rounded division is
/// monotonic: a score
/// can only be below another if the exact rate is (frequency × other age < other frequency ×
/// age). Most draws fail that cross-multiplied test; the others are compared by their scores, so
/// two rates whose scores round to the same `Double` stay equal, as in libCacheSim.
@usableFromInline
struct _HyperbolicRate: Comparable {
    @usableFromInline let frequency: UInt32
    /// Requests since the entry, at least 1 for a resident.
    @usableFromInline let age: Int64

    /// The rate of a resident with `rate`'s frequency and entry time, `requests` requests in.
    @inlinable init(_ rate: (frequency: UInt32, entered: Int64), at requests: Int64) {
        frequency = rate.frequency
        age = requests - rate.entered
    }

    /// libCacheSim's score.
    @inlinable var score: Double { 1.0e8 * Double(frequency) / Double(age) }

    @inlinable static func < (lhs: Self, rhs: Self) -> Bool {
        let exact: UInt64 = 1 << 53
        if UInt64(bitPattern: lhs.age) < exact && UInt64(bitPattern: rhs.age) < exact {
            let left = UInt64(lhs.frequency).multipliedFullWidth(by: UInt64(bitPattern: rhs.age))
            let right = UInt64(rhs.frequency).multipliedFullWidth(by: UInt64(bitPattern: lhs.age))
            guard left < right else { return false }
        }
        return lhs.score < rhs.score
    }

    @inlinable static func == (lhs: Self, rhs: Self) -> Bool { lhs.score == rhs.score }
}

extension HyperbolicCache: SlotRelocatingPolicy {
    /// Renumbers the residents' draws and moves each moved slot's rate after a compaction.
    @inlinable public mutating func relocateSlots(_ relocation: SlotRelocation) {
        _relocateResidents(relocation)
        rates.relocate(relocation)
    }
}
