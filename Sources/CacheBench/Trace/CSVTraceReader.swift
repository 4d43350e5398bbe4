#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Whether a CSV trace starts with a header row.
public enum HeaderMode: String, Sendable, CaseIterable {
    /// Decide from the first line: a header names a known field (`time`, `key`, `size`, `op`, …).
    case auto
    /// The first line is a header.
    case present
    /// There is no header.
    case absent
}

/// Streams a CSV trace in constant memory.
///
/// Layout, in order of precedence: `--columns`; a header row naming the columns (`timestamp` or
/// `time`; `key`, `id` or `obj_id`; `size`; `op`); Twitter's published cache traces, recognised by
/// their rows (see ``twitterLayout``); otherwise `timestamp,key,size[,op]` (a file with one
/// column is read as keys only). Keys that are decimal integers below 2^64 are used as
/// they are; any other key is hashed to 64 bits as libCacheSim hashes string keys (XXH3-64), so
/// string keys such as URLs work and get the ids libCacheSim's readers and traceConv give them.
/// Fields may be quoted (`"a,b"`, with `""` for a quote). Blank lines and lines starting with `#`
/// are skipped. CRLF line endings are accepted.
public struct CSVTraceReader: TraceReader {
    /// The longest line accepted; longer lines are reported as malformed rather than buffered.
    public static let maximumLineLength = 1 << 16

    /// Twitter's published cache traces (`twitter/cache-trace`): no header, seven fields a row,
    /// `timestamp, anonymized key, key size, value size, client id, operation, TTL`. A headerless
    /// file whose first row has seven fields, whole numbers where the sizes, client and TTL go and
    /// one of memcached's operations (`get gets set add replace cas append prepend delete incr
    /// decr`) in the sixth is read so, as libCacheSim's `twr` form of the same traces is (see
    /// ``TwitterBinaryLayout``): the size is the key size plus the value size, a `get` whose value
    /// size is 0 (a miss in the traced cache) has size 0 and is skipped, `gets` is a get, the
    /// other writes are sets; the TTL is kept and the client read past.
    public static let twitterLayout = "timestamp, key, key size, value size, client id, operation, TTL"

    /// Memcached's operations, as Twitter's traces name them.
    static let twitterOperations: Set<String> = ["get", "gets", "set", "add", "replace", "cas", "append", "prepend", "delete", "incr", "decr"]

    /// Why a trace whose sizes add up past `Int.max` bytes is refused: no byte total of a run
    /// over it (requested, hit, working set) could be represented.
    public static let sizeTotalReason = "the sizes up to this row add up to more than 2^63-1 bytes, so byte totals cannot be represented"

    public let name: String
    public var providesNextAccess: Bool { false }

    private let source: ByteSource
    private let buffer: _ReadBuffer
    private var start = 0          // first unconsumed byte
    private var end = 0            // one past the last valid byte
    private var atEndOfInput = false
    private var lineNumber = 0
    private var rowIndex = 0
    /// The sum of every row's size so far (see ``sizeTotalReason``).
    private var sizeTotal = 0
    private var columns: CSVColumns? {
        didSet {
            lastColumn = columns?.lastColumn ?? 0
            roles = _Role.table(for: columns)
        }
    }
    private var roles: [UInt8] = []
    private var lastColumn = 0
    private let scratch = _RequestBuffer()
    private var decoded = 0
    /// The error of the row after the last batch's rows, thrown by the next call.
    private var pendingError: TraceError?
    /// The most rows one batch holds; 1 while ``error(atRow:reason:)`` looks for a row's line.
    private var rowsPerBatch = _RequestBuffer.capacity
    private var header: HeaderMode
    private var delimiter: UInt8 = 0
    private var sawFirstLine = false
    /// Whether the rows are Twitter's (see ``twitterLayout``).
    private var twitter = false
    /// Set when a headerless first row of three fields chose `timestamp,key,size`: a later row
    /// with more fields (an operation column that starts part-way) is refused rather than read
    /// without its operation.
    private var refusesExtraFields = false
    /// Set when a headerless first line of one field chose a key per line (libCacheSim's txt):
    /// a later line with a separator (a CSV whose first line is a title, not a header) is
    /// refused rather than read with its first field as the key.
    private var refusesSeparators = false

    /// Opens a CSV trace.
    ///
    /// - Parameters:
    ///   - source: the bytes.
    ///   - columns: an explicit column map (`--columns`), or `nil` to use the header or the default layout.
    ///   - header: whether the first line is a header.
    public init(source: ByteSource, columns: CSVColumns? = nil, header: HeaderMode = .auto, chunkSize: Int = 1 << 20) {
        self.source = source
        self.name = source.name
        self.columns = columns
        lastColumn = columns?.lastColumn ?? 0
        roles = _Role.table(for: columns)
        self.header = header
        self.buffer = _ReadBuffer(capacity: max(chunkSize, Self.maximumLineLength * 2))
    }

