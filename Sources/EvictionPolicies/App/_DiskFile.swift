import Foundation
#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Why a ``DiskCache`` operation failed: the file, the system call and its `errno`.
public struct DiskCacheError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The file or directory.
    public var path: String
    /// What was being done, e.g. `fsync`.
    public var operation: String
    /// The `errno` value, or 0 when the failure was not a system call's.
    public var code: Int32

    /// Creates an error.
    public init(path: String, operation: String, code: Int32) {
        self.path = path
        self.operation = operation
        self.code = code
    }

    public var description: String {
        code == 0 ? "\(path): \(operation)" : "\(path): \(operation): \(String(cString: strerror(code)))"
    }
}

/// One entry's file: a header that names its key and checks its bytes, the key, then the data.
///
/// Layout (integers little-endian): `CBDC` magic, version 1 (one byte), key length (UInt32),
/// data length (UInt64), checksum (UInt64: ``checksum(_:_:)`` of key and data), key bytes, data bytes.
/// A file whose length, key or checksum disagrees is torn or foreign and is never returned.
enum _DiskFile {
    static let magic: [UInt8] = Array("CBDC".utf8)
    static let headerLength = 4 + 1 + 4 + 8 + 8

    /// The file name for `key`: 128 bits of a hash that is the same in every process (unlike
    /// `hashValue`), as 32 hex digits.
    static func name(forKey key: String) -> String {
        let bytes = Array(key.utf8)
        let high = _fnv1a(bytes, basis: 0xcbf2_9ce4_8422_2325)
        let low = _fnv1a(bytes, basis: 0x8422_2325_cbf2_9ce4 ^ UInt64(bytes.count))
        return hex(_finalize(high)) + hex(_finalize(low ^ high))
    }

    static func hex(_ value: UInt64) -> String {
        let digits = String(value, radix: 16)
        return String(repeating: "0", count: 16 - digits.count) + digits
    }

    /// The whole file for `key` and `data`.
    static func encode(key: String, data: Data) -> [UInt8] {
        let keyBytes = Array(key.utf8)
        var bytes: [UInt8] = []
        bytes.reserveCapacity(headerLength + keyBytes.count + data.count)
        bytes += magic
        bytes.append(1)
        append(UInt64(keyBytes.count), width: 4, to: &bytes)
        append(UInt64(data.count), width: 8, to: &bytes)
        append(checksum(keyBytes, data), width: 8, to: &bytes)
        bytes += keyBytes
        bytes += data
        return bytes
    }

    /// The key and data of a file's bytes, or `nil` when they are not a whole, intact entry.
    static func decode(_ bytes: Data) -> (key: String, data: Data)? {
        guard bytes.count >= headerLength else { return nil }
        return bytes.withUnsafeBytes { raw -> (key: String, data: Data)? in
            guard Array(raw[0..<4]) == magic, raw[4] == 1 else { return nil }
            let keyLength = Int(read(raw, at: 5, width: 4))
            let dataLength = read(raw, at: 9, width: 8)
            let sum = read(raw, at: 17, width: 8)
            guard dataLength <= UInt64(raw.count), headerLength + keyLength + Int(dataLength) == raw.count else { return nil }
            let keyBytes = Array(raw[headerLength..<headerLength + keyLength])
            let data = Data(raw[(headerLength + keyLength)...])
            guard checksum(keyBytes, data) == sum, let key = String(bytes: keyBytes, encoding: .utf8) else { return nil }
            return (key, data)
        }
    }

    /// FNV-1a over the key's bytes, then over the data eight bytes at a time (a word per step
    /// keeps reads of large files cheap), finalised.
    static func checksum(_ key: [UInt8], _ data: Data) -> UInt64 {
        var hash = _fnv1a(key, basis: 0xcbf2_9ce4_8422_2325)
        data.withUnsafeBytes { raw in
            var offset = 0
            while offset + 8 <= raw.count {
                hash = (hash ^ raw.loadUnaligned(fromByteOffset: offset, as: UInt64.self)) &* 0x0000_0100_0000_01b3
                hash ^= hash >> 29
                offset += 8
            }
            while offset < raw.count {
                hash = (hash ^ UInt64(raw[offset])) &* 0x0000_0100_0000_01b3
                offset += 1
            }
        }
        return _finalize(hash)
    }

    static func append(_ value: UInt64, width: Int, to bytes: inout [UInt8]) {
        for shift in 0..<width { bytes.append(UInt8(truncatingIfNeeded: value >> (8 * shift))) }
    }

    static func read(_ raw: UnsafeRawBufferPointer, at offset: Int, width: Int) -> UInt64 {
        var value: UInt64 = 0
        for shift in 0..<width { value |= UInt64(raw[offset + shift]) << (8 * shift) }
        return value
    }
}

func _fnv1a(_ bytes: [UInt8], basis: UInt64) -> UInt64 {
    var hash = basis
    for byte in bytes { hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01b3 }
    return hash
}

func _finalize(_ value: UInt64) -> UInt64 { _mix64(value) }

