// S3-FIFO: Yang et al., "FIFO queues are all you need for cache eviction", SOSP'23, in the two
// versions libCacheSim 0.3.5 ships (PyPI `libcachesim` 0.3.5, src/libCacheSim/cache/eviction/):
// - `s3fifo`, its S3FIFO.c (Dec 2024+): the rule below plus a warm-up rule: until the first
//   eviction, a new object that finds the small queue full goes straight to main.
// - `s3fifov0`, its S3FIFOv0.c, which is S3FIFO.c at commit aa0fc40 (2024-10-07) and the
//   paper's artifact (Thesys-lab/sosp23-s3fifo): no warm-up rule. Its
//   `obj->S3FIFO.freq == 0;` is a no-op there, harmless because new objects start zeroed.
// Both are exact on every row of the golden tables in Traces/; `warm-up` switches either.

/// Which S3-FIFO: libCacheSim 0.3.5's current `S3FIFO.c` (``S3FIFOCurrentVersion``) or the
/// SOSP'23 version it now calls S3-FIFOv0 (``S3FIFOv0Version``). They differ in one rule, the
/// warm-up rule (see ``S3FIFOVersion/warmsUp``), which is also an option of either.
public protocol S3FIFOVersion: Sendable {
    /// The name, aliases and rule the version is listed under.
    static var descriptor: PolicyDescriptor { get }
    /// Whether, by default, a new object that finds the small FIFO full before the cache has
    /// ever evicted goes straight to main (libCacheSim's Dec-2024 rule).
    static var warmsUp: Bool { get }
}

/// libCacheSim 0.3.5's `S3FIFO.c` (PyPI `libcachesim` 0.3.5): S3-FIFO with the warm-up rule.
public enum S3FIFOCurrentVersion: S3FIFOVersion {
    public static let warmsUp = true
    public static var descriptor: PolicyDescriptor {
        PolicyDescriptor(
            name: "s3fifo",
            reproduces: "S3-FIFO (Yang et al., SOSP'23) as libCacheSim 0.3.5 S3FIFO.c (with the warm-up rule)",
            rule: "new keys enter a small FIFO (straight to main while the cache fills); objects hit there at least twice move to a main FIFO with 2-bit CLOCK reinsertion, the others leave and are remembered in a ghost FIFO that admits them straight to main",
            family: .research, aliases: ["s3-fifo"], parameters: _s3fifoParameters(warmUp: true))
    }
}

/// libCacheSim's `S3FIFO.c` at aa0fc40, the SOSP'23 artifact's rule, now libCacheSim's `S3FIFOv0.c`.
public enum S3FIFOv0Version: S3FIFOVersion {
    public static let warmsUp = false
    public static var descriptor: PolicyDescriptor {
        PolicyDescriptor(
            name: "s3fifov0",
            reproduces: "S3-FIFO (Yang et al., SOSP'23) as libCacheSim S3FIFO.c @ aa0fc40 (S3FIFOv0.c in 0.3.5; no warm-up rule)",
            rule: "new keys enter a small FIFO; objects hit there at least twice move to a main FIFO with 2-bit CLOCK reinsertion, the others leave and are remembered in a ghost FIFO that admits them straight to main",
            family: .research, aliases: ["s3-fifov0"], parameters: _s3fifoParameters(warmUp: false))
    }
}

@usableFromInline
func _s3fifoParameters(warmUp: Bool) -> [PolicyParameter] {
    _SmallMainGhostShares.parameters(threshold: 2, counting: "hits") + [
        PolicyParameter("warm-up", default: String(warmUp), "libCacheSim's Dec-2024 S3FIFO.c rule: before the first eviction, a new object that finds the small FIFO full goes to main"),
    ]
}

/// S3-FIFO as libCacheSim 0.3.5's `S3FIFO.c` (`s3fifo`), with the warm-up rule.
public typealias S3FIFOCache<Key: Hashable, Value> = S3FIFOFamilyCache<Key, Value, S3FIFOCurrentVersion>
/// S3-FIFO as the SOSP'23 artifact and libCacheSim's `S3FIFOv0.c` (`s3fifov0`).
public typealias S3FIFOv0Cache<Key: Hashable, Value> = S3FIFOFamilyCache<Key, Value, S3FIFOv0Version>