    /// Opens the CSV trace at `path` (`-` for standard input).
    public init(path: String, columns: CSVColumns? = nil, header: HeaderMode = .auto) throws(TraceError) {
        self.init(source: try ByteSource(path: path), columns: columns, header: header)
    }

    public mutating func nextBatch(_ batch: inout [Request]) throws(TraceError) -> Bool {
        batch.removeAll(keepingCapacity: true)
        if let pendingError { throw pendingError }
        // Rows are decoded into the reader's own buffer and handed over in one copy, which
        // spares `Array.append`'s capacity and uniqueness checks on every row.
        decoded = 0
        defer { batch.append(contentsOf: UnsafeBufferPointer(start: scratch.pointer, count: decoded)) }
        while decoded < rowsPerBatch {
            do throws(TraceError) {
                guard let (lineStart, lineEnd) = try nextLine() else { break }
                try decodeLine(from: lineStart, to: lineEnd)
            } catch {
                // The rows before a bad one are handed over first, and the error comes with the
                // next batch: a reader asked for the first N rows never meets a bad row after them.
                guard decoded > 0 else { throw error }
                pendingError = error
                break
            }
        }
        return decoded > 0
    }

    /// An error at the line of row `row`, read on to one row at a time (a row's line is the
    /// last line read when its batch is complete; blank lines and the header come before it).
    public mutating func error(atRow row: Int, reason: String) -> TraceError {
        rowsPerBatch = 1
        var batch: [Request] = []
        var rows = 0
        do {
            while rows < row, try nextBatch(&batch) { rows += batch.count }
        } catch {
            return error
        }
        guard rows == row else { return TraceError(.malformed, file: name, reason: "row \(row): \(reason)") }
        return malformed(reason)
    }

    // MARK: Lines

    /// The bounds of the next line in the buffer (without its terminator), reading more input as needed.
    private mutating func nextLine() throws(TraceError) -> (Int, Int)? {
        while true {
            let base = buffer.pointer
            if start < end, let newline = memchr(base + start, 0x0A, end - start) {
                let lineEnd = base.distance(to: newline.assumingMemoryBound(to: UInt8.self))
                let lineStart = start
                start = lineEnd + 1
                lineNumber += 1
                guard lineEnd - lineStart <= Self.maximumLineLength else { throw lineTooLong(at: lineStart) }
                return (lineStart, lineEnd)
            }
            if atEndOfInput {
                guard start < end else { return nil }
                // The last line has no newline.
                let lineStart = start
                start = end
                lineNumber += 1
                guard end - lineStart <= Self.maximumLineLength else { throw lineTooLong(at: lineStart) }
                return (lineStart, end)
            }
            guard end - start <= Self.maximumLineLength else {
                lineNumber += 1
                throw lineTooLong(at: start)
            }
            // Keep the partial line and read more behind it.
            if start > 0 {
                if end > start { memmove(base, base + start, end - start) }
                end -= start
                start = 0
            }
            let n = try source.read(into: base + end, count: buffer.capacity - end)
            if n == 0 { atEndOfInput = true } else { end += n }
        }
    }

    /// The error for a line starting at `lineStart` in the buffer that runs past the longest
    /// allowed: lines ended by CR alone (classic Mac) make one long line, said as such.
    private func lineTooLong(at lineStart: Int) -> TraceError {
        let count = min(end - lineStart, Self.maximumLineLength)
        let base = buffer.pointer + lineStart
        if memchr(base, 0x0D, count) != nil && memchr(base, 0x22, count) == nil { return carriageReturnsOnly() }
        return TraceError(.malformed, file: name, line: lineNumber,
                          reason: "line is longer than \(Self.maximumLineLength) bytes (is this a CSV trace?)")
    }

    private func carriageReturnsOnly() -> TraceError {
        TraceError(.malformed, file: name, line: lineNumber,
                   reason: "carriage returns without line feeds: rows must end in LF or CRLF (convert CR-only line endings, e.g. with tr '\\r' '\\n')")
    }

    // MARK: Rows