/// POSIX file operations with their errors, for writes that must be atomic and durable.
enum _POSIX {
    /// Writes all of `bytes` to an open file, retrying short writes and interruptions.
    static func writeAll(_ bytes: [UInt8], to descriptor: Int32, path: String) throws(DiskCacheError) {
        var failure: Int32 = 0
        bytes.withUnsafeBytes { raw in
            guard let base = raw.baseAddress else { return }
            var offset = 0
            while offset < raw.count {
                let written = write(descriptor, base + offset, raw.count - offset)
                if written < 0 {
                    if errno == EINTR { continue }
                    failure = errno
                    return
                }
                offset += written
            }
        }
        if failure != 0 { throw DiskCacheError(path: path, operation: "write", code: failure) }
    }

    /// Writes `bytes` to a new file in `directory` and, with `sync`, flushes it to the disk;
    /// returns its path.
    /// The caller renames it into place with ``commit(_:to:syncDirectory:)``: together, after a
    /// crash the target holds either its old contents or all of `bytes`.
    static func writeTemporary(_ bytes: [UInt8], in directory: String, sync: Bool = true) throws(DiskCacheError) -> String {
        let temporary = directory + "/" + UUID().uuidString
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw DiskCacheError(path: temporary, operation: "open", code: errno) }
        var failure: DiskCacheError?
        do { try writeAll(bytes, to: descriptor, path: temporary) } catch { failure = error }
        if failure == nil, sync, fsync(descriptor) != 0 { failure = DiskCacheError(path: temporary, operation: "fsync", code: errno) }
        if close(descriptor) != 0, failure == nil { failure = DiskCacheError(path: temporary, operation: "close", code: errno) }
        if let failure {
            unlink(temporary)
            throw failure
        }
        return temporary
    }

    /// Renames a file written by ``writeTemporary(_:in:sync:)`` over `path` and, with
    /// `syncDirectory`, flushes the rename to the disk.
    static func commit(_ temporary: String, to path: String, syncDirectory: Bool) throws(DiskCacheError) {
        guard rename(temporary, path) == 0 else {
            let code = errno
            unlink(temporary)
            throw DiskCacheError(path: path, operation: "rename", code: code)
        }
        if syncDirectory { try self.syncDirectory((path as NSString).deletingLastPathComponent) }
    }

    /// ``writeTemporary(_:in:sync:)`` then ``commit(_:to:syncDirectory:)``.
    static func writeAtomically(_ bytes: [UInt8], to path: String, temporaryDirectory: String, sync: Bool) throws(DiskCacheError) {
        try commit(try writeTemporary(bytes, in: temporaryDirectory, sync: sync), to: path, syncDirectory: sync)
    }

    /// Flushes a directory's entries (a rename or an unlink in it) to the disk.
    static func syncDirectory(_ path: String) throws(DiskCacheError) {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw DiskCacheError(path: path, operation: "open", code: errno) }
        let synced = fsync(descriptor)
        let code = errno
        close(descriptor)
        guard synced == 0 else { throw DiskCacheError(path: path, operation: "fsync", code: code) }
    }

    /// The whole file, or `nil` if it does not exist.
    static func readFile(_ path: String) throws(DiskCacheError) -> Data? {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            if errno == ENOENT { return nil }
            throw DiskCacheError(path: path, operation: "open", code: errno)
        }
        defer { close(descriptor) }
        var status = stat()
        guard fstat(descriptor, &status) == 0 else { throw DiskCacheError(path: path, operation: "fstat", code: errno) }
        let size = Int(status.st_size)
        var data = Data(count: size)
        var failure: Int32 = 0
        let got = data.withUnsafeMutableBytes { raw -> Int in
            guard let base = raw.baseAddress else { return 0 }
            var offset = 0
            while offset < size {
                let count = read(descriptor, base + offset, size - offset)
                if count < 0 {
                    if errno == EINTR { continue }
                    failure = errno
                    return offset
                }
                if count == 0 { break }
                offset += count
            }
            return offset
        }
        if failure != 0 { throw DiskCacheError(path: path, operation: "read", code: failure) }
        if got < size { data.removeSubrange(got...) }
        return data
    }

    /// Removes a file; a file already gone is not an error.
    static func remove(_ path: String) throws(DiskCacheError) {
        guard unlink(path) == 0 || errno == ENOENT else { throw DiskCacheError(path: path, operation: "unlink", code: errno) }
    }

    /// Creates a directory and its parents if they do not exist.
    static func makeDirectory(_ path: String) throws(DiskCacheError) {
        do {
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        } catch {
            throw DiskCacheError(path: path, operation: "create directory (\(error.localizedDescription))", code: 0)
        }
    }

    /// The names in a directory.
    static func list(_ path: String) throws(DiskCacheError) -> [String] {
        do {
            return try FileManager.default.contentsOfDirectory(atPath: path)
        } catch {
            throw DiskCacheError(path: path, operation: "list (\(error.localizedDescription))", code: 0)
        }
    }

    /// The modification time of a file in seconds since 2001, or `nil` if it is gone.
    static func modificationTime(_ path: String) -> Double? {
        var status = stat()
        guard stat(path, &status) == 0 else { return nil }
        #if canImport(Darwin)
        let spec = status.st_mtimespec
        #else
        let spec = status.st_mtim
        #endif
        return Double(spec.tv_sec) + Double(spec.tv_nsec) / 1e9 - Date.timeIntervalBetween1970AndReferenceDate
    }
}
