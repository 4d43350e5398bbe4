// Size admission: refuse objects at least a threshold in size, as libCacheSim's
// cache/admission/size.c (0.3.5). A classic web-proxy rule (e.g. Squid's maximum_object_size);
// AdaptSize (Berger et al., NSDI'17) studies it as the static baseline.

/// Admits an object iff its cost is below ``threshold``.
///
/// libCacheSim's parameter `size` (default: no limit). Deterministic.
/// - Complexity: O(1) per miss.
public struct SizeAdmission<Key: Hashable>: AdmissionRule, Sendable {
    /// Objects of this cost or more are refused.
    public let threshold: Int

    /// A rule refusing objects of `threshold` or more (libCacheSim's `size`, default `Int.max`).
    public init(threshold: Int = .max) {
        self.threshold = threshold
    }

    @inlinable
    public mutating func admits(_ key: Key, cost: Int) -> Bool { cost < threshold }
}
