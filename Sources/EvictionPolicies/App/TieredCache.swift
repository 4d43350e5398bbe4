import Foundation

/// A memory ``Cache`` in front of a ``DiskCache``, composed as SDWebImage's `SDImageCache` and
/// YYCache compose theirs: a lookup asks memory, then disk, and says which answered; a disk hit
/// is decoded and copied into memory; a store writes both; a removal reaches both.
///
/// ```swift
/// let images = try TieredCache<UIImage>(
///     memory: Cache(policy: .sieve, costLimit: 50 << 20),
///     disk: DiskCache(directory: caches.appendingPathComponent("images"), sizeLimit: 500 << 20),
///     encode: { image in try image.pngData().orThrow() }, decode: { data in try UIImage(data: data).orThrow() },
///     memoryCost: { image in image.byteCount })
/// if let (image, source) = try await images.value(forKey: url.absoluteString) { … }   // source: .memory or .disk
/// ```
///
/// (The replay engine's two-level model of the same composition is ``TieredModel``.)
public final class TieredCache<Value>: @unchecked Sendable {
    /// The memory tier.
    public let memory: Cache<String, Value>
    /// The disk tier.
    public let disk: DiskCache
    private let encode: (Value) throws -> Data
    private let decode: (Data) throws -> Value
    private let memoryCost: (Value, Int) -> Int
    /// Whether the app gave the memory cost, so it is known before the value is encoded.
    private let costIsTheAppsOwn: Bool

    /// Composes the two tiers.
    ///
    /// - Parameters:
    ///   - memory: the memory tier, asked first.
    ///   - disk: the disk tier, asked on a memory miss; a disk hit is copied into memory.
    ///   - encode: the bytes the disk stores for a value.
    ///   - decode: the value for bytes the disk returns; its error is thrown by the lookup.
    ///   - memoryCost: the memory copy's cost, given the value and its encoded size; the encoded
    ///     size by default.
    public init(memory: Cache<String, Value>, disk: DiskCache, encode: @escaping (Value) throws -> Data,
                decode: @escaping (Data) throws -> Value, memoryCost: ((Value) -> Int)? = nil) {
        self.memory = memory
        self.disk = disk
        self.encode = encode
        self.decode = decode
        self.memoryCost = { value, size in memoryCost?(value) ?? size }
        costIsTheAppsOwn = memoryCost != nil
    }

    /// The value for `key` and where it was found, or `nil` when neither tier has it. A disk hit
    /// is copied into memory.
    public func value(forKey key: String) throws -> (value: Value, source: TierSource)? {
        if let value = memory.value(forKey: key) { return (value, .memory) }
        guard let data = try disk.data(forKey: key) else { return nil }
        let value = try decode(data)
        memory.setValue(value, forKey: key, cost: memoryCost(value, data.count))
        return (value, .disk)
    }

    /// Stores `value` in memory and, unless `toDisk` is `false`, on disk.
    public func setValue(_ value: Value, forKey key: String, toDisk: Bool = true) throws {
        guard toDisk else {
            memory.setValue(value, forKey: key, cost: memoryCost(value, 0))
            return
        }
        let data = try encode(value)
        memory.setValue(value, forKey: key, cost: memoryCost(value, data.count))
        try disk.setData(data, forKey: key)
    }

    /// Removes `key` from both tiers.
    public func removeValue(forKey key: String) throws {
        memory.removeValue(forKey: key)
        try disk.removeData(forKey: key)
    }

    /// Empties both tiers.
    public func removeAll() throws {
        memory.removeAll()
        try disk.removeAll()
    }
}

extension TieredCache where Value == Data {
    /// Composes two tiers of `Data`, stored as they are.
    public convenience init(memory: Cache<String, Data>, disk: DiskCache) {
        self.init(memory: memory, disk: disk, encode: { $0 }, decode: { $0 })
    }
}

extension TieredCache where Value: Sendable {
    /// The value for `key` and where it was found, with the disk read and the decoding off the
    /// caller's thread.
    public func value(forKey key: String) async throws -> (value: Value, source: TierSource)? {
        if let value = memory.value(forKey: key) { return (value, .memory) }
        return try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global(qos: .utility).async {
                continuation.resume(with: Result { try self.value(forKey: key) })
            }
        }
    }

    /// Stores `value` in memory, then encodes it and writes it to disk off the caller's thread.
    ///
    /// With a `memoryCost` (the initializer's), the memory copy is stored at once, before this
    /// call suspends, so a lookup right after it finds the value in memory. Without one, its cost
    /// is the encoded size, so it is stored once encoded, off the caller's thread.
    public func setValue(_ value: Value, forKey key: String) async throws {
        if costIsTheAppsOwn { memory.setValue(value, forKey: key, cost: memoryCost(value, 0)) }
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, Error>) in
            DispatchQueue.global(qos: .utility).async {
                continuation.resume(with: Result {
                    if self.costIsTheAppsOwn {
                        try self.disk.setData(try self.encode(value), forKey: key)
                    } else {
                        try self.setValue(value, forKey: key)
                    }
                })
            }
        }
    }
}

/// The name ``TieredCache`` had before it took the name the replay engine's model had (now
/// ``TieredModel``).
@available(*, deprecated, renamed: "TieredCache")
public typealias MemoryAndDiskCache = TieredCache