    private mutating func decodeLine(from rawStart: Int, to rawEnd: Int) throws(TraceError) {
        let base = buffer.pointer
        var lineStart = rawStart
        // A UTF-8 byte-order mark (spreadsheet exports) is not part of the first header name.
        if !sawFirstLine && rawEnd - rawStart >= 3 && base[rawStart] == 0xEF && base[rawStart + 1] == 0xBB && base[rawStart + 2] == 0xBF {
            lineStart += 3
        }
        var lineEnd = rawEnd
        if lineEnd > lineStart && base[lineEnd - 1] == 0x0D { lineEnd -= 1 }
        if lineEnd == lineStart { return }                               // blank line
        if !sawFirstLine && base[lineStart] == 0x23 {                    // '#' at the top…
            // …is a header when it names columns, as in libCacheSim's CSV samples, and otherwise
            // a comment, skipped. Once the header or a row has been read, a line starting with
            // '#' is a row, as libCacheSim reads it: a key may start with '#'.
            let text = String(decoding: UnsafeBufferPointer(start: base + lineStart + 1, count: lineEnd - lineStart - 1), as: UTF8.self)
            let names = text.split(whereSeparator: { $0 == "," || $0 == "\t" }).map { String($0).trimmingSpaces.lowercased() }
            guard header != .absent, names.contains(where: { CSVColumns.fieldNames[$0] != nil }) else { return }
        }
        if !sawFirstLine {
            if memchr(base + lineStart, 0, lineEnd - lineStart) != nil { throw nulByte() }
            // Lines ended by CR alone (classic Mac) make one long first line, which would read as
            // a header and leave no rows: say what is wrong instead. (A quoted field may hold a CR.)
            if memchr(base + lineStart, 0x0D, lineEnd - lineStart) != nil && memchr(base + lineStart, 0x22, lineEnd - lineStart) == nil {
                throw carriageReturnsOnly()
            }
            sawFirstLine = true
            if try readHeaderIfPresent(from: lineStart, to: lineEnd) { return }
        }
        guard let columns else { return }
        if twitter {
            try decodeTwitterRow(from: lineStart, to: lineEnd)
            return
        }

        if refusesSeparators && memchr(base + lineStart, Int32(delimiter), lineEnd - lineStart) != nil {
            throw malformed("several fields, but the first line has one and no header (a key per line, as libCacheSim's txt); every row needs the same fields: add a header (timestamp,key,size,op) or \(TraceError.Hint.columnMap.phrase)",
                            hint: .columnMap)
        }
        // Fast path: one scan that keeps only the mapped fields. Lines with quotes take the general split.
        var mapped = _MappedFields()
        if !scanUnquoted(from: lineStart, to: lineEnd, columns: columns, into: &mapped) {
            if memchr(base + lineStart, 0, lineEnd - lineStart) != nil { throw nulByte() }
            var fields = _Fields()
            try split(from: lineStart, to: lineEnd, into: &fields, upTo: columns.lastColumn)
            mapped = _MappedFields()
            mapped.count = fields.count
            if let c = columns.time, c < fields.count { mapped.time = fields[c] }
            if columns.key < fields.count { mapped.key = fields[columns.key] }
            if let c = columns.size, c < fields.count { mapped.size = fields[c] }
            if let c = columns.operation, c < fields.count { mapped.operation = fields[c] }
        }
        if refusesExtraFields && mapped.count > 2 && memchr(base + mapped.size.end, Int32(delimiter), lineEnd - mapped.size.end) != nil {
            throw malformed("more than 3 fields, but the first row has 3 (timestamp, key, size: no operation column); every row needs the same fields, or \(TraceError.Hint.columnMap.phrase)",
                            hint: .columnMap)
        }
        try decodeRow(mapped, columns: columns)
    }

    /// Records the mapped fields of a line without quotes, parsing plain decimal numbers during
    /// the same scan; returns `false` at a quote or NUL byte, for the general path to handle.
    ///
    /// `@_transparent` rather than `@inline(__always)`: the optimizer declined the latter once
    /// the body grew, and a call copies the 152-byte `_MappedFields` on every row (15 % of a
    /// 10M-row replay's time).
    @_transparent
    private func scanUnquoted(from lineStart: Int, to lineEnd: Int, columns: CSVColumns, into mapped: inout _MappedFields) -> Bool {
        let base = buffer.pointer
        let last = lastColumn
        let delimiter = self.delimiter
        var column = 0
        var i = lineStart
        while true {
            let fieldStart = i
            let role = column < roles.count ? roles[column] : _Role.none
            var value: UInt64 = 0
            if role == _Role.time || role == _Role.key || role == _Role.size {
                // Up to 7 digits in one step (the read buffer has 8 bytes of padding), which spares
                // a mispredicted loop exit per field; longer runs take the byte loop.
                let (number, length) = _leadingDigits(base + i)
                if _fastPath(length < 8 && i + length <= lineEnd) {
                    value = number
                    i += length
                } else {
                    (value, i) = _digitByDigit(base, from: i, to: lineEnd)
                }
            }
            let digits = i - fieldStart
            while i < lineEnd {
                let byte = base[i]
                if byte == delimiter { break }
                if byte == 0x22 || byte == 0 { return false }
                i += 1
            }
            // A field of 1 to 15 digits and nothing else is already parsed (15 digits cannot overflow).
            let numeric = digits > 0 && digits == i - fieldStart && digits <= 15
            mapped.record(_Field(start: fieldStart, end: i, quotedWithEscapes: false), role: role, number: numeric ? value : nil)
            column += 1
            if i >= lineEnd || column > last { break }
            i += 1
            if i == lineEnd {
                // A trailing delimiter ends with an empty field.
                let role = column < roles.count ? roles[column] : _Role.none
                mapped.record(_Field(start: i, end: i, quotedWithEscapes: false), role: role, number: nil)
                column += 1
                break
            }
        }
        mapped.count = column
        return true
    }

