/// The resident slots filed as libCacheSim's chained hash table files its objects, so that a
/// random draw is distributed as `hashtable_rand_obj` (chainedHashTableV2.c, 0.3.5) draws: a
/// uniformly random *non-empty bucket*, then a uniformly random object in its chain.
///
/// A table of its own, beside the arena's index: for the policies that draw dozens of
/// candidates per eviction from a small table (Hyperbolic's 2^12 buckets stay in the processor's
/// cache), or that keep ghosts. Random and RandomTwo, which draw one or two candidates per
/// eviction from all their residents, keep them in a dense array instead (`_DenseSample`).
///
/// That is not uniform over objects: an object that shares its bucket is drawn less often, for
/// as long as it shares it, so some objects are kept longer at random; on looping traces this
/// changes the miss ratio by a few per cent against a uniform draw. The table's size follows
/// libCacheSim's: 2^16 buckets at first (Random's `hashpower - 8`), doubled when it holds more
/// than two objects per bucket, halved each time a draw has missed more than 32 empty buckets.
///
/// Why each bucket keeps its chain's length and first two slots: a draw then loads one line, the
/// bucket, when it picks one of the first two slots of its chain (nine draws in ten with two
/// objects per bucket, all of them with one), and removing a slot from a chain of one loads
/// nothing more; walking the links of random slots was most of a draw's time (cache misses).
/// libCacheSim counts the chain by walking it, which draws the same slot for the same random
/// numbers.
///
/// Why a bitmap of the non-empty buckets beside them: a draw tries buckets until one is
/// non-empty (one in five is empty at two objects per bucket, nearly one in two at the first
/// size). Asked of the buckets, that branch waited for a cache miss and was mispredicted as
/// often, throwing away the draws after it; the bitmap (a bit per bucket) stays in the first
/// level cache and answers at once, and the rest of a draw takes no branch on the bucket except
/// for a walk past the second slot. That halved a draw's time.
///
/// - Complexity: insert O(1) amortised; remove and draw O(chain length), O(1) expected.
public struct _ChainedSample: _SampleTable {
    /// Per bucket: its chain's first two slots (-1 where there is none) and its length.
    @usableFromInline var buckets: ContiguousArray<_Bucket>
    /// Per bucket, a bit set when its chain is not empty; 64 buckets a word.
    @usableFromInline var occupied: ContiguousArray<UInt64>
    /// Per slot: the next slot of its chain and the low 32 bits of the hash it is filed under
    /// (for rebuilding; enough for any bucket count an `Int32` slot number allows).
    @usableFromInline var links = SideTable<(next: Int32, hash: UInt32)>(filling: (next: -1, hash: 0))
    @usableFromInline var count = 0

    /// A chain's length and its first two slots, which the links also chain.
    @usableFromInline
    struct _Bucket {
        @usableFromInline var head: Int32 = -1
        @usableFromInline var second: Int32 = -1
        @usableFromInline var length: UInt32 = 0

        @inlinable init() {}
    }

    /// An empty table of 2^16 buckets.
    public init() { self.init(buckets: 1 << 16) }

    /// An empty table of `chains` buckets (a power of two).
    public init(chains: Int) { self.init(buckets: chains) }

    /// An empty table of `buckets` buckets (a power of two).
    @inlinable init(buckets: Int) {
        self.buckets = ContiguousArray(repeating: _Bucket(), count: buckets)
        occupied = Self.emptyBitmap(buckets: buckets)
    }

    @inlinable var mask: UInt32 { UInt32(truncatingIfNeeded: buckets.count - 1) }

    /// A bitmap with a clear bit for each of `buckets` buckets.
    @inlinable static func emptyBitmap(buckets: Int) -> ContiguousArray<UInt64> {
        ContiguousArray(repeating: 0, count: (buckets + 63) / 64)
    }

    /// Whether bucket `index` holds a chain, from the bitmap.
    @inlinable @inline(__always)
    func isOccupied(_ index: Int) -> Bool { occupied[index >> 6] & (1 << UInt64(index & 63)) != 0 }

    /// Files `slot`, whose key hashes to `hash`.
    @inlinable
    mutating func insert(_ slot: Int32, hash: UInt64) {
        if count > buckets.count * 2 { rebuild(buckets: buckets.count * 2) }
        file(slot, hash: UInt32(truncatingIfNeeded: hash))
        count += 1
    }

