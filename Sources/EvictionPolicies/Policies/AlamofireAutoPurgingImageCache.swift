// afi-lru: AlamofireImage's AutoPurgingImageCache.
// Source: Alamofire/AlamofireImage @ 490f71307cd4 (4.4.0), Source/ImageCache.swift.
// Spec: ``<doc:AlamofireImage>``; test vectors A1 and A2 hold
// for it too.
//
// Rule: the algorithm of AFNetworking's AFAutoPurgingImageCache, which this type runs (see
// AFAutoPurgingImageCache.swift): when usage exceeds the capacity, a deferred barrier block sorts
// every entry by last access and removes the oldest until usage is at most the preferred size;
// a memory warning removes everything. AlamofireImage differs in its defaults and one check:
// memoryCapacity 100_000_000 and preferredMemoryUsageAfterPurge 60_000_000 (decimal MB, not
// MiB), and `precondition(memoryCapacity >= preferredMemoryUsageAfterPurge)`, so the UInt64
// underflow AF allows cannot happen; here that configuration is a configuration error. (AFI
// makes every operation a barrier, AF only the writes; for one caller thread both behave the same.)

/// AlamofireImage 4.4's `AutoPurgingImageCache`: AF's sort-and-purge with decimal defaults and
/// the preferred size checked against the capacity.
///
/// **Rule.** ``AFAutoPurgingImageCache``'s: each add queues a purge that, when usage is above
/// `memoryCapacity` (100 000 000 by default), sorts every entry by last access and removes the
/// oldest until usage is at most `preferredMemoryUsageAfterPurge` (60 000 000 by default); a
/// memory warning removes everything. A preferred size above the capacity is a configuration
/// error, as AlamofireImage's precondition makes it.
///
/// - Complexity: as ``AFAutoPurgingImageCache``: O(1) per operation, O(n log n) per purge.
public struct AlamofireAutoPurgingImageCache<Key: Hashable, Value>: ForwardingPolicy {
    /// The library's default memory capacity: 100 000 000 bytes.
    public static var libraryCapacity: Int { 100_000_000 }

    public static var descriptor: PolicyDescriptor {
        PolicyDescriptor(
            name: "afi-lru",
            reproduces: "AlamofireImage 4.4.0 AutoPurgingImageCache",
            rule: "as af-lru (sort all entries by last access, remove the oldest down to the preferred size) with decimal defaults and preferred ≤ capacity enforced",
            family: .library, defaultCapacity: .library(libraryCapacity),
            parameters: [
                PolicyParameter("preferred", default: "0.6",
                                "preferredMemoryUsageAfterPurge: a fraction of the capacity (a number without a unit, 0 to 1) or a size with a unit (60MB, 60B); must not exceed the capacity"),
            ],
            slowByDesign: "sorts every resident at each purge, as AlamofireImage does: O(n log n) per purge")
    }

    /// The AFNetworking cache this one runs: every operation is its.
    public var base: AFAutoPurgingImageCache<Key, Value>

    public init(limits: CacheLimits, options: PolicyOptions) throws(PolicyConfigurationError) {
        try options.validate(against: Self.descriptor)
        try limits.validate(for: Self.descriptor)
        let capacity = limits.capacity ?? Self.libraryCapacity
        let preferred = try options.fractionOrSize(
            "preferred", of: capacity, default: AFAutoPurgingImageCache<Key, Value>.sixtyPercent(of: capacity),
            maximumFraction: 1)
        guard preferred <= capacity else {
            throw PolicyConfigurationError.invalidOption(
                "preferred", value: options.values["preferred"] ?? "",
                expected: "at most the memory capacity (\(capacity)), as AlamofireImage requires preferredMemoryUsageAfterPurge <= memoryCapacity")
        }
        base = AFAutoPurgingImageCache(memoryCapacity: capacity, preferredMemoryUsageAfterPurge: preferred)
    }

    /// `memoryCapacity`.
    public var memoryCapacity: UInt64 { base.memoryCapacity }
    /// `preferredMemoryUsageAfterPurge`.
    public var preferredMemoryUsageAfterPurge: UInt64 { base.preferredMemoryUsageAfterPurge }
}