    @inline(__always)
    private mutating func decodeRow(_ fields: borrowing _MappedFields, columns: borrowing CSVColumns) throws(TraceError) {
        // The time first: a row whose first field is not a time is most likely a trace of another
        // layout, which its time's message says better than a stray field read as the operation.
        var time = Double(rowIndex)
        if let column = columns.time {
            guard column < fields.count else { throw missingColumn(column, fields.count) }
            if let number = fields.timeNumber { time = Double(number) } else { time = try parseTime(fields.time) }
        }
        var operation = Operation.get
        if let column = columns.operation {
            guard column < fields.count else { throw missingColumn(column, fields.count) }
            operation = try parseOperation(fields.operation)
        }
        var key: UInt64 = 0
        var size = 1
        if operation.hasKey {
            guard columns.key < fields.count else { throw missingColumn(columns.key, fields.count) }
            if let number = fields.keyNumber { key = number } else { key = try parseKey(fields.key) }
            if let column = columns.size, operation != .delete {
                guard column < fields.count else { throw missingColumn(column, fields.count) }
                if let number = fields.sizeNumber, number <= 1 << 53 { size = Int(number) } else { size = try parseSize(fields.size) }
            }
        }
        try emit(Request(time: time, key: key, size: size, operation: operation))
    }

    /// Hands a decoded row's request over, counting its size toward ``sizeTotalReason``'s limit.
    @inline(__always)
    private mutating func emit(_ request: Request) throws(TraceError) {
        // Every byte total (requested, hit, working set, a tier's) is at most the sum of all
        // sizes, so a sum that fits in Int means no total downstream can overflow.
        let (total, overflow) = sizeTotal.addingReportingOverflow(request.size)
        guard !overflow else { throw malformed(Self.sizeTotalReason) }
        sizeTotal = total
        (scratch.pointer + decoded).initialize(to: request)
        decoded += 1
        rowIndex += 1
    }

    /// Decodes a row of Twitter's layout (``twitterLayout``).
    private mutating func decodeTwitterRow(from lineStart: Int, to lineEnd: Int) throws(TraceError) {
        if memchr(buffer.pointer + lineStart, 0, lineEnd - lineStart) != nil { throw nulByte() }
        var fields = _Fields()
        try split(from: lineStart, to: lineEnd, into: &fields, upTo: 7)
        guard fields.count == 7 else {
            throw malformed("a row of a Twitter trace has 7 fields (\(Self.twitterLayout)); this one has \(fields.count)")
        }
        let operation = try parseOperation(fields[5])
        let time = try parseTime(fields[0])
        let ttl = try parseSize(fields[6], "TTL")
        guard ttl <= Int(Int32.max) else { throw malformed("TTL \(ttl) exceeds 2^31-1 seconds") }
        var key: UInt64 = 0
        var size = 1
        if operation.hasKey {
            key = try parseKey(fields[1])
            let keySize = try parseSize(fields[2], "key size"), valueSize = try parseSize(fields[3], "value size")
            // Each is at most 2^53, so the sum cannot overflow; the object's size, their sum, is
            // held to 2^53 as every other format's is.
            size = operation == .get && valueSize == 0 ? 0 : keySize + valueSize
            guard size <= 1 << 53 else { throw malformed("key size + value size \(size) exceeds 2^53") }
        }
        try emit(Request(time: time, key: key, size: size, operation: operation, ttl: Int32(ttl)))
    }

    /// Whether a headerless first row has Twitter's layout (``twitterLayout``).
    private func isTwitterRow(_ fields: borrowing _Fields) -> Bool {
        guard fields.count == 7 else { return false }
        let base = buffer.pointer
        let isWholeNumber = { (field: _Field) in
            let bytes = field.trimmed(base)
            return !bytes.isEmpty && bytes.allSatisfy { $0 &- 0x30 < 10 }
        }
        guard isWholeNumber(fields[0]), isWholeNumber(fields[2]), isWholeNumber(fields[3]),
              isWholeNumber(fields[4]), isWholeNumber(fields[6]) else { return false }
        let operation = String(decoding: fields[5].trimmed(base), as: UTF8.self).lowercased()
        return Self.twitterOperations.contains(operation)
    }

