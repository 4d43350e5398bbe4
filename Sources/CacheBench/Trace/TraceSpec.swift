/// The binary or text layout of a trace file.
public enum TraceFormat: String, Sendable, CaseIterable {
    /// Decide by content (see ``TraceFormatDetection``); a file name that says otherwise is an error.
    case auto
    /// Comma- or tab-separated text; see ``CSVTraceReader``.
    case csv
    /// libCacheSim's 24-byte binary records; see ``OracleGeneralReader``.
    case oracleGeneral = "oracle-general"
}

/// Where a trace is and how to read it.
///
/// A trace that can be read only once (standard input, a pipe, a FIFO, `/dev/fd/N`) is still
/// opened as often as a command needs: the first read keeps a temporary copy that later passes
/// read (see ``open()``). Copies of a `TraceSpec` share that one input.
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

    private let input = _TraceInputBox()

    /// Whether two descriptions read the same trace the same way.
    public static func == (a: TraceSpec, b: TraceSpec) -> Bool {
        a.path == b.path && a.format == b.format && a.columns == b.columns && a.header == b.header
    }

    /// Opens a fresh reader positioned at the first row.
    public func open() throws(TraceError) -> any TraceReader {
        try openWithSource().reader
    }

    /// Opens a fresh reader and returns the byte source under it too, whose ``ByteSource/bytesRead``
    /// and ``ByteSource/length`` drive progress reports.
    public func openWithSource() throws(TraceError) -> (reader: any TraceReader, source: ByteSource) {
        let source = try input.source(path)
        let entry = try resolvedFormat(try source.peek(upTo: TraceFormatDetection.prefixLength), name: source.name)
        return (try entry.open(source, self), source)
    }

    /// The format to read: the content decides; a name or `format` that contradicts it is an error.
    private func resolvedFormat(_ prefix: [UInt8], name: String) throws(TraceError) -> TraceFormatEntry {
        let asked = format == .auto ? nil : TraceFormatDetection.formats.first { $0.format == format }
        guard !prefix.isEmpty else { return asked ?? TraceFormatDetection.announced(byName: path) ?? TraceFormatDetection.csv }
        guard let found = TraceFormatDetection.detect(prefix) else {
            throw TraceError(.malformed, file: name, offset: 0,
                             reason: "unrecognised binary content: neither text (CSV) nor oracleGeneral records")
        }
        if let asked, asked.format != found.format {
            // Asked for explicitly: honoured unless the content is plainly something else.
            if asked.sniff(prefix) == .no {
                throw TraceError(.malformed, file: name, offset: 0,
                                 reason: "read as \(asked.name) as asked, but the content is \(found.name)")
            }
            return asked
        }
        if asked == nil, let named = TraceFormatDetection.announced(byName: path), named.name != found.name {
            throw TraceError(.malformed, file: name, offset: 0,
                             reason: "the name says \(named.name) but the content is \(found.name); rename it, or give the format explicitly")
        }
        return found
    }
}