    /// Puts `slot` at the head of its bucket's chain.
    @inlinable @inline(__always)
    mutating func file(_ slot: Int32, hash: UInt32) {
        let index = Int(hash & mask)
        var bucket = buckets[index]
        links[slot] = (next: bucket.head, hash: hash)
        bucket.second = bucket.head
        bucket.head = slot
        bucket.length &+= 1
        buckets[index] = bucket
        // Read first: the bit is usually set already, and a read costs no uniqueness check.
        let bit: UInt64 = 1 << UInt64(index & 63)
        if occupied[index >> 6] & bit == 0 { occupied[index >> 6] |= bit }
    }

    /// Takes out filed `slot`, whose key hashes to `hash` (as it was filed).
    @inlinable
    mutating func remove(_ slot: Int32, hash: UInt64) {
        let index = Int(UInt32(truncatingIfNeeded: hash) & mask)
        var bucket = buckets[index]
        if bucket.length == 1 {
            bucket.head = -1
            bucket.second = -1
            occupied[index >> 6] &= ~(1 << UInt64(index & 63))
        } else {
            let next = links[slot].next
            if bucket.head == slot {
                bucket.head = next
                bucket.second = links[next].next
            } else if bucket.second == slot {
                links[bucket.head].next = next
                bucket.second = next
            } else {
                var previous = bucket.second
                while links[previous].next != slot { previous = links[previous].next }
                links[previous].next = next
            }
        }
        bucket.length &-= 1
        buckets[index] = bucket
        count -= 1
    }

    @inlinable public var residentCount: Int { count }

    @inlinable
    public mutating func insert(_ slot: Int32, hash: UInt64, index: borrowing SlotIndex) { insert(slot, hash: hash) }

    @inlinable
    public mutating func remove(_ slot: Int32, hash: UInt64, index: borrowing SlotIndex) { remove(slot, hash: hash) }

    @inlinable @inline(__always)
    public mutating func draw(index: borrowing SlotIndex, using generator: inout SeededGenerator) -> Int32 {
        draw(using: &generator)
    }

    /// None: a draw here reads its bucket from a small table, and the policies using it draw
    /// their candidates in batches that they prefetch themselves.
    @inlinable @inline(__always)
    public func lookAhead(index: borrowing SlotIndex, generator: SeededGenerator) -> Int32 { -1 }

    /// None: a chain's link keeps only a part of the hash.
    @inlinable public func drawnHash(_ slot: Int32) -> UInt64? { nil }

    /// Never: the policies drawing from chains prefetch their candidates' scores themselves.
    @inlinable public var lastDrawWasUnforeseen: Bool { false }

    /// A slot drawn as libCacheSim draws one. There must be one.
    @inlinable @inline(__always)
    mutating func draw(using generator: inout some RandomNumberGenerator) -> Int32 {
        var index = Int(UInt32(truncatingIfNeeded: generator.next()) & mask)
        var misses = 0
        while !isOccupied(index) {
            misses += 1
            if misses > 32 && buckets.count > 1 { rebuild(buckets: buckets.count / 2) }
            index = Int(UInt32(truncatingIfNeeded: generator.next()) & mask)
        }
        let bucket = buckets[index]
        // The position is drawn even in a chain of one, so the generator's sequence (and every
        // later draw) stays libCacheSim's. Its remainder is taken without a branch on the
        // chain (a chain of one or two is a mask, the same number); the rare walk past the
        // second slot is the only branch that waits for the bucket.
        let position = generator.next()
        let length = UInt64(bucket.length)
        let steps = length & (length - 1) == 0 ? position & (length - 1) : position % length
        var slot = steps == 0 ? bucket.head : bucket.second
        if steps > 1 {
            for _ in 1..<steps { slot = links[slot].next }
        }
        return slot
    }

    /// Renumbers the chains' slots after the arena compacted; each chain keeps its order, so the
    /// draws stay the same. O(n) in the buckets and slots.
    @inlinable
    public mutating func relocate(_ relocation: SlotRelocation) {
        for i in buckets.indices {
            buckets[i].head = relocation[buckets[i].head]
            buckets[i].second = relocation[buckets[i].second]
        }
        links.relocate(relocation)
        links.storage.withUnsafeMutableBufferPointer { links in
            for i in links.indices { links[i].next = relocation[links[i].next] }
        }
    }

    /// Refiles every slot in a table of `buckets` buckets, each old chain walked from its head.
    // Out of line: it runs a few times per run, and inlined it would bloat every draw.
    @inline(never) @usableFromInline
    mutating func rebuild(buckets newCount: Int) {
        let old = buckets
        buckets = ContiguousArray(repeating: _Bucket(), count: newCount)
        occupied = Self.emptyBitmap(buckets: newCount)
        for bucket in old {
            var slot = bucket.head
            for _ in 0..<bucket.length {
                let link = links[slot]
                file(slot, hash: link.hash)
                slot = link.next
            }
        }
    }
}
