/// Streams libCacheSim's `oracleGeneral` binary traces in constant memory.
///
/// Each request is a packed little-endian 24-byte record with no header:
/// `{u32 clock_time, u64 obj_id, u32 obj_size, i64 next_access_vtime}` at offsets 0, 4, 12 and 16,
/// where `next_access_vtime` is the 1-based index of the next request for the same object, or -1.
/// Every record is a `get`; records of size 0 are passed on and skipped by the replay, as
/// libCacheSim skips them. A file whose length is not a multiple of 24 is reported as truncated,
/// naming the byte offset of the incomplete record.
public struct OracleGeneralReader: TraceReader {
    /// The size of one record in bytes.
    public static let recordSize = 24

    public let name: String
    public var providesNextAccess: Bool { true }

    private let source: ByteSource
    private let buffer: _ReadBuffer
    private var offset = 0
    private var finished = false
    /// The sum of every record's size so far (see ``CSVTraceReader/sizeTotalReason``).
    private var sizeTotal = 0

    /// Opens an oracleGeneral trace read from `source`.
    public init(source: ByteSource, recordsPerChunk: Int = 1 << 14) {
        self.source = source
        name = source.name
        buffer = _ReadBuffer(capacity: Self.recordSize * recordsPerChunk)
    }

    /// Opens the oracleGeneral trace at `path` (`-` for standard input).
    public init(path: String) throws(TraceError) {
        self.init(source: try ByteSource(path: path))
    }

    public mutating func nextBatch(_ batch: inout [Request]) throws(TraceError) -> Bool {
        batch.removeAll(keepingCapacity: true)
        guard !finished else { return false }
        let n = try source.readFully(into: buffer.pointer, count: buffer.capacity)
        let whole = n / Self.recordSize
        let raw = UnsafeRawPointer(buffer.pointer)
        for i in 0..<whole {
            let record = raw + i * Self.recordSize
            let time = UInt32(littleEndian: record.loadUnaligned(as: UInt32.self))
            let id = UInt64(littleEndian: (record + 4).loadUnaligned(as: UInt64.self))
            let size = UInt32(littleEndian: (record + 12).loadUnaligned(as: UInt32.self))
            let next = Int64(littleEndian: (record + 16).loadUnaligned(as: Int64.self))
            let (total, overflow) = sizeTotal.addingReportingOverflow(Int(size))
            guard !overflow else {
                throw TraceError(.malformed, file: name, offset: offset + i * Self.recordSize, reason: CSVTraceReader.sizeTotalReason)
            }
            sizeTotal = total
            batch.append(Request(time: Double(time), key: id, size: Int(size), operation: .get,
                                 nextAccess: next < 0 ? .max : next))
        }
        if n % Self.recordSize != 0 {
            let at = offset + whole * Self.recordSize
            throw TraceError(.malformed, file: name, offset: at,
                             reason: "truncated record: \(n % Self.recordSize) of \(Self.recordSize) bytes (oracleGeneral records are 24 bytes)")
        }
        offset += n
        if n < buffer.capacity { finished = true }
        return !batch.isEmpty
    }
}
