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
/// Layout (integers little-endian): `CBDC` magic, version (one byte), key length (UInt32),
/// data length (UInt64), checksum (UInt64), key bytes, data bytes. Version 2, written now, checks
/// with ``checksum(_:_:)`` (eight lanes); version 1 files, written before, with
/// ``checksumVersion1(_:_:)`` (one chain), so a cache directory survives the upgrade.
/// A file whose length, key or checksum disagrees is torn or foreign and is never returned.
enum _DiskFile {
    static let magic: [UInt8] = Array("CBDC".utf8)
    static let headerLength = 4 + 1 + 4 + 8 + 8
    static let version: UInt8 = 2

    /// The file name for `key`: 128 bits of a hash that is the same in every process (unlike
    /// `hashValue`), as 32 hex digits.
    static func name(forKey key: String) -> String {
        let bytes = Array(key.utf8)
        let high = _fnv1a(bytes, basis: 0xcbf2_9ce4_8422_2325)
        let low = _fnv1a(bytes, basis: 0x8422_2325_cbf2_9ce4 ^ UInt64(bytes.count))
        return hex(_finalize(high)) + hex(_finalize(low ^ high))
    }

    /// The key whose UTF-8 bytes are `bytes`, or `nil` when they are not valid UTF-8. Every byte
    /// counts: Foundation's decoding drops a leading byte order mark (U+FEFF), which would turn
    /// such a key's file into another key's and lose it.
    static func key(fromUTF8 bytes: some Collection<UInt8>) -> String? {
        // Decoding repairs invalid sequences (with U+FFFD), so the bytes come back unchanged
        // exactly when they were valid.
        let key = String(decoding: bytes, as: UTF8.self)
        return key.utf8.elementsEqual(bytes) ? key : nil
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
        bytes.append(version)
        append(UInt64(keyBytes.count), width: 4, to: &bytes)
        append(UInt64(data.count), width: 8, to: &bytes)
        append(data.withUnsafeBytes { checksum(keyBytes, $0) }, width: 8, to: &bytes)
        bytes += keyBytes
        bytes += data
        return bytes
    }

    /// What a file's header says: the format version, the key's and the data's lengths and the
    /// checksum, or `nil` when it is not a header of this format.
    struct Header {
        var version: UInt8
        var keyLength: Int
        var dataLength: Int
        var checksum: UInt64

        /// Parses the first ``headerLength`` bytes of a file of `fileSize` bytes; `nil` unless the
        /// lengths account for the file exactly.
        init?(_ raw: UnsafeRawBufferPointer, fileSize: Int) {
            guard raw.count >= headerLength, Array(raw[0..<4]) == magic, raw[4] == 1 || raw[4] == 2 else { return nil }
            let keyLength = read(raw, at: 5, width: 4)
            let dataLength = read(raw, at: 9, width: 8)
            // Compared before any sum, so that no length from the file can overflow.
            guard keyLength <= UInt64(fileSize), dataLength <= UInt64(fileSize),
                  UInt64(headerLength) + keyLength + dataLength == UInt64(fileSize) else { return nil }
            version = raw[4]
            self.keyLength = Int(keyLength)
            self.dataLength = Int(dataLength)
            checksum = read(raw, at: 17, width: 8)
        }

        /// Whether `key` and `data` are the ones this header checks.
        func verifies(_ key: [UInt8], _ data: UnsafeRawBufferPointer) -> Bool {
            (version == 1 ? checksumVersion1(key, data) : _DiskFile.checksum(key, data)) == checksum
        }
    }

