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
/// ``TraceFormatDetection/formats``; detection itself does not change. A compressed container is
/// an entry too: its ``decode`` gives the bytes inside, whose format is then detected in turn.
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
    /// For a compressed container: a source of the decompressed bytes of `source`.
    public var decode: (@Sendable (_ source: ByteSource) throws(TraceError) -> ByteSource)?
    /// Whether its records carry no signature: the content chooses it only when their structure
    /// shows (``sniff`` says `.likely` or better); otherwise its name or an explicit format does,
    /// and the content can only rule it out.
    public var byNameOnly: Bool
    /// The bytes ``sniff`` needs to recognise the format (vscsi's two records): asked for
    /// explicitly, a shorter input is left to the reader, which says it is cut short, rather
    /// than judged by a sniff that cannot tell.
    public var bytesToRecognise = 0

    /// Creates an entry.
    public init(name: String, format: TraceFormat?, suffixes: [String], byNameOnly: Bool = false,
                sniff: @escaping @Sendable (_ prefix: [UInt8]) -> SniffConfidence,
                open: @escaping @Sendable (_ source: ByteSource, _ trace: TraceSpec) throws(TraceError) -> any TraceReader) {
        self.name = name
        self.format = format
        self.suffixes = suffixes
        self.byNameOnly = byNameOnly
        self.sniff = sniff
        self.open = open
    }

    /// Creates a compressed container's entry: opening it decodes `source` and reads the trace inside.
    public init(container name: String, suffixes: [String],
                sniff: @escaping @Sendable (_ prefix: [UInt8]) -> SniffConfidence,
                decode: @escaping @Sendable (_ source: ByteSource) throws(TraceError) -> ByteSource) {
        self.name = name
        format = nil
        self.suffixes = suffixes
        byNameOnly = false
        self.sniff = sniff
        self.decode = decode
        open = { source, trace throws(TraceError) in try trace.openDecoded(try decode(source), container: name).reader }
    }
}

/// Decides a trace's format from its content: magic numbers, then record structure, then text
/// against binary. The file name only serves to catch a contradiction (a CSV named `x.bin`),
/// which is an error rather than a guess.
public enum TraceFormatDetection {
    /// How many leading bytes the sniffers see: the whole lcs header, whose magic number ends it.
    public static let prefixLength = LCSLayout.headerSize

    /// Every known format, in order of preference when two are equally sure.
    ///
    /// Twitter's layouts come before oracleGeneral: a file that fits both is Twitter's, whose
    /// operation bytes are the stronger test (an oracleGeneral file fails it at its first
    /// records), and `.sbin` must be matched before `.bin`.
    public static let formats: [TraceFormatEntry] = compressed + [lcs, vscsi, twrNS, twr, oracleGeneral, csv]

