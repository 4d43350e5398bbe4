/// The binary or text layout of a trace file.
public enum TraceFormat: String, Sendable, CaseIterable {
    /// Decide by the file name, then by content (a NUL byte in the first 4 KiB means binary).
    case auto
    /// Comma- or tab-separated text; see ``CSVTraceReader``.
    case csv
    /// libCacheSim's 24-byte binary records; see ``OracleGeneralReader``.
    case oracleGeneral = "oracle-general"
}

/// Where a trace is and how to read it.
public struct TraceSpec: Sendable, Equatable {
    /// A file path, or `-` for standard input.
    public var path: String
    /// The format, or `.auto`.
    public var format: TraceFormat
    /// An explicit CSV column map (`--columns`).
    public var columns: CSVColumns?
    /// Whether a CSV trace has a header row.
    public var header: HeaderMode

    /// Creates a trace description.
    public init(path: String, format: TraceFormat = .auto, columns: CSVColumns? = nil, header: HeaderMode = .auto) {
        self.path = path
        self.format = format
        self.columns = columns
        self.header = header
    }

    /// Whether the trace can be read more than once (a file, not standard input).
    public var isRewindable: Bool { path != "-" }

    /// Opens a fresh reader positioned at the first row.
    public func open() throws(TraceError) -> any TraceReader {
        try openWithSource().reader
    }

    /// Opens a fresh reader and returns the byte source under it too, whose ``ByteSource/bytesRead``
    /// and ``ByteSource/length`` drive progress reports.
    public func openWithSource() throws(TraceError) -> (reader: any TraceReader, source: ByteSource) {
        let source = try CompressionFormat.decodingIfCompressed(try ByteSource(path: path))
        switch try resolvedFormat(source) {
        case .oracleGeneral: return (OracleGeneralReader(source: source), source)
        case .csv, .auto: return (CSVTraceReader(source: source, columns: columns, header: header), source)
        }
    }

    private func resolvedFormat(_ source: ByteSource) throws(TraceError) -> TraceFormat {
        if format != .auto { return format }
        var lower = path.lowercased()
        for suffix in [".zst", ".gz"] where lower.hasSuffix(suffix) { lower.removeLast(suffix.count) }
        if lower.contains("oraclegeneral") || lower.hasSuffix(".bin") { return .oracleGeneral }
        if lower.hasSuffix(".csv") || lower.hasSuffix(".txt") || lower.hasSuffix(".tsv") { return .csv }
        return try source.peek(upTo: 4096).contains(0) ? .oracleGeneral : .csv
    }
}
