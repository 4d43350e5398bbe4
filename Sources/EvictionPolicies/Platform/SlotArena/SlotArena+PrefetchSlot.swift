import _CSupport

extension SlotArena {
    /// Starts loading the line of `slot` (its key, cost and links), for a policy that knows a
    /// slot it will read soon: a sampled policy's drawn candidates, MQ's next tail. O(1).
    @inlinable @inline(__always)
    public func prefetchSlot(_ slot: Int32) {
        guard slot >= 0, Int(slot) < slots.count else { return }
        slots.withUnsafeBufferPointer { slots in
            if let base = slots.baseAddress { _cs_prefetch(base + Int(slot)) }
        }
    }

    /// Starts loading the index bucket where a lookup, insert or removal of the key hashing to
    /// `hash` begins: for a policy that will probe a second arena (its ghosts) for the same key,
    /// or file an evicted key there. Every arena hashes with the same seed, so one hash serves
    /// all of a policy's arenas. O(1).
    @inlinable @inline(__always)
    public func prefetchBucket(hash: UInt64) { index.prefetch(hash: hash) }

    /// The slot a lookup of the key hashing to `hash` would meet first, or -1 when the key is
    /// surely absent (its probe starts at an empty bucket): a guess for prefetching, not
    /// confirmed against the key; the index bucket should have been asked for earlier. O(1).
    @inlinable @inline(__always)
    public func candidateSlot(hash: UInt64) -> Int32 { index.candidate(hash: hash) }
}