    /// The key and data of the entry file at `path`, or `nil` when there is none or it is not a
    /// whole, intact entry. The data is read straight into its own buffer (no zero fill, no copy
    /// out of a whole-file buffer), then checked.
    static func read(_ path: String) throws(DiskCacheError) -> (key: String, data: Data)? {
        guard let (descriptor, size) = try _POSIX.openForReading(path) else { return nil }
        defer { close(descriptor) }
        let front = UnsafeMutableRawBufferPointer.allocate(byteCount: headerLength, alignment: 8)
        defer { front.deallocate() }
        guard try _POSIX.readFully(descriptor, into: front, at: 0, path: path) == headerLength,
              let header = Header(UnsafeRawBufferPointer(front), fileSize: size) else { return nil }
        let keyBuffer = UnsafeMutableRawBufferPointer.allocate(byteCount: header.keyLength, alignment: 1)
        defer { keyBuffer.deallocate() }
        guard try _POSIX.readFully(descriptor, into: keyBuffer, at: headerLength, path: path) == header.keyLength else { return nil }
        let keyBytes = Array(UnsafeRawBufferPointer(keyBuffer))
        guard let key = key(fromUTF8: keyBytes) else { return nil }
        guard let buffer = malloc(max(header.dataLength, 1)) else {
            throw DiskCacheError(path: path, operation: "malloc", code: ENOMEM)
        }
        let data = UnsafeMutableRawBufferPointer(start: buffer, count: header.dataLength)
        let gotData: Int
        do {
            gotData = try _POSIX.readFully(descriptor, into: data, at: headerLength + header.keyLength, path: path)
        } catch {
            free(buffer)
            throw error
        }
        guard gotData == header.dataLength, header.verifies(keyBytes, UnsafeRawBufferPointer(data)) else {
            free(buffer)
            return nil
        }
        return (key, Data(bytesNoCopy: buffer, count: header.dataLength, deallocator: .free))
    }

    /// The key and data of a file's bytes, or `nil` when they are not a whole, intact entry.
    static func decode(_ bytes: Data) -> (key: String, data: Data)? {
        bytes.withUnsafeBytes { raw -> (key: String, data: Data)? in
            guard let header = Header(raw, fileSize: raw.count) else { return nil }
            let keyBytes = Array(raw[headerLength..<headerLength + header.keyLength])
            let data = UnsafeRawBufferPointer(rebasing: raw[(headerLength + header.keyLength)...])
            guard header.verifies(keyBytes, data), let key = key(fromUTF8: keyBytes) else { return nil }
            return (key, Data(data))
        }
    }

    /// Eight independent lanes of FNV-style multiply-and-shift over the data, 64 bytes a round, so
    /// the processor runs the multiplies side by side instead of one dependent chain; the lanes,
    /// the key (FNV-1a), the tail and the length are folded together at the end.
    ///
    /// Each lane is a bijection of its state for a fixed word, so changing any one word changes
    /// the sum; a torn write (a tail of zeros or of an older file's bytes) is caught as the
    /// one-chain checksum caught it.
    ///
    /// - Complexity: O(n); near memory speed (about 8 bytes a cycle) where the one-chain
    ///   version ran at about 1.3.
    static func checksum(_ key: [UInt8], _ data: UnsafeRawBufferPointer) -> UInt64 {
        let prime: UInt64 = 0x0000_0100_0000_01b3
        var lanes: (UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64) = (
            0x9e37_79b9_7f4a_7c15, 0xc2b2_ae3d_27d4_eb4f, 0x1656_67b1_9e37_79f9, 0x85eb_ca77_c2b2_ae63,
            0x27d4_eb2f_1656_67c5, 0x94d0_49bb_1331_11eb, 0xbf58_476d_1ce4_e5b9, 0xcbf2_9ce4_8422_2325)
        @inline(__always) func step(_ lane: inout UInt64, _ word: UInt64) {
            lane = (lane ^ word) &* prime
            lane ^= lane >> 29
        }
        var offset = 0
        let count = data.count
        if let base = data.baseAddress {
            while offset + 64 <= count {
                let p = base + offset
                step(&lanes.0, p.loadUnaligned(as: UInt64.self))
                step(&lanes.1, p.loadUnaligned(fromByteOffset: 8, as: UInt64.self))
                step(&lanes.2, p.loadUnaligned(fromByteOffset: 16, as: UInt64.self))
                step(&lanes.3, p.loadUnaligned(fromByteOffset: 24, as: UInt64.self))
                step(&lanes.4, p.loadUnaligned(fromByteOffset: 32, as: UInt64.self))
                step(&lanes.5, p.loadUnaligned(fromByteOffset: 40, as: UInt64.self))
                step(&lanes.6, p.loadUnaligned(fromByteOffset: 48, as: UInt64.self))
                step(&lanes.7, p.loadUnaligned(fromByteOffset: 56, as: UInt64.self))
                offset += 64
            }
        }
        var hash = _fnv1a(key, basis: 0xcbf2_9ce4_8422_2325 ^ UInt64(truncatingIfNeeded: count))
        hash = _mix64(hash ^ lanes.0)
        hash = _mix64(hash ^ lanes.1)
        hash = _mix64(hash ^ lanes.2)
        hash = _mix64(hash ^ lanes.3)
        hash = _mix64(hash ^ lanes.4)
        hash = _mix64(hash ^ lanes.5)
        hash = _mix64(hash ^ lanes.6)
        hash = _mix64(hash ^ lanes.7)
        // The last 0 to 63 bytes, one at a time.
        while offset < count {
            hash = (hash ^ UInt64(data[offset])) &* prime
            offset += 1
        }
        return _finalize(hash)
    }

