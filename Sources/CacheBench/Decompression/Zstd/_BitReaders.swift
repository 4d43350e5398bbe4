/// Reads a zstd bitstream backwards, from its last bit to its first (RFC 8878 §4.1, §4.2.2).
///
/// A stream ends with a 1 bit that marks where its content stops; the bits above it are padding.
/// Reading past the first bit yields zeros and drives ``bitsLeft`` negative, which decoders check
/// once at the end instead of on every read. The bytes up to 8 before the stream's start and 8
/// after its end must be readable memory (the block buffer keeps that slack), so every read is one
/// unaligned 8-byte load.
struct _BackwardBitReader {
    private let base: UnsafePointer<UInt8>
    /// Bits not read yet; negative once the reader has overrun the start.
    var bitsLeft: Int

    /// Opens the `count`-byte stream at `base`.
    init(base: UnsafePointer<UInt8>, count: Int) throws(_DecodeFailure) {
        guard count > 0 else { throw _DecodeFailure("empty bitstream") }
        let last = base[count - 1]
        guard last != 0 else { throw _DecodeFailure("bitstream has no end marker") }
        self.base = base
        bitsLeft = count * 8 - (last.leadingZeroBitCount + 1)
    }

    /// The next `n` bits (0...56) without consuming them, the earliest-read bit highest.
    @inline(__always)
    func peek(_ n: Int) -> UInt64 {
        let start = bitsLeft - n
        if start >= 0 {
            let word = UInt64(littleEndian: UnsafeRawPointer(base + (start >> 3)).loadUnaligned(as: UInt64.self))
            return (word >> UInt64(start & 7)) & ((1 &<< UInt64(n)) &- 1)
        }
        guard bitsLeft > 0 else { return 0 }
        let word = UInt64(littleEndian: UnsafeRawPointer(base).loadUnaligned(as: UInt64.self))
        return (word & ((1 &<< UInt64(bitsLeft)) &- 1)) << UInt64(-start)
    }

    /// Consumes and returns the next `n` bits (0...56).
    @inline(__always)
    mutating func read(_ n: Int) -> UInt64 {
        let value = peek(n)
        bitsLeft -= n
        return value
    }
}

/// Reads little-endian bit fields forwards, as FSE table descriptions are stored (RFC 8878 §4.1.1).
struct _ForwardBitReader {
    private let base: UnsafePointer<UInt8>
    private let count: Int
    /// Bits consumed from the start.
    private(set) var bitOffset = 0

    init(base: UnsafePointer<UInt8>, count: Int) {
        self.base = base
        self.count = count
    }

    /// Bytes touched so far, the last one counted whole.
    var bytesUsed: Int { (bitOffset + 7) >> 3 }

    /// Consumes `n` bits (0...24).
    mutating func read(_ n: Int) throws(_DecodeFailure) -> UInt32 {
        let value = try peek(n)
        bitOffset += n
        return value
    }

    /// The next `n` bits (0...24) without consuming them; bits beyond the end read as zeros but
    /// consuming them is an error.
    func peek(_ n: Int) throws(_DecodeFailure) -> UInt32 {
        guard bitOffset < count * 8 else { throw _DecodeFailure("FSE table description runs past its section") }
        var word: UInt32 = 0
        let first = bitOffset >> 3
        for i in 0..<4 where first + i < count { word |= UInt32(base[first + i]) << UInt32(8 * i) }
        return (word >> UInt32(bitOffset & 7)) & ((1 << UInt32(n)) - 1)
    }

    /// Gives back `n` consumed bits.
    mutating func rewind(_ n: Int) { bitOffset -= n }

    /// Fails when the bits consumed run past the section.
    func checkInside() throws(_DecodeFailure) {
        guard bitOffset <= count * 8 else { throw _DecodeFailure("FSE table description runs past its section") }
    }
}
