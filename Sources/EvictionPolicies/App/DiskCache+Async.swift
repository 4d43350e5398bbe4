import Dispatch
import Foundation

// The `async` forms: the same operations, their I/O on a background queue instead of the
// caller's thread (an actor's or the main thread's).
/// Runs `body` on a utility-priority global queue and resumes the caller with its result: the
/// `async` forms of the disk caches and their recorders.
func _offThread<Result: Sendable>(_ body: @escaping @Sendable () throws -> Result) async throws -> Result {
    try await withCheckedThrowingContinuation { continuation in
        DispatchQueue.global(qos: .utility).async {
            continuation.resume(with: Swift.Result { try body() })
        }
    }
}

extension DiskCache {
    /// The data stored under `key`, read off the caller's thread.
    public func data(forKey key: String) async throws -> Data? {
        try await _offThread { try self.data(forKey: key) }
    }

    /// Stores `data` under `key`, written off the caller's thread; on a return of `true` it is on
    /// the disk (`false`: the policy refused it, as the synchronous ``setData(_:forKey:)-62mvz`` says).
    @discardableResult
    public func setData(_ data: Data, forKey key: String) async throws -> Bool {
        try await _offThread { try self.setData(data, forKey: key) }
    }

    /// Removes the entry for `key`, off the caller's thread.
    public func removeData(forKey key: String) async throws {
        try await _offThread { try self.removeData(forKey: key) }
    }

    /// Removes every entry, off the caller's thread.
    public func removeAll() async throws {
        try await _offThread { try self.removeAll() }
    }
}

// Codable values on top of `Data`: JSON, which every platform's Foundation reads and writes the
// same way.
extension DiskCache {
    /// The value stored under `key`, decoded from JSON, or `nil` if there is none.
    ///
    /// - Throws: the decoder's error when the stored bytes are not a `T`.
    public func value<T: Decodable>(_ type: T.Type, forKey key: String) throws -> T? {
        guard let data = try data(forKey: key) else { return nil }
        return try JSONDecoder().decode(T.self, from: data)
    }

    /// Stores `value` under `key`, encoded as JSON; `false` when the policy refused it (see
    /// ``setData(_:forKey:)-62mvz``).
    @discardableResult
    public func setValue<T: Encodable>(_ value: T, forKey key: String) throws -> Bool {
        try setData(try JSONEncoder().encode(value), forKey: key)
    }

    /// The value stored under `key`, read off the caller's thread and decoded on it (so `T` need
    /// not be `Sendable`: only the bytes cross threads).
    public func value<T: Decodable>(_ type: T.Type, forKey key: String) async throws -> T? {
        guard let data = try await data(forKey: key) else { return nil }
        return try JSONDecoder().decode(T.self, from: data)
    }

    /// Stores `value` under `key`, encoded on the caller's thread (so `T` need not be `Sendable`:
    /// only the bytes cross threads) and written off it; `false` when the policy refused it.
    @discardableResult
    public func setValue<T: Encodable>(_ value: T, forKey key: String) async throws -> Bool {
        let data = try JSONEncoder().encode(value)
        return try await setData(data, forKey: key)
    }
}
