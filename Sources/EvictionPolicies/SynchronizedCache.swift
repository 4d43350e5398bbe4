import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// A cache that any number of threads can share: one policy behind a `Mutex`.
///
/// Every call takes the lock once, so each operation is atomic with respect to the others, as
/// with YYMemoryCache's `pthread_mutex` (which its author chose over a GCD queue for speed) or
/// NSCache's `NSLock`. Use ``withLock(_:)`` to run several operations, or to pass an observer,
/// under one acquisition.
///
/// ```swift
/// let images = try SynchronizedCache(LRUCache<URL, Image>(capacity: 100 << 20))
/// DispatchQueue.concurrentPerform(iterations: 8) { _ in images.setValue(image, forKey: url, cost: bytes) }
/// ```
///
/// Apps should prefer ``Cache``: it runs back to iOS 13, has NSCache's full API (limits,
/// eviction handler, memory warnings, time to live) and specialises across modules. This type
/// stays for the replay engine's threaded runs and existing users.
@available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, visionOS 2.0, *)
public final class SynchronizedCache<Policy: EvictionPolicy>: Sendable
where Policy.Key: Sendable, Policy.Value: Sendable {
    private let state: Mutex<Policy>

    /// Wraps `policy`, which the wrapper now owns.
    public init(_ policy: consuming sending Policy) {
        state = Mutex(policy)
    }

    /// Runs `body` with exclusive access to the policy.
    public func withLock<Result: ~Copyable, E: Error>(_ body: (inout sending Policy) throws(E) -> sending Result) throws(E) -> sending Result {
        let address = UnsafeRawPointer(Unmanaged.passUnretained(self).toOpaque())
        return try state.withLock { (policy) throws(E) -> sending Result in
            _ThreadSanitizer.acquire(address)
            defer { _ThreadSanitizer.release(address) }
            return try body(&policy)
        }
    }

    /// The value for `key`, recording the access, or `nil` on a miss.
    public func value(forKey key: Policy.Key) -> Policy.Value? {
        withLock { $0.value(forKey: key) }
    }

    /// Stores `value` under `key` with `cost`, evicting as the policy's rules say.
    public func setValue(_ value: Policy.Value, forKey key: Policy.Key, cost: Int = 1) {
        withLock { $0.setValue(value, forKey: key, cost: cost) }
    }

    /// Removes `key` and returns its value, or `nil` if it was not resident.
    @discardableResult
    public func removeValue(forKey key: Policy.Key) -> Policy.Value? {
        withLock { $0.removeValue(forKey: key) }
    }

    /// Delivers an environment event (memory warning, background).
    public func handle(_ event: CacheEvent) {
        withLock { policy in
            var observer = IgnoringObserver<Policy.Key, Policy.Value>()
            policy.handle(event, observer: &observer)
        }
    }

    /// Moves virtual time forward, firing due timers.
    public func advance(to time: Double) {
        withLock { policy in
            var observer = IgnoringObserver<Policy.Key, Policy.Value>()
            policy.advance(to: time, observer: &observer)
        }
    }

    /// The number of resident entries.
    public var count: Int { withLock { $0.count } }

    /// The sum of the resident entries' costs.
    public var totalCost: Int { withLock { $0.totalCost } }
}

/// Tells ThreadSanitizer about the lock's ordering.
///
/// On Linux, `Mutex` waits with futexes inside the prebuilt standard library, which
/// ThreadSanitizer does not instrument, so it would report every access under the lock as a
/// race. When the process runs under ThreadSanitizer its runtime exports `__tsan_acquire` and
/// `__tsan_release`; otherwise the lookups find nothing and these calls cost one branch.
enum _ThreadSanitizer {
    typealias Annotation = @convention(c) (UnsafeRawPointer?) -> Void

    static let acquireFunction: Annotation? = lookup("__tsan_acquire")
    static let releaseFunction: Annotation? = lookup("__tsan_release")

    @inline(__always)
    static func acquire(_ address: UnsafeRawPointer) { acquireFunction?(address) }

    @inline(__always)
    static func release(_ address: UnsafeRawPointer) { releaseFunction?(address) }

    private static func lookup(_ name: String) -> Annotation? {
        #if canImport(Glibc)
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), name) else { return nil }
        return unsafeBitCast(symbol, to: Annotation.self)
        #else
        return nil
        #endif
    }
}
