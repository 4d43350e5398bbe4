/// Each resident's last access time, as the request count when it was last requested
/// (libCacheSim's `last_access_vtime`, stamped by RandomLRU and RandomTwo).
///
/// Why a side table and not the slot's own stamp: each eviction reads the stamps of random
/// residents (16 for RandomLRU), and eight stamps share a cache line here against two slots in
/// the arena; the slot's stamp measured about 10 % slower for RandomLRU.
///
/// - Complexity: ``touch(_:)`` O(1) amortised.
public struct _RecencyStamps {
    /// Per slot: the request count at its last access.
    @usableFromInline var lastAccess = SideTable<Int64>(filling: 0)
    /// Requests so far.
    @usableFromInline var clock: Int64 = 0

    /// No stamp yet.
    @inlinable public init() {}

    /// Starts loading `slot`'s stamp (-1 is ignored). `mutating` though it writes nothing, so
    /// that a generic caller reaches the table in place rather than through a copy.
    @inlinable @inline(__always)
    mutating func prefetch(_ slot: Int32) { lastAccess.prefetch(slot) }

    /// Counts a request for `slot` and stamps it with the count.
    @inlinable
    mutating func touch(_ slot: Int32) {
        clock += 1
        lastAccess[slot] = clock
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
    /// The residents' last access times.
    var recency: _RecencyStamps { get set }
    /// How many residents each eviction draws.
    var samples: Int { get }
}

extension _SampledRecencyPolicy {
    /// Loads the entry's memory ahead and, once its slot is known, its stamp, which a hit writes:
    /// the stamps live in a table of their own, so that write was a cache miss of its own.
    /// Mutating, and through `_withResidents`, so that the arena and the stamps are used in place
    /// (a plain read of either here goes through a getter that copies it).
    @inlinable @inline(__always)
    public mutating func prefetch(_ key: Key, _ stage: PrefetchStage) {
        let slot = _withResidents { store, _ in store.prefetch(key, stage) }
        if stage == .entry { recency.prefetch(slot) }
    }

    @inlinable public mutating func didHit(_ slot: Int32) { recency.touch(slot) }

    /// Renumbers the residents' draws and moves each moved slot's last access after a compaction
    /// (``SlotRelocatingPolicy``).
    @inlinable public mutating func relocateSlots(_ relocation: SlotRelocation) {
        _relocateResidents(relocation)
        recency.lastAccess.relocate(relocation)
    }

    @inlinable public mutating func didInsert(_ slot: Int32) {
        recency.touch(slot)
        _sample(slot)
    }

    @inlinable public mutating func victim() -> Int32 {
        _lowest(of: samples, prefetch: { policy, slot in policy.recency.lastAccess.prefetch(slot) }) { policy, slot in
            policy.recency.lastAccess[slot]
        }
    }
}
