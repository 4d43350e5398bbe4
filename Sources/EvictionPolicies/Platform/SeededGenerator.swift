/// A small, fast, seeded random number generator (xoshiro256**, seeded through SplitMix64), so
/// that a randomized policy replays the same way for the same seed.
///
/// - Complexity: ``next()`` is O(1).
@frozen
public struct SeededGenerator: RandomNumberGenerator, Sendable {
    @usableFromInline var state: (UInt64, UInt64, UInt64, UInt64)

    /// A generator whose sequence is fixed by `seed`.
    @inlinable
    public init(seed: UInt64) {
        var mix = seed
        func splitMix() -> UInt64 {
            mix &+= 0x9E37_79B9_7F4A_7C15
            var z = mix
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
        state = (splitMix(), splitMix(), splitMix(), splitMix())
    }

    /// The next 64 random bits.
    // Always inlined: sampled policies draw up to 128 values per eviction, and the call (not
    // inlined through the draw) was about 5 % of Hyperbolic's replay.
    @inlinable @inline(__always)
    public mutating func next() -> UInt64 {
        let result = ((state.1 &* 5) << 7 | (state.1 &* 5) >> 57) &* 9
        let t = state.1 << 17
        state.2 ^= state.0
        state.3 ^= state.1
        state.1 ^= state.2
        state.0 ^= state.3
        state.2 ^= t
        state.3 = state.3 << 45 | state.3 >> 19
        return result
    }
}

extension SeededGenerator {
    /// The generator of a randomized policy, seeded by its `seed` option (1 by default), read as a
    /// 64-bit pattern so that a negative seed is a seed too: the convention of every randomized
    /// policy here, for a policy of one's own to follow (declare a `seed` ``PolicyParameter``).
    ///
    /// - Throws: ``PolicyConfigurationError/invalidOption(_:value:expected:)`` when `seed` is not
    ///   a whole number.
    @inlinable
    public init(seedOption options: PolicyOptions) throws(PolicyConfigurationError) {
        self.init(seed: UInt64(bitPattern: Int64(try options.integer("seed", default: 1))))
    }
}
