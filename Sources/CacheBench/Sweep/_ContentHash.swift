#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// 64-bit FNV-1a: the hash behind trace identities, cell identities and record checks.
///
/// Not cryptographic: it detects torn or damaged records and changed traces, which is all a
/// sweep needs; nobody gains from forging a record of their own sweep.
struct _FNV1a64 {
    private(set) var value: UInt64 = 0xcbf2_9ce4_8422_2325

    init() {}

    /// Mixes in `bytes`. O(n).
    mutating func combine(_ bytes: UnsafeRawBufferPointer) {
        var hash = value
        for byte in bytes {
            hash ^= UInt64(byte)
            hash = hash &* 0x0000_0100_0000_01b3
        }
        value = hash
    }

    /// Mixes in the UTF-8 of `text`.
    mutating func combine(_ text: String) {
        var copy = text
        copy.withUTF8 { combine(UnsafeRawBufferPointer($0)) }
    }

    /// The value as 16 lowercase hexadecimal digits.
    var hex: String { Self.hex(value) }

    static func hex(_ value: UInt64) -> String {
        let digits = String(value, radix: 16)
        return String(repeating: "0", count: 16 - digits.count) + digits
    }

    /// The hash of `text`'s UTF-8, as 16 hexadecimal digits.
    static func hex(of text: String) -> String {
        var hasher = _FNV1a64()
        hasher.combine(text)
        return hasher.hex
    }
}

/// What a trace file holds, independent of where it lies: the hash of its bytes and their count.
///
/// Two copies of one trace on two machines (or under two paths) have the same identity; a trace
/// edited in place gets a new one, so its old results are not taken for the new content.
public struct TraceIdentity: Sendable, Hashable, CustomStringConvertible {
    /// The FNV-1a 64 hash of the bytes, 16 hexadecimal digits.
    public var hash: String
    /// The file's length in bytes.
    public var bytes: Int

    /// `HASH-BYTES`, e.g. `9f0c1d2e3a4b5c6d-1048576`.
    public var description: String { "\(hash)-\(bytes)" }

    /// Reads `path` once, 1 MiB at a time. O(file size), constant memory.
    ///
    /// - Throws: ``TraceError`` of kind `cannotOpen` when the file cannot be opened or read.
    public static func of(path: String) throws(TraceError) -> TraceIdentity {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            throw TraceError(.cannotOpen, file: path, reason: "cannot open: \(String(cString: strerror(errno)))")
        }
        defer { close(descriptor) }
        // Only a regular file can be read again by each cell's replay (a pipe would be drained).
        var info = stat()
        guard fstat(descriptor, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else {
            throw TraceError(.cannotOpen, file: path, reason: "cannot open: not a regular file")
        }
        var hasher = _FNV1a64()
        var total = 0
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 20, alignment: 16)
        defer { buffer.deallocate() }
        while true {
            let count = read(descriptor, buffer.baseAddress, buffer.count)
            if count < 0 {
                if errno == EINTR { continue }
                throw TraceError(.cannotOpen, file: path, reason: "read failed: \(String(cString: strerror(errno)))")
            }
            if count == 0 { break }
            hasher.combine(UnsafeRawBufferPointer(rebasing: buffer[0..<count]))
            total += count
        }
        return TraceIdentity(hash: hasher.hex, bytes: total)
    }
}
