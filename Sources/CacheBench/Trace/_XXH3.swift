/// XXH3-64 with seed 0 and the default secret, as xxHash 0.7.4 (the version libCacheSim 0.3.5
/// bundles) computes `XXH3_64bits`: libCacheSim's `get_hash_value_str`, which turns a trace's
/// string keys into object ids. Written from the reference implementation's scalar path, every
/// length class (0, 1–3, 4–8, 9–16, 17–128, 129–240, longer) checked against it.
///
/// - Complexity: O(n) in the bytes.
enum _XXH3 {
    static let prime32_1: UInt64 = 0x9E37_79B1
    static let prime32_2: UInt64 = 0x85EB_CA77
    static let prime32_3: UInt64 = 0xC2B2_AE3D
    static let prime64_1: UInt64 = 0x9E37_79B1_85EB_CA87
    static let prime64_2: UInt64 = 0xC2B2_AE3D_27D4_EB4F
    static let prime64_3: UInt64 = 0x1656_67B1_9E37_79F9
    static let prime64_4: UInt64 = 0x85EB_CA77_C2B2_AE63
    static let prime64_5: UInt64 = 0x27D4_EB2F_1656_67C5

    /// `XXH3_kSecret`, 192 bytes.
    static let secret: [UInt8] = [
        0xb8, 0xfe, 0x6c, 0x39, 0x23, 0xa4, 0x4b, 0xbe, 0x7c, 0x01, 0x81, 0x2c, 0xf7, 0x21, 0xad, 0x1c,
        0xde, 0xd4, 0x6d, 0xe9, 0x83, 0x90, 0x97, 0xdb, 0x72, 0x40, 0xa4, 0xa4, 0xb7, 0xb3, 0x67, 0x1f,
        0xcb, 0x79, 0xe6, 0x4e, 0xcc, 0xc0, 0xe5, 0x78, 0x82, 0x5a, 0xd0, 0x7d, 0xcc, 0xff, 0x72, 0x21,
        0xb8, 0x08, 0x46, 0x74, 0xf7, 0x43, 0x24, 0x8e, 0xe0, 0x35, 0x90, 0xe6, 0x81, 0x3a, 0x26, 0x4c,
        0x3c, 0x28, 0x52, 0xbb, 0x91, 0xc3, 0x00, 0xcb, 0x88, 0xd0, 0x65, 0x8b, 0x1b, 0x53, 0x2e, 0xa3,
        0x71, 0x64, 0x48, 0x97, 0xa2, 0x0d, 0xf9, 0x4e, 0x38, 0x19, 0xef, 0x46, 0xa9, 0xde, 0xac, 0xd8,
        0xa8, 0xfa, 0x76, 0x3f, 0xe3, 0x9c, 0x34, 0x3f, 0xf9, 0xdc, 0xbb, 0xc7, 0xc7, 0x0b, 0x4f, 0x1d,
        0x8a, 0x51, 0xe0, 0x4b, 0xcd, 0xb4, 0x59, 0x31, 0xc8, 0x9f, 0x7e, 0xc9, 0xd9, 0x78, 0x73, 0x64,
        0xea, 0xc5, 0xac, 0x83, 0x34, 0xd3, 0xeb, 0xc3, 0xc5, 0x81, 0xa0, 0xff, 0xfa, 0x13, 0x63, 0xeb,
        0x17, 0x0d, 0xdd, 0x51, 0xb7, 0xf0, 0xda, 0x49, 0xd3, 0x16, 0x55, 0x26, 0x29, 0xd4, 0x68, 0x9e,
        0x2b, 0x16, 0xbe, 0x58, 0x7d, 0x47, 0xa1, 0xfc, 0x8f, 0xf8, 0xb8, 0xd1, 0x7a, 0xd0, 0x31, 0xce,
        0x45, 0xcb, 0x3a, 0x8f, 0x95, 0x16, 0x04, 0x28, 0xaf, 0xd7, 0xfb, 0xca, 0xbb, 0x4b, 0x40, 0x7e,
    ]

    /// XXH3-64 of `bytes`.
    static func hash(_ bytes: UnsafeRawBufferPointer) -> UInt64 {
        secret.withUnsafeBytes { key in
            let length = bytes.count
            if length <= 16 { return short(bytes, key) }
            if length <= 128 { return upTo128(bytes, key) }
            if length <= 240 { return upTo240(bytes, key) }
            return long(bytes, key)
        }
    }

    // MARK: Lengths

    private static func short(_ input: UnsafeRawBufferPointer, _ key: UnsafeRawBufferPointer) -> UInt64 {
        let length = input.count
        if length > 8 {
            let low = read64(input, 0) ^ (read64(key, 24) ^ read64(key, 32))
            let high = read64(input, length - 8) ^ (read64(key, 40) ^ read64(key, 48))
            let accumulator = UInt64(length) &+ low.byteSwapped &+ high &+ fold(low, high)
            return avalanche(accumulator)
        }
        if length >= 4 {
            let first = UInt64(read32(input, 0)), last = UInt64(read32(input, length - 4))
            let keyed = (last &+ (first << 32)) ^ (read64(key, 8) ^ read64(key, 16))
            return rrmxmx(keyed, UInt64(length))
        }
        if length > 0 {
            let c1 = UInt32(input[0]), c2 = UInt32(input[length >> 1]), c3 = UInt32(input[length - 1])
            let combined = (c1 << 16) | (c2 << 24) | c3 | (UInt32(length) << 8)
            return xxh64Avalanche(UInt64(combined) ^ UInt64(read32(key, 0) ^ read32(key, 4)))
        }
        return xxh64Avalanche(read64(key, 56) ^ read64(key, 64))
    }

