#if canImport(Darwin)
import Darwin
#else
import Synchronization
#endif

/// The lock behind ``Cache``, ``DiskCache`` and the trace recorder: `os_unfair_lock` on Apple
/// platforms (iOS 10, macOS 10.12), the standard library's `Mutex` elsewhere.
///
/// Why not `Mutex` on Apple platforms: it needs iOS 18 / macOS 15, and the caches must run back
/// to iOS 13. On Linux it has no such limit, and it is the faster lock: its uncontended path is
/// an inlined compare-and-swap (a `pthread_mutex_t` costs two calls into the C library per
/// request), and when contended it spins briefly before it sleeps, where a default
/// `pthread_mutex_t` sleeps at once: two threads taking turns at a lock held for well under a
/// microsecond then hand it over without a system call each time.
///
/// Why a pointer (Darwin) or a class (elsewhere): neither lock may move once used, and a Swift
/// stored property may. ThreadSanitizer intercepts `os_unfair_lock` and sees `Mutex`'s atomics,
/// so no annotations are needed.
///
/// Not reentrant: code that holds it must not call back into the object that owns it.
@usableFromInline
internal struct _Lock: @unchecked Sendable {
    #if canImport(Darwin)
    @usableFromInline let _pointer: UnsafeMutablePointer<os_unfair_lock>
    #else
    @usableFromInline let _box: _MutexBox
    #endif

    /// Allocates an unlocked lock; the owner calls ``deallocate()`` in its `deinit`.
    @usableFromInline
    init() {
        #if canImport(Darwin)
        _pointer = .allocate(capacity: 1)
        _pointer.initialize(to: os_unfair_lock())
        #else
        _box = _MutexBox()
        #endif
    }

    @usableFromInline
    func deallocate() {
        #if canImport(Darwin)
        _pointer.deinitialize(count: 1)
        _pointer.deallocate()
        #endif
    }

    /// Runs `body` holding the lock.
    @inlinable @inline(__always)
    func withLock<T, E: Error>(_ body: () throws(E) -> T) throws(E) -> T {
        #if canImport(Darwin)
        os_unfair_lock_lock(_pointer)
        defer { os_unfair_lock_unlock(_pointer) }
        return try body()
        #else
        return try _box.mutex.withLock { _ throws(E) -> T in try body() }
        #endif
    }
}

#if !canImport(Darwin)
/// A `Mutex` at a fixed address: a class's `let`, as `Mutex` requires.
@usableFromInline
internal final class _MutexBox: Sendable {
    @usableFromInline let mutex = Mutex(())
    @usableFromInline init() {}
}
#endif