    /// Version 1's checksum: FNV-1a over the key's bytes, then over the data eight bytes at a time
    /// in one dependent chain, finalised. Kept to read files written before version 2.
    static func checksumVersion1(_ key: [UInt8], _ raw: UnsafeRawBufferPointer) -> UInt64 {
        var hash = _fnv1a(key, basis: 0xcbf2_9ce4_8422_2325)
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
        if failure == nil, sync, !flushToDisk(descriptor) { failure = DiskCacheError(path: temporary, operation: "fsync", code: errno) }
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
            // Either side may be at fault (the temporary deleted by another hand, a folder in the
            // target's place): both are named.
            throw DiskCacheError(path: path, operation: "rename \(temporary) to it", code: code)
        }
        if syncDirectory { try self.syncDirectory(_parentPath(path)) }
    }

    /// ``writeTemporary(_:in:sync:)`` then ``commit(_:to:syncDirectory:)``.
    static func writeAtomically(_ bytes: [UInt8], to path: String, temporaryDirectory: String, sync: Bool) throws(DiskCacheError) {
        try commit(try writeTemporary(bytes, in: temporaryDirectory, sync: sync), to: path, syncDirectory: sync)
    }

    /// Flushes an open file (or directory) to the disk; `false` with `errno` set when it fails.
    ///
    /// On Apple platforms `fsync` hands the data to the drive, whose own cache a power cut may
    /// still empty: `F_FULLFSYNC` asks the drive to write its cache too, as durability there
    /// needs (and costs milliseconds a flush). A file system without it (some network ones)
    /// gets `fsync`.
    static func flushToDisk(_ descriptor: Int32) -> Bool {
        #if canImport(Darwin)
        if fcntl(descriptor, F_FULLFSYNC) == 0 { return true }
        #endif
        return fsync(descriptor) == 0
    }

    /// Flushes a directory's entries (a rename or an unlink in it) to the disk.
    static func syncDirectory(_ path: String) throws(DiskCacheError) {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw DiskCacheError(path: path, operation: "open", code: errno) }
        let synced = flushToDisk(descriptor)
        let code = errno
        close(descriptor)
        guard synced else { throw DiskCacheError(path: path, operation: "fsync", code: code) }
    }

    /// Reads up to `buffer.count` bytes at `offset`, retrying short reads and interruptions;
    /// returns how many it read (fewer only at the end of the file).
    static func readFully(_ descriptor: Int32, into buffer: UnsafeMutableRawBufferPointer, at offset: Int,
                     path: String) throws(DiskCacheError) -> Int {
        guard let base = buffer.baseAddress else { return 0 }
        var done = 0
        while done < buffer.count {
            let count = pread(descriptor, base + done, buffer.count - done, off_t(offset + done))
            if count < 0 {
                if errno == EINTR { continue }
                throw DiskCacheError(path: path, operation: "read", code: errno)
            }
            if count == 0 { break }
            done += count
        }
        return done
    }

    /// The file opened for reading and its size, or `nil` if it does not exist or is not a
    /// regular file (a folder, a symbolic link, a FIFO, a socket, a device: nothing the cache
    /// writes). The caller closes the descriptor.
    static func openForReading(_ path: String) throws(DiskCacheError) -> (descriptor: Int32, size: Int)? {
        // Not blocking: a FIFO in a file's place would wait for a writer forever. Not following a
        // link: a symbolic link (or a loop of them) is not the cache's file.
        let descriptor = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOFOLLOW)
        guard descriptor >= 0 else {
            switch errno {
            case ENOENT, ELOOP, ENXIO, EISDIR, ENOTDIR, EOPNOTSUPP: return nil
            default: throw DiskCacheError(path: path, operation: "open", code: errno)
            }
        }
        var status = stat()
        guard fstat(descriptor, &status) == 0 else {
            let code = errno
            close(descriptor)
            throw DiskCacheError(path: path, operation: "fstat", code: code)
        }
        // A folder in a file's place (Linux opens one for reading), a FIFO or a device: no file
        // of the cache's.
        if (status.st_mode & S_IFMT) != S_IFREG {
            close(descriptor)
            return nil
        }
        return (descriptor, Int(status.st_size))
    }

    /// The whole file, or `nil` if it does not exist (or is a folder).
    static func readFile(_ path: String) throws(DiskCacheError) -> Data? {
        guard let (descriptor, size) = try openForReading(path) else { return nil }
        defer { close(descriptor) }
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: max(size, 1), alignment: 8)
        defer { buffer.deallocate() }
        let got = try readFully(descriptor, into: UnsafeMutableRawBufferPointer(rebasing: buffer[0..<size]), at: 0, path: path)
        return Data(UnsafeRawBufferPointer(rebasing: buffer[0..<got]))
    }

    /// Removes a file; a file already gone is not an error.
    /// Removes a file. A folder in its place is not the cache's (unlink refuses it: EISDIR on
    /// Linux, EPERM on Darwin): it is left alone, as if the file were already gone.
    static func remove(_ path: String) throws(DiskCacheError) {
        guard unlink(path) == 0 || errno == ENOENT else {
            let code = errno
            if isDirectory(path) { return }
            throw DiskCacheError(path: path, operation: "unlink", code: code)
        }
    }

    /// Creates a directory and its parents if they do not exist. A file where a folder must be
    /// is named, with the POSIX reason for any other failure.
    static func makeDirectory(_ path: String) throws(DiskCacheError) {
        if isDirectory(path) { return }
        let parent = _parentPath(path)
        if !parent.isEmpty && parent != path && parent != "/" { try makeDirectory(parent) }
        guard mkdir(path, 0o755) == 0 || (errno == EEXIST && isDirectory(path)) else {
            let code = errno
            if code == EEXIST || code == ENOTDIR {
                throw DiskCacheError(path: path, operation: "create directory (a file is in the way)", code: 0)
            }
            throw DiskCacheError(path: path, operation: "create directory", code: code)
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

    /// Whether `path` names a directory (something the cache never writes among its entries).
    static func isDirectory(_ path: String) -> Bool {
        var status = stat()
        guard stat(path, &status) == 0 else { return false }
        return (status.st_mode & S_IFMT) == S_IFDIR
    }

    /// The length of a file in bytes, or `nil` if it is gone.
    static func fileSize(_ path: String) -> Int? {
        var status = stat()
        guard stat(path, &status) == 0 else { return nil }
        return Int(status.st_size)
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