    private static func upTo128(_ input: UnsafeRawBufferPointer, _ key: UnsafeRawBufferPointer) -> UInt64 {
        let length = input.count
        var accumulator = UInt64(length) &* prime64_1
        if length > 32 {
            if length > 64 {
                if length > 96 {
                    accumulator &+= mix16(input, 48, key, 96)
                    accumulator &+= mix16(input, length - 64, key, 112)
                }
                accumulator &+= mix16(input, 32, key, 64)
                accumulator &+= mix16(input, length - 48, key, 80)
            }
            accumulator &+= mix16(input, 16, key, 32)
            accumulator &+= mix16(input, length - 32, key, 48)
        }
        accumulator &+= mix16(input, 0, key, 0)
        accumulator &+= mix16(input, length - 16, key, 16)
        return avalanche(accumulator)
    }

    private static func upTo240(_ input: UnsafeRawBufferPointer, _ key: UnsafeRawBufferPointer) -> UInt64 {
        let length = input.count
        var accumulator = UInt64(length) &* prime64_1
        for i in 0..<8 { accumulator &+= mix16(input, 16 * i, key, 16 * i) }
        accumulator = avalanche(accumulator)
        for i in 8..<(length / 16) { accumulator &+= mix16(input, 16 * i, key, 16 * (i - 8) + 3) }
        accumulator &+= mix16(input, length - 16, key, 136 - 17)
        return avalanche(accumulator)
    }

    private static func long(_ input: UnsafeRawBufferPointer, _ key: UnsafeRawBufferPointer) -> UInt64 {
        let length = input.count
        var lanes: (UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64) =
            (prime32_3, prime64_1, prime64_2, prime64_3, prime64_4, prime32_2, prime64_5, prime32_1)
        return withUnsafeMutableBytes(of: &lanes) { raw in
            let accumulators = raw.bindMemory(to: UInt64.self)
            let stripesPerBlock = (key.count - 64) / 8
            let blockLength = 64 * stripesPerBlock
            let blocks = (length - 1) / blockLength
            for block in 0..<blocks {
                for stripe in 0..<stripesPerBlock {
                    accumulate(accumulators, input, block * blockLength + stripe * 64, key, stripe * 8)
                }
                scramble(accumulators, key, key.count - 64)
            }
            let stripes = ((length - 1) - blockLength * blocks) / 64
            for stripe in 0..<stripes { accumulate(accumulators, input, blocks * blockLength + stripe * 64, key, stripe * 8) }
            accumulate(accumulators, input, length - 64, key, key.count - 64 - 7)
            var result = UInt64(length) &* prime64_1
            for i in 0..<4 {
                result &+= fold(accumulators[2 * i] ^ read64(key, 11 + 16 * i), accumulators[2 * i + 1] ^ read64(key, 11 + 16 * i + 8))
            }
            return avalanche(result)
        }
    }

    // MARK: Steps

    private static func accumulate(_ accumulators: UnsafeMutableBufferPointer<UInt64>, _ input: UnsafeRawBufferPointer,
                                   _ at: Int, _ key: UnsafeRawBufferPointer, _ keyAt: Int) {
        for i in 0..<8 {
            let value = read64(input, at + 8 * i)
            let keyed = value ^ read64(key, keyAt + 8 * i)
            accumulators[i ^ 1] &+= value
            accumulators[i] &+= (keyed & 0xFFFF_FFFF) &* (keyed >> 32)
        }
    }

    private static func scramble(_ accumulators: UnsafeMutableBufferPointer<UInt64>, _ key: UnsafeRawBufferPointer, _ keyAt: Int) {
        for i in 0..<8 {
            var value = accumulators[i]
            value ^= value >> 47
            value ^= read64(key, keyAt + 8 * i)
            accumulators[i] = value &* prime32_1
        }
    }

    private static func mix16(_ input: UnsafeRawBufferPointer, _ at: Int, _ key: UnsafeRawBufferPointer, _ keyAt: Int) -> UInt64 {
        fold(read64(input, at) ^ read64(key, keyAt), read64(input, at + 8) ^ read64(key, keyAt + 8))
    }

    /// The 128-bit product's halves xored.
    private static func fold(_ a: UInt64, _ b: UInt64) -> UInt64 {
        let product = a.multipliedFullWidth(by: b)
        return product.high ^ product.low
    }

    private static func avalanche(_ value: UInt64) -> UInt64 {
        var h = value ^ (value >> 37)
        h &*= 0x1656_6791_9E37_79F9
        return h ^ (h >> 32)
    }

    private static func rrmxmx(_ value: UInt64, _ length: UInt64) -> UInt64 {
        var h = value ^ (value.rotatedLeft(49) ^ value.rotatedLeft(24))
        h &*= 0x9FB2_1C65_1E98_DF25
        h ^= (h >> 35) &+ length
        h &*= 0x9FB2_1C65_1E98_DF25
        return h ^ (h >> 28)
    }

    private static func xxh64Avalanche(_ value: UInt64) -> UInt64 {
        var h = value ^ (value >> 33)
        h &*= prime64_2
        h ^= h >> 29
        h &*= prime64_3
        return h ^ (h >> 32)
    }

    private static func read64(_ bytes: UnsafeRawBufferPointer, _ at: Int) -> UInt64 {
        UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: at, as: UInt64.self))
    }

    private static func read32(_ bytes: UnsafeRawBufferPointer, _ at: Int) -> UInt32 {
        UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: at, as: UInt32.self))
    }
}

extension UInt64 {
    fileprivate func rotatedLeft(_ count: UInt64) -> UInt64 { (self << count) | (self >> (64 - count)) }
}
