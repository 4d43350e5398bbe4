/// libCacheSim's `lcs` binary trace, versions 1 to 8.
///
/// An 8 KiB header: a start magic `0x123456789abcdef0` (u64), the version (u64), 8000 bytes of
/// statistics whose second field is the request count, unused words, and the same magic as the
/// last 8 bytes. Then packed little-endian records:
/// - v1 (24 bytes): `u32 time, u64 id, u32 size, i64 next`, as oracleGeneral;
/// - v2 (28): `u32 time, u64 id, u32 size, u8 op + u24 tenant, i64 next`;
/// - v3 (36): `u32 time, u64 id, i64 size, u8 op + u24 tenant, u32 ttl, i64 next`;
/// - v4–v8: v3 followed by 1, 2, 4, 8 or 16 `u32` features (40, 44, 52, 68, 100 bytes).
///
/// Operations and TTLs are used (see ``_libCacheSimOperation(_:)``); tenants and features are
/// read past. A next-access of -1 means never.
public struct LCSLayout: BinaryRecordLayout {
    /// The magic number at both ends of the header.
    public static let magic: UInt64 = 0x1234_5678_9ABC_DEF0
    /// The header's size.
    public static let headerSize = 8192
    private static let featureCounts = [0, 0, 0, 0, 1, 2, 4, 8, 16]

    /// The format version, 1...8.
    public let version: Int
    public let recordSize: Int
    public var formatName: String { "lcs v\(version)" }
    public var providesNextAccess: Bool { true }

    /// The layout of `version`, or `nil` when it is not 1...8.
    public init?(version: Int) {
        guard (1...8).contains(version) else { return nil }
        self.version = version
        switch version {
        case 1: recordSize = 24
        case 2: recordSize = 28
        default: recordSize = 36 + 4 * Self.featureCounts[version]
        }
    }

    @inline(__always)
    public func request(at r: UnsafeRawPointer) -> Request {
        let time = Double(r._le(0, as: UInt32.self))
        let id = r._le(4, as: UInt64.self)
        let size: Int, operation: Operation, next: Int64
        var ttl: Int32 = 0
        switch version {
        case 1:
            size = Int(r._le(12, as: UInt32.self))
            operation = .get
            next = r._le(16, as: Int64.self)
        case 2:
            size = Int(r._le(12, as: UInt32.self))
            operation = _libCacheSimOperation(r._le(16, as: UInt8.self))
            next = r._le(20, as: Int64.self)
        default:
            // Sizes are signed 64-bit here: a negative one, or one above 2^53 (the largest size
            // any reader accepts), reads as -1, which the reader refuses at its record.
            let raw = r._le(12, as: Int64.self)
            size = raw < 0 || raw > 1 << 53 ? -1 : Int(raw)
            operation = _libCacheSimOperation(r._le(20, as: UInt8.self))
            ttl = Int32(truncatingIfNeeded: r._le(24, as: UInt32.self))
            next = r._le(28, as: Int64.self)
        }
        return Request(time: time, key: id, size: size, operation: operation, nextAccess: next < 0 ? .max : next, ttl: ttl)
    }

    /// Reads and checks the header at the start of `source`; returns the layout and the request
    /// count the header states (`nil` when it says 0, as some writers leave it).
    public static func readHeader(_ source: ByteSource) throws(TraceError) -> (LCSLayout, expectedRecords: Int?) {
        let header = UnsafeMutableRawPointer.allocate(byteCount: headerSize, alignment: 8)
        defer { header.deallocate() }
        let n = try source.readFully(into: header, count: headerSize)
        guard n == headerSize else {
            throw TraceError(.malformed, file: source.name, offset: n, reason: "truncated lcs header: \(n) of \(headerSize) bytes").locatedIn(source)
        }
        let h = UnsafeRawPointer(header)
        guard h._le(0, as: UInt64.self) == magic, h._le(headerSize - 8, as: UInt64.self) == magic else {
            throw TraceError(.malformed, file: source.name, offset: 0, reason: "not an lcs trace: the header's magic numbers are missing").locatedIn(source)
        }
        let version = h._le(8, as: UInt64.self)
        guard let layout = LCSLayout(version: Int(clamping: version)) else {
            throw TraceError(.malformed, file: source.name, offset: 8, reason: "lcs version \(version) is not one of 1 to 8").locatedIn(source)
        }
        let count = h._le(24, as: Int64.self)
        guard count >= 0 else {
            throw TraceError(.malformed, file: source.name, offset: 24, reason: "lcs header states \(count) requests").locatedIn(source)
        }
        return (layout, count > 0 ? Int(count) : nil)
    }
}

