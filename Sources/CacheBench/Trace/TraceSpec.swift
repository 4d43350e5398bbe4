/// The binary or text layout of a trace file.
public enum TraceFormat: String, Sendable, CaseIterable {
    /// Decide by content (see ``TraceFormatDetection``); a file name that says otherwise is an error.
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
    /// Whether ``columns`` or ``header`` given for content that is not CSV is an error (the
    /// default: a layout that goes unused is a mistake), or ignored (a sweep's layout is for the
    /// CSV traces among others).
    public var layoutNeedsCSV = true
    /// Whether rows are read as libCacheSim's `traceConv` reads them, backwards (for
    /// ``TraceConverter``): then a Twitter binary `get` of value size 0 has its key's size
    /// rather than 0, as the forward read's skip does not apply. Binary readers report zero-size
    /// rows either way; the converter decides what to keep.
    var keepsZeroSizeRows = false
    /// Whether the trace is read no more once the job it is given to ends (a command's one
    /// replay): then the job's last pass over an input that can be read only once (standard
    /// input, a pipe) keeps no copy of it for another pass, so a long stream does not fill the
    /// temporary folder. Off by default: a `TraceSpec` may be read again.
    public var isReadByOneJob = false

    /// Whether `path` names an input that can be read only once: `-`, a pipe, a FIFO, a socket
    /// or a character device (not a regular file or a folder). Such an input is copied for a
    /// command's later passes (see ``isReadByOneJob``).
    public static func canBeReadOnlyOnce(_ path: String) -> Bool { _OneShotInput.isOneShot(path) }

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
        try openWithSource(lastPass: false)
    }

    /// ``openWithSource()`` for a job's pass over the trace; on its `lastPass`, an input that
    /// can be read only once and was not read before is not copied if ``isReadByOneJob``.
    func openWithSource(lastPass: Bool) throws(TraceError) -> (reader: any TraceReader, source: ByteSource) {
        try openContent(try input.source(path, keepsCopy: !(lastPass && isReadByOneJob)), container: nil)
    }

    /// Reads the trace inside a compressed container whose bytes `decoded` serves (see
    /// ``TraceFormatEntry/init(container:suffixes:sniff:decode:)``).
    func openDecoded(_ decoded: ByteSource, container: String) throws(TraceError) -> (reader: any TraceReader, source: ByteSource) {
        try openContent(decoded, container: container)
    }

    /// Detects the format of `source` (one entry of ``TraceFormatDetection/formats``) and opens it;
    /// a compressed container is decoded and the format of what it holds detected in turn.
    private func openContent(_ source: ByteSource, container: String?) throws(TraceError) -> (reader: any TraceReader, source: ByteSource) {
        let prefix = try source.peek(upTo: TraceFormatDetection.prefixLength)
        let entry = try resolvedFormat(prefix, name: source.name, insideContainer: container != nil)
        if let decode = entry.decode {
            if let container {
                throw TraceError(.malformed, file: source.name, offset: 0,
                                 reason: "\(entry.name) data inside \(container) data: decompress the outer layer first")
            }
            return try openContent(try decode(source), container: entry.name)
        }
        // A CSV layout for content that is not CSV would go unused: say so rather than let a
        // wrong column map pass unnoticed (as when the format is given: then it is a usage error).
        if layoutNeedsCSV && entry.format != .csv && (columns != nil || header != .auto) {
            let hint = TraceError.Hint.csvLayout
            throw TraceError(.malformed, file: source.name, offset: 0,
                             reason: "\(hint.phrase) was given, but the content is \(entry.name), not CSV text", hint: hint)
        }
        return (try entry.open(source, self), source)
    }

    /// The format to read: the content decides; a name or `format` that contradicts it is an error.
    /// A name only chooses among formats the content cannot tell apart (records of no signature
    /// that fit two layouts) and never outranks a signature. Compressed content is decoded whatever the name, and inside it the name
    /// counts without its `.zst` or `.gz`.
    private func resolvedFormat(_ prefix: [UInt8], name: String, insideContainer: Bool) throws(TraceError) -> TraceFormatEntry {
        let asked = format == .auto ? nil : TraceFormatDetection.formats.first { $0.format == format }
        let named = TraceFormatDetection.announced(byName: insideContainer ? Self.withoutCompressionSuffix(path) : path)
        guard !prefix.isEmpty else { return asked ?? named.flatMap { $0.format == nil ? nil : $0 } ?? TraceFormatDetection.csv }
        // A file the name calls compressed, cut inside the magic number: its decoder says where.
        if let named, named.format == nil, let cut = CompressionFormat.cutMagic(prefix), named.name.hasPrefix(cut.rawValue) {
            return named
        }
        let found = TraceFormatDetection.detect(prefix)
        if let found, found.format == nil {
            // A container: decoded (or refused) first; the format asked for applies to what it holds.
            if let named, named.format == nil, named.name != found.name {
                throw TraceError(.malformed, file: name, offset: 0,
                                 reason: "the name says \(named.name) but the content is \(found.name); rename it")
            }
            return found
        }
        if let asked {
            // Asked for explicitly: honoured unless the content is plainly something else (when it
            // is nothing known, the asked format's reader says what is wrong).
            // A signature (lcs's magic, vscsi's confirmed records) is plainly something else too:
            // oracleGeneral forced on a vscsi file read its records as garbage, with exit 0.
            if let found, asked.format != found.format, prefix.count >= asked.bytesToRecognise,
               asked.sniff(prefix) == .no || (found.sniff(prefix) == .certain && asked.sniff(prefix) < .certain) {
                let content = found.sniff(prefix) >= .likely ? found.name : "binary data of no known layout"
                throw TraceError(.malformed, file: name, offset: 0,
                                 reason: "read as \(asked.name) as asked, but the content is \(content)")
            }
            return asked
        }
        if let named, named.name != found?.name {
            // A signature (lcs's magic, vscsi's version bytes) outranks a binary format's name
            // (`x.bin`); otherwise the name settles what the content leaves open. Not a
            // compression name's (`x.zst` holding plain lcs): that name is contradicted.
            let signed = found.map { $0.sniff(prefix) == .certain } ?? false
            if signed, let found, named.format != nil, named.name != TraceFormatDetection.csv.name { return found }
            if (named.sniff(prefix) == .no && prefix.count >= named.bytesToRecognise) || signed {
                // The formats only a name chooses (the Twitter layouts) are named when their
                // records fit, so twr named twrNS says so.
                // A format is named only when its structure fits (a prefix shorter than one
                // record fits none: it is merely not ruled out).
                let content = found.flatMap { $0.sniff(prefix) >= .likely ? $0 : nil }
                    ?? TraceFormatDetection.formats.first { $0.byNameOnly && $0.sniff(prefix) == .likely }
                throw TraceError(.malformed, file: name, offset: 0,
                                 reason: "the name says \(named.name) but the content is \(content?.name ?? "binary data of no known layout"); rename it, or give the format explicitly")
            }
            return named
        }
        guard let found else {
            throw TraceError(.malformed, file: name, offset: 0,
                             reason: "unrecognised binary content: neither text (CSV) nor oracleGeneral, lcs, vscsi, twr or twrNS records")
        }
        return found
    }

    /// `path` without a trailing compression suffix (`.zst`, `.zstd`, `.gz`).
    private static func withoutCompressionSuffix(_ path: String) -> String {
        for suffix in [".zst", ".zstd", ".gz"] where path.lowercased().hasSuffix(suffix) { return String(path.dropLast(suffix.count)) }
        return path
    }
}