    /// libCacheSim's 24-byte records: binary, and each record's next-access index is -1 (or
    /// `INT64_MAX`) or after the record itself, counted from 1 as traceConv writes it or from 0
    /// as other converters do (libCacheSim's reader takes both).
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
                if next != -1 && next <= Int64(index) { return .no }
            }
            return .likely
        },
        open: { source, _ in OracleGeneralReader(source: source) })

    /// Comma- or tab-separated text.
    public static let csv = TraceFormatEntry(
        name: "CSV text", format: .csv, suffixes: [".csv", ".tsv", ".txt"],
        sniff: { prefix in prefix.isEmpty ? .possible : looksLikeText(prefix) ? .likely : .no },
        open: { source, trace in CSVTraceReader(source: source, columns: trace.columns, header: trace.header) })

    /// libCacheSim's lcs v1–v8: the magic number at both ends of an 8 KiB header.
    public static let lcs = TraceFormatEntry(
        name: "lcs binary", format: .lcs, suffixes: [".lcs"],
        sniff: { prefix in
            let magic = withUnsafeBytes(of: LCSLayout.magic.littleEndian, Array.init)
            guard prefix.starts(with: magic) else { return .no }
            // A truncated header is still lcs; its reader reports where it ends.
            return prefix.count < LCSLayout.headerSize || prefix[(LCSLayout.headerSize - 8)..<LCSLayout.headerSize].elementsEqual(magic)
                ? .certain : .possible
        },
        open: { source, _ throws(TraceError) in
            let (layout, expected) = try LCSLayout.readHeader(source)
            return BinaryTraceReader(source: source, layout: layout, headerSize: LCSLayout.headerSize, expectedRecords: expected)
        })

    /// VMware vscsi block traces: the version in the first two records' operation words, as
    /// libCacheSim tests it, confirmed by the records that follow (``vscsiRecordsFit(_:)``); a
    /// confirmed one is a signature (it outranks a `.bin` name).
    public static let vscsi: TraceFormatEntry = {
        var entry = TraceFormatEntry(
            name: "vscsi binary", format: .vscsi, suffixes: [".vscsi"],
            sniff: { prefix in
                guard !prefix.isEmpty, !looksLikeText(prefix) else { return .no }
                return vscsiRecordsFit(prefix)
            },
            open: { source, _ throws(TraceError) in
                let start = try source.peek(upTo: 80)
                guard start.count >= 80 else {
                    throw TraceError(.malformed, file: source.name, offset: start.count,
                                     reason: "truncated: \(start.count) bytes, fewer than the 80 a vscsi trace needs to tell its version by its first records").locatedIn(source)
                }
                guard let layout = VSCSILayout.detect(start) else {
                    throw TraceError(.malformed, file: source.name, offset: 0, reason: "not a vscsi trace: neither version 1 nor 2 records at the start").locatedIn(source)
                }
                return BinaryTraceReader(source: source, layout: layout)
            })
        entry.bytesToRecognise = 80
        // Chosen by content only when confirmed (``vscsiRecordsFit(_:)`` says `.certain`): two
        // version bytes alone are two bytes of any binary data, which then replayed as garbage
        // with exit 0. A name (`.vscsi`) or `--trace-format vscsi` still chooses a `.possible` one.
        entry.byNameOnly = true
        return entry
    }()

    /// How well `prefix` reads as vscsi records: `.no` unless the first two records carry a
    /// version byte (what libCacheSim's reader tests, and needs to pick the record size);
    /// `.certain` when every whole record of the prefix carries it and at least half are the
    /// SCSI reads and writes libCacheSim names; `.possible` otherwise. Two version bytes alone
    /// are a weak signature: a Twitter record's timestamp holds the same value in the same place
    /// for timestamps from 2^25 to 2^25 + 2^24 - 1, so they neither outrank a name nor a layout
    /// whose structure fits.
    static func vscsiRecordsFit(_ prefix: [UInt8]) -> SniffConfidence {
        guard let layout = VSCSILayout.detect(Array(prefix.prefix(80))) else { return .no }
        let size = layout.recordSize
        let (versionByte, commandOffset) = layout.version == 1 ? (15, 12) : (3, 0)
        var known = 0
        let records = prefix.count / size
        for index in 0..<records {
            let start = index * size
            guard prefix[start + versionByte] == UInt8(layout.version) else { return .possible }
            let command = UInt16(prefix[start + commandOffset]) | UInt16(prefix[start + commandOffset + 1]) << 8
            if VSCSILayout.knownCommands.contains(command) { known += 1 }
        }
        return known * 2 >= records ? .certain : .possible
    }

    /// Twitter's binary cache traces: fixed records with no signature, told by their structure
    /// (``twitterRecordsFit(_:recordSize:)``) or by name.
    public static let twr = twitter(withNamespace: false)
    /// Twitter's binary cache traces with namespaces (a name containing `twrNS`).
    public static let twrNS = twitter(withNamespace: true)

    private static func twitter(withNamespace: Bool) -> TraceFormatEntry {
        let recordSize = TwitterBinaryLayout(withNamespace: withNamespace).recordSize
        return TraceFormatEntry(
            name: withNamespace ? "twrNS binary" : "twr binary", format: withNamespace ? .twrNS : .twr,
            suffixes: withNamespace ? [".twrns"] : [".twr", ".sbin"], byNameOnly: true,
            sniff: { prefix in
                guard !prefix.isEmpty, !looksLikeText(prefix) else { return .no }
                return twitterRecordsFit(prefix, recordSize: recordSize)
            },
            open: { source, trace in
                BinaryTraceReader(source: source, layout: TwitterBinaryLayout(withNamespace: withNamespace,
                                                                               keepsEmptyGets: trace.keepsZeroSizeRows))
            })
    }

    /// How well `prefix` reads as Twitter binary records of `recordSize` bytes: `.likely` when
    /// at least four whole records all have a timestamp no earlier than the one before and one
    /// of memcached's operation codes (1 `get` to 11 `decr`) in the top byte of their fifth word;
    /// `.no` when fewer than half of the records have such a code (the content contradicts the
    /// layout, so no name can choose it); `.possible` otherwise (a name may still choose the
    /// layout: ``TraceFormatEntry/byNameOnly``). An oracleGeneral file has almost no such codes
    /// (the bytes in that place belong to a next-access index and to a size's high byte, 0 or
    /// 255 in nearly every trace), and each Twitter layout read as the other has codes at random
    /// (one in 23).
    static func twitterRecordsFit(_ prefix: [UInt8], recordSize: Int) -> SniffConfidence {
        let records = prefix.count / recordSize
        var previousTime: UInt32 = 0
        var ordered = true, operations = 0
        for index in 0..<records {
            let (time, operation) = prefix.withUnsafeBytes {
                (UInt32(littleEndian: $0.loadUnaligned(fromByteOffset: index * recordSize, as: UInt32.self)),
                 $0[index * recordSize + 19])
            }
            if (1...11).contains(operation) { operations += 1 }
            if time < previousTime { ordered = false }
            previousTime = time
        }
        if operations * 2 < records { return .no }
        return records >= 4 && operations == records && ordered ? .likely : .possible
    }

    /// Compressed containers, recognised by their magic numbers: zstd (also behind a skippable
    /// frame) and gzip are decoded as they are read; xz and bzip2 are refused.
    public static let compressed: [TraceFormatEntry] = [
        TraceFormatEntry(container: "zstd-compressed", suffixes: [".zst", ".zstd"],
                         sniff: { CompressionFormat.detect($0) == .zstd ? .certain : .no },
                         decode: { source in ByteSource(decoding: _BackgroundDecoder(ZstdDecoder(source: source)), name: source.name) }),
        TraceFormatEntry(container: "gzip-compressed", suffixes: [".gz"],
                         sniff: { prefix in
                             if CompressionFormat.detect(prefix) == .gzip { return .certain }
                             // gzip's magic with another method than DEFLATE: gzip all the same.
                             return prefix.starts(with: [0x1F, 0x8B]) ? .likely : .no
                         },
                         decode: { source in ByteSource(decoding: _BackgroundDecoder(GzipDecoder(source: source)), name: source.name) }),
    ] + [
        ("xz", [0xFD, 0x37, 0x7A, 0x58, 0x5A, 0x00], [".xz"]),
        ("bzip2", [0x42, 0x5A, 0x68], [".bz2"]),
    ].map { name, magic, suffixes in
        TraceFormatEntry(
            name: "\(name)-compressed", format: nil, suffixes: suffixes,
            sniff: { prefix in prefix.starts(with: magic) ? .certain : .no },
            open: { source, _ throws(TraceError) in
                throw TraceError(.malformed, file: source.name, offset: 0,
                                 reason: "compressed (\(name)) trace: not supported; decompress it first (e.g. \(name) -dc FILE > trace), or recompress it with zstd or gzip")
            })
    }

    /// The most likely format of `prefix`, or `nil` when nothing recognises it (binary data of
    /// an unknown layout).
    public static func detect(_ prefix: [UInt8]) -> TraceFormatEntry? {
        var best: (entry: TraceFormatEntry, confidence: SniffConfidence)?
        for entry in formats {
            let confidence = entry.sniff(prefix)
            if entry.byNameOnly && confidence < .likely { continue }
            if confidence > .no && confidence > (best?.confidence ?? .no) { best = (entry, confidence) }
        }
        return best?.entry
    }

    /// The format a file's name announces (by its last component's ending, or `oracleGeneral`
    /// or `twrNS` in that last component), if any.
    public static func announced(byName path: String) -> TraceFormatEntry? {
        let name = (path.split(separator: "/").last.map(String.init) ?? path).lowercased()
        // A text suffix first: `X.oracleGeneral.csv` is a CSV made from an oracleGeneral trace.
        if csv.suffixes.contains(where: { name.hasSuffix($0) }) { return csv }
        if name.contains("twrns") { return twrNS }
        if name.contains("oraclegeneral") { return oracleGeneral }
        return formats.first { entry in entry.suffixes.contains { name.hasSuffix($0) } }
    }

    /// Text: at least 90 % of the bytes are printable ASCII, tab, CR, LF or a byte that UTF-8
    /// uses (0xC0, 0xC1 and 0xF5–0xFF never appear in it). A CSV with a stray NUL or escape
    /// byte is still text (its reader reports the byte at its line); binary records are full of
    /// zeros, small numbers and, for negative fields, 0xFF.
    public static func looksLikeText(_ prefix: [UInt8]) -> Bool {
        var textual = 0
        for byte in prefix {
            let printable = byte >= 0x20 && byte < 0x7F || byte == 0x09 || byte == 0x0A || byte == 0x0D
            let inUTF8 = byte >= 0x80 && byte != 0xC0 && byte != 0xC1 && byte < 0xF5
            if printable || inUTF8 { textual += 1 }
        }
        return textual * 10 >= prefix.count * 9
    }
}
