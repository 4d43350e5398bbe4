import _CSupport
#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The lock behind ``Cache`` and ``DiskCache``: `os_unfair_lock` on Apple platforms (iOS 10,
/// macOS 10.12), `pthread_mutex_t` elsewhere (glibc's adaptive kind, which spins a little
/// before sleeping: a cache call holds the lock for less time than a sleep and wake-up costs).
///
/// Why not `Mutex`: it needs iOS 18 / macOS 15, and the caches must run back to iOS 13. Why a
/// pointer: both C locks must not move once used, and a Swift stored property may.
/// ThreadSanitizer intercepts both, so no annotations are needed.
///
/// Not reentrant: code that holds it must not call back into the object that owns it.
@usableFromInline
internal struct _Lock: @unchecked Sendable {
    #if canImport(Darwin)
    @usableFromInline let _pointer: UnsafeMutablePointer<os_unfair_lock>
    #else
    @usableFromInline let _pointer: UnsafeMutablePointer<pthread_mutex_t>
    #endif

    /// Allocates an unlocked lock; the owner calls ``deallocate()`` in its `deinit`.
    @usableFromInline
    init() {
        #if canImport(Darwin)
        _pointer = .allocate(capacity: 1)
        _pointer.initialize(to: os_unfair_lock())
        #else
        _pointer = .allocate(capacity: 1)
        _pointer.initialize(to: pthread_mutex_t())
        _cs_mutex_init(_pointer)
        #endif
    }

    @usableFromInline
    func deallocate() {
        #if !canImport(Darwin)
        pthread_mutex_destroy(_pointer)
        #endif
        _pointer.deinitialize(count: 1)
        _pointer.deallocate()
    }

    @inlinable @inline(__always)
    func lock() {
        #if canImport(Darwin)
        os_unfair_lock_lock(_pointer)
        #else
        pthread_mutex_lock(_pointer)
        #endif
    }

    @inlinable @inline(__always)
    func unlock() {
        #if canImport(Darwin)
        os_unfair_lock_unlock(_pointer)
        #else
        pthread_mutex_unlock(_pointer)
        #endif
    }

    /// Runs `body` holding the lock.
    @inlinable @inline(__always)
    func withLock<Result>(_ body: () throws -> Result) rethrows -> Result {
        lock()
        defer { unlock() }
        return try body()
    }
}
