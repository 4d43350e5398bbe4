/// SplitMix64 (Steele, Lea and Flood, 2014): a 64-bit generator used here to seed others and to
/// hash per-object attributes (a size, an aspect ratio) from a seed and a key.
///
/// Generators use their own arithmetic rather than the standard library's `random(in:using:)`,
/// whose algorithm is not specified and could change between toolchains: a seed must keep
/// producing the same trace.
public struct SplitMix64: Sendable {
    /// The generator's state; any value is valid.
    public var state: UInt64

    /// Creates a generator from a seed.
    public init(seed: UInt64) { state = seed }

    /// The next 64 random bits.
    @inlinable
    public mutating func next() -> UInt64 {
        state &+= 0x9e37_79b9_7f4a_7c15
        return Self.mix(state)
    }

    /// SplitMix64's output function: a bijective hash of 64 bits.
    @inlinable
    public static func mix(_ value: UInt64) -> UInt64 {
        var z = value
        z = (z ^ (z >> 30)) &* 0xbf58_476d_1ce4_e5b9
        z = (z ^ (z >> 27)) &* 0x94d0_49bb_1331_11eb
        return z ^ (z >> 31)
    }
}

/// xoshiro256** (Blackman and Vigna, 2018), seeded from SplitMix64 as its authors recommend:
/// the generator behind every synthetic trace.
public struct Xoshiro256StarStar: Sendable {
    @usableFromInline var s0: UInt64
    @usableFromInline var s1: UInt64
    @usableFromInline var s2: UInt64
    @usableFromInline var s3: UInt64

    /// Creates a generator whose whole output is determined by `seed`.
    public init(seed: UInt64) {
        var seeder = SplitMix64(seed: seed)
        s0 = seeder.next()
        s1 = seeder.next()
        s2 = seeder.next()
        s3 = seeder.next()
    }

    /// Creates a generator from its raw state, which must not be all zero (for test vectors).
    public init(state: (UInt64, UInt64, UInt64, UInt64)) {
        precondition(state != (0, 0, 0, 0), "xoshiro's state must not be all zero")
        (s0, s1, s2, s3) = state
    }

    /// The next 64 random bits.
    @inlinable
    public mutating func next() -> UInt64 {
        let result = Self.rotate(s1 &* 5, 7) &* 9
        let t = s1 << 17
        s2 ^= s0
        s3 ^= s1
        s1 ^= s2
        s0 ^= s3
        s2 ^= t
        s3 = Self.rotate(s3, 45)
        return result
    }

    @inlinable
    static func rotate(_ x: UInt64, _ k: UInt64) -> UInt64 { (x << k) | (x >> (64 - k)) }

    /// A uniform double in [0, 1) with 53 random bits.
    @inlinable
    public mutating func nextUnit() -> Double { Double(next() >> 11) * 0x1.0p-53 }

    /// A uniform integer in `0..<bound` without modulo bias (Lemire's multiply-and-reject).
    @inlinable
    public mutating func next(below bound: UInt64) -> UInt64 {
        precondition(bound > 0, "an empty range has no random element")
        var product = next().multipliedFullWidth(by: bound)
        if product.low < bound {
            let threshold = (0 &- bound) % bound
            while product.low < threshold { product = next().multipliedFullWidth(by: bound) }
        }
        return product.high
    }

    /// A uniform integer in `range`.
    @inlinable
    public mutating func next(in range: ClosedRange<Int>) -> Int {
        let width = UInt64(bitPattern: Int64(range.upperBound &- range.lowerBound)) &+ 1
        if width == 0 { return Int(bitPattern: UInt(next())) }       // the full 64-bit range
        return range.lowerBound &+ Int(bitPattern: UInt(next(below: width)))
    }

    /// A uniform double in `range`.
    @inlinable
    public mutating func next(in range: ClosedRange<Double>) -> Double {
        range.lowerBound + (range.upperBound - range.lowerBound) * nextUnit()
    }

    /// `true` with probability `p`.
    @inlinable
    public mutating func chance(_ p: Double) -> Bool { nextUnit() < p }
}
