/// Hashing for the key index.
///
/// Replay keys are `UInt64` object ids; hashing them through `Hasher` (SipHash) would cost more
/// than the rest of a cache hit, so integer keys get a multiply–xorshift finalizer instead.
/// The branch on the key type folds away once the generic code is specialized.
@inlinable @inline(__always)
internal func _hash<Key: Hashable>(_ key: Key) -> UInt64 {
    if Key.self == UInt64.self {
        return _mix64(unsafeBitCast(key, to: UInt64.self))
    }
    if Key.self == Int.self {
        return _mix64(UInt64(bitPattern: Int64(unsafeBitCast(key, to: Int.self))))
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
