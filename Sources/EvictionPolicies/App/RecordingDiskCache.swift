import Foundation

/// A ``DiskCache`` whose reads, writes and removals are written to a ``TraceRecorder``, with the
/// data's size. As with ``RecordingCache``, each call and its row are made under one lock, so
/// the trace has the calls in the cache's order (calls through the wrapper take turns, their
/// file I/O included). The `async` forms run the same recorded call off the caller's thread.
public final class RecordingDiskCache: @unchecked Sendable {
    /// The cache every call is passed to. Calls made to it directly are not recorded.
    public let base: DiskCache
    /// Where calls are recorded.
    public let recorder: TraceRecorder
    private let lock = NSRecursiveLock()
    /// The keys stored through this wrapper and not removed: what ``removeAll()`` records.
    private var storedKeys = _RecordedKeys<String>()

    /// Records the calls made through this wrapper to `base`.
    public init(_ base: DiskCache, recorder: TraceRecorder) {
        self.base = base
        self.recorder = recorder
    }

    /// ``DiskCache/data(forKey:)-8mj31``, recorded as a `get`.
    public func data(forKey key: String) throws -> Data? {
        lock.lock()
        defer { lock.unlock() }
        let data = try base.data(forKey: key)
        recorder.recordGet(key, hit: data != nil, size: data?.count)
        return data
    }

    /// ``DiskCache/setData(_:forKey:)-62mvz``, recorded as a `set` (or as the `get` that missed before it).
    @discardableResult
    public func setData(_ data: Data, forKey key: String) throws -> Bool {
        lock.lock()
        defer { lock.unlock() }
        // A set that changed the cache and then failed (a folder flush after the rename) is
        // recorded before its error is thrown: the trace says what the cache did.
        let (stored, failure) = try base._setData(data, forKey: key)
        recorder.recordSet(key, size: data.count)
        storedKeys.stored(key, named: key, entries: base.count, contains: base.contains)
        if let failure { throw failure }
        return stored
    }

    /// ``DiskCache/removeData(forKey:)-97s67``, recorded as a `delete`.
    public func removeData(forKey key: String) throws {
        lock.lock()
        defer { lock.unlock() }
        recorder.recordDelete(key)
        storedKeys.removed(named: key)
        try base.removeData(forKey: key)
    }

    /// Removes every entry of ``base``: first each key stored through this wrapper is recorded as a
    /// `delete` (as ``RecordingCache/removeAll()`` records them, so the replay empties its cache
    /// too), then the disk cache's `removeAll()` runs.
    public func removeAll() throws {
        lock.lock()
        defer { lock.unlock() }
        for (name, _) in storedKeys.takeAll() { recorder.recordDelete(name) }
        try base.removeAll()
    }

    /// The recorded `data(forKey:)`, off the caller's thread.
    public func data(forKey key: String) async throws -> Data? {
        try await _offThread { try self.data(forKey: key) }
    }

    /// The recorded `setData(_:forKey:)`, off the caller's thread.
    @discardableResult
    public func setData(_ data: Data, forKey key: String) async throws -> Bool {
        try await _offThread { try self.setData(data, forKey: key) }
    }

    /// The recorded `removeData(forKey:)`, off the caller's thread.
    public func removeData(forKey key: String) async throws {
        try await _offThread { try self.removeData(forKey: key) }
    }

    /// The recorded `removeAll()`, off the caller's thread.
    public func removeAll() async throws {
        try await _offThread { try self.removeAll() }
    }
}
