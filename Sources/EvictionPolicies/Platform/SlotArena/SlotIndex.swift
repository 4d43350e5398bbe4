import _CSupport

/// An open-addressing hash index from a key's hash to a slot, with linear probing and
/// backward-shift deletion (no tombstones).
///
/// Each bucket packs the low 32 bits of the hash with `slot + 1` in one `UInt64` (0 is empty), so
/// a probe compares hashes without touching the slot; the caller confirms the key.
/// The table doubles when it is half full.
///
/// - Complexity: find, insert and remove are O(1) expected; growing is O(n), amortised O(1).
@frozen
public struct SlotIndex: Sendable {
    @usableFromInline var buckets: ContiguousArray<UInt64>
    @usableFromInline var mask: Int
    @usableFromInline var count: Int = 0
    /// The seed for hashing `String` keys; see ``_hashString(_:seed:)``.
    @usableFromInline let seed: UInt64

    /// An empty index with room for `minimumCapacity` slots before it grows.
    @inlinable
    public init(minimumCapacity: Int = 16) {
        seed = _stringHashSeed
        var size = 16
        while size < minimumCapacity * 2 { size <<= 1 }
        buckets = ContiguousArray(repeating: 0, count: size)
        mask = size - 1
    }

    /// The first slot filed under `hash` for which `matches` holds, or -1. O(1) expected.
    @inlinable @inline(__always)
    public func find(hash: UInt64, matches: (Int32) -> Bool) -> Int32 {
        let tag = hash & 0xffff_ffff
        var i = Int(truncatingIfNeeded: hash) & mask
        while true {
            let bucket = buckets[i]
            if bucket == 0 { return -1 }
            if bucket >> 32 == tag {
                let slot = Int32(truncatingIfNeeded: bucket & 0xffff_ffff) - 1
                if matches(slot) { return slot }
            }
            i = (i + 1) & mask
        }
    }

    /// Starts loading the bucket where a probe for `hash` begins.
    @inlinable @inline(__always)
    public func prefetch(hash: UInt64) {
        buckets.withUnsafeBufferPointer { buckets in
            if let base = buckets.baseAddress { _cs_prefetch(base + (Int(truncatingIfNeeded: hash) & mask)) }
        }
    }

    /// The slot of the first bucket whose stored hash matches `hash`, or -1: a guess for
    /// prefetching, not confirmed against the key.
    @inlinable @inline(__always)
    public func candidate(hash: UInt64) -> Int32 {
        let tag = hash & 0xffff_ffff
        var i = Int(truncatingIfNeeded: hash) & mask
        while true {
            let bucket = buckets[i]
            if bucket == 0 { return -1 }
            if bucket >> 32 == tag { return Int32(truncatingIfNeeded: bucket & 0xffff_ffff) - 1 }
            i = (i + 1) & mask
        }
    }

    // Insert and remove work on the buckets through one unsafe buffer access: subscripting the
    // array would check its uniqueness (a runtime call) and bounds on every write. Positions are
    // masked, so they are always in bounds.

    /// Files `slot` under `hash`. O(1) amortised.
    @inlinable
    public mutating func insert(hash: UInt64, slot: Int32) {
        if (count + 1) * 2 > buckets.count { grow() }
        let entry = (hash & 0xffff_ffff) << 32 | UInt64(UInt32(slot) + 1)
        let mask = self.mask
        buckets.withUnsafeMutableBufferPointer { buckets in
            var i = Int(truncatingIfNeeded: hash) & mask
            while buckets[i] != 0 { i = (i + 1) & mask }
            buckets[i] = entry
        }
        count += 1
    }

    /// Forgets `slot` filed under `hash`, if it is there. O(1) expected.
    @inlinable
    public mutating func remove(hash: UInt64, slot: Int32) {
        let entry = (hash & 0xffff_ffff) << 32 | UInt64(UInt32(slot) + 1)
        let mask = self.mask
        let removed = buckets.withUnsafeMutableBufferPointer { buckets -> Bool in
            var i = Int(truncatingIfNeeded: hash) & mask
            while buckets[i] != entry {
                if buckets[i] == 0 { return false }
                i = (i + 1) & mask
            }
            // Backward-shift: pull later entries of the run into the hole when their home allows.
            var hole = i
            var j = (i + 1) & mask
            while buckets[j] != 0 {
                let home = Int(truncatingIfNeeded: buckets[j] >> 32) & mask
                // Move j into the hole unless its home lies cyclically in (hole, j].
                let distanceToJ = (j - home) & mask
                let distanceToHole = (hole - home) & mask
                if distanceToHole < distanceToJ {
                    buckets[hole] = buckets[j]
                    hole = j
                }
                j = (j + 1) & mask
            }
            buckets[hole] = 0
            return true
        }
        if removed { count -= 1 }
    }

    /// Rebuilds the table at the smallest size (at least 16) that holds its entries at most a
    /// quarter full, if that is smaller than it is now, giving memory back after a purge.
    /// O(n) in the old size.
    @inlinable
    public mutating func shrinkToFit() {
        var size = 16
        while size < count * 4 { size <<= 1 }
        guard size < buckets.count else { return }
        rebuild(size: size)
    }

    @inlinable
    mutating func grow() { rebuild(size: buckets.count * 2) }

    /// Refiles every entry in a table of `size` buckets (a power of two). Entries keep the low
    /// 32 bits of their hash, which are all a home position needs below 2^32 buckets.
    @inlinable
    mutating func rebuild(size: Int) {
        let old = buckets
        buckets = ContiguousArray(repeating: 0, count: size)
        mask = size - 1
        for entry in old where entry != 0 {
            var i = Int(truncatingIfNeeded: entry >> 32) & mask
            while buckets[i] != 0 { i = (i + 1) & mask }
            buckets[i] = entry
        }
    }
}