    /// Reads the first line as a header when it is one; decides the column map either way.
    private mutating func readHeaderIfPresent(from lineStart: Int, to lineEnd: Int) throws(TraceError) -> Bool {
        let base = buffer.pointer
        let line = UnsafeBufferPointer(start: base + lineStart, count: lineEnd - lineStart)
        if line.contains(0x2C) { delimiter = 0x2C } else if line.contains(0x09) { delimiter = 0x09 } else { delimiter = 0x2C }
        // Other separators would turn each whole line into one key (the header row included):
        // refused rather than guessed.
        if delimiter == 0x2C && !line.contains(0x2C), let other = line.first(where: { $0 == 0x3B || $0 == 0x7C }) {
            throw malformed("fields separated by '\(Character(Unicode.Scalar(other)))': cachebench reads comma- or tab-separated traces (convert the separators first)")
        }

        var fields = _Fields()
        try split(from: lineStart, to: lineEnd, into: &fields, upTo: 64)
        var names = (0..<min(fields.count, 64)).map { String(decoding: fields[$0].bytes(base), as: UTF8.self) }
        // libCacheSim's CSV samples start their header with '#': `# time, object, size, next_access_vtime`.
        if let first = names.first, first.hasPrefix("#") { names[0] = String(first.dropFirst()) }
        let namesKnownField = names.contains { CSVColumns.fieldNames[$0.trimmingSpaces.lowercased()] != nil }

        let isHeader: Bool
        switch header {
        case .present: isHeader = true
        case .absent: isHeader = false
        // A header names columns and holds no number: `1,id,10` is a row whose key is `id`.
        case .auto: isHeader = namesKnownField && !names.contains { Self.isNumber($0.trimmingSpaces) }
        }
        if columns == nil {
            if isHeader {
                guard let named = try CSVColumns.fromHeader(names, file: name) else {
                    throw malformed("the header names no known column (time, key, size, op); \(TraceError.Hint.columnMap.phrase)",
                                    hint: .columnMap)
                }
                columns = named
            } else {
                // Headerless: Twitter's seven fields, or timestamp,key,size[,op]; a single column
                // holds keys, two hold time and key.
                if isTwitterRow(fields) {
                    twitter = true
                    columns = CSVColumns(time: 0, key: 1, size: 3, operation: 5)
                    return false
                }
                switch fields.count {
                case 1:
                    columns = CSVColumns(time: nil, key: 0, size: nil, operation: nil)
                    refusesSeparators = true
                case 2: columns = CSVColumns(time: 0, key: 1, size: nil, operation: nil)
                case 3:
                    columns = CSVColumns(time: 0, key: 1, size: 2, operation: nil)
                    refusesExtraFields = true
                default: columns = .headerless
                }
            }
        }
        return isHeader
    }

    /// Whether `text` is a decimal number (`10`, `-3`, `1.5`, `.5`, `2e9`): a field no header
    /// holds.
    static func isNumber(_ text: String) -> Bool {
        var bytes = Substring(text).utf8[...]
        if let sign = bytes.first, sign == UInt8(ascii: "+") || sign == UInt8(ascii: "-") { bytes = bytes.dropFirst() }
        let isDigit = { (byte: UInt8) in byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }
        let whole = bytes.prefix(while: isDigit)
        bytes = bytes.dropFirst(whole.count)
        var fraction = bytes.prefix(0)
        if bytes.first == UInt8(ascii: ".") {
            bytes = bytes.dropFirst()
            fraction = bytes.prefix(while: isDigit)
            bytes = bytes.dropFirst(fraction.count)
        }
        guard !whole.isEmpty || !fraction.isEmpty else { return false }
        if let e = bytes.first, e == UInt8(ascii: "e") || e == UInt8(ascii: "E") {
            bytes = bytes.dropFirst()
            if let sign = bytes.first, sign == UInt8(ascii: "+") || sign == UInt8(ascii: "-") { bytes = bytes.dropFirst() }
            let exponent = bytes.prefix(while: isDigit)
            guard !exponent.isEmpty else { return false }
            bytes = bytes.dropFirst(exponent.count)
        }
        return bytes.isEmpty
    }

    /// Splits a line into fields, honouring double quotes. Stops after field `last`.
    private func split(from lineStart: Int, to lineEnd: Int, into fields: inout _Fields, upTo last: Int) throws(TraceError) {
        let base = buffer.pointer
        var i = lineStart
        while true {
            if i < lineEnd && base[i] == 0x22 {
                // Quoted field: runs to the closing quote; "" is an escaped quote.
                var j = i + 1
                var escaped = false
                while true {
                    guard j < lineEnd else { throw malformed("unterminated quoted field") }
                    if base[j] == 0x22 {
                        if j + 1 < lineEnd && base[j + 1] == 0x22 { escaped = true; j += 2; continue }
                        break
                    }
                    j += 1
                }
                fields.append(_Field(start: i + 1, end: j, quotedWithEscapes: escaped))
                j += 1
                guard j >= lineEnd || base[j] == delimiter else {
                    throw malformed("unexpected character after a closing quote")
                }
                i = j
            } else {
                var j = i
                while j < lineEnd && base[j] != delimiter { j += 1 }
                fields.append(_Field(start: i, end: j, quotedWithEscapes: false))
                i = j
            }
            if i >= lineEnd || fields.count > last { return }
            i += 1                                                       // past the delimiter
            if i == lineEnd { fields.append(_Field(start: i, end: i, quotedWithEscapes: false)); return }
        }
    }

