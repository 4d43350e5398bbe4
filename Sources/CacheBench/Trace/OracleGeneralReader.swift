/// Streams libCacheSim's `oracleGeneral` binary traces in constant memory.
///
/// Each request is a packed little-endian 24-byte record with no header:
/// `{u32 clock_time, u64 obj_id, u32 obj_size, i64 next_access_vtime}` at offsets 0, 4, 12 and 16,
/// where `next_access_vtime` is the 1-based index of the next request for the same object, or -1.
/// Every record is a `get`; records of size 0 are passed on and skipped by the replay, as
/// libCacheSim skips them. A file whose length is not a multiple of 24 is reported as truncated,
/// naming the byte offset of the incomplete record.
///
/// The records are read in chunks (``ByteSource/borrow(upTo:copyingInto:)``: in place from a
/// large regular file, else copied into one buffer), and a reader that needs only some rows
/// decodes them straight from the chunk (``nextRecords(_:)``, ``key(at:)``, ``request(at:)``).
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

    /// An error at the byte offset of record `row` (every record is a row).
    public mutating func error(atRow row: Int, reason: String) -> TraceError {
        let (start, overflow) = (row - 1).multipliedReportingOverflow(by: Self.recordSize)
        guard row >= 1, !overflow else { return TraceError(.malformed, file: name, reason: "record \(row): \(reason)") }
        return TraceError(.malformed, file: name, offset: start, reason: reason).locatedIn(source)
    }

    public mutating func nextBatch(_ batch: inout [Request]) throws(TraceError) -> Bool {
        batch.removeAll(keepingCapacity: true)
        if let pendingError { throw pendingError }
        let start = offset
        do throws(TraceError) {
            return try nextRecords { base, count in
                var sizes: UInt64 = 0
                for i in 0..<count {
                    let request = Self.request(at: base + i * Self.recordSize)
                    sizes &+= UInt64(request.size)
                    batch.append(request)
                }
                return sizes
            } && !batch.isEmpty
        } catch {
            // The records before the bad one are handed over first (the chunk was decoded whole:
            // those from the bad one on are dropped), and the error comes with the next batch, so
            // a reader asked for the first N rows never meets a bad record after them.
            let good = error.offset.map { max(0, min(batch.count, ($0 - start) / Self.recordSize)) } ?? 0
            batch.removeSubrange(good...)
            guard !batch.isEmpty else { throw error }
            pendingError = error
            return true
        }
    }

    /// The error of the record after the last batch's records, thrown by the next call.
    private var pendingError: TraceError?

    /// Reads the next chunk and passes its whole records to `body` in place (`count` records of
    /// ``recordSize`` bytes from `base`, valid during the call); `false` at the end of the trace.
    /// `body` returns the sum of the records' sizes, which it reads anyway, and this reader checks
    /// the running total: a caller that decodes only some rows needs no pass of its own.
    ///
    /// - Throws: ``TraceError`` at a truncated last record or a total size beyond `Int.max`.
    mutating func nextRecords(_ body: (_ base: UnsafeRawPointer, _ count: Int) -> UInt64) throws(TraceError) -> Bool {
        guard !finished else { return false }
        let bytes = try source.borrow(upTo: buffer.capacity, copyingInto: buffer.pointer)
        let n = bytes.count
        let whole = n / Self.recordSize
        let base = bytes.baseAddress ?? UnsafeRawPointer(buffer.pointer)
        if whole > 0 { try addSizes(body(base, whole), of: base, count: whole) }
        if n % Self.recordSize != 0 {
            let at = offset + whole * Self.recordSize
            throw TraceError(.malformed, file: name, offset: at,
                             reason: "truncated record: \(n % Self.recordSize) of \(Self.recordSize) bytes (oracleGeneral records are 24 bytes)").locatedIn(source)
        }
        offset += n
        if n < buffer.capacity { finished = true }
        return whole > 0
    }

    /// Adds a chunk's `sum` of sizes to ``sizeTotal``; past `Int.max`, names the record of the
    /// `count` at `base` that takes it there. A chunk's sum fits 64 bits (2^32 per record).
    private mutating func addSizes(_ sum: UInt64, of base: UnsafeRawPointer, count: Int) throws(TraceError) {
        if sum <= UInt64(Int.max), case (let total, false) = sizeTotal.addingReportingOverflow(Int(sum)) {
            sizeTotal = total
            return
        }
        for i in 0..<count {
            let (total, overflow) = sizeTotal.addingReportingOverflow(Int(Self.size(at: base + i * Self.recordSize)))
            guard !overflow else {
                throw TraceError(.malformed, file: name, offset: offset + i * Self.recordSize, reason: CSVTraceReader.sizeTotalReason).locatedIn(source)
            }
            sizeTotal = total
        }
    }

    /// The object id of the record at `record`.
    @inline(__always)
    static func key(at record: UnsafeRawPointer) -> UInt64 { record._le(4, as: UInt64.self) }

    /// The object size of the record at `record`.
    @inline(__always)
    static func size(at record: UnsafeRawPointer) -> UInt32 { record._le(12, as: UInt32.self) }

    /// The request the record at `record` stands for.
    @inline(__always)
    static func request(at record: UnsafeRawPointer) -> Request {
        let next = record._le(16, as: Int64.self)
        return Request(time: Double(record._le(0, as: UInt32.self)), key: key(at: record), size: Int(size(at: record)),
                       operation: .get, nextAccess: next < 0 ? .max : next)
    }
}