/// S3-FIFO: a small probationary FIFO, a main FIFO with 2-bit CLOCK reinsertion, and a ghost
/// FIFO of recently demoted keys; `Version` picks the warm-up default.
///
/// **Rule.** Three FIFO queues over one slot store: small S (floor(10 % of capacity)), main M (the
/// rest) and a ghost G of keys only (floor(90 % of capacity), in the same cost units).
/// - Hit in S or M: freq += 1; nothing moves. Counters saturate at max(3, threshold), which is
///   libCacheSim's unbounded counter seen through its `MIN(freq, 3)` (2-bit CLOCK in M).
/// - Miss: a key found in G is removed from G and goes to M's head; any other key goes to S's
///   head. Before inserting, evict until S + M + cost <= capacity.
/// - Evict: if M is over its share or S is empty, evict from M, else from S.
///   - From S's tail: freq >= move-to-main-threshold → moved to M's head with freq 0, and the scan
///     goes on; otherwise the object leaves the cache and its key enters G (G drops its oldest keys
///     to stay within its size); one such removal ends the step.
///   - From M's tail: freq >= 1 → reinserted at M's head with freq min(freq, 3) - 1; otherwise it
///     leaves the cache, which ends the step.
///
/// Quirks kept from aa0fc40 because the golden miss counts depend on them:
/// - An object whose cost is >= S's capacity is never admitted through S (`S3FIFO_insert`), and
///   one whose cost is > S's capacity is refused before evicting (`S3FIFO_can_insert`); one whose
///   cost equals S's capacity still makes the cache evict, then is not inserted. Below 20 objects
///   S holds at most one object, so nothing is ever cached.
/// - Moves from S to M do not evict from M; M may exceed its share until the next eviction.
/// - A ghost hit consumes the ghost entry even when the object is then refused.
///
/// Objects larger than the whole capacity leave the cache, ghosts included, untouched (the
/// project's research convention).
///
/// - Complexity: lookup and remove are O(1) expected; an insert evicts in amortized O(1).
public struct S3FIFOFamilyCache<Key: Hashable, Value, Version: S3FIFOVersion>: _SmallMainGhostPolicy {
    public static var descriptor: PolicyDescriptor { Version.descriptor }

    @usableFromInline typealias Lists = _SmallMainGhostLists
    /// libCacheSim's find-then-insert: a re-insert at the same cost is a hit, at a new cost a new object.
    public static var updatesInPlace: Bool { false }

    // aux = queue tag in bits 0–1, frequency above.
    public var store = SlotArena<Key, Value>()
    public var lists: _SmallMainGhostLists
    @usableFromInline let maximumFrequency: UInt32
    @usableFromInline let warmUp: Bool
    /// Whether the cache has ever had to evict (the warm-up rule's switch).
    @usableFromInline var hasEvicted = false

    public init(limits: CacheLimits, options: PolicyOptions) throws(PolicyConfigurationError) {
        lists = Lists(try _SmallMainGhostShares(limits, options, for: Self.descriptor, threshold: 2))
        maximumFrequency = max(3, lists.shares.threshold)
        warmUp = try options.bool("warm-up", default: Version.warmsUp)
    }

    @inlinable @inline(__always)
    public func prefetch(_ key: Key, _ stage: PrefetchStage) { store.prefetch(key, stage) }

    // MARK: The rule

    /// A hit counts, in small or main, until the frequency saturates.
    @inlinable @inline(__always)
    public func counts(hit slot: Int32, aux: UInt32) -> Bool { Lists.counter(aux) < maximumFrequency }

    /// libCacheSim's miss path: consume a ghost entry, refuse what S3FIFO_can_insert refuses,
    /// evict until the object fits, then insert into main (ghost hit) or small.
    @inlinable
    public mutating func miss(_ key: Key, hash: UInt64, ghost slot: Int32, cost: Int, value: () -> Value,
                              observer: inout some EvictionObserver<Key, Value>) {
        guard cost <= lists.shares.capacity else { return }
        // Admission is asked only of what S3FIFO_can_insert lets through, after the ghost is consumed.
        let admitted = cost <= lists.shares.small && observer.admits(key, cost: cost)
        store.consumeGhost(slot, from: &lists.ghost, keeping: admitted)
        guard admitted else { return }
        var pass = TrimPass(.caller)
        _evict(toFit: cost, &pass, observer: &observer)
        if slot >= 0 {
            lists.reviveInMain(slot, value: value(), cost: cost, in: &store)
        } else if cost < lists.shares.small {
            let new = store.allocate(key: key, hash: hash, value: value(), cost: cost)
            if warmUp && !hasEvicted && lists.small.cost >= lists.shares.small {
                store.pushHead(new, &lists.main, tag: Lists.mainTag)
            } else {
                store.pushHead(new, &lists.small, tag: Lists.smallTag)
            }
        }
        pass.end(&observer)
    }

    // MARK: Eviction

    /// One call of libCacheSim's `S3FIFO_evict`: main when it is over its share or small holds
    /// no cost, else small. Main is a 2-bit CLOCK: a tail with freq >= 1 goes back to the head
    /// with min(freq, 3) - 1; the first with freq 0 leaves.
    @inlinable
    public mutating func evictionStep(_ pass: inout TrimPass, observer: inout some EvictionObserver<Key, Value>) {
        hasEvicted = true
        if lists.main.cost > lists.shares.main || lists.small.cost == 0 {
            guard lists.main.cost > 0 else { return }
            lists.evictFromMain(&store, &pass, observer: &observer) { freq in freq >= 1 ? min(freq, 3) - 1 : nil }
        } else {
            lists.evictFromSmall(&store, whileCostRemains: true, &pass, observer: &observer)
        }
    }
}

extension S3FIFOFamilyCache: SlotRelocatingPolicy {
    /// Renumbers the ends of the small, main and ghost FIFOs after a compaction.
    @inlinable public mutating func relocateSlots(_ relocation: SlotRelocation) {
        lists.relocate(relocation)
    }
}
