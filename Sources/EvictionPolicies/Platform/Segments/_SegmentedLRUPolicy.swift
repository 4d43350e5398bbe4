/// A segmented LRU (SLRU, SLRUv0) over ``_LRUSegments``: the limits, the totals, the admission
/// test, the victim, the unlink step and the cost update are written once here, so each policy
/// keeps only how a hit promotes and how a segment over its share cools.
@usableFromInline
internal protocol _SegmentedLRUPolicy: HitEvictingPolicy {
    /// The segments, segment 0 the lowest.
    var segments: _LRUSegments { get set }
}

extension _SegmentedLRUPolicy {
    @inlinable public var capacity: Int { segments.capacity }
    /// No count limit: libCacheSim's SLRU has none.
    @inlinable public var countLimit: Int { .max }
    /// O(n) in the number of segments.
    @inlinable public var count: Int { segments.count }
    /// O(n) in the number of segments.
    @inlinable public var totalCost: Int { segments.totalCost }

    /// An object larger than a segment's share is never inserted.
    @inlinable public mutating func admits(_ key: Key, cost: Int) -> Bool { cost <= segments.shares[0] }

    /// The tail of the lowest non-empty segment. O(n).
    @inlinable public mutating func victim() -> Int32 { segments.victim }

    @inlinable public mutating func unlink(_ slot: Int32) { _withStoreAndSegments { $1.unlink(slot, in: &$0) } }
    @inlinable public mutating func setCost(_ slot: Int32, _ cost: Int) {
        _withStoreAndSegments { $1.setCost(slot, cost, in: &$0) }
    }

    /// Runs `body` on the arena and the segments, both in place.
    ///
    /// Why: in this generic extension, `store` and `segments` are two accesses to `self`, which
    /// cannot overlap. The segments are swapped out (and back) rather than copied, so their
    /// array stays uniquely referenced and is not copied when `body` changes it.
    @inlinable @inline(__always)
    mutating func _withStoreAndSegments<Result>(
        _ body: (inout SlotArena<Key, Value>, inout _LRUSegments) -> Result) -> Result {
        var taken = _LRUSegments()
        swap(&taken, &segments)
        defer { swap(&taken, &segments) }
        return _inPlace { body(&$0, &taken) }
    }
}