    // MARK: Fields

    @inline(__always)
    private func parseOperation(_ field: _Field) throws(TraceError) -> Operation {
        let bytes = field.trimmed(buffer.pointer)
        if bytes.isEmpty { return .get }
        // Fast path without a String per row: the common spellings, exactly as written.
        if bytes.count == 3 {
            if bytes[0] == 0x67 && bytes[1] == 0x65 && bytes[2] == 0x74 { return .get }    // "get"
            if bytes[0] == 0x73 && bytes[1] == 0x65 && bytes[2] == 0x74 { return .set }    // "set"
        }
        switch String(decoding: bytes, as: UTF8.self).lowercased() {
        // `write` is `set`'s alias, as the command-line contract fixes it (libCacheSim's cachesim
        // counts a CSV's writes as requests: drop the op column with --columns to do the same).
        case "get", "read", "gets": return .get
        case "set", "write", "update": return .set
        // libCacheSim's `nop` (code 0), which its binary readers hand over as a get.
        case "nop": return .get
        // memcached's other writes, as libCacheSim counts them (see `_libCacheSimOperation`).
        case "add", "replace", "cas", "append", "prepend", "incr", "decr": return .set
        case "delete": return .delete
        case "memory-warning": return .memoryWarning
        case "background": return .background
        case "tick": return .tick
        case "terminate": return .terminate
        case let other:
            throw malformed("unknown operation '\(other.prefix(40))' (expected get, read, set, write, update, delete, memory-warning, background, terminate or tick; or memcached's gets, add, replace, cas, append, prepend, incr or decr; or nop, a get)")
        }
    }

    @inline(__always)
    private func parseTime(_ field: _Field) throws(TraceError) -> Double {
        let bytes = field.trimmed(buffer.pointer)
        guard !bytes.isEmpty else { throw malformed("empty timestamp") }
        // Fast path: digits with an optional fraction.
        var whole: UInt64 = 0
        var i = 0
        while i < bytes.count, bytes[i] &- 0x30 < 10, whole < 100_000_000_000_000_000 {
            whole = whole &* 10 &+ UInt64(bytes[i] &- 0x30)
            i += 1
        }
        if i == bytes.count { return Double(whole) }
        // Fast path for `digits.digits` with at most 15 significant digits: the digits as one
        // integer divided by an exact power of ten is correctly rounded, as strtod's result is
        // (Clinger's fast path), without building a String per row.
        if bytes[i] == 0x2E && i + 1 < bytes.count && bytes.count <= 16 {
            var mantissa = whole
            var j = i + 1
            while j < bytes.count, bytes[j] &- 0x30 < 10 {
                mantissa = mantissa &* 10 &+ UInt64(bytes[j] &- 0x30)
                j += 1
            }
            if j == bytes.count { return Double(mantissa) / _exactPowersOfTen[j - i - 1] }
        }
        // Decimal only, as every number of a trace is read: Swift's Double(_:) also takes
        // hexadecimal (`0x10`, 16), which a size is not.
        let decimal = bytes.allSatisfy { $0 &- 0x30 < 10 || $0 == 0x2E || $0 | 0x20 == 0x65 || $0 == 0x2B || $0 == 0x2D }
        guard decimal, let value = Double(String(decoding: bytes, as: UTF8.self)), value.isFinite, value >= 0 else {
            throw malformed("timestamp '\(String(decoding: bytes.prefix(40), as: UTF8.self))' is not a non-negative number")
        }
        return value
    }

    @inline(__always)
    private func parseSize(_ field: _Field, _ what: StaticString = "size") throws(TraceError) -> Int {
        let bytes = field.trimmed(buffer.pointer)
        guard !bytes.isEmpty else { throw malformed("empty \(what)") }
        var value = 0
        for byte in bytes {
            let digit = byte &- 0x30
            guard digit < 10 else {
                let text = String(decoding: bytes.prefix(40), as: UTF8.self)
                // "-0" is not negative, but signed all the same.
                if text.hasPrefix("-"), text.dropFirst().contains(where: { ("1"..."9").contains($0) }) {
                    throw malformed("\(what) \(text) is negative")
                }
                throw malformed("\(what) '\(text)' is not a whole number")
            }
            value = value &* 10 &+ Int(digit)
            guard value <= 1 << 53 else { throw malformed("\(what) exceeds 2^53") }
        }
        return value
    }

