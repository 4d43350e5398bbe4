/// What a ``Cache`` stores in its policy for each key: the value and one word of bookkeeping.
///
/// Apps meet this type only when they choose a policy by type:
/// `Cache<URL, Image>(policyType: S3FIFOCache<URL, CacheEntry<Image>>.self, costLimit: 50 << 20)`.
///
/// The entry is small on purpose (16 bytes for a class value): the policy's value array is what a
/// get touches at random, so its footprint decides how much of it stays in the processor's
/// caches. What the word holds depends on the policy:
/// - a ``SlotPolicy`` (LRU, FIFO, CLOCK, SIEVE, LFU, …) keeps the key and cost in its arena and
///   can list and drain its entries itself, so the word is the entry's expiry time and a set
///   writes nothing beside the policy;
/// - any other policy: the word names the entry's slot in the cache's key ring, which keeps the
///   key, cost, expiry and set order that limit changes and expiry sweeps need.
public struct CacheEntry<Value> {
    /// The cached value.
    public let value: Value
    /// The expiry time's bits, or the key ring's slot (low 32 bits) and stamp (high 32 bits).
    @usableFromInline var _word: UInt64

    /// An entry of a cache without a key ring, expiring at `expires` (`.infinity`: never).
    @inlinable
    init(value: Value, expires: Double) {
        self.value = value
        _word = expires.bitPattern
    }

    /// An entry whose bookkeeping is in slot `slot` of the key ring, taken by the set stamped `stamp`.
    @inlinable
    init(value: Value, slot: Int32, stamp: UInt32) {
        self.value = value
        _word = UInt64(stamp) << 32 | UInt64(UInt32(bitPattern: slot))
    }

    /// When the entry expires, in a cache without a key ring.
    @inlinable var expires: Double { Double(bitPattern: _word) }
    /// The entry's slot in the key ring.
    @inlinable var slot: Int32 { Int32(bitPattern: UInt32(truncatingIfNeeded: _word)) }
    /// The low 32 bits of the serial of the set that stored the entry: a slot is freed only by the
    /// entry it still belongs to.
    @inlinable var stamp: UInt32 { UInt32(truncatingIfNeeded: _word >> 32) }
}

/// Whether an entry that expires at `expires` (`.infinity`: never) has expired when the clock
/// reads `now`: a finite expiry has passed unless `now` is before it, so a clock reading NaN
/// (no time at all) or +∞ finds every entry with a time to live expired, and −∞ none.
@inlinable @inline(__always)
func _hasExpired(_ expires: Double, at now: Double) -> Bool {
    expires < .infinity && !(now < expires)
}
