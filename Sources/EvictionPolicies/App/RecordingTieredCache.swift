import Foundation

/// A ``TieredCache`` whose lookups, stores, removals and memory events are written to a
/// ``TraceRecorder``: a lookup answered by either tier is a hit. Each call and its row are made
/// under one lock, as in ``RecordingDiskCache``; the `async` forms record the same calls.
///
/// Memory warnings reach the memory tier through ``handle(_:)``, recorded as events; where the
/// memory tier subscribed itself to the system's, the wrapper takes that subscription over, as
/// ``RecordingCache`` does. Replay such a trace with the memory tier's
/// ``Cache/memoryWarningResponse`` (`--memory-warning`).
public final class RecordingTieredCache<Value> {
    /// The cache every call is passed to. Calls made to it directly are not recorded.
    public let base: TieredCache<Value>
    /// Where calls are recorded.
    public let recorder: TraceRecorder
    private let lock = NSRecursiveLock()
    /// `@Sendable`: the cache is `Sendable` (for `Sendable` values) and calls it on whichever
    /// thread sets a value, so it must not be isolated to an actor.
    private let size: @Sendable (Value) -> Int
    /// The keys stored through this wrapper and not removed: what ``removeAll()`` records.
    private var storedKeys = _RecordedKeys<String>()

    /// Records the calls made through this wrapper to `base`; `size` gives each value's size
    /// for the trace.
    public init(_ base: TieredCache<Value>, recorder: TraceRecorder, size: @escaping @Sendable (Value) -> Int) {
        self.base = base
        self.recorder = recorder
        self.size = size
        // The memory tier's timers started with it, as in ``RecordingCache``.
        recorder.recordTick()
        base.memory._routeSystemEvents(to: self) { $0.handle($1) }
    }

    /// ``TieredCache/value(forKey:)-7cmno``, recorded as a `get`.
    public func value(forKey key: String) throws -> (value: Value, source: TierSource)? {
        lock.lock()
        defer { lock.unlock() }
        let found = try base.value(forKey: key)
        recorder.recordGet(key, hit: found != nil, size: found.map { size($0.value) })
        return found
    }

    /// ``TieredCache/setValue(_:forKey:toDisk:)``, recorded as a `set`.
    ///
    /// A trace has no memory-only store: one made with `toDisk: false` is recorded as a `set`,
    /// which a replay stores in both tiers, so a later lookup the app's memory tier missed may
    /// hit the replay's disk tier. Where the replay must give the app's hits, store to both tiers.
    public func setValue(_ value: Value, forKey key: String, toDisk: Bool = true) throws {
        lock.lock()
        defer { lock.unlock() }
        try base.setValue(value, forKey: key, toDisk: toDisk)
        recorder.recordSet(key, size: size(value))
        storedKeys.stored(key, named: key, entries: base.disk.count, contains: { self.base.disk.contains($0) || self.base.memory.contains($0) })
    }

    /// ``TieredCache/removeValue(forKey:)``, recorded as a `delete`.
    public func removeValue(forKey key: String) throws {
        lock.lock()
        defer { lock.unlock() }
        recorder.recordDelete(key)
        storedKeys.removed(named: key)
        try base.removeValue(forKey: key)
    }

    /// Empties both tiers: first each key stored through this wrapper is recorded as a `delete`
    /// (so the replay empties its cache too), then the tiered cache's `removeAll()` runs.
    public func removeAll() throws {
        lock.lock()
        defer { lock.unlock() }
        for (name, _) in storedKeys.takeAll() { recorder.recordDelete(name) }
        try base.removeAll()
    }

    /// Delivers `event` to the memory tier (``Cache/handle(_:)``), recorded as an event.
    public func handle(_ event: CacheEvent) {
        lock.lock()
        defer { lock.unlock() }
        recorder.recordEvent(event)
        base.memory.handle(event)
    }
}

/// The name ``RecordingTieredCache`` had before ``TieredCache`` was renamed.
@available(*, deprecated, renamed: "RecordingTieredCache")
public typealias RecordingMemoryAndDiskCache = RecordingTieredCache

/// Sendable when its values are, as the ``TieredCache`` it wraps.
extension RecordingTieredCache: @unchecked Sendable where Value: Sendable {}

extension RecordingTieredCache where Value: Sendable {
    /// The recorded lookup, with the disk read and the decoding off the caller's thread; a memory
    /// hit is answered on it, as ``TieredCache``'s own `async` lookup answers one.
    public func value(forKey key: String) async throws -> (value: Value, source: TierSource)? {
        if let found = memoryHit(key) { return found }
        return try await _offThread { try self.value(forKey: key) }
    }

    /// The recorded store, its encoding and disk write off the caller's thread.
    public func setValue(_ value: Value, forKey key: String) async throws {
        try await _offThread { try self.setValue(value, forKey: key) }
    }

    /// The recorded removal, off the caller's thread.
    public func removeValue(forKey key: String) async throws {
        try await _offThread { try self.removeValue(forKey: key) }
    }

    /// The recorded `removeAll()`, off the caller's thread.
    public func removeAll() async throws {
        try await _offThread { try self.removeAll() }
    }

    /// A lookup the memory tier answers, recorded as a hit; `nil` (nothing recorded, nothing
    /// changed) when it does not hold `key`.
    private func memoryHit(_ key: String) -> (value: Value, source: TierSource)? {
        lock.lock()
        defer { lock.unlock() }
        guard let value = base.memory.value(forKey: key) else { return nil }
        recorder.recordGet(key, hit: true, size: size(value))
        return (value, .memory)
    }
}
