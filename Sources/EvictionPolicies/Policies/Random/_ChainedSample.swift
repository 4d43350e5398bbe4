/// The resident slots filed as libCacheSim's chained hash table files its objects, so that a
/// random draw is distributed as `hashtable_rand_obj` (chainedHashTableV2.c, 0.3.5) draws: a
/// uniformly random *non-empty bucket*, then a uniformly random object in its chain.
///
/// That is not uniform over objects: an object that shares its bucket is drawn less often, for
/// as long as it shares it, so some objects are kept longer at random; on looping traces this
/// changes the miss ratio by a few per cent against a uniform draw. The table's size follows
/// libCacheSim's: 2^16 buckets at first (Random's `hashpower - 8`), doubled when it holds more
/// than two objects per bucket, halved each time a draw has missed more than 32 empty buckets.
///
/// Why each bucket keeps its chain's length beside its head: a draw then loads one line, the
/// bucket, when the chain has one slot (most do), and removing such a slot loads nothing more;
/// walking the links of random slots was most of a draw's time (cache misses). libCacheSim
/// counts the chain by walking it, which draws the same slot for the same random numbers.
///
/// - Complexity: insert O(1) amortised; remove and draw O(chain length), O(1) expected.
@usableFromInline
struct _ChainedSample {
    /// Per bucket: its chain's first slot (-1 when empty) and its length.
    @usableFromInline var buckets: ContiguousArray<(head: Int32, length: UInt32)>
    /// Per slot: the next slot of its chain and the low 32 bits of the hash it is filed under
    /// (for rebuilding; enough for any bucket count an `Int32` slot number allows).
    @usableFromInline var links = SideTable<(next: Int32, hash: UInt32)>(filling: (next: -1, hash: 0))
    @usableFromInline var count = 0

    /// An empty table of `buckets` buckets (a power of two).
    @inlinable init(buckets: Int = 1 << 16) {
        self.buckets = ContiguousArray(repeating: (head: -1, length: 0), count: buckets)
    }

    @inlinable var mask: UInt32 { UInt32(truncatingIfNeeded: buckets.count - 1) }

    /// Files `slot`, whose key hashes to `hash`.
    @inlinable
    mutating func insert(_ slot: Int32, hash: UInt64) {
        if count > buckets.count * 2 { rebuild(buckets: buckets.count * 2) }
        let hash = UInt32(truncatingIfNeeded: hash)
        let bucket = Int(hash & mask)
        links[slot] = (next: buckets[bucket].head, hash: hash)
        buckets[bucket].head = slot
        buckets[bucket].length &+= 1
        count += 1
    }

    /// Takes out filed `slot`, whose key hashes to `hash` (as it was filed).
    @inlinable
    mutating func remove(_ slot: Int32, hash: UInt64) {
        let index = Int(UInt32(truncatingIfNeeded: hash) & mask)
        var bucket = buckets[index]
        if bucket.length == 1 {
            bucket.head = -1
        } else if bucket.head == slot {
            bucket.head = links[slot].next
        } else {
            var previous = bucket.head
            while links[previous].next != slot { previous = links[previous].next }
            links[previous].next = links[slot].next
        }
        bucket.length &-= 1
        buckets[index] = bucket
        count -= 1
    }

    /// A slot drawn as libCacheSim draws one. There must be one.
    @inlinable @inline(__always)
    mutating func draw(using generator: inout some RandomNumberGenerator) -> Int32 {
        var index = Int(UInt32(truncatingIfNeeded: generator.next()) & mask)
        var misses = 0
        while buckets[index].length == 0 {
            misses += 1
            if misses > 32 && buckets.count > 1 { rebuild(buckets: buckets.count / 2) }
            index = Int(UInt32(truncatingIfNeeded: generator.next()) & mask)
        }
        let bucket = buckets[index]
        // The position is drawn even in a chain of one, so the generator's sequence (and every
        // later draw) stays libCacheSim's; the division, tens of cycles, is skipped there.
        let position = generator.next()
        var slot = bucket.head
        if bucket.length > 1 {
            // A chain of two (the most common longer one) or four needs no division either: the
            // remainder by a power of two is a mask, the same number.
            let length = UInt64(bucket.length)
            let steps = length & (length - 1) == 0 ? position & (length - 1) : position % length
            for _ in 0..<steps { slot = links[slot].next }
        }
        return slot
    }

    /// Refiles every slot in a table of `buckets` buckets, each old chain walked from its head.
    // Out of line: it runs a few times per run, and inlined it would bloat every draw.
    @inline(never) @usableFromInline
    mutating func rebuild(buckets newCount: Int) {
        let old = buckets
        buckets = ContiguousArray(repeating: (head: -1, length: 0), count: newCount)
        let mask = self.mask
        for bucket in old {
            var slot = bucket.head
            for _ in 0..<bucket.length {
                let link = links[slot]
                let index = Int(link.hash & mask)
                links[slot].next = buckets[index].head
                buckets[index].head = slot
                buckets[index].length &+= 1
                slot = link.next
            }
        }
    }
}
