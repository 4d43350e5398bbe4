import _CSupport

/// Where a ``Cache``'s key index keeps its buckets, published for the threads about to take the
/// cache's lock: a get or set that has hashed its key starts loading the key's bucket before it
/// takes the lock. The bucket's cache miss then overlaps the wait for the lock (or, on one
/// thread, the misses the previous call left in flight) instead of lengthening the time the lock
/// is held, and the probe under the lock finds the bucket loaded.
///
/// The two words (the buckets' address and the shift that gives a hash's home) are written under
/// the lock and read without it, as relaxed atomic words. A reader may see them out of date, or
/// one new and one old: it then prefetches a useless address, which costs nothing else (a
/// prefetch never faults and changes no result). Nothing ever dereferences them. An address of 0
/// (a policy whose index the cache cannot see, or none published yet) prefetches nothing. Every
/// call that can move the index publishes before it releases the lock: sets and removals (an
/// index grows or shrinks), and the cold paths that reset the policy or trim it (`removeAll`,
/// limit changes, memory warnings, expiry sweeps).
///
/// Why a pointer: atomic words must not move once shared, and a Swift stored property may. The
/// words have a cache line of their own, which only a change of the index's storage writes:
/// they stay shared between the cores that read them.
@usableFromInline
internal struct _IndexHint: @unchecked Sendable {
    @usableFromInline let _words: UnsafeMutablePointer<UInt>

    /// An empty hint (nothing to prefetch); the owner calls ``deallocate()`` in its `deinit`.
    @usableFromInline
    init() {
        _words = UnsafeMutableRawPointer.allocate(byteCount: 64, alignment: 64).bindMemory(to: UInt.self, capacity: 2)
        _words.initialize(repeating: 0, count: 2)
    }

    @usableFromInline
    func deallocate() {
        _words.deinitialize(count: 2)
        UnsafeMutableRawPointer(_words).deallocate()
    }

    /// Starts loading the bucket where a probe for `hash` begins, as last published. O(1).
    @inlinable @inline(__always)
    func prefetch(hash: UInt64) {
        let base = _cs_load_relaxed(_words)
        guard base != 0 else { return }
        let shift = UInt64(truncatingIfNeeded: _cs_load_relaxed(_words + 1))
        let home = UInt(truncatingIfNeeded: hash &>> shift)
        _cs_prefetch(UnsafeRawPointer(bitPattern: base &+ home &<< 3))
    }

    /// Publishes where the index's buckets now lie (``SlotIndex/_bucketGeometry``); writes only
    /// when they moved. Called under the cache's lock.
    @inlinable @inline(__always)
    func publish(_ geometry: (base: UInt, shift: UInt)) {
        guard _cs_load_relaxed(_words) != geometry.base || _cs_load_relaxed(_words + 1) != geometry.shift else { return }
        _cs_store_relaxed(_words, geometry.base)
        _cs_store_relaxed(_words + 1, geometry.shift)
    }
}
