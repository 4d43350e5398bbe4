/// The NSCache-like surface that ``Cache`` and ``StripedCache`` share, for code that takes either
/// (one cache for a single view, a striped one for a screen full of threads).
///
/// Conforming types are thread-safe classes; the subscript comes with the protocol.
public protocol KeyedCache<Key, Value>: AnyObject {
    /// The type of the keys.
    associatedtype Key: Hashable
    /// The type of the values.
    associatedtype Value
    /// The value for `key`, recording the access, or `nil` on a miss or when the entry expired.
    func value(forKey key: Key) -> Value?
    /// Stores `value` under `key` with `cost` and, if not `nil`, its own time to live in seconds.
    func setValue(_ value: Value, forKey key: Key, cost: Int, timeToLive: Double?)
    /// Removes `key`'s entry and returns its value, or `nil` if there was none.
    @discardableResult
    func removeValue(forKey key: Key) -> Value?
    /// Whether `key` has an entry, without recording an access.
    func contains(_ key: Key) -> Bool
    /// Removes every entry.
    func removeAll()
    /// The number of entries.
    var count: Int { get }
    /// The sum of the entries' costs.
    var totalCost: Int { get }
    /// The most total cost the cache holds, or `nil` for none; setting it trims at once.
    var costLimit: Int? { get set }
    /// The most entries the cache holds, or `nil` for none; setting it trims at once.
    var countLimit: Int? { get set }
    /// Seconds an entry stays valid after it is set, for entries set from now on without a time
    /// to live of their own; `nil` for ever.
    var timeToLive: Double? { get set }
    /// What a memory warning does.
    var memoryWarningResponse: MemoryWarningResponse { get set }
    /// Called for each entry the cache drops on its own (see ``Cache``).
    var evictionHandler: Cache<Key, Value>.EvictionHandler? { get set }
    /// Removes the entries whose time to live has run out, reporting them as expired.
    func removeExpired()
    /// Delivers a system event: a memory warning, entering the background, termination. On Linux,
    /// where no notification reaches the cache, the app calls `handle(.memoryWarning)` itself.
    func handle(_ event: CacheEvent)
}

extension KeyedCache {
    /// Stores `value` under `key` with `cost` (0 by default) and the cache's own time to live:
    /// ``setValue(_:forKey:cost:timeToLive:)`` as ``Cache`` and ``StripedCache`` spell it, for
    /// code generic over the protocol, which does not see their default arguments.
    @inlinable
    public func setValue(_ value: Value, forKey key: Key, cost: Int = 0) {
        setValue(value, forKey: key, cost: cost, timeToLive: nil)
    }
}

extension KeyedCache {
    /// The value for `key` (get), or stores one with cost 0 (set); setting `nil` removes.
    @inlinable
    public subscript(key: Key) -> Value? {
        get { value(forKey: key) }
        set {
            if let newValue { setValue(newValue, forKey: key, cost: 0, timeToLive: nil) } else { removeValue(forKey: key) }
        }
    }
}

/// NSCache's spellings, so that code moving from `NSCache` compiles with few changes.
extension KeyedCache {
    /// NSCache's `object(forKey:)`: ``value(forKey:)``.
    @inlinable
    public func object(forKey key: Key) -> Value? { value(forKey: key) }

    /// NSCache's `setObject(_:forKey:)` and `setObject(_:forKey:cost:)`: ``setValue(_:forKey:cost:timeToLive:)``
    /// with the cache's own time to live.
    @inlinable
    public func setObject(_ object: Value, forKey key: Key, cost: Int = 0) {
        setValue(object, forKey: key, cost: cost, timeToLive: nil)
    }

    /// NSCache's `removeObject(forKey:)`: ``removeValue(forKey:)``.
    @inlinable
    public func removeObject(forKey key: Key) { removeValue(forKey: key) }

    /// NSCache's `removeAllObjects()`: ``removeAll()``.
    @inlinable
    public func removeAllObjects() { removeAll() }

    /// NSCache's `totalCostLimit`: ``costLimit``, with 0 for none as NSCache has it.
    @inlinable
    public var totalCostLimit: Int {
        get { costLimit ?? 0 }
        set { costLimit = newValue }
    }
}
