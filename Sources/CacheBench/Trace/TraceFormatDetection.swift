/// How sure a sniffer is that a trace's first bytes are its format.
public enum SniffConfidence: Int, Sendable, Comparable {
    /// The bytes cannot be this format.
    case no = 0
    /// Nothing rules it out (a short or ambiguous prefix).
    case possible = 1
    /// The structure fits (text rows, well-formed binary records).
    case likely = 2
    /// A magic number says so.
    case certain = 3

    public static func < (a: SniffConfidence, b: SniffConfidence) -> Bool { a.rawValue < b.rawValue }
}

/// One trace format the content can reveal: how to recognise it and how to read it.
///
/// Readers of further formats (compressed, other binary layouts) plug in by adding an entry to
/// ``TraceFormatDetection/formats``; detection itself does not change.
public struct TraceFormatEntry: Sendable {
    /// The name messages use: `CSV text`, `oracleGeneral binary`, `zstd-compressed`.
    public var name: String
    /// The `--trace-format` value this entry reads, if one does.
    public var format: TraceFormat?
    /// File-name endings (lowercased, with the dot) that announce this format.
    public var suffixes: [String]
    /// Judges the first bytes of the input (up to ``TraceFormatDetection/prefixLength``).
    public var sniff: @Sendable (_ prefix: [UInt8]) -> SniffConfidence
    /// Opens a reader over `source`, positioned at its first byte, or throws why it cannot.
    public var open: @Sendable (_ source: ByteSource, _ trace: TraceSpec) throws(TraceError) -> any TraceReader

    /// Creates an entry.
    public init(name: String, format: TraceFormat?, suffixes: [String],
                sniff: @escaping @Sendable (_ prefix: [UInt8]) -> SniffConfidence,
                open: @escaping @Sendable (_ source: ByteSource, _ trace: TraceSpec) throws(TraceError) -> any TraceReader) {
        self.name = name
        self.format = format
        self.suffixes = suffixes
        self.sniff = sniff
        self.open = open
    }
}

/// Decides a trace's format from its content: magic numbers, then record structure, then text
/// against binary. The file name only serves to catch a contradiction (a CSV named `x.bin`),
/// which is an error rather than a guess.
public enum TraceFormatDetection {
    /// How many leading bytes the sniffers see.
    public static let prefixLength = 4096

    /// Every known format, in order of preference when two are equally sure.
    public static let formats: [TraceFormatEntry] = compressed + [oracleGeneral, csv]

    /// libCacheSim's 24-byte records: binary, and each record's next-access index is -1 or
    /// after the record itself.
    public static let oracleGeneral = TraceFormatEntry(
        name: "oracleGeneral binary", format: .oracleGeneral, suffixes: [".bin", ".oraclegeneral"],
        sniff: { prefix in
            guard !prefix.isEmpty, !looksLikeText(prefix) else { return .no }
            let records = prefix.count / OracleGeneralReader.recordSize
            guard records > 0 else { return .possible }
            for index in 0..<records {
                let next = prefix.withUnsafeBytes {
                    Int64(littleEndian: $0.loadUnaligned(fromByteOffset: index * OracleGeneralReader.recordSize + 16, as: Int64.self))
                }
                if next != -1 && next <= Int64(index + 1) { return .no }
            }
            return .likely
        },
        open: { source, _ in OracleGeneralReader(source: source) })

    /// Comma- or tab-separated text.
    public static let csv = TraceFormatEntry(
        name: "CSV text", format: .csv, suffixes: [".csv", ".tsv", ".txt"],
        sniff: { prefix in prefix.isEmpty ? .possible : looksLikeText(prefix) ? .likely : .no },
        open: { source, trace in CSVTraceReader(source: source, columns: trace.columns, header: trace.header) })

    /// Compressed containers, recognised by their magic numbers; no reader decodes them yet.
    public static let compressed: [TraceFormatEntry] = [
        ("zstd", [0x28, 0xB5, 0x2F, 0xFD], [".zst", ".zstd"]),
        ("gzip", [0x1F, 0x8B], [".gz"]),
        ("xz", [0xFD, 0x37, 0x7A, 0x58, 0x5A, 0x00], [".xz"]),
        ("bzip2", [0x42, 0x5A, 0x68], [".bz2"]),
    ].map { name, magic, suffixes in
        TraceFormatEntry(
            name: "\(name)-compressed", format: nil, suffixes: suffixes,
            sniff: { prefix in prefix.starts(with: magic) ? .certain : .no },
            open: { source, _ throws(TraceError) in
                throw TraceError(.malformed, file: source.name, offset: 0,
                                 reason: "compressed (\(name)) trace: not supported; decompress it first (e.g. \(name == "bzip2" ? "bzip2 -dc" : name + " -dc") FILE > trace)")
            })
    }

    /// The most likely format of `prefix`, or `nil` when nothing recognises it (binary data of
    /// an unknown layout).
    public static func detect(_ prefix: [UInt8]) -> TraceFormatEntry? {
        var best: (entry: TraceFormatEntry, confidence: SniffConfidence)?
        for entry in formats {
            let confidence = entry.sniff(prefix)
            if confidence > .no && confidence > (best?.confidence ?? .no) { best = (entry, confidence) }
        }
        return best?.entry
    }

    /// The format a file's name announces (by its last component's ending, or `oracleGeneral`
    /// in that last component), if any.
    public static func announced(byName path: String) -> TraceFormatEntry? {
        let name = (path.split(separator: "/").last.map(String.init) ?? path).lowercased()
        if name.contains("oraclegeneral") { return oracleGeneral }
        return formats.first { entry in entry.suffixes.contains { name.hasSuffix($0) } }
    }

    /// Text: at least 90 % of the bytes are printable ASCII, tab, CR, LF or part of a UTF-8
    /// sequence. A CSV with a stray NUL or escape byte is still text (its reader reports the
    /// byte at its line); binary records are full of zeros and small numbers.
    public static func looksLikeText(_ prefix: [UInt8]) -> Bool {
        var textual = 0
        for byte in prefix where byte >= 0x20 && byte != 0x7F || byte == 0x09 || byte == 0x0A || byte == 0x0D {
            textual += 1
        }
        return textual * 10 >= prefix.count * 9
    }
}
