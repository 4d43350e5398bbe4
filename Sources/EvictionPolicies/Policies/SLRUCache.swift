// SLRU: segmented LRU, Karedla, Love & Wherry, "Caching strategies to improve disk system
// performance", IEEE Computer 27(3), 1994; rules as libCacheSim 0.3.5's SLRU.c (PyPI
// `libcachesim` 0.3.5, src/libCacheSim/cache/eviction/SLRU.c), exact on every golden row.

/// Segmented LRU: `n` LRU segments of equal share (or of the `seg-size` ratios); a hit promotes
/// an entry one segment up, and a segment over its share pushes its least recently used entries
/// one segment down, the lowest segment evicting them.
///
/// **Rule** (libCacheSim 0.3.5 `SLRU.c`). Segment *i* holds at most ⌊capacity / n⌋, or with
/// `seg-size=r₀:r₁:…` ⌊rᵢ / Σr × capacity⌋ (in doubles, as libCacheSim).
/// - **Hit** in the top segment: move to its head. Hit in segment *i* below: move to the head
///   of *i* + 1; while a segment *j* is over its share, its tail moves to the head of *j* − 1,
///   and segment 0 over its share evicts its tail. A hit can therefore evict.
/// - **Miss**: an object larger than segment 0's share is never inserted. Otherwise evict the
///   tail of the lowest non-empty segment until the object fits in the capacity, then insert it
///   at the head of the lowest segment with room for it (while the cache fills, the upper
///   segments fill too), or of segment 0 when none has room.
///
/// - Complexity: a hit is O(n) amortised (each demotion is O(1)); an eviction is O(n) to find
///   the lowest non-empty segment; lookups are O(1) expected.
public struct SLRUCache<Key: Hashable, Value>: _SegmentedLRUPolicy {
    public static var descriptor: PolicyDescriptor {
        PolicyDescriptor(
            name: "slru", reproduces: "SLRU (Karedla et al., 1994) as libCacheSim 0.3.5 SLRU.c",
            rule: "n equal LRU segments: a hit promotes one segment up, an overfull segment demotes its LRU tail one segment down, the lowest evicts",
            family: .research,
            parameters: [_LRUSegments.parameter, _LRUSegments.ratiosParameter])
    }

    public var store = SlotArena<Key, Value>()
    /// Segment 0 is the probationary one; aux holds an entry's segment.
    @usableFromInline var segments: _LRUSegments

    public init(limits: CacheLimits, options: PolicyOptions) throws(PolicyConfigurationError) {
        segments = try _LRUSegments(limits, options, for: Self.descriptor)
    }

    @inlinable public mutating func didInsert(_ slot: Int32) {
        segments.place(slot, in: segments.lowestWithRoom(for: store.cost(slot)), &store)
    }

    /// The hit rule: promote one segment (or refresh in the top one), then cool the segment it
    /// entered, evicting from segment 0 as one trim pass if the cooling reaches it.
    @inlinable
    public mutating func hit(_ slot: Int32, observer: inout some EvictionObserver<Key, Value>) {
        let from = Int(store.aux(slot))
        guard from < segments.top else {
            store.moveToHead(slot, &segments.lists[from])
            return
        }
        store.unlink(slot, &segments.lists[from])
        segments.place(slot, in: from + 1, &store)
        var pass = TrimPass(.caller)
        cool(from + 1, pass: &pass, observer: &observer)
        pass.end(&observer)
    }

    /// Brings `segment` back within its share: its tail moves down one segment (which is then
    /// cooled in turn), and segment 0 evicts its tail.
    @inlinable
    mutating func cool(_ segment: Int, pass: inout TrimPass, observer: inout some EvictionObserver<Key, Value>) {
        while segments.lists[segment].cost > segments.shares[segment] {
            let tail = segments.lists[segment].tail
            if segment == 0 {
                pass.willRemove(&observer)
                evict(tail, observer: &observer)
                continue
            }
            store.unlink(tail, &segments.lists[segment])
            segments.place(tail, in: segment - 1, &store)
            cool(segment - 1, pass: &pass, observer: &observer)
        }
    }
}

extension SLRUCache: SlotRelocatingPolicy {
    /// Renumbers the segments' ends after a compaction.
    @inlinable public mutating func relocateSlots(_ relocation: SlotRelocation) { segments.relocate(relocation) }
}
