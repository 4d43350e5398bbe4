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
