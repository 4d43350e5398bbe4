// libCacheSim's random generator (utils/include/mymath.h `next_rand`): Lemire's lehmer64, a
// 128-bit state multiplied by a constant, returning the high 64 bits. Seeding sets the state to
// the seed, as `set_rand_seed` does, so a run seeded like libCacheSim's draws the same numbers.

/// lehmer64 on two 64-bit halves, so it needs no 128-bit integer type.
@frozen
public struct _Lehmer64: Sendable {
    @usableFromInline var high: UInt64
    @usableFromInline var low: UInt64

    /// A generator whose state is `seed` (libCacheSim's `set_rand_seed(seed)`).
    @inlinable
    public init(seed: UInt64) {
        high = 0
        low = seed
    }

    /// Multiplies the state by 0xda942042e4dd58b5 modulo 2¹²⁸ and returns its high half.
    @inlinable
    public mutating func next() -> UInt64 {
        let multiplier: UInt64 = 0xda94_2042_e4dd_58b5
        let product = low.multipliedFullWidth(by: multiplier)
        high = product.high &+ high &* multiplier
        low = product.low
        return high
    }

    /// libCacheSim's draw of a fraction: `(next_rand() % 10_000_000) / 10_000_000`, in [0, 1).
    @inlinable
    public mutating func nextFraction() -> Double {
        Double(next() % _Lehmer64.module) / Double(_Lehmer64.module)
    }

    /// The modulus libCacheSim's admission rules reduce draws by (`MAX_MODULE`).
    @inlinable public static var module: UInt64 { 10_000_000 }
}
