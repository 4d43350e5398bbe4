// "Bloom filter" admission: admit an object on its second miss, as libCacheSim's
// cache/admission/bloomfilter.c (0.3.5). The idea is the one-hit-wonder filter of Maggs and
// Sitaraman, "Algorithmic Nuggets in Content Delivery" (SIGCOMM CCR 2015): most objects are
// requested once, so caching only on a second request keeps them out. libCacheSim keeps an exact
// table of keys (a GHashTable), not a Bloom filter, so there are no false positives; so does this.

/// Admits an object iff it has missed before: the first miss of a key is refused and remembered.
///
/// A key is remembered only when the rule is asked, that is on a miss that reached admission
/// (libCacheSim counts in `can_insert`, which hits never reach). Takes no parameters.
/// Deterministic. Departure: libCacheSim stores a key truncated to 32 bits
/// (`GINT_TO_POINTER`) but looks it up in full, so it never admits a key of 2³¹ or more; this
/// rule remembers keys whole (the shared traces' keys are all below 2³¹, where both agree).
/// - Complexity: O(1) expected per miss; memory grows with the distinct keys refused.
public struct BloomFilterAdmission<Key: Hashable>: AdmissionRule {
    @usableFromInline var seen = Set<Key>()

    /// An empty rule.
    public init() {}

    /// How many distinct keys the rule remembers.
    public var rememberedKeys: Int { seen.count }

    @inlinable
    public mutating func admits(_ key: Key, cost: Int) -> Bool {
        !seen.insert(key).inserted
    }
}

extension BloomFilterAdmission: Sendable where Key: Sendable {}