    @inline(__always)
    private func parseKey(_ field: _Field) throws(TraceError) -> UInt64 {
        let base = buffer.pointer
        let bytes = field.bytes(base)
        guard !bytes.isEmpty else { throw malformed("empty key") }
        // Spaces around a number (`0, 42, 737`, as libCacheSim's samples are written) are not part of it.
        var digits = bytes[...]
        while digits.first == 0x20 { digits.removeFirst() }
        while digits.last == 0x20 { digits.removeLast() }
        if !field.quotedWithEscapes && !digits.isEmpty && digits.count <= 20 {
            // Up to 20 digits: every key that fits in 64 bits stays the number it is (as
            // libCacheSim's obj-id-is-num reads it), so `007` and `7` are one key.
            var value: UInt64 = 0
            var numeric = true
            for byte in digits {
                let digit = byte &- 0x30
                let (times10, overflow) = value.multipliedReportingOverflow(by: 10)
                let (next, carry) = times10.addingReportingOverflow(UInt64(digit))
                if digit >= 10 || overflow || carry { numeric = false; break }
                value = next
            }
            if numeric { return value }
        }
        guard _isValidUTF8(bytes) else { throw malformed("key is not valid UTF-8") }
        guard bytes.contains(where: { $0 != 0x20 && $0 != 0x09 }) else { throw malformed("key is only whitespace") }
        // libCacheSim's id for a string key (`get_hash_value_str`): XXH3-64 of its bytes, without
        // the spaces around an unquoted field (which its CSV parser drops) and with `""` read as `"`.
        guard field.quotedWithEscapes else { return _XXH3.hash(UnsafeRawBufferPointer(field.trimmed(base))) }
        var unescaped: [UInt8] = []
        unescaped.reserveCapacity(bytes.count)
        var i = 0
        while i < bytes.count {
            unescaped.append(bytes[i])
            i += bytes[i] == 0x22 ? 2 : 1
        }
        return unescaped.withUnsafeBytes { _XXH3.hash($0) }
    }

    private func nulByte() -> TraceError {
        let hint = TraceError.Hint.binaryFormat(.oracleGeneral)
        return malformed("NUL byte in line (is this a binary file? \(hint.phrase))", hint: hint)
    }

    private func malformed(_ reason: String, hint: TraceError.Hint? = nil) -> TraceError {
        TraceError(.malformed, file: name, line: lineNumber, reason: reason, hint: hint)
    }

    private func missingColumn(_ column: Int, _ found: Int) -> TraceError {
        malformed("expected at least \(column + 1) columns, found \(found)")
    }
}

/// What each column holds, by column index.
private enum _Role {
    static let none: UInt8 = 0
    static let time: UInt8 = 1
    static let key: UInt8 = 2
    static let size: UInt8 = 3
    static let operation: UInt8 = 4

    static func table(for columns: CSVColumns?) -> [UInt8] {
        guard let columns else { return [] }
        var roles = [UInt8](repeating: none, count: columns.lastColumn + 1)
        if let c = columns.time { roles[c] = time }
        roles[columns.key] = key
        if let c = columns.size { roles[c] = size }
        if let c = columns.operation { roles[c] = operation }
        return roles
    }
}

/// The fields a row's column map names, plain decimal numbers already parsed, and how many
/// fields the line has (up to the last mapped one).
private struct _MappedFields {
    static let empty = _Field(start: 0, end: 0, quotedWithEscapes: false)
    var time = empty
    var key = empty
    var size = empty
    var operation = empty
    var timeNumber: UInt64?
    var keyNumber: UInt64?
    var sizeNumber: UInt64?
    var count = 0

    @inline(__always)
    mutating func record(_ field: _Field, role: UInt8, number: UInt64?) {
        switch role {
        case _Role.time: time = field; timeNumber = number
        case _Role.key: key = field; keyNumber = number
        case _Role.size: size = field; sizeNumber = number
        case _Role.operation: operation = field
        default: break
        }
    }
}

/// One field of a line: a byte range in the read buffer.
private struct _Field {
    var start: Int
    var end: Int
    var quotedWithEscapes: Bool

    func bytes(_ base: UnsafeMutablePointer<UInt8>) -> UnsafeBufferPointer<UInt8> {
        UnsafeBufferPointer(start: base + start, count: end - start)
    }

    @inline(__always)
    func trimmed(_ base: UnsafeMutablePointer<UInt8>) -> UnsafeBufferPointer<UInt8> {
        var s = start, e = end
        while s < e && (base[s] == 0x20 || base[s] == 0x09) { s += 1 }
        while e > s && (base[e - 1] == 0x20 || base[e - 1] == 0x09) { e -= 1 }
        return UnsafeBufferPointer(start: base + s, count: e - s)
    }
}

/// Up to 8 fields inline, so splitting a line allocates nothing; wider rows spill to an array.
private struct _Fields {
    private var inline: (_Field, _Field, _Field, _Field, _Field, _Field, _Field, _Field)
    private var spill: [_Field] = []
    private(set) var count = 0

    init() {
        let empty = _Field(start: 0, end: 0, quotedWithEscapes: false)
        inline = (empty, empty, empty, empty, empty, empty, empty, empty)
    }

