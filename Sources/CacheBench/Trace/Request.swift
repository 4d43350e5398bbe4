/// What a trace row asks of the cache.
public enum Operation: UInt8, Sendable, CaseIterable {
    /// A request: a hit if the key is resident, otherwise inserted with the row's size (cache-aside).
    case get
    /// Insert or replace, not counted as a request.
    case set
    /// Remove the key.
    case delete
    /// A memory warning delivered to the policy.
    case memoryWarning
    /// The app entering the background, delivered to the policy.
    case background
    /// Time passes; nothing else happens.
    case tick
    /// The app is about to terminate, delivered to the policy.
    case terminate

    /// The name used in traces and reports.
    public var name: String {
        switch self {
        case .get: "get"
        case .set: "set"
        case .delete: "delete"
        case .memoryWarning: "memory-warning"
        case .background: "background"
        case .tick: "tick"
        case .terminate: "terminate"
        }
    }

    /// Whether the row names a key (`get`, `set`, `delete`) rather than an environment event.
    @inlinable public var hasKey: Bool { rawValue <= Operation.delete.rawValue }
}

/// One decoded trace row.
@frozen
public struct Request: Sendable, Equatable {
    /// Virtual time in seconds (the row index when the trace has no timestamps).
    public var time: Double
    /// The object id. Numeric keys are used as they are; other keys are hashed to 64 bits.
    public var key: UInt64
    /// The object's size (cost). 1 when the trace has no size column.
    public var size: Int
    /// What the row asks.
    public var operation: Operation
    /// The row's time-to-live in seconds, 0 when it has none or the format carries none (lcs
    /// v3 and later, Twitter's binary traces carry one). Replay ignores it; `analyze` reports it.
    /// (Declared here, it fills padding: a request stays 40 bytes.)
    public var ttl: Int32
    /// The 1-based index of the next request for the same key, or `Int64.max` if none or unknown.
    public var nextAccess: Int64

    /// Creates a request.
    @inlinable
    public init(time: Double, key: UInt64, size: Int, operation: Operation = .get, nextAccess: Int64 = .max, ttl: Int32 = 0) {
        self.time = time
        self.key = key
        self.size = size
        self.operation = operation
        self.ttl = ttl
        self.nextAccess = nextAccess
    }

    /// Whether a replay skips the row: a get or set of size 0 (or less), which libCacheSim's
    /// readers drop before a simulation sees them.
    @inlinable
    public var isSkippedForSize: Bool { (operation == .get || operation == .set) && size <= 0 }

    /// Whether the row is a request as libCacheSim's reader delivers one: a get, set or delete
    /// that is not skipped for its size, and not an event (which has no key). What
    /// `--max-requests` and a warm-up of rows count, and what starts the trace's clock.
    @inlinable
    public var isCountedRequest: Bool { operation.hasKey && !isSkippedForSize }
}

/// A source of trace rows, decoded in batches so that the replay loop does no I/O per request.
public protocol TraceReader {
    /// The trace's name for reports and error messages (a path, or `-`).
    var name: String { get }
    /// Whether decoded requests carry next-access indices (oracleGeneral does).
    var providesNextAccess: Bool { get }
    /// Replaces the contents of `batch` with the next rows; returns `false` at the end of the trace.
    ///
    /// - Throws: ``TraceError`` for malformed input, naming the file and line (or byte offset).
    mutating func nextBatch(_ batch: inout [Request]) throws(TraceError) -> Bool
    /// An error about row `row` of the trace (1-based, counting every row ``nextBatch(_:)``
    /// returns), placed where a malformed row is: its line in a text trace, its byte offset in a
    /// binary one. Call it on a fresh reader, which may read on to find the row. By default the
    /// error names the row's number.
    mutating func error(atRow row: Int, reason: String) -> TraceError
}

extension TraceReader {
    public mutating func error(atRow row: Int, reason: String) -> TraceError {
        TraceError(.malformed, file: name, reason: "row \(row): \(reason)")
    }
}

/// Bad or unreadable trace input.
public struct TraceError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What kind of failure, which decides the exit code.
    public enum Kind: Sendable, Equatable {
        /// The input cannot be opened or read (exit 66).
        case cannotOpen
        /// The input is malformed (exit 65).
        case malformed
    }
    /// The kind of failure.
    public var kind: Kind
    /// The file name (or `-` for standard input).
    public var file: String
    /// The 1-based line, for text traces.
    public var line: Int?
    /// The byte offset, for binary traces.
    public var offset: Int?
    /// Whether ``offset`` counts bytes of the data a compressed file decodes to (a record of a
    /// `.zst` trace) rather than bytes of the file (a corrupt zstd block).
    public var offsetIsDecompressed = false
    /// What is wrong, in the engine's words; where it says what would help, ``hint`` names it.
    public var reason: String
    /// The setting or input that would help, whose ``Hint/phrase`` `reason` contains.
    public var hint: Hint?

    /// What would get past the error, in the engine's words. A command line names its own
    /// option for it instead, replacing ``phrase`` in the reason (`cachebench` does, in
    /// `CacheBenchCommandLine`).
    public enum Hint: Sendable, Equatable {
        /// A map of the CSV columns, given explicitly: the header cannot serve as one.
        case columnMap
        /// Reading the input as a binary `format`: a text trace that looks binary.
        case binaryFormat(TraceFormat)
        /// The folder a sweep writes its records to, which the input should have been.
        case sweepRecordsFolder
        /// A comparison's JSON report, which the input should have been.
        case comparisonReport
        /// The sampling ratio `ratio` (as printed), which kept none of the trace's keys.
        case sampleRatio(String)
        /// A CSV layout (a column map or a header setting), given for content that is not CSV.
        case csvLayout

        /// The words for it in ``TraceError/reason``.
        public var phrase: String {
            switch self {
            case .columnMap: "give a column map"
            case .binaryFormat(let format): "read it as \(format.rawValue)"
            case .sweepRecordsFolder: "the folder a sweep wrote its records to"
            case .comparisonReport: "a comparison's JSON report"
            case .sampleRatio(let ratio): "a sampling ratio of \(ratio)"
            case .csvLayout: "a CSV layout"
            }
        }
    }

    /// Creates an error; `reason` contains `hint`'s ``Hint/phrase`` when there is one.
    public init(_ kind: Kind, file: String, line: Int? = nil, offset: Int? = nil, reason: String, hint: Hint? = nil) {
        self.kind = kind
        self.file = file
        self.line = line
        self.offset = offset
        self.reason = reason
        self.hint = hint
    }

    /// This error, its offset counting the bytes `source` serves: decoded bytes when it decodes
    /// a compressed file.
    func locatedIn(_ source: ByteSource) -> TraceError {
        var error = self
        error.offsetIsDecompressed = source.isDecoded
        return error
    }

    /// `FILE:LINE: reason`, `FILE: byte OFFSET: reason` or `FILE: reason`.
    public var description: String { located(reason) }

    /// `reason`, or another wording of it, after the file and the line or byte offset.
    /// The file's name is spelled with its control characters escaped: a line feed in it would
    /// otherwise split the message into two.
    public func located(_ reason: String) -> String {
        let file = ReplayReport.displayText(file)
        if let line { return "\(file):\(line): \(reason)" }
        if let offset { return "\(file): byte \(offset)\(offsetIsDecompressed ? " of the decompressed data" : ""): \(reason)" }
        return "\(file): \(reason)"
    }
}
