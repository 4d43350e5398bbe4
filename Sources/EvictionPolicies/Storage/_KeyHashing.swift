/// Hashing for the key index.
///
/// Replay keys are `UInt64` object ids; hashing them through `Hasher` (SipHash) would cost more
/// than the rest of a cache hit, so integer keys get a multiply–xorshift finalizer instead.
/// `String` keys (what apps use) get ``_hashString(_:seed:)``, a word-at-a-time hash of their
/// bytes, when they are ASCII. Other keys use their own `hashValue`.
/// The branches on the key type fold away once the generic code is specialized.
@inlinable @inline(__always)
internal func _hash<Key: Hashable>(_ key: Key, seed: UInt64) -> UInt64 {
    if Key.self == UInt64.self {
        return _mix64(unsafeBitCast(key, to: UInt64.self))
    }
    if Key.self == Int.self {
        return _mix64(UInt64(bitPattern: Int64(unsafeBitCast(key, to: Int.self))))
    }
    if Key.self == String.self {
        return _hashString(unsafeBitCast(key, to: String.self), seed: seed)
    }
    return UInt64(bitPattern: Int64(key.hashValue))
}

/// MurmurHash3's 64-bit finalizer: every input bit affects every output bit.
@inlinable @inline(__always)
internal func _mix64(_ value: UInt64) -> UInt64 {
    var x = value
    x ^= x >> 33
    x &*= 0xff51_afd7_ed55_8ccd
    x ^= x >> 33
    x &*= 0xc4ce_b9fe_1a85_ec53
    x ^= x >> 33
    return x
}

/// A random seed for ``_hashString(_:seed:)``, drawn once per process from the standard
/// library's own per-process hashing seed (deterministic, like `Hasher`, when the environment
/// sets `SWIFT_DETERMINISTIC_HASHING`). Each key index copies it once, at creation.
@usableFromInline
internal let _stringHashSeed: UInt64 = {
    var hasher = Hasher()
    hasher.combine(0x6361_6368_6562_656e as UInt64)
    return UInt64(truncatingIfNeeded: hasher.finalize())
}()

/// The hash of a `String` key, consistent with `String`'s `==`.
///
/// Why not `hashValue`: SipHash over a 40-byte URL is a few hundred instructions, and when the
/// key's bytes are not in the processor cache they fill the reorder window, so the next lookup's
/// memory loads cannot start early. Measured on 200,000 URL keys in random order, hashing alone
/// took about 300 ns a key with `hashValue` and about 100 ns with this function.
///
/// Two strings are `==` when their Unicode NFC forms are the same. An ASCII string is its own
/// NFC form, so its bytes are hashed in place with ``_hashBytes(_:seed:)``. Any other string goes
/// to ``_hashNonASCIIString(_:seed:)``, which gives a string whose NFC form is ASCII (`"300\u{212A}"`,
/// with the Kelvin sign, equals `"300K"`) the hash of those ASCII bytes, and every other string
/// its `hashValue`.
///
/// Hash flooding: the seed is random per process, as `Hasher`'s is, but this is a fast mixing
/// function, not a keyed pseudo-random function like SipHash. A cache whose keys come from an
/// adversary and must resist crafted collisions should use a key type with its own `hashValue`.
@inlinable @inline(__always)
internal func _hashString(_ string: String, seed: UInt64) -> UInt64 {
    #if _pointerBitWidth(_64) && _endian(little)
    // A small ASCII string (up to 15 bytes) keeps its bytes inside the `String` value itself,
    // zero-padded, in the two words below; the top byte of the second word is the standard
    // library's discriminator: 0xE_ (immortal, ASCII, small) and the byte count. Hashing them
    // from registers skips the copy to the stack that `withContiguousStorageIfAvailable` makes.
    // The words are exactly what ``_hashBytes(_:seed:)`` builds from the same bytes in memory,
    // so a string of the same content stored any other way hashes the same.
    let (low, high) = withUnsafeBytes(of: string) {
        ($0.load(as: UInt64.self), $0.load(fromByteOffset: 8, as: UInt64.self))
    }
    if high >> 60 == 0xE {
        let count = Int(truncatingIfNeeded: high >> 56) & 0xF
        return _finishHash(low, high & 0x00ff_ffff_ffff_ffff, count: count, state: seed ^ _hashK0)
    }
    #endif
    let inPlace = string.utf8.withContiguousStorageIfAvailable { bytes -> UInt64? in
        let (hash, isASCII) = _hashBytes(UnsafeRawBufferPointer(bytes), seed: seed)
        return isASCII ? hash : nil
    }
    if let inPlace, let hash = inPlace { return hash }
    return _hashNonASCIIString(string, seed: seed)
}

