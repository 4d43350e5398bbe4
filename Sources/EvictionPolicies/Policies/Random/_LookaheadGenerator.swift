/// A ``SeededGenerator`` whose coming outputs can be read before they are used: ``peek(_:)``
/// generates them into a small ring, and ``next()`` hands them out in the same order, so the
/// sequence is the generator's whatever was peeked.
///
/// Why: a sampled policy's next draws are fixed by these numbers, so looking at them lets it
/// start loading the buckets and slots those draws will read while the cache serves other
/// requests (see ``_SampledResidents/prefetchUpcoming(draws:in:also:)``).
///
/// The ring is a tuple, stored inline: an array would check its uniqueness on every write.
///
/// - Complexity: ``next()`` and ``peek(_:)`` are O(1) amortised.
@usableFromInline
struct _LookaheadGenerator: RandomNumberGenerator {
    @usableFromInline var generator: SeededGenerator
    /// Outputs generated and not yet handed out, from `start`, `count` of them, modulo ``capacity``.
    @usableFromInline var ring: (
        UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64,
        UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64,
        UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64,
        UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64
    ) = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
    @usableFromInline var start = 0
    @usableFromInline var count = 0
    /// Outputs handed out so far (wrapping).
    @usableFromInline var taken = 0

    /// How many outputs ahead ``peek(_:)`` can see (a power of two).
    @inlinable static var capacity: Int { 32 }

    @inlinable init(_ generator: SeededGenerator) { self.generator = generator }

    /// The next output: the oldest peeked one, or a new one.
    @inlinable @inline(__always)
    mutating func next() -> UInt64 {
        taken &+= 1
        guard count > 0 else { return generator.next() }
        let value = withUnsafeBytes(of: &ring) { $0.load(fromByteOffset: start &* 8, as: UInt64.self) }
        start = (start &+ 1) & (Self.capacity &- 1)
        count &-= 1
        return value
    }

    /// The output `offset` places ahead (0 is what ``next()`` returns next), generating the ones
    /// before it as needed. `offset` must be below ``capacity``.
    @inlinable @inline(__always)
    mutating func peek(_ offset: Int) -> UInt64 {
        while count <= offset {
            let value = generator.next()
            let position = (start &+ count) & (Self.capacity &- 1)
            withUnsafeMutableBytes(of: &ring) { $0.storeBytes(of: value, toByteOffset: position &* 8, as: UInt64.self) }
            count &+= 1
        }
        let position = (start &+ offset) & (Self.capacity &- 1)
        return withUnsafeBytes(of: &ring) { $0.load(fromByteOffset: position &* 8, as: UInt64.self) }
    }
}
