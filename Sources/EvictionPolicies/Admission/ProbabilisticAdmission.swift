// Probabilistic admission: admit each missed object with a fixed probability, as libCacheSim's
// cache/admission/prob.c (0.3.5), drawing from libCacheSim's generator the way it does.

/// Admits an object with probability ``probability``, independently of the key and the cost.
///
/// libCacheSim's parameter `prob` (default 0.5), in (0, 1]. The draw is libCacheSim's:
/// `next_rand() % 10⁷ < Int(prob × 10⁷)` on a lehmer64 generator seeded with `seed`, so a run with
/// the seed libCacheSim was given refuses exactly the same objects.
/// - Complexity: O(1) per miss.
public struct ProbabilisticAdmission<Key: Hashable>: AdmissionRule, Sendable {
    /// The probability of admitting a missed object.
    public let probability: Double
    @usableFromInline let threshold: UInt64
    @usableFromInline var random: _Lehmer64

    /// A rule admitting with `probability`, drawing from a generator seeded with `seed`.
    ///
    /// - Throws: ``AdmissionConfigurationError/invalidParameter(_:rule:value:expected:)`` unless
    ///   `probability` is in (0, 1].
    public init(probability: Double = 0.5, seed: UInt64 = 1) throws(AdmissionConfigurationError) {
        guard probability > 0 && probability <= 1 else {
            throw .invalidParameter("prob", rule: "prob", value: "\(probability)", expected: "a probability in (0, 1]")
        }
        self.probability = probability
        // C's `(int)(probability * MAX_MODULE)`: truncation.
        threshold = UInt64(probability * Double(_Lehmer64.module))
        random = _Lehmer64(seed: seed)
    }

    @inlinable
    public mutating func admits(_ key: Key, cost: Int) -> Bool {
        random.next() % _Lehmer64.module < threshold
    }
}