/// VMware's vscsi block traces, as libCacheSim reads them: fixed records, version 1 (32 bytes:
/// `u32 sn, u32 len, u32 nSG, u16 cmd, u16 ver, u64 lbn, u64 ts`) or version 2 (40 bytes:
/// `u16 cmd, u16 ver, u32 sn, u32 len, u32 nSG, u64 lbn, u64 ts, u64 rt`), told apart by the
/// version byte (`ver >> 8`) of the first two records.
///
/// Each record is a request for block `lbn` of `len` bytes at `ts` microseconds (reported in
/// seconds, as libCacheSim does); reads and writes are both requests, as in libCacheSim.
public struct VSCSILayout: BinaryRecordLayout {
    /// 1 or 2.
    public let version: Int
    public var recordSize: Int { version == 1 ? 32 : 40 }
    public var formatName: String { "vscsi v\(version)" }
    public var providesNextAccess: Bool { false }

    /// The SCSI command codes libCacheSim's vscsi reader names: reads (8, 40, 45, 136, 168) and
    /// writes (42, 63, 138, 142, 154, 156, 170, 174); any other is its `OP_INVALID`, still a request.
    public static let knownCommands: Set<UInt16> = [8, 40, 45, 136, 168, 42, 63, 138, 142, 154, 156, 170, 174]

    /// The version whose records the first 80 bytes hold, or `nil` if neither fits.
    public static func detect(_ prefix: [UInt8]) -> VSCSILayout? {
        guard prefix.count >= 80 else { return nil }
        func version(at offset: Int) -> UInt8 { prefix[offset + 1] }   // the high byte of a little-endian u16
        if version(at: 2) == 2 && version(at: 42) == 2 { return VSCSILayout(version: 2) }
        if version(at: 14) == 1 && version(at: 46) == 1 { return VSCSILayout(version: 1) }
        return nil
    }

    @inline(__always)
    public func request(at r: UnsafeRawPointer) -> Request {
        let length = version == 1 ? r._le(4, as: UInt32.self) : r._le(8, as: UInt32.self)
        let microseconds = r._le(24, as: UInt64.self)
        return Request(time: Double(microseconds / 1_000_000), key: r._le(16, as: UInt64.self), size: Int(length))
    }
}

/// Twitter's cache traces in libCacheSim's binary form: `twr` (20 bytes: `u32 time, u64 id,
/// u32 key size:10 | value size:22, u32 op:8 | ttl:24`) and `twrNS` (the same and a `u16`
/// namespace, 22 bytes).
///
/// The size is key size plus value size; a `get` or `gets` (operation codes 1 and 2) with value
/// size 0 gets size 0, which the replay skips, as libCacheSim's reader does (any other operation
/// of value size 0 stays a request of its key's size). Operations and TTLs are used; namespaces
/// are read past.
public struct TwitterBinaryLayout: BinaryRecordLayout {
    /// Whether records carry the namespace (`twrNS`).
    public let withNamespace: Bool
    /// Whether a `get` of value size 0 keeps its key's size, as libCacheSim's backward read
    /// (traceConv's) leaves it; otherwise its size is 0 and replay skips it.
    public let keepsEmptyGets: Bool
    public var recordSize: Int { withNamespace ? 22 : 20 }
    public var formatName: String { withNamespace ? "twrNS" : "twr" }
    public var providesNextAccess: Bool { false }

    /// A layout of `twr` records, or of `twrNS` records when `withNamespace`.
    public init(withNamespace: Bool, keepsEmptyGets: Bool = false) {
        self.withNamespace = withNamespace
        self.keepsEmptyGets = keepsEmptyGets
    }

    @inline(__always)
    public func request(at r: UnsafeRawPointer) -> Request {
        let sizes = r._le(12, as: UInt32.self)
        let keySize = Int((sizes >> 22) & 0x3FF), valueSize = Int(sizes & 0x3F_FFFF)
        let operationAndTTL = r._le(16, as: UInt32.self)
        let code = UInt8(truncatingIfNeeded: operationAndTTL >> 24)
        // libCacheSim's forward read skips only OP_GET and OP_GETS of value size 0.
        let skipped = valueSize == 0 && (code == 1 || code == 2) && !keepsEmptyGets
        return Request(time: Double(r._le(0, as: UInt32.self)), key: r._le(4, as: UInt64.self),
                       size: skipped ? 0 : keySize + valueSize, operation: _libCacheSimOperation(code),
                       ttl: Int32(operationAndTTL & 0xFF_FFFF))
    }
}
