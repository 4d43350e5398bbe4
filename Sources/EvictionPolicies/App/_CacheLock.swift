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
/// spin-then-yield lock on one atomic word.
///
/// Why not glibc's mutex, as ``_Lock``: its unlock is an atomic exchange (it must learn whether
/// a thread sleeps in the kernel), and on x86 every locked instruction is a full barrier that
/// keeps the next get's independent cache misses from overlapping this one's. Here the unlock is
/// a plain release store, so a get pays one locked instruction for the lock instead of two.
/// The price is that a waiting thread never sleeps on a wake-up: it spins briefly, then yields
/// the processor, then polls every 50 µs. No thread can miss a wake-up (none is ever sent), and
/// a waiter costs little beyond that: the cache's critical sections are short, and the long ones
/// (a limit change, `removeAll()`, a memory warning) are rare. Code that holds a lock across I/O
/// (``DiskCache``) keeps ``_Lock``. The lock is not fair: a releasing thread may take it again
/// before a waiter does.
///
/// Why a pointer: the word must not move once used, and a Swift stored property may.
/// ThreadSanitizer sees the acquire and release orderings of the atomic word, so no annotations
/// are needed. Not reentrant: code that holds it must not call back into the object that owns it.
@usableFromInline
internal struct _CacheLock: @unchecked Sendable {
    /// 0 when the lock is free, 1 when a thread holds it.
    @usableFromInline let _pointer: UnsafeMutablePointer<Atomic<UInt32>>

    /// Allocates an unlocked lock; the owner calls ``deallocate()`` in its `deinit`.
    @usableFromInline
    init() {
        _pointer = .allocate(capacity: 1)
        _pointer.initialize(to: Atomic(0))
    }

    @usableFromInline
    func deallocate() {
        _pointer.deinitialize(count: 1)
        _pointer.deallocate()
    }

    @inlinable @inline(__always)
    func lock() {
        // One compare-and-swap when the lock is free: the common case in a cache.
        if !_pointer.pointee.compareExchange(expected: 0, desired: 1, successOrdering: .acquiring,
                                             failureOrdering: .relaxed).exchanged {
            _waitAndLock()
        }
    }

    @inlinable @inline(__always)
    func unlock() {
        _pointer.pointee.store(0, ordering: .releasing)
    }

    /// Waits until the lock is free and takes it: spins (reading, not writing, so the holder's
    /// core keeps the line), then yields the processor, then sleeps 50 µs between looks, so a
    /// holder that was descheduled or runs a long operation does not have a core spin against it.
    @usableFromInline @inline(never)
    func _waitAndLock() {
        var attempts = 0
        while true {
            if _pointer.pointee.load(ordering: .relaxed) == 0,
               _pointer.pointee.compareExchange(expected: 0, desired: 1, successOrdering: .acquiring,
                                                failureOrdering: .relaxed).exchanged {
                return
            }
            attempts += 1
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
