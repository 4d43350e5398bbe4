/// How one fixed-size little-endian record of a binary trace format becomes a ``Request``.
public protocol BinaryRecordLayout {
    /// The bytes of one record.
    var recordSize: Int { get }
    /// The format's name for messages (`lcs v2`, `vscsi v1`, …).
    var formatName: String { get }
    /// Whether records carry next-access indices.
    var providesNextAccess: Bool { get }
    /// Decodes the record at `record` (`recordSize` readable bytes, any alignment); a size the
    /// format cannot have (negative, or above 2^53) is -1, which the reader refuses.
    func request(at record: UnsafeRawPointer) -> Request
}

/// Streams a binary trace of fixed-size records after a header of `headerSize` bytes, in
/// constant memory (one buffer of `recordsPerChunk` records).
///
/// Specialised per layout, so the per-record decode is inlined into the batch loop. A file whose
/// records do not end on a record boundary is reported as truncated at the incomplete record's
/// byte offset; when the header states a record count, a different count is an error too.
public struct BinaryTraceReader<Layout: BinaryRecordLayout>: TraceReader {
    public let name: String
    public var providesNextAccess: Bool { layout.providesNextAccess }

    private let layout: Layout
    private let source: ByteSource
    private let buffer: _ReadBuffer
    private let headerSize: Int
    private let expectedRecords: Int?
    private var offset: Int
    private var records = 0
    private var finished = false
    /// The sum of every record's size so far (see ``CSVTraceReader/sizeTotalReason``).
    private var sizeTotal = 0

    /// Reads records laid out as `layout` from `source`, whose first `headerSize` bytes were
    /// already consumed; `expectedRecords` is the count the header states, if any.
    public init(source: ByteSource, layout: Layout, headerSize: Int = 0, expectedRecords: Int? = nil, recordsPerChunk: Int = 1 << 14) {
        self.source = source
        self.layout = layout
        self.headerSize = headerSize
        self.expectedRecords = expectedRecords
        name = source.name
        offset = headerSize
        buffer = _ReadBuffer(capacity: layout.recordSize * recordsPerChunk)
    }

    /// An error at the byte offset of record `row` (every record is a row).
    public mutating func error(atRow row: Int, reason: String) -> TraceError {
        let (start, overflow) = (row - 1).multipliedReportingOverflow(by: layout.recordSize)
        guard row >= 1, !overflow else { return TraceError(.malformed, file: name, reason: "record \(row): \(reason)") }
        return TraceError(.malformed, file: name, offset: headerSize &+ start, reason: reason).locatedIn(source)
    }

    public mutating func nextBatch(_ batch: inout [Request]) throws(TraceError) -> Bool {
        batch.removeAll(keepingCapacity: true)
        if let pendingError { throw pendingError }
        do throws(TraceError) {
            return try nextRecords(&batch)
        } catch {
            // The records before a bad one are handed over first, and the error comes with the
            // next batch: a reader asked for the first N rows never meets a bad record after them.
            guard !batch.isEmpty else { throw error }
            pendingError = error
            return true
        }
    }

    /// The error of the record after the last batch's records, thrown by the next call.
    private var pendingError: TraceError?

    /// Decodes the next chunk's records into `batch`, stopping before a bad one.
    private mutating func nextRecords(_ batch: inout [Request]) throws(TraceError) -> Bool {
        guard !finished else { return false }
        let n = try source.readFully(into: buffer.pointer, count: buffer.capacity)
        let size = layout.recordSize
        let whole = n / size
        let raw = UnsafeRawPointer(buffer.pointer)
        for i in 0..<whole {
            let request = layout.request(at: raw + i * size)
            // One add and one branch per record: byte totals of any run over the trace fit an Int.
            let (total, overflow) = sizeTotal.addingReportingOverflow(request.size)
            guard request.size >= 0, !overflow else {
                throw TraceError(.malformed, file: name, offset: offset + i * size,
                                 reason: request.size < 0 ? "record \(records + i + 1): size is negative or above 2^53"
                                                          : CSVTraceReader.sizeTotalReason).locatedIn(source)
            }
            sizeTotal = total
            batch.append(request)
        }
        if n % size != 0 {
            throw TraceError(.malformed, file: name, offset: offset + whole * size,
                             reason: "truncated record: \(n % size) of \(size) bytes (\(layout.formatName) records are \(size) bytes)").locatedIn(source)
        }
        offset += n
        records += whole
        if n < buffer.capacity {
            finished = true
            if let expectedRecords, expectedRecords != records {
                throw TraceError(.malformed, file: name, offset: headerSize,
                                 reason: "the \(layout.formatName) header says \(expectedRecords) requests, the file holds \(records)").locatedIn(source)
            }
        }
        return !batch.isEmpty
    }
}

/// libCacheSim's operation codes (`req_op_e`) as cachebench operations: deletes delete, the
/// memcached-style writes (`set`, `add`, `cas`, `replace`, `append`, `prepend`, `incr`, `decr`)
/// set, and everything else (`get`, `gets`, block `read`/`write`/`update`, `nop`, unknown codes)
/// is a request, as libCacheSim's cachesim treats every row.
@inlinable
func _libCacheSimOperation(_ code: UInt8) -> Operation {
    switch code {
    case 9: .delete
    case 3...8, 10, 11: .set
    default: .get
    }
}

extension UnsafeRawPointer {
    @inline(__always)
    func _le<T: FixedWidthInteger>(_ offset: Int, as type: T.Type) -> T {
        T(littleEndian: loadUnaligned(fromByteOffset: offset, as: T.self))
    }
}
