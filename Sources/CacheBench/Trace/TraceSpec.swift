/// The binary or text layout of a trace file.
public enum TraceFormat: String, Sendable, CaseIterable {
    /// Decide by the file name, then by content (a NUL byte in the first 4 KiB means binary).
    case auto
    /// Comma- or tab-separated text; see ``CSVTraceReader``.
    case csv
    /// libCacheSim's 24-byte binary records; see ``OracleGeneralReader``.
    case oracleGeneral = "oracle-general"
    /// libCacheSim's lcs v1–v8 (an 8 KiB header, then records); see ``LCSLayout``.
    case lcs
    /// VMware vscsi block traces; see ``VSCSILayout``.
    case vscsi
    /// Twitter's binary cache traces; see ``TwitterBinaryLayout``.
    case twr
    /// Twitter's binary cache traces with namespaces; see ``TwitterBinaryLayout``.
    case twrNS = "twr-ns"
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
        case .lcs:
            let (layout, expected) = try LCSLayout.readHeader(source)
            return (BinaryTraceReader(source: source, layout: layout, headerSize: LCSLayout.headerSize, expectedRecords: expected), source)
        case .vscsi:
            guard let layout = VSCSILayout.detect(try source.peek(upTo: 80)) else {
                throw TraceError(.malformed, file: path, offset: 0, reason: "not a vscsi trace: neither version 1 nor 2 records at the start")
            }
            return (BinaryTraceReader(source: source, layout: layout), source)
        case .twr: return (BinaryTraceReader(source: source, layout: TwitterBinaryLayout(withNamespace: false)), source)
        case .twrNS: return (BinaryTraceReader(source: source, layout: TwitterBinaryLayout(withNamespace: true)), source)
        case .csv, .auto: return (CSVTraceReader(source: source, columns: columns, header: header), source)
        }
    }

    private func resolvedFormat(_ source: ByteSource) throws(TraceError) -> TraceFormat {
        if format != .auto { return format }
        // Signatures first: the lcs header's magic numbers, then vscsi's version bytes.
        let prefix = try source.peek(upTo: LCSLayout.headerSize)
        if prefix.count == LCSLayout.headerSize, prefix.prefix(8).elementsEqual(withUnsafeBytes(of: LCSLayout.magic.littleEndian, Array.init)) {
            return .lcs
        }
        if VSCSILayout.detect(Array(prefix.prefix(80))) != nil { return .vscsi }
        var lower = path.lowercased()
        for suffix in [".zst", ".gz"] where lower.hasSuffix(suffix) { lower.removeLast(suffix.count) }
        if lower.contains("twrns") { return .twrNS }
        if lower.hasSuffix(".twr") || lower.hasSuffix(".sbin") { return .twr }
        if lower.contains("oraclegeneral") || lower.hasSuffix(".bin") { return .oracleGeneral }
        if lower.hasSuffix(".csv") || lower.hasSuffix(".txt") || lower.hasSuffix(".tsv") { return .csv }
        return prefix.prefix(4096).contains(0) ? .oracleGeneral : .csv
    }
}
