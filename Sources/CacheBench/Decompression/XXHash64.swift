/// XXH64, the 64-bit xxHash that zstd frames use for their content checksum, fed incrementally.
///
/// Processes 32-byte stripes with four accumulators; O(n) time, 32 bytes of state.
struct _XXHash64 {
    private static let prime1: UInt64 = 0x9E37_79B1_85EB_CA87
    private static let prime2: UInt64 = 0xC2B2_AE3D_27D4_EB4F
    private static let prime3: UInt64 = 0x1656_67B1_9E37_79F9
    private static let prime4: UInt64 = 0x85EB_CA77_C2B2_AE63
    private static let prime5: UInt64 = 0x27D4_EB2F_1656_67C5

    private var v1: UInt64, v2: UInt64, v3: UInt64, v4: UInt64
    private let seed: UInt64
    private var total: UInt64 = 0
    /// Bytes of an incomplete stripe, kept until 32 are there.
    private var tail: (UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0)
    private var tailCount = 0

    init(seed: UInt64 = 0) {
        self.seed = seed
        v1 = seed &+ Self.prime1 &+ Self.prime2
        v2 = seed &+ Self.prime2
        v3 = seed
        v4 = seed &- Self.prime1
    }

    @inline(__always) private static func rotl(_ x: UInt64, _ r: UInt64) -> UInt64 { (x << r) | (x >> (64 - r)) }

    @inline(__always) private static func round(_ acc: UInt64, _ input: UInt64) -> UInt64 {
        rotl(acc &+ input &* prime2, 31) &* prime1
    }

    @inline(__always) private static func merge(_ acc: UInt64, _ value: UInt64) -> UInt64 {
        (acc ^ round(0, value)) &* prime1 &+ prime4
    }

    @inline(__always) private static func load(_ p: UnsafeRawPointer, _ at: Int) -> UInt64 {
        UInt64(littleEndian: p.loadUnaligned(fromByteOffset: at, as: UInt64.self))
    }

    @inline(__always) private static func load(_ p: UnsafeRawBufferPointer, _ at: Int) -> UInt64 {
        UInt64(littleEndian: p.loadUnaligned(fromByteOffset: at, as: UInt64.self))
    }

    /// Adds `count` bytes at `bytes` to the hashed content.
    mutating func update(_ bytes: UnsafeRawPointer, count: Int) {
        total &+= UInt64(count)
        var at = 0
        if tailCount > 0 {
            let take = min(32 - tailCount, count)
            let filled = tailCount
            withUnsafeMutableBytes(of: &tail) { UnsafeMutableRawBufferPointer(rebasing: $0[filled...]).copyMemory(from: UnsafeRawBufferPointer(start: bytes, count: take)) }
            tailCount += take
            at = take
            guard tailCount == 32 else { return }
            withUnsafeBytes(of: tail) { p in
                v1 = Self.round(v1, Self.load(p, 0)); v2 = Self.round(v2, Self.load(p, 8))
                v3 = Self.round(v3, Self.load(p, 16)); v4 = Self.round(v4, Self.load(p, 24))
            }
            tailCount = 0
        }
        var a = v1, b = v2, c = v3, d = v4
        while count - at >= 32 {
            a = Self.round(a, Self.load(bytes, at)); b = Self.round(b, Self.load(bytes, at + 8))
            c = Self.round(c, Self.load(bytes, at + 16)); d = Self.round(d, Self.load(bytes, at + 24))
            at += 32
        }
        v1 = a; v2 = b; v3 = c; v4 = d
        if at < count {
            let rest = count - at
            withUnsafeMutableBytes(of: &tail) { $0.copyMemory(from: UnsafeRawBufferPointer(start: bytes + at, count: rest)) }
            tailCount = rest
        }
    }

    /// The hash of everything added so far.
    func digest() -> UInt64 {
        var h: UInt64
        if total >= 32 {
            h = Self.rotl(v1, 1) &+ Self.rotl(v2, 7) &+ Self.rotl(v3, 12) &+ Self.rotl(v4, 18)
            h = Self.merge(h, v1); h = Self.merge(h, v2); h = Self.merge(h, v3); h = Self.merge(h, v4)
        } else {
            h = seed &+ Self.prime5
        }
        h &+= total
        withUnsafeBytes(of: tail) { p in
            var at = 0
            while tailCount - at >= 8 {
                h ^= Self.round(0, Self.load(p, at))
                h = Self.rotl(h, 27) &* Self.prime1 &+ Self.prime4
                at += 8
            }
            if tailCount - at >= 4 {
                h ^= UInt64(UInt32(littleEndian: p.loadUnaligned(fromByteOffset: at, as: UInt32.self))) &* Self.prime1
                h = Self.rotl(h, 23) &* Self.prime2 &+ Self.prime3
                at += 4
            }
            while at < tailCount {
                h ^= UInt64(p[at]) &* Self.prime5
                h = Self.rotl(h, 11) &* Self.prime1
                at += 1
            }
        }
        h ^= h >> 33; h &*= Self.prime2
        h ^= h >> 29; h &*= Self.prime3
        h ^= h >> 32
        return h
    }
}
