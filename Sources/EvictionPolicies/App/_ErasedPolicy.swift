/// A policy behind closures, so that ``Cache`` has two generic parameters, not three.
///
/// The closures are formed in ``factory(_:options:)``, which is `@inlinable`: when an app
/// creates a `Cache<String, Image>`, they are compiled in the app's module for the concrete
/// policy, key and value, so each call runs specialised code at the cost of one indirect call.
/// (A generic subclass overriding methods would not do: its vtable holds the unspecialised
/// implementations.) The policy lives behind a pointer, so calls pay no exclusivity check.
@usableFromInline
internal final class _ErasedPolicy<Key: Hashable, Value> {
    @usableFromInline typealias Entry = CacheEntry<Value>
    @usableFromInline typealias Observer = _CacheObserver<Key, Value>

    @usableFromInline let lookup: (Key, inout Observer) -> Entry?
    @usableFromInline let insert: (Entry, Key, Int, inout Observer) -> Void
    @usableFromInline let remove: (Key, inout Observer) -> Entry?
    @usableFromInline let contains: (Key) -> Bool
    @usableFromInline let count: () -> Int
    @usableFromInline let totalCost: () -> Int
    @usableFromInline let handle: (CacheEvent, inout Observer) -> Void
    @usableFromInline let advance: (Double, inout Observer) -> Void
    /// Keeps the policy alive: the closures hold only its address.
    @usableFromInline let owner: AnyObject

    @inlinable
    init(owner: AnyObject, lookup: @escaping (Key, inout Observer) -> Entry?, insert: @escaping (Entry, Key, Int, inout Observer) -> Void,
         remove: @escaping (Key, inout Observer) -> Entry?, contains: @escaping (Key) -> Bool,
         count: @escaping () -> Int, totalCost: @escaping () -> Int,
         handle: @escaping (CacheEvent, inout Observer) -> Void, advance: @escaping (Double, inout Observer) -> Void) {
        self.lookup = lookup
        self.insert = insert
        self.remove = remove
        self.contains = contains
        self.count = count
        self.totalCost = totalCost
        self.handle = handle
        self.advance = advance
        self.owner = owner
    }

    /// A factory of `P` policies with `options`, for any limits.
    @inlinable
    static func factory<P: EvictionPolicy>(_ type: P.Type, options: PolicyOptions) -> _PolicyFactory<Key, Value>
    where P.Key == Key, P.Value == Entry {
        _PolicyFactory(descriptor: P.descriptor) { (limits: CacheLimits) throws(PolicyConfigurationError) -> _ErasedPolicy in
            let storage = _PolicyStorage(try P(limits: limits, options: options))
            let policy = storage.pointer
            return _ErasedPolicy(
                owner: storage,
                lookup: { key, observer in policy.pointee.lookup(key, observer: &observer) },
                insert: { entry, key, cost, observer in policy.pointee.insert(entry, forKey: key, cost: cost, observer: &observer) },
                remove: { key, observer in policy.pointee.remove(key, observer: &observer) },
                contains: { key in policy.pointee.contains(key) },
                count: { policy.pointee.count },
                totalCost: { policy.pointee.totalCost },
                handle: { event, observer in policy.pointee.handle(event, observer: &observer) },
                advance: { time, observer in policy.pointee.advance(to: time, observer: &observer) })
        }
    }
}

/// Makes a policy for given limits: how a ``Cache`` builds its first policy and rebuilds it when
/// a limit changes.
@usableFromInline
internal struct _PolicyFactory<Key: Hashable, Value> {
    @usableFromInline let descriptor: PolicyDescriptor
    @usableFromInline let make: (CacheLimits) throws(PolicyConfigurationError) -> _ErasedPolicy<Key, Value>

    @inlinable
    init(descriptor: PolicyDescriptor,
         make: @escaping (CacheLimits) throws(PolicyConfigurationError) -> _ErasedPolicy<Key, Value>) {
        self.descriptor = descriptor
        self.make = make
    }
}

/// Owns a policy at a fixed address; the closures of one ``_ErasedPolicy`` keep it alive.
@usableFromInline
internal final class _PolicyStorage<Policy> {
    @usableFromInline let pointer: UnsafeMutablePointer<Policy>

    @inlinable
    init(_ policy: consuming Policy) {
        pointer = .allocate(capacity: 1)
        pointer.initialize(to: policy)
    }

    @inlinable
    deinit {
        pointer.deinitialize(count: 1)
        pointer.deallocate()
    }
}

/// Why a ``Cache`` dropped an entry it did not remove on request.
public enum CacheEvictionReason: Sendable, Hashable {
    /// The policy made room under the cost or count limit (including after a limit was lowered).
    case limit
    /// The entry's time to live ran out.
    case expired
    /// A memory warning (or memory pressure) removed it.
    case memoryWarning
    /// The app entered the background, or the policy's own timer fired.
    case event
}

/// The observer a ``Cache`` passes to its policy: frees each evicted entry's key slot and, when
/// the cache has an eviction handler, queues the eviction to report once the lock is released.
@usableFromInline
internal struct _CacheObserver<Key: Hashable, Value>: EvictionObserver {
    @usableFromInline let ring: UnsafeMutablePointer<_KeyRing<Key>>
    @usableFromInline let evicted: UnsafeMutablePointer<[(Key, Value, CacheEvictionReason)]>?
    @usableFromInline var reason: CacheEvictionReason

    @inlinable
    init(ring: UnsafeMutablePointer<_KeyRing<Key>>, evicted: UnsafeMutablePointer<[(Key, Value, CacheEvictionReason)]>?,
         reason: CacheEvictionReason) {
        self.ring = ring
        self.evicted = evicted
        self.reason = reason
    }

    @inlinable public mutating func trimWillBegin(_ kind: TrimKind) {}
    @inlinable public mutating func trimDidEnd(_ kind: TrimKind) {}

    @inlinable
    public mutating func didEvict(_ key: Key, value: CacheEntry<Value>, cost: Int) {
        ring.pointee.release(value.ring, serial: value.serial)
        evicted?.pointee.append((key, value.value, reason))
    }
}
