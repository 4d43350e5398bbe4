/// What a ``Cache`` stores in its policy for each key: the value and the place of the entry's
/// bookkeeping in the cache's side table.
///
/// Apps meet this type only when they choose a policy by type:
/// `Cache<URL, Image>(policyType: S3FIFOCache<URL, CacheEntry<Image>>.self, costLimit: 50 << 20)`.
///
/// The entry is small on purpose (16 bytes for a class value): the policy's value array is what a
/// get touches at random, so its footprint decides how much of it stays in the processor's
/// caches. The key, cost, expiry and set order live in the key ring's slots instead, which only
/// sets, removals, expiries and limit changes read.
public struct CacheEntry<Value> {
    /// The cached value.
    public let value: Value
    /// The entry's slot in the cache's key ring.
    @usableFromInline var slot: Int32
    /// The low 32 bits of the serial of the set that stored the entry: a slot is freed only by the
    /// entry it still belongs to.
    @usableFromInline var stamp: UInt32

    @inlinable
    init(value: Value, slot: Int32, stamp: UInt32) {
        self.value = value
        self.slot = slot
        self.stamp = stamp
    }
}
