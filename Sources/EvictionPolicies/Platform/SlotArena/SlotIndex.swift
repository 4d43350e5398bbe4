import _CSupport

/// An open-addressing hash index from a key's hash to a slot, with linear probing and
/// backward-shift deletion (no tombstones).
///
/// Each bucket packs the high 32 bits of the hash with `slot + 1` in one `UInt64` (0 is empty), so
/// a probe compares hashes without touching the slot; the caller confirms the key. A hash's home
/// bucket is its top bits (as many as the table's size needs), so the high half a bucket keeps is
/// all a rebuild needs to find the entry's new home. The table doubles when it is half full.
///
/// - Complexity: find, insert and remove are O(1) expected; growing is O(n), amortised O(1).
@frozen
public struct SlotIndex: Sendable {
    @usableFromInline var buckets: ContiguousArray<UInt64>
    @usableFromInline var mask: Int
    /// 64 minus log2 of the bucket count (32 to 60): a hash's home is `hash >> shift`, and a
    /// bucket's home is `bucket >> shift` (its high half is the hash's). Shifted with `&>>`:
    /// always below 64, so the overshift check of `>>` is not needed.
    @usableFromInline var shift: Int
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
        shift = 64 - size.trailingZeroBitCount
    }

    /// The bucket where a probe for `hash` starts.
    @inlinable @inline(__always)
    func home(_ hash: UInt64) -> Int { Int(truncatingIfNeeded: hash &>> UInt64(truncatingIfNeeded: shift)) }

    /// The first slot filed under `hash` for which `matches` holds, or -1. O(1) expected.
    @inlinable @inline(__always)
    public func find(hash: UInt64, matches: (Int32) -> Bool) -> Int32 {
        let tag = hash >> 32
        var i = home(hash)
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
            if let base = buckets.baseAddress { _cs_prefetch(base + home(hash)) }
        }
    }

    /// Where the buckets lie and the shift that gives a hash's home bucket
    /// (`base + (hash >> shift) * 8`): what a thread that may not read the index (one waiting for
    /// a lock around it) needs to prefetch a bucket. Out of date once the index grows. O(1).
    @inlinable @inline(__always)
    var _bucketGeometry: (base: UInt, shift: UInt) {
        buckets.withUnsafeBufferPointer { (UInt(bitPattern: $0.baseAddress), UInt(truncatingIfNeeded: shift)) }
    }

    /// The slot of the first bucket whose stored hash matches `hash`, or -1: a guess for
    /// prefetching, not confirmed against the key.
    @inlinable @inline(__always)
    public func candidate(hash: UInt64) -> Int32 {
        let tag = hash >> 32
        var i = home(hash)
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
        let entry = hash & 0xffff_ffff_0000_0000 | UInt64(UInt32(slot) + 1)
        let mask = self.mask
        let start = home(hash)
        buckets.withUnsafeMutableBufferPointer { buckets in
            var i = start
            while buckets[i] != 0 { i = (i + 1) & mask }
            buckets[i] = entry
        }
        count += 1
    }

    /// Forgets `slot` filed under `hash`, if it is there, and says whether it was. O(1) expected.
    @inlinable
    @discardableResult
    public mutating func remove(hash: UInt64, slot: Int32) -> Bool {
        let entry = hash & 0xffff_ffff_0000_0000 | UInt64(UInt32(slot) + 1)
        let mask = self.mask
        let shift = UInt64(truncatingIfNeeded: self.shift)
        let start = home(hash)
        let removed = buckets.withUnsafeMutableBufferPointer { buckets -> Bool in
            var i = start
            while buckets[i] != entry {
                if buckets[i] == 0 { return false }
                i = (i + 1) & mask
            }
            // Backward-shift: pull later entries of the run into the hole when their home allows.
            var hole = i
            var j = (i + 1) & mask
            while buckets[j] != 0 {
                let home = Int(truncatingIfNeeded: buckets[j] &>> shift)
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
        return removed
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

    /// Refiles every entry in a table of `size` buckets (a power of two). Entries keep the high
    /// 32 bits of their hash, which are all a home position needs up to 2^32 buckets (an `Int32`
    /// slot number never needs more).
    @inlinable
    mutating func rebuild(size: Int) {
        let old = buckets
        buckets = ContiguousArray(repeating: 0, count: size)
        mask = size - 1
        shift = 64 - size.trailingZeroBitCount
        let shift = UInt64(truncatingIfNeeded: self.shift)
        for entry in old where entry != 0 {
            var i = Int(truncatingIfNeeded: entry &>> shift)
            while buckets[i] != 0 { i = (i + 1) & mask }
            buckets[i] = entry
        }
    }
}