    mutating func append(_ field: _Field) {
        switch count {
        case 0: inline.0 = field
        case 1: inline.1 = field
        case 2: inline.2 = field
        case 3: inline.3 = field
        case 4: inline.4 = field
        case 5: inline.5 = field
        case 6: inline.6 = field
        case 7: inline.7 = field
        default: spill.append(field)
        }
        count += 1
    }

    subscript(index: Int) -> _Field {
        switch index {
        case 0: inline.0
        case 1: inline.1
        case 2: inline.2
        case 3: inline.3
        case 4: inline.4
        case 5: inline.5
        case 6: inline.6
        case 7: inline.7
        default: spill[index - 8]
        }
    }
}

/// Decoded requests waiting to be handed to the caller in one copy.
final class _RequestBuffer {
    static let capacity = 4096
    let pointer = UnsafeMutablePointer<Request>.allocate(capacity: capacity)
    deinit { pointer.deallocate() }
}

/// A heap buffer owned by a reader, freed with it.
///
/// Eight bytes of zeroed padding follow the `capacity` usable bytes, so that an 8-byte load at
/// any position before `capacity` stays inside the allocation (``_leadingDigits(_:)``).
///
/// The bytes come zeroed from `calloc`, which for a buffer this large maps pages the kernel
/// zeroes on first touch: opening a reader on a 40-byte input costs no 1 MiB memset (nor, in a
/// debug build, a million-step initialising loop).
final class _ReadBuffer {
    let pointer: UnsafeMutablePointer<UInt8>
    let capacity: Int
    private let fromCalloc: Bool

    init(capacity: Int) {
        self.capacity = capacity
        if let zeroed = calloc(capacity + 8, 1) {
            pointer = zeroed.bindMemory(to: UInt8.self, capacity: capacity + 8)
            fromCalloc = true
        } else {
            pointer = .allocate(capacity: capacity + 8)
            pointer.initialize(repeating: 0, count: capacity + 8)
            fromCalloc = false
        }
    }

    deinit {
        if fromCalloc { free(pointer) } else { pointer.deallocate() }
    }
}

/// The decimal number spelled by the ASCII digits at the start of the 8 bytes at `bytes`, and how
/// many digits there are (8 when all eight are digits, in which case the number may go on).
///
/// Branch-free: one unaligned load, a mask of the bytes that are not digits, and three
/// multiplications that combine the digits pairwise (SWAR). Bytes after the first non-digit
/// are ignored; all 8 bytes must be readable.
@inline(__always)
func _leadingDigits(_ bytes: UnsafePointer<UInt8>) -> (value: UInt64, length: Int) {
    let chunk = UInt64(littleEndian: UnsafeRawPointer(bytes).loadUnaligned(as: UInt64.self))
    let digits = chunk ^ 0x3030_3030_3030_3030                  // a digit byte becomes 0...9
    // Bit 7 of a byte is set when it is above 9: clearing bit 7 first keeps the add per byte.
    let notDigit = (((digits & 0x7F7F_7F7F_7F7F_7F7F) &+ 0x7676_7676_7676_7676) | digits) & 0x8080_8080_8080_8080
    let length = notDigit.trailingZeroBitCount >> 3             // 64 >> 3 == 8 when all are digits
    // Keep the `length` leading digits in the high bytes, zeros (leading zeros) below them.
    var value = length == 0 ? 0 : digits << UInt64(64 - 8 * length)
    value = ((value & 0x0F0F_0F0F_0F0F_0F0F) &* 2561) >> 8
    value = ((value & 0x00FF_00FF_00FF_00FF) &* 6_553_601) >> 16
    value = ((value & 0x0000_FFFF_0000_FFFF) &* 42_949_672_960_001) >> 32
    return (value, length)
}

/// The number spelled by the digits from `start` up to the first non-digit or `end`, and where
/// they stop: the slow path of ``_leadingDigits(_:)`` (runs of 8 or more digits, or a number
/// that ends the input), kept out of line so that the row scanner inlined into every row stays small.
@inline(never)
func _digitByDigit(_ base: UnsafeMutablePointer<UInt8>, from start: Int, to end: Int) -> (value: UInt64, end: Int) {
    var value: UInt64 = 0
    var i = start
    while i < end {
        let digit = base[i] &- 0x30
        if digit >= 10 { break }
        value = value &* 10 &+ UInt64(digit)
        i += 1
    }
    return (value, i)
}

/// Whether `bytes` is well-formed UTF-8 (ASCII is checked in one pass).
func _isValidUTF8(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
    if !bytes.contains(where: { $0 >= 0x80 }) { return true }
    var iterator = bytes.makeIterator()
    var decoder = UTF8()
    while true {
        switch decoder.decode(&iterator) {
        case .scalarValue: continue
        case .emptyInput: return true
        case .error: return false
        }
    }
}

/// 10^0 … 10^15, each exactly representable as a Double.
private let _exactPowersOfTen: [Double] = [
    1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
]
