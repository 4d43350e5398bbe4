import Foundation

/// A ``Cache`` whose gets, sets, removals and events are written to a ``TraceRecorder``.
///
/// Use it in place of the cache; keys are written as their `description`. Replaying the trace
/// with the same policy and limits (`cachebench replay trace.csv --policy lru --capacity …`,
/// the policy named by ``CachePolicy``'s raw value) gives the hits the app had, as long as the app
/// stores after each miss (cache-aside) and the cache expires nothing by time to live (the
/// replay has no per-entry time to live).
///
/// Memory warnings are recorded as events. A research policy ignores them in a replay, as
/// libCacheSim does, so give the replay the cache's ``Cache/memoryWarningResponse``:
/// `--memory-warning remove-all` (the default response), `trim:0.5` or `ignore`.
///
/// W-TinyLFU's replay is close but not exact: its frequency sketch hashes the keys, and the
/// replay sees each key as the trace's 64-bit id, so the sketch's collisions differ.
public final class RecordingCache<Key: Hashable, Value>: @unchecked Sendable {
    /// The cache every call is passed to.
    public let base: Cache<Key, Value>
    /// Where calls are recorded.
    public let recorder: TraceRecorder

    /// Records the calls made through this wrapper to `base`.
    public init(_ base: Cache<Key, Value>, recorder: TraceRecorder) {
        self.base = base
        self.recorder = recorder
    }

    /// ``Cache/value(forKey:)``, recorded as a `get`.
    public func value(forKey key: Key) -> Value? {
        let found = base._valueAndCost(forKey: key)
        recorder.recordGet(String(describing: key), hit: found != nil, size: found?.cost)
        return found?.value
    }

    /// ``Cache/setValue(_:forKey:cost:timeToLive:)``, recorded as a `set` (or as the `get` that
    /// missed before it).
    public func setValue(_ value: Value, forKey key: Key, cost: Int = 0, timeToLive: Double? = nil) {
        base.setValue(value, forKey: key, cost: cost, timeToLive: timeToLive)
        recorder.recordSet(String(describing: key), size: cost)
    }

    /// ``Cache/removeValue(forKey:)``, recorded as a `delete`.
    @discardableResult
    public func removeValue(forKey key: Key) -> Value? {
        recorder.recordDelete(String(describing: key))
        return base.removeValue(forKey: key)
    }

    /// ``Cache/handle(_:)``, recorded as an event.
    public func handle(_ event: CacheEvent) {
        recorder.recordEvent(event)
        base.handle(event)
    }
}

/// A ``DiskCache`` whose reads, writes and removals are written to a ``TraceRecorder``, with the
/// data's size.
public final class RecordingDiskCache: @unchecked Sendable {
    /// The cache every call is passed to.
    public let base: DiskCache
    /// Where calls are recorded.
    public let recorder: TraceRecorder

    /// Records the calls made through this wrapper to `base`.
    public init(_ base: DiskCache, recorder: TraceRecorder) {
        self.base = base
        self.recorder = recorder
    }

    /// ``DiskCache/data(forKey:)-8mj31``, recorded as a `get`.
    public func data(forKey key: String) throws -> Data? {
        let data = try base.data(forKey: key)
        recorder.recordGet(key, hit: data != nil, size: data?.count)
        return data
    }

    /// ``DiskCache/setData(_:forKey:)-5qky8``, recorded as a `set` (or as the `get` that missed before it).
    public func setData(_ data: Data, forKey key: String) throws {
        try base.setData(data, forKey: key)
        recorder.recordSet(key, size: data.count)
    }

    /// ``DiskCache/removeData(forKey:)-97s67``, recorded as a `delete`.
    public func removeData(forKey key: String) throws {
        recorder.recordDelete(key)
        try base.removeData(forKey: key)
    }
}

/// A ``TieredCache`` whose lookups, stores and removals are written to a
/// ``TraceRecorder``: a lookup answered by either tier is a hit.
public final class RecordingTieredCache<Value>: @unchecked Sendable {
    /// The cache every call is passed to.
    public let base: TieredCache<Value>
    /// Where calls are recorded.
    public let recorder: TraceRecorder
    private let size: (Value) -> Int

    /// Records the calls made through this wrapper to `base`; `size` gives each value's size
    /// for the trace.
    public init(_ base: TieredCache<Value>, recorder: TraceRecorder, size: @escaping (Value) -> Int) {
        self.base = base
        self.recorder = recorder
        self.size = size
    }

    /// ``TieredCache/value(forKey:)-7cmno``, recorded as a `get`.
    public func value(forKey key: String) throws -> (value: Value, source: TierSource)? {
        let found = try base.value(forKey: key)
        recorder.recordGet(key, hit: found != nil, size: found.map { size($0.value) })
        return found
    }

    /// ``TieredCache/setValue(_:forKey:toDisk:)``, recorded as a `set`.
    public func setValue(_ value: Value, forKey key: String, toDisk: Bool = true) throws {
        try base.setValue(value, forKey: key, toDisk: toDisk)
        recorder.recordSet(key, size: size(value))
    }

    /// ``TieredCache/removeValue(forKey:)``, recorded as a `delete`.
    public func removeValue(forKey key: String) throws {
        recorder.recordDelete(key)
        try base.removeValue(forKey: key)
    }
}

/// The name ``RecordingTieredCache`` had before ``TieredCache`` was renamed.
@available(*, deprecated, renamed: "RecordingTieredCache")
public typealias RecordingMemoryAndDiskCache = RecordingTieredCache
