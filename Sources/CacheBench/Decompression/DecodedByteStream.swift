/// Bytes decoded from a compressed input, pulled by a ``ByteSource`` in large chunks.
///
/// A decoder reads its compressed input from another ``ByteSource`` and reports corrupt input as
/// ``TraceError`` of kind `malformed`, naming the byte offset in the compressed file.
public protocol DecodedByteStream: AnyObject {
    /// Copies up to `count` decoded bytes into `buffer`; returns the number copied, 0 at the end.
    func read(into buffer: UnsafeMutableRawPointer, count: Int) throws(TraceError) -> Int
}

/// Why a compressed section cannot be decoded; the frame decoder adds the file and byte offset.
struct _DecodeFailure: Error {
    var reason: String
    /// The compressed byte the failure is at, when the decoder knows better than its position
    /// (a trailer's field, read in full before it is checked).
    var offset: Int?
    init(_ reason: String, at offset: Int? = nil) {
        self.reason = reason
        self.offset = offset
    }
}

/// The compressed formats recognised by their first bytes, whatever the file is called.
public enum CompressionFormat: String, Sendable {
    /// Zstandard (RFC 8878), including files that start with a skippable frame.
    case zstd
    /// gzip (RFC 1952) members holding DEFLATE (RFC 1951) data.
    case gzip

    /// The format whose magic number `prefix` starts with, or `nil` for uncompressed input.
    public static func detect(_ prefix: [UInt8]) -> CompressionFormat? {
        if prefix.count >= 4 {
            let magic = UInt32(prefix[0]) | UInt32(prefix[1]) << 8 | UInt32(prefix[2]) << 16 | UInt32(prefix[3]) << 24
            if magic == ZstdDecoder.frameMagic || magic & 0xFFFF_FFF0 == ZstdDecoder.skippableMagic { return .zstd }
        }
        if prefix.count >= 3, prefix[0] == 0x1F, prefix[1] == 0x8B, prefix[2] == 8 { return .gzip }
        return nil
    }

    /// The format whose magic number a whole input shorter than that number, `bytes`, begins,
    /// or `nil`: a compressed file cut before its magic number ends.
    public static func cutMagic(_ bytes: [UInt8]) -> CompressionFormat? {
        guard !bytes.isEmpty else { return nil }
        if bytes.count < 4 && [0x28, 0xB5, 0x2F, 0xFD].starts(with: bytes) { return .zstd }
        if bytes.count < 4 && bytes[0] & 0xF0 == 0x50 && [0x2A, 0x4D, 0x18].starts(with: bytes.dropFirst()) { return .zstd }
        if bytes.count < 3 && [0x1F, 0x8B].starts(with: bytes) { return .gzip }
        return nil
    }

    /// `source` itself when it is not compressed; otherwise a source of its decoded bytes.
    ///
    /// The decoder runs on its own thread, a few chunks ahead of the reader.
    public static func decodingIfCompressed(_ source: ByteSource) throws(TraceError) -> ByteSource {
        switch detect(try source.peek(upTo: 4)) {
        case nil: return source
        case .zstd: return ByteSource(decoding: _BackgroundDecoder(ZstdDecoder(source: source)), name: source.name)
        case .gzip: return ByteSource(decoding: _BackgroundDecoder(GzipDecoder(source: source)), name: source.name)
        }
    }
}

/// Moves the last `history` bytes of output (at most back to `historyStart`) to the start of
/// `window`, so decoding can go on in the room freed while matches still reach their sources.
/// Call it only when every decoded byte has been read (`readPosition == writePosition`).
func _slideWindow(_ window: UnsafeMutablePointer<UInt8>, history: Int,
                  historyStart: inout Int, readPosition: inout Int, writePosition: inout Int) {
    let keepFrom = max(historyStart, writePosition - history)
    let kept = writePosition - keepFrom
    // The ranges may overlap; copyMemory moves like memmove.
    UnsafeMutableRawPointer(window).copyMemory(from: window + keepFrom, byteCount: kept)
    historyStart = 0
    writePosition = kept
    readPosition = kept
}
