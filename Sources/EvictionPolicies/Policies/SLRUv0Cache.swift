// SLRUv0: segmented LRU (Karedla, Love & Wherry, IEEE Computer 27(3), 1994) in the form of
// libCacheSim 0.3.5's SLRUv0.c (PyPI `libcachesim` 0.3.5, src/libCacheSim/cache/eviction/SLRUv0.c):
// n LRU caches stacked, each moving room before it takes an entry. Exact on every golden row.
//
// It differs from SLRUv0.c in one place, by the project's research convention (a hit does not
// change an object's size): a hit below the top segment re-enters the next segment at the
// object's own cost, where libCacheSim re-inserts it at the request's size. The two agree
// wherever a key is always requested at one size, as in every golden trace.

/// Segmented LRU, libCacheSim's first version: `n` stacked LRU segments where an entry moves
/// up one segment per hit and a segment makes room (pushing its tail down) *before* it takes an
/// entry; a hit in the top segment changes nothing.
///
/// **Rule** (libCacheSim 0.3.5 `SLRUv0.c`). Segment *i* holds at most ⌊capacity / n⌋.
/// - **Hit** in the top segment: nothing moves. Hit in segment *i* below: the entry leaves *i*;
///   while segment *i* + 1 has no room for it, *cool* *i* + 1; the entry enters its head, at its
///   own cost (a hit does not change an object's size).
/// - **Cool** segment *j* > 0: its tail leaves; while segment *j* − 1 has no room for it, cool
///   *j* − 1; the tail enters the head of *j* − 1. Cooling segment 0 evicts its tail.
/// - **Miss**: an object larger than a segment's share is never inserted. Evict the tail of the
///   lowest non-empty segment until it fits in the capacity; it enters the head of the lowest
///   segment with room, or, when none has room, of segment 0 after its tail is evicted until it fits.
///
/// - Complexity: a hit is O(n) amortised; an eviction is O(n) to find the lowest non-empty
///   segment; lookups are O(1) expected.
public struct SLRUv0Cache<Key: Hashable, Value>: _SegmentedLRUPolicy {
    public static var descriptor: PolicyDescriptor {
        PolicyDescriptor(
            name: "slruv0", reproduces: "SLRU (Karedla et al., 1994) as libCacheSim 0.3.5 SLRUv0.c",
            rule: "n equal stacked LRUs: a hit moves an entry up one segment, which first pushes its LRU tail down; the lowest evicts; hits in the top segment change nothing",
            family: .research,
            parameters: [_LRUSegments.parameter])
    }

    public var store = SlotArena<Key, Value>()
    /// Segment 0 is the lowest; aux holds an entry's segment.
    @usableFromInline var segments: _LRUSegments

    public init(limits: CacheLimits, options: PolicyOptions) throws(PolicyConfigurationError) {
        segments = try _LRUSegments(limits, options, for: Self.descriptor)
    }

    @inlinable public mutating func didInsert(_ slot: Int32) { place(slot, in: 0) }

    @inlinable
    public mutating func hit(_ slot: Int32, observer: inout some EvictionObserver<Key, Value>) {
        let from = Int(store.aux(slot))
        guard from < segments.top else { return }
        store.unlink(slot, &segments.lists[from])
        var pass = TrimPass(.caller)
        makeRoom(in: from + 1, for: store.cost(slot), pass: &pass, observer: &observer)
        pass.end(&observer)
        place(slot, in: from + 1)
    }

    /// The miss step: evict until the object fits, then place it in the lowest segment with
    /// room, making room in segment 0 when none has any; one trim pass.
    @inlinable
    public mutating func insertNew(_ value: Value, forKey key: Key, hash: UInt64, cost: Int,
                                   observer: inout some EvictionObserver<Key, Value>) {
        // SLRUv0_can_insert: the admissioner, then the segment's size.
        guard observer.admits(key, cost: cost), cost <= segments.capacity, admits(key, cost: cost) else { return }   // admissioner, then size
        var pass = TrimPass(.caller)
        while count > 0 && totalCost > segments.capacity - cost {
            pass.willRemove(&observer)
            evict(victim(), observer: &observer)
        }
        let segment = segments.lowestWithRoom(for: cost)
        while count > 0 && segments.lists[segment].cost + cost > segments.shares[segment] {
            pass.willRemove(&observer)
            evict(victim(), observer: &observer)
        }
        pass.end(&observer)
        place(store.allocate(key: key, hash: hash, value: value, cost: cost), in: segment)
    }

    /// Cools `segment` until an entry of `cost` fits in it.
    @inlinable
    mutating func makeRoom(in segment: Int, for cost: Int, pass: inout TrimPass,
                           observer: inout some EvictionObserver<Key, Value>) {
        // An entry re-costed above a segment's share empties the segment and stops there.
        while !segments.lists[segment].isEmpty && segments.lists[segment].cost + cost > segments.shares[segment] {
            let tail = segments.lists[segment].tail
            if segment == 0 {
                pass.willRemove(&observer)
                evict(tail, observer: &observer)
                continue
            }
            store.unlink(tail, &segments.lists[segment])
            makeRoom(in: segment - 1, for: store.cost(tail), pass: &pass, observer: &observer)
            place(tail, in: segment - 1)
        }
    }

    @inlinable
    mutating func place(_ slot: Int32, in segment: Int) { segments.place(slot, in: segment, &store) }
}

extension SLRUv0Cache: SlotRelocatingPolicy {
    /// Renumbers the segments' ends after a compaction.
    @inlinable public mutating func relocateSlots(_ relocation: SlotRelocation) { segments.relocate(relocation) }
}
