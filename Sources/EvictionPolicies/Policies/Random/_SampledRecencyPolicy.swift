/// The request count that stamps each resident with its last access time (libCacheSim's
/// `last_access_vtime`, stamped by RandomLRU and RandomTwo). The stamps themselves live in the
/// slots (``SlotArena/stamp(_:)``), in the line a lookup has already loaded, so a hit writes no
/// other cache line; a count below 2^53 is exact as a `Double`.
///
/// - Complexity: ``tick()`` O(1).
public struct _RecencyStamps {
    /// Requests so far.
    @usableFromInline var clock: Int64 = 0

    /// No request yet.
    @inlinable public init() {}

    /// Counts a request and returns its stamp.
    @inlinable
    mutating func tick() -> Double {
        clock += 1
        return Double(clock)
    }
}

/// A sampling policy that evicts the least recently used of `samples` draws (RandomLRU, and
/// RandomTwo with two): its hit, insert and eviction rules, written once.
///
/// **Rule.** Every request stamps its object with the request count. Each eviction draws
/// `samples` residents with replacement (``_SampledResidents``) and evicts the one whose last
/// access is oldest; stamps are distinct, so only a slot drawn twice ties.
///
/// - Complexity: a hit and an insert O(1) amortised; each eviction O(`samples`) expected.
public protocol _SampledRecencyPolicy: _SampledPolicy {
    /// The request count the stamps come from.
    var recency: _RecencyStamps { get set }
    /// How many residents each eviction draws.
    var samples: Int { get }
}

extension _SampledRecencyPolicy {
    @inlinable public mutating func didHit(_ slot: Int32) {
        let stamp = recency.tick()
        _inPlace { $0.setStamp(slot, stamp) }
    }

    @inlinable public mutating func didInsert(_ slot: Int32) {
        let stamp = recency.tick()
        _inPlace { $0.setStamp(slot, stamp) }
        _sample(slot)
    }

    @inlinable public mutating func victim() -> Int32 {
        _lowest(of: samples) { policy, slot in policy._inPlace { $0.stamp(slot) } }
    }
}
