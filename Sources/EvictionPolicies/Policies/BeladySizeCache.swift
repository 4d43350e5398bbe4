// BeladySize: Belady's MIN extended to objects of different sizes by evicting the object with the
// largest size × time-to-next-request, found by sampling (the "Belady-Size" baseline of Song et
// al., "Learning relaxed Belady for content distribution network caching", NSDI'20, after Belady,
// IBM Systems Journal 1966), as libCacheSim 0.3.5's BeladySize.c (PyPI `libcachesim` 0.3.5,
// src/libCacheSim/cache/eviction/BeladySize.c, the sampled version, default `n-sample=128`).

/// An offline cache that evicts, among random residents, the one with the largest
/// size × distance to its next request.
///
/// **Rule** (libCacheSim 0.3.5 `BeladySize.c`). Each request brings the index of its object's
/// next request (descriptor `needsFuture`).
/// - **Hit**: the object's next request is updated; an object never requested again leaves the
///   cache (the hit still counts).
/// - **Miss**: an object larger than the capacity is never inserted. Otherwise the cache evicts
///   until the object would fit (cost and count), and then inserts it only if it is requested
///   again: libCacheSim makes room before it learns the object will not be stored, so a
///   never-again miss still evicts.
/// - **Eviction**: `n-sample` residents drawn with replacement as libCacheSim's
///   `hashtable_rand_obj` draws them (see `_ChainedSample`); the one with the largest
///   size × (next request − current request) goes, the first drawn among equals. libCacheSim
///   compares log(size) + log(distance); the product orders the same. A size of 0 scores as
///   the lowest, as log(0) does.
///
/// The draws come from a generator seeded by `seed`. Without next-request times (an app calling
/// the cache directly) every object counts as never requested again, so nothing is stored.
///
/// - Complexity: lookup, insert and remove are O(1) expected; each eviction is O(`n-sample`) expected.
public struct BeladySizeCache<Key: Hashable, Value>: _SampledPolicy {
    public static var descriptor: PolicyDescriptor {
        PolicyDescriptor(
            name: "beladysize", reproduces: "Belady-Size (sampled) as libCacheSim 0.3.5 BeladySize.c",
            rule: "draw n-sample random residents and evict the one with the largest size × time to its next request; objects never requested again are not kept",
            family: .research, supportsCountLimit: true, isDeterministic: false,
            parameters: [
                PolicyParameter("n-sample", default: "128", "residents drawn per eviction, 1 to 10000", aliases: ["n-samples"]),
                PolicyParameter("seed", default: "1", "seed of the random generator"),
            ],
            needsFuture: true)
    }

    public var store = SlotArena<Key, Value>()
    /// The residents drawn from.
    public var residents: _SampledResidents<_ChainedSample>
    /// The limits and the residents' total cost.
    public var budget: PolicyBudget
    /// Per slot: the 1-based index of its next request.
    @usableFromInline var nextRequest = SideTable<Int64>(filling: .max)
    /// The 1-based index of the request being handled (libCacheSim's `n_req`).
    @usableFromInline var now: Int64 = 0
    /// The next request of the object being handled, `Int64.max` for none.
    @usableFromInline var pendingNext: Int64 = .max
    @usableFromInline let samples: Int

    public init(limits: CacheLimits, options: PolicyOptions) throws(PolicyConfigurationError) {
        budget = try PolicyBudget(for: Self.descriptor, limits: limits, options: options)
        samples = try options.integer("n-sample", default: 128, in: 1...10_000)
        residents = try _SampledResidents(options: options)
    }

    @inlinable @inline(__always)
    public func prefetch(_ key: Key, _ stage: PrefetchStage) { store.prefetch(key, stage) }

    @inlinable @inline(__always)
    public mutating func _withResidents<Result>(
        _ body: (inout SlotArena<Key, Value>, inout _SampledResidents<_ChainedSample>) -> Result
    ) -> Result { body(&store, &residents) }

    @inlinable
    public mutating func noteNextAccess(_ index: Int64) {
        now += 1
        pendingNext = index
    }

    /// The next request for the current call; later calls count as never-again until told.
    @inlinable @inline(__always)
    mutating func takePendingNext() -> Int64 {
        defer { pendingNext = .max }
        return pendingNext
    }

    @inlinable
    public mutating func lookup(_ key: Key, observer: inout some EvictionObserver<Key, Value>) -> Value? {
        let slot = store.find(key)
        guard slot >= 0 else { pendingNext = .max; return nil }
        let value = store.value(slot)
        dropIfNeverAgain(slot)
        return value
    }

    @inlinable
    public mutating func access(_ key: Key, cost: Int, orInsert value: @autoclosure () -> Value,
                                observer: inout some EvictionObserver<Key, Value>) -> Bool {
        let hash = store.hash(key)
        let slot = store.find(key, hash: hash)
        if slot >= 0 {
            dropIfNeverAgain(slot)
            return true
        }
        insertNew(value(), forKey: key, hash: hash, cost: max(cost, 0), observer: &observer)
        return false
    }

    /// The hit rule with libCacheSim's `BeladySize_find`: a resident never requested again leaves.
    @inlinable mutating func dropIfNeverAgain(_ slot: Int32) {
        didHit(slot)
        if nextRequest[slot] == .max {
            unlink(slot)
            store.release(slot)
        }
    }

    @inlinable public mutating func didHit(_ slot: Int32) { nextRequest[slot] = takePendingNext() }

    /// The flow's miss step, except that a never-again object is not stored after room is made.
    @inlinable
    public mutating func insertNew(_ value: Value, forKey key: Key, hash: UInt64, cost: Int,
                                   observer: inout some EvictionObserver<Key, Value>) {
        let next = takePendingNext()
        guard observer.admits(key, cost: cost), cost <= capacity else { return }   // libCacheSim's order: admissioner, then size
        makeRoom(forCost: cost, count: 1, observer: &observer)
        guard next != .max else { return }
        let slot = store.allocate(key: key, hash: hash, value: value, cost: cost)
        nextRequest[slot] = next
        didInsert(slot)
    }

    @inlinable public mutating func didInsert(_ slot: Int32) {
        _sample(slot)
    }

    /// The largest size × distance to the next request among the draws, as a Double (no
    /// overflow; the order of libCacheSim's sum of logarithms), negated to take the lowest.
    @inlinable public mutating func victim() -> Int32 {
        _lowest(of: samples, prefetch: { policy, slot in
            policy.nextRequest.prefetch(slot)
            policy._inPlace { $0.prefetchSlot(slot) }
        }) { policy, slot in
            let next = policy.nextRequest[slot]
            let distance = next == .max ? Double.infinity : Double(next - policy.now)
            return -(Double(policy.store.cost(slot)) * distance)
        }
    }
}

extension BeladySizeCache: SlotRelocatingPolicy {
    /// Renumbers the residents' draws and moves each moved slot's next request after a compaction.
    @inlinable public mutating func relocateSlots(_ relocation: SlotRelocation) {
        _relocateResidents(relocation)
        nextRequest.relocate(relocation)
    }
}
