/// What a ``Cache`` stores in its policy for each key: the value and what the cache needs to
/// expire it and to rebuild the policy when a limit changes.
///
/// Apps meet this type only when they choose a policy by type:
/// `Cache<URL, Image>(policyType: S3FIFOCache<URL, CacheEntry<Image>>.self, costLimit: 50 << 20)`.
public struct CacheEntry<Value> {
    /// The cached value.
    public let value: Value
    /// When the entry expires, in ``CacheClock`` seconds; `.infinity` for never.
    @usableFromInline var expires: Double
    /// The cost the caller gave, kept to re-insert the entry into a rebuilt policy.
    @usableFromInline var cost: Int
    /// The order of the set that stored it: a rebuild re-inserts entries oldest first.
    @usableFromInline var serial: UInt64
    /// The entry's place in the cache's ``_KeyRing``.
    @usableFromInline var ring: Int32

    @inlinable
    init(value: Value, expires: Double, cost: Int, serial: UInt64, ring: Int32) {
        self.value = value
        self.expires = expires
        self.cost = cost
        self.serial = serial
        self.ring = ring
    }
}

