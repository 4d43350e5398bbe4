#if canImport(Darwin)
/// The lock behind ``Cache``: on Apple platforms ``_Lock``'s `os_unfair_lock` (iOS 10,
/// macOS 10.12), whose unlock is already a single atomic operation.
@usableFromInline
internal typealias _CacheLock = _Lock
#else
import _CSupport
import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The lock behind ``Cache`` off Apple platforms, whose calls hold it for a few hundred
/// nanoseconds (one policy operation; the eviction handler runs after it is released): a
/// spin-then-yield lock on one atomic word, with a handoff request so that no waiter starves.
///
/// Why not glibc's mutex, as ``_Lock``: its unlock is an atomic exchange (it must learn whether
/// a thread sleeps in the kernel), and on x86 every locked instruction is a full barrier that
/// keeps the next get's independent cache misses from overlapping this one's. Here the unlock is
/// a plain release store, so a get pays one locked instruction for the lock instead of two.
/// The price is that a waiting thread is never woken: it spins briefly, then yields the
/// processor, then polls every 50 µs. No thread can miss a wake-up (none is ever sent).
///
/// **Fairness.** A thread that releases the lock and takes it again at once (a loop of sets)
/// would win nearly every time against a waiter that only looks every 50 µs: measured, a get
/// waited up to 0.2 s behind one busy writer. So a waiter that has spun and yielded in vain
/// raises a *handoff request* (a second word; one waiter at a time owns it). While it is raised, no other
/// thread takes the lock, even a free one, so the requester gets it at its next look, within
/// about 50 µs of the holder's release; then it lowers the request. Taking the lock costs one
/// plain load of that word more (on the lock's own cache line). Code that holds a lock across
/// I/O (``DiskCache``) keeps ``_Lock``.
///
/// Why a pointer: the words must not move once used, and a Swift stored property may.
/// ThreadSanitizer sees the acquire and release orderings of the atomic words, so no annotations
/// are needed. Not reentrant: code that holds it must not call back into the object that owns it.
@usableFromInline
internal struct _CacheLock: @unchecked Sendable {
    /// Two words: the lock (0 free, 1 held), then the handoff request (0 none, 1 raised).
    @usableFromInline let _pointer: UnsafeMutablePointer<Atomic<UInt32>>

    /// Allocates an unlocked lock; the owner calls ``deallocate()`` in its `deinit`.
    @usableFromInline
    init() {
        _pointer = .allocate(capacity: 2)
        _pointer.initialize(to: Atomic(0))
        (_pointer + 1).initialize(to: Atomic(0))
    }

    @usableFromInline
    func deallocate() {
        _pointer.deinitialize(count: 2)
        _pointer.deallocate()
    }

    /// The lock word.
    @inlinable var _word: UnsafeMutablePointer<Atomic<UInt32>> { _pointer }
    /// The handoff request word.
    @inlinable var _request: UnsafeMutablePointer<Atomic<UInt32>> { _pointer + 1 }

    @inlinable @inline(__always)
    func lock() {
        // One load and one compare-and-swap when the lock is free and nobody has waited long:
        // the common case in a cache.
        if _request.pointee.load(ordering: .relaxed) != 0
            || !_word.pointee.compareExchange(expected: 0, desired: 1, successOrdering: .acquiring,
                                              failureOrdering: .relaxed).exchanged {
            _waitAndLock()
        }
    }

    @inlinable @inline(__always)
    func unlock() {
        _word.pointee.store(0, ordering: .releasing)
    }

    /// Waits until the lock is free and takes it: spins (reading, not writing, so the holder's
    /// core keeps the line), then yields the processor, then sleeps 50 µs between looks, so a
    /// holder that was descheduled or runs a long operation does not have a core spin against it.
    /// When it starts to sleep (its spins and yields having failed) it raises the handoff
    /// request, if no other waiter has; while a request is raised, only its owner may take the
    /// lock. (Raised sooner, it would make two busy threads take turns at every call, which
    /// halved their throughput.)
    @usableFromInline @inline(never)
    func _waitAndLock() {
        var attempts = 0
        var ownsRequest = false
        while true {
            let mayTake = ownsRequest || _request.pointee.load(ordering: .relaxed) == 0
            if mayTake, _word.pointee.load(ordering: .relaxed) == 0,
               _word.pointee.compareExchange(expected: 0, desired: 1, successOrdering: .acquiring,
                                             failureOrdering: .relaxed).exchanged {
                if ownsRequest { _request.pointee.store(0, ordering: .releasing) }
                return
            }
            attempts += 1
            if !ownsRequest && attempts >= 200 {
                ownsRequest = _request.pointee.compareExchange(expected: 0, desired: 1, successOrdering: .relaxed,
                                                               failureOrdering: .relaxed).exchanged
            }
            if attempts < 100 {
                _cs_spin_pause()
            } else if attempts < 200 {
                sched_yield()
            } else {
                var pause = timespec(tv_sec: 0, tv_nsec: 50_000)
                _ = nanosleep(&pause, nil)
            }
        }
    }
}
#endif
