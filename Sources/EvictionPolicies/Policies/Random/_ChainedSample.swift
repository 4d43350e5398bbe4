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
/// - Complexity: insert O(1) amortised; remove and draw O(chain length), O(1) expected.
@usableFromInline
struct _ChainedSample {
    @usableFromInline var heads: ContiguousArray<Int32>
    @usableFromInline var chain = SideTable<Int32>(filling: -1)
    @usableFromInline var hashes = SideTable<UInt64>(filling: 0)
    @usableFromInline var count = 0

    /// An empty table of `buckets` buckets (a power of two).
    @inlinable init(buckets: Int = 1 << 16) { heads = ContiguousArray(repeating: -1, count: buckets) }

    @inlinable var mask: UInt64 { UInt64(heads.count - 1) }

    @inlinable
    mutating func insert(_ slot: Int32, hash: UInt64) {
        if count > heads.count * 2 { rebuild(buckets: heads.count * 2) }
        hashes[slot] = hash
        file(slot)
        count += 1
    }

    @inlinable
    mutating func remove(_ slot: Int32) {
        let bucket = Int(hashes[slot] & mask)
        if heads[bucket] == slot {
            heads[bucket] = chain[slot]
        } else {
            var previous = heads[bucket]
            while chain[previous] != slot { previous = chain[previous] }
            chain[previous] = chain[slot]
        }
        chain[slot] = -1
        count -= 1
    }

    /// A slot drawn as libCacheSim draws one. There must be one.
    @inlinable
    mutating func draw(using generator: inout some RandomNumberGenerator) -> Int32 {
        var bucket = Int(generator.next() & mask)
        var misses = 0
        while heads[bucket] < 0 {
            misses += 1
            if misses > 32 && heads.count > 1 { rebuild(buckets: heads.count / 2) }
            bucket = Int(generator.next() & mask)
        }
        var length: UInt64 = 0
        var slot = heads[bucket]
        while slot >= 0 { length += 1; slot = chain[slot] }
        slot = heads[bucket]
        for _ in 0..<(generator.next() % length) { slot = chain[slot] }
        return slot
    }

    @inlinable
    mutating func file(_ slot: Int32) {
        let bucket = Int(hashes[slot] & mask)
        chain[slot] = heads[bucket]
        heads[bucket] = slot
    }

    @inlinable
    mutating func rebuild(buckets: Int) {
        let old = heads
        heads = ContiguousArray(repeating: -1, count: buckets)
        for head in old {
            var slot = head
            while slot >= 0 {
                let next = chain[slot]
                file(slot)
                slot = next
            }
        }
    }
}