/// The slow path of ``_hashString(_:seed:)``, for a string that is not ASCII (or whose bytes are
/// not contiguous, as a bridged `NSString`'s).
///
/// Its NFC form is ASCII exactly when every scalar is ASCII or one of the three scalars whose
/// canonical decomposition is an ASCII character: U+037E GREEK QUESTION MARK (`;`), U+1FEF
/// GREEK VARIA (`` ` ``) and U+212A KELVIN SIGN (`K`). (A test checks that list against the
/// standard library's normalizer over every scalar.) Composition cannot produce ASCII, and a
/// combining mark never disappears, so no other string normalizes to ASCII. Such a string is
/// hashed as its ASCII form; any other is hashed by `hashValue`, which is consistent with `==`
/// among themselves, and none of them equals an ASCII string.
@inline(never) @usableFromInline
internal func _hashNonASCIIString(_ string: String, seed: UInt64) -> UInt64 {
    let ascii = withUnsafeTemporaryAllocation(of: UInt8.self, capacity: string.utf8.count) { buffer -> UInt64? in
        var count = 0
        for scalar in string.unicodeScalars {
            let byte: UInt8
            switch scalar.value {
            case 0..<0x80: byte = UInt8(truncatingIfNeeded: scalar.value)
            case 0x037E: byte = UInt8(ascii: ";")
            case 0x1FEF: byte = UInt8(ascii: "`")
            case 0x212A: byte = UInt8(ascii: "K")
            default: return nil
            }
            buffer[count] = byte  // at most one byte per scalar, and a scalar is 1...4 UTF-8 bytes
            count += 1
        }
        return _hashBytes(UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: buffer[..<count])), seed: seed).hash
    }
    return ascii ?? UInt64(bitPattern: Int64(string.hashValue))
}

// Odd 64-bit constants with about half their bits set, as wyhash's: each multiplication by a
// word XORed with one of them spreads every input bit over the product.
@inlinable @inline(__always) internal var _hashK0: UInt64 { 0xa076_1d64_78bd_642f }
@inlinable @inline(__always) internal var _hashK1: UInt64 { 0xe703_7ed1_a0b4_28db }
@inlinable @inline(__always) internal var _hashK2: UInt64 { 0x8ebc_6af0_9c88_c6e3 }

/// A 64-bit hash of `bytes` in the style of wyhash: each 16 bytes are folded into the state
/// through one 64×64→128-bit multiplication. Also reports whether every byte is ASCII, which
/// costs one OR per word read.
///
/// Every byte is read. Up to 16 bytes become two zero-padded little-endian words (bytes 0–7
/// and 8–15), built from at most two overlapping loads and no loop; longer inputs fold 16
/// bytes per step and finish on their last 16 bytes. The function is total on any length.
@inlinable @inline(__always)
internal func _hashBytes(_ bytes: UnsafeRawBufferPointer, seed: UInt64) -> (hash: UInt64, isASCII: Bool) {
    let count = bytes.count
    var state = seed ^ _hashK0
    guard count > 0, let p = bytes.baseAddress else { return (_finishHash(0, 0, count: 0, state: state), true) }
    var high: UInt64 = 0  // OR of every word read: bit 7 of some byte set means non-ASCII
    var a: UInt64, b: UInt64
    if count <= 16 {
        // Overlapping loads OR'ed together: a byte read twice lands on the same bit position
        // both times, so the result is exactly the zero-padded words.
        if count >= 8 {
            a = p.loadUnaligned(as: UInt64.self)
            b = p.loadUnaligned(fromByteOffset: count - 8, as: UInt64.self) >> (8 * (16 - count))
        } else if count >= 4 {
            let first = UInt64(p.loadUnaligned(as: UInt32.self))
            let last = UInt64(p.loadUnaligned(fromByteOffset: count - 4, as: UInt32.self))
            a = first | last << (8 * (count - 4))
            b = 0
        } else {
            // 1...3 bytes: the first, middle and last byte are all of them.
            let first = UInt64(p.load(as: UInt8.self))
            let middle = UInt64(p.load(fromByteOffset: count >> 1, as: UInt8.self))
            let last = UInt64(p.load(fromByteOffset: count - 1, as: UInt8.self))
            a = first | middle << (8 * (count >> 1)) | last << (8 * (count - 1))
            b = 0
        }
        high = a | b
    } else {
        var offset = 0
        while count - offset > 16 {
            let w0 = p.loadUnaligned(fromByteOffset: offset, as: UInt64.self)
            let w1 = p.loadUnaligned(fromByteOffset: offset + 8, as: UInt64.self)
            high |= w0 | w1
            state = _fold(w0 ^ _hashK1, w1 ^ state)
            offset += 16
        }
        // The last 16 bytes, overlapping what the loop read when the length is not a multiple.
        a = p.loadUnaligned(fromByteOffset: count - 16, as: UInt64.self)
        b = p.loadUnaligned(fromByteOffset: count - 8, as: UInt64.self)
        high |= a | b
    }
    return (_finishHash(a, b, count: count, state: state), high & 0x8080_8080_8080_8080 == 0)
}

/// The last step of ``_hashBytes(_:seed:)``: folds the final two words, the length and the state.
@inlinable @inline(__always)
internal func _finishHash(_ a: UInt64, _ b: UInt64, count: Int, state: UInt64) -> UInt64 {
    let product = (a ^ _hashK1).multipliedFullWidth(by: b ^ state)
    return _fold(product.low ^ _hashK0 ^ UInt64(truncatingIfNeeded: count), product.high ^ _hashK2)
}

/// Multiplies two words to 128 bits and folds the halves together.
@inlinable @inline(__always)
internal func _fold(_ a: UInt64, _ b: UInt64) -> UInt64 {
    let product = a.multipliedFullWidth(by: b)
    return product.high ^ product.low
}
