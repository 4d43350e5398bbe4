#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A fixed number of 64-bit words, all 0 at first, whose memory is taken from `calloc`: the
/// system hands large zeroed blocks over as untouched pages, so a table sized for a huge capacity
/// (a frequency sketch of 2^26 words, 512 MiB) occupies memory only where it has been written.
/// A `ContiguousArray(repeating: 0, count:)` writes every word, and the process then holds all
/// of it however few keys the trace has. Shared between copies; ``_CountMin4`` copies it before
/// it writes when it is not the only owner.
///
/// - Complexity: creation O(1) beyond the system's zeroed pages; a copy O(count).
@usableFromInline
internal final class _ZeroedWords {
    @usableFromInline let base: UnsafeMutablePointer<UInt64>
    @usableFromInline let count: Int

    /// `count` zero words.
    @usableFromInline
    init(count: Int) {
        self.count = max(count, 0)
        if let raw = calloc(Swift.max(self.count, 1), MemoryLayout<UInt64>.stride) {
            base = raw.bindMemory(to: UInt64.self, capacity: Swift.max(self.count, 1))
        } else {
            // No zeroed block to be had: an ordinary allocation, written whole (and trapping, as
            // any Swift allocation does, when even that fails).
            base = .allocate(capacity: Swift.max(self.count, 1))
            base.initialize(repeating: 0, count: Swift.max(self.count, 1))
        }
    }

    /// A copy of these words.
    @usableFromInline
    func copy() -> _ZeroedWords {
        let copy = _ZeroedWords(count: count)
        copy.base.update(from: base, count: count)
        return copy
    }

    deinit { free(base) }

    @inlinable var isEmpty: Bool { count == 0 }
    @inlinable var indices: Range<Int> { 0..<count }

    /// The word at `index`, which must be in ``indices``.
    @inlinable
    subscript(index: Int) -> UInt64 {
        @inline(__always) get {
            precondition(index >= 0 && index < count)
            return base[index]
        }
        @inline(__always) set {
            precondition(index >= 0 && index < count)
            base[index] = newValue
        }
    }
}
