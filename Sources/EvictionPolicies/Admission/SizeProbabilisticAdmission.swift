import Foundation

// Size-probabilistic admission: admit an object of size s with probability e^(-exponent × s),
// as libCacheSim's cache/admission/sizeProbabilistic.c (0.3.5). This is the admission rule of
// AdaptSize (Berger, Sitaraman, Harchol-Balter, NSDI'17) with its parameter c = 1/exponent fixed.

/// Admits an object of `cost` with probability `exp(-exponent × cost)`: small objects almost
/// always, large ones rarely.
///
/// libCacheSim's parameter `exponent` (default 1e-6), in (0, 1]. The draw is libCacheSim's:
/// `(next_rand() % 10⁷) / 10⁷ < probability` on a lehmer64 generator seeded with `seed`.
/// - Complexity: O(1) per miss.
public struct SizeProbabilisticAdmission<Key: Hashable>: AdmissionRule, Sendable {
    /// The exponent of the admission probability.
    public let exponent: Double
    @usableFromInline var random: _Lehmer64

    /// A rule admitting with probability `exp(-exponent × cost)`, drawing from a generator
    /// seeded with `seed`.
    ///
    /// - Throws: ``AdmissionConfigurationError/invalidParameter(_:rule:value:expected:)`` unless
    ///   `exponent` is in (0, 1].
    public init(exponent: Double = 1e-6, seed: UInt64 = 1) throws(AdmissionConfigurationError) {
        guard exponent > 0 && exponent <= 1 else {
            throw .invalidParameter("exponent", rule: "sizeprob", value: "\(exponent)", expected: "a number in (0, 1]")
        }
        self.exponent = exponent
        random = _Lehmer64(seed: seed)
    }

    @inlinable
    public mutating func admits(_ key: Key, cost: Int) -> Bool {
        random.nextFraction() < exp(-exponent * Double(cost))
    }
}
