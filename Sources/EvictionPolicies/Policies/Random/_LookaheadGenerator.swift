/// A ``SeededGenerator`` whose next few outputs can be drawn early and looked at: they are
/// handed out first, in order, so the sequence of outputs is the generator's own.
///
/// Why: a sampled policy's next draw is decided by outputs not yet used; drawn early, they
/// tell which buckets and slots the next evictions will read, and those can be loaded during
/// the requests before them (``_SampledPolicy/_prefetchNextDraw()``).
///
/// - Complexity: ``next()`` and ``peek(_:)`` O(1); ``fill()`` O(``capacity``).
@usableFromInline
struct _LookaheadGenerator: RandomNumberGenerator {
    @usableFromInline var base: SeededGenerator
    /// The outputs drawn early, oldest first; the first `count` are valid.
    @usableFromInline var early: (UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0)
    @usableFromInline var count = 0

    /// How many outputs can be drawn early.
    @inlinable static var capacity: Int { 4 }

    @inlinable init(_ base: SeededGenerator) { self.base = base }

    @inlinable @inline(__always)
    mutating func next() -> UInt64 {
        guard count > 0 else { return base.next() }
        let output = early.0
        early = (early.1, early.2, early.3, 0)
        count -= 1
        return output
    }

    /// Draws outputs early until ``capacity`` are waiting.
    @inlinable
    mutating func fill() {
        while count < Self.capacity {
            let output = base.next()
            switch count {
            case 0: early.0 = output
            case 1: early.1 = output
            case 2: early.2 = output
            default: early.3 = output
            }
            count += 1
        }
    }

    /// The `i`th output to come (`i` < `count`).
    @inlinable
    func peek(_ i: Int) -> UInt64 {
        switch i {
        case 0: early.0
        case 1: early.1
        case 2: early.2
        default: early.3
        }
    }
}
