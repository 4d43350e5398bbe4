/// A cache that any number of threads can share: one policy behind a lock.
///
/// Every call takes the lock once, so each operation is atomic with respect to the others, as
/// with YYMemoryCache's `pthread_mutex` (which its author chose over a GCD queue for speed) or
/// NSCache's `NSLock`. Use ``withLock(_:)`` to run several operations, or to pass an observer,
/// under one acquisition. The lock is ``Cache``'s plain one (`os_unfair_lock` on Apple
/// platforms, a `pthread_mutex_t` elsewhere), so this type runs back to iOS 13 too.
///
/// ```swift
/// let images = SynchronizedCache(try LRUCache<URL, Image>(capacity: 100 << 20))
/// DispatchQueue.concurrentPerform(iterations: 8) { _ in images.setValue(image, forKey: url, cost: bytes) }
/// ```
///
/// Apps should prefer ``Cache``: it has NSCache's full API (limits, eviction handler, memory
/// warnings, time to live) and specialises across modules. This type stays for the replay
/// engine's threaded runs and existing users.
public final class SynchronizedCache<Policy: EvictionPolicy>: @unchecked Sendable
where Policy.Key: Sendable, Policy.Value: Sendable {
    // Unchecked: `policy` is only touched with `lock` held, and what crosses threads through it
    // (keys, values) is `Sendable`.
    private let lock = _Lock()
    private var policy: Policy

    /// Wraps `policy`, which the wrapper now owns.
    public init(_ policy: consuming sending Policy) {
        self.policy = policy
    }

    deinit { lock.deallocate() }

    /// Runs `body` with exclusive access to the policy. Not reentrant: `body` must not call this
    /// cache.
    public func withLock<Result: ~Copyable, E: Error>(_ body: (inout sending Policy) throws(E) -> sending Result) throws(E) -> sending Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&policy)
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
