/// A streaming Zstandard decoder (RFC 8878) written for cachebench, with no external library.
///
/// Decodes every frame of a file in turn (concatenated frames, skippable frames, empty frames),
/// raw, RLE and compressed blocks with Huffman-coded literals and FSE-coded sequences, and checks
/// each frame's content size and XXH64 checksum when the frame has them. Dictionaries are not
/// supported. Memory is bounded by the frame's window: windows up to 128 MiB are accepted, the
/// reference `zstd` tool's default limit (`--long=27`); the decoder keeps the window plus up to
/// as much again (at least 1 MiB) of decoded output, one compressed block (128 KiB) and its
/// literals. Corrupt input throws ``TraceError`` of kind `malformed` naming the byte offset in the
/// compressed file of the frame header, block or checksum at fault.
public final class ZstdDecoder: DecodedByteStream {
    /// The little-endian magic number that starts a zstd frame.
    public static let frameMagic: UInt32 = 0xFD2F_B528
    /// Skippable frames start with `0x184D2A50...0x184D2A5F`.
    public static let skippableMagic: UInt32 = 0x184D_2A50
    /// The largest window accepted: 128 MiB, as `zstd -d` accepts without `--memory`.
    public static let maximumWindow = 1 << 27
    /// The largest block content (RFC 8878 §3.1.1.2.4).
    static let maximumBlock = 128 << 10
    /// Readable bytes kept before and after buffers so bit readers and copies may over-read.
    static let slack = 32

    private let source: ByteSource
    private let name: String
    /// The compressed block being decoded, with ``slack`` bytes either side.
    private let blockBuffer: UnsafeMutablePointer<UInt8>
    /// Decoded literals of the current block.
    let literals: UnsafeMutablePointer<UInt8>

    /// Decoded output: history for matches, then bytes not yet handed to the reader.
    private(set) var window: UnsafeMutablePointer<UInt8>
    private var windowCapacity = 0
    private var readPosition = 0
    var writePosition = 0
    /// The first byte of the current frame still in ``window``; matches may not reach before it.
    var historyStart = 0
    /// Where the current block must end.
    var blockLimit = 0

    // The current frame.
    private var inFrame = false
    private var lastBlock = false
    var windowSize = 0
    var blockMaximum = maximumBlock
    private var checksum: _XXHash64?
    private var contentSize: UInt64?
    private var frameOutput: UInt64 = 0
    private var frameOffset = 0
    private var finished = false

    // Entropy state carried from block to block within a frame.
    var huffman: _HuffmanTable?
    var literalLengthTable: _FSETable?
    var offsetTable: _FSETable?
    var matchLengthTable: _FSETable?
    var repeatOffsets = (1, 4, 8)

    /// Decodes the zstd data read from `source`.
    public init(source: ByteSource) {
        self.source = source
        name = source.name
        blockBuffer = .allocate(capacity: Self.maximumBlock + 2 * Self.slack)
        blockBuffer.initialize(repeating: 0, count: Self.maximumBlock + 2 * Self.slack)
        literals = .allocate(capacity: Self.maximumBlock + Self.slack)
        literals.initialize(repeating: 0, count: Self.maximumBlock + Self.slack)
        window = .allocate(capacity: 0)
    }

    deinit {
        blockBuffer.deallocate()
        literals.deallocate()
        window.deallocate()
    }

    public func read(into buffer: UnsafeMutableRawPointer, count: Int) throws(TraceError) -> Int {
        while readPosition == writePosition {
            if finished { return 0 }
            try decodeMore()
        }
        let n = min(count, writePosition - readPosition)
        buffer.copyMemory(from: window + readPosition, byteCount: n)
        readPosition += n
        return n
    }

    private func failure(_ reason: String, at offset: Int) -> TraceError {
        TraceError(.malformed, file: name, offset: offset, reason: "zstd: \(reason)")
    }

    /// Reads exactly `count` compressed bytes, or fails naming what was cut short.
    private func readExactly(_ to: UnsafeMutablePointer<UInt8>, _ count: Int, what: String) throws(TraceError) {
        let at = source.bytesRead
        let n = try source.readFully(into: to, count: count)
        guard n == count else { throw failure("truncated \(what): \(n) of \(count) bytes", at: at) }
    }

    /// Decodes the next block (or frame header), adding output or reaching the end.
    private func decodeMore() throws(TraceError) {
        if !inFrame {
            try startFrame()
            return
        }
        if lastBlock {
            try finishFrame()
            return
        }
        let at = source.bytesRead
        try readExactly(blockBuffer, 3, what: "block header")
        let fields = Int(blockBuffer[0]) | Int(blockBuffer[1]) << 8 | Int(blockBuffer[2]) << 16
        lastBlock = fields & 1 == 1
        let type = (fields >> 1) & 3
        let size = fields >> 3
        makeRoomForBlock()
        blockLimit = writePosition + blockMaximum
        let start = writePosition
        switch type {
        case 0:
            guard size <= blockMaximum else { throw failure("raw block of \(size) bytes exceeds \(blockMaximum)", at: at) }
            try readExactly(window + writePosition, size, what: "raw block")
            writePosition += size
        case 1:
            guard size <= blockMaximum else { throw failure("RLE block of \(size) bytes exceeds \(blockMaximum)", at: at) }
            try readExactly(blockBuffer, 1, what: "RLE block")
            (window + writePosition).update(repeating: blockBuffer[0], count: size)
            writePosition += size
        case 2:
            guard size <= blockMaximum else { throw failure("compressed block of \(size) bytes exceeds \(blockMaximum)", at: at) }
            let content = blockBuffer + Self.slack
            try readExactly(content, size, what: "compressed block")
            content.advanced(by: size).update(repeating: 0, count: Self.slack)
            do throws(_DecodeFailure) {
                let (literalBytes, count, used) = try decodeLiterals(content, size: size)
                try decodeSequences(content + used, size: size - used, literals: literalBytes, literalCount: count)
            } catch {
                throw failure("corrupt block: \(error.reason)", at: at)
            }
        default:
            throw failure("reserved block type", at: at)
        }
        let produced = writePosition - start
        frameOutput &+= UInt64(produced)
        if let total = contentSize, frameOutput > total {
            throw failure("frame decodes to more than its declared \(total) bytes", at: at)
        }
        checksum?.update(window + start, count: produced)
    }

    /// Slides the window down when the next block might not fit, keeping the history matches may use.
    private func makeRoomForBlock() {
        guard writePosition + blockMaximum + Self.slack > windowCapacity else { return }
        _slideWindow(window, history: windowSize, historyStart: &historyStart, readPosition: &readPosition, writePosition: &writePosition)
    }

    private func startFrame() throws(TraceError) {
        let at = source.bytesRead
        let word = blockBuffer
        let n = try source.readFully(into: word, count: 4)
        if n == 0 {
            guard at > 0 else { throw failure("empty input", at: 0) }
            finished = true
            return
        }
        guard n == 4 else { throw failure("truncated frame magic: \(n) of 4 bytes", at: at) }
        let magic = UInt32(word[0]) | UInt32(word[1]) << 8 | UInt32(word[2]) << 16 | UInt32(word[3]) << 24
        if magic & 0xFFFF_FFF0 == Self.skippableMagic {
            try readExactly(blockBuffer, 4, what: "skippable frame size")
            let declared = Int(blockBuffer[0]) | Int(blockBuffer[1]) << 8 | Int(blockBuffer[2]) << 16 | Int(blockBuffer[3]) << 24
            let content = source.bytesRead
            var remaining = declared
            while remaining > 0 {
                let step = min(remaining, Self.maximumBlock)
                let n = try source.readFully(into: blockBuffer, count: step)
                // The frame's own size in the message, not the step's.
                guard n == step else {
                    throw failure("truncated skippable frame: \(declared - remaining + n) of \(declared) bytes", at: content)
                }
                remaining -= step
            }
            return
        }
        guard magic == Self.frameMagic else {
            throw failure("not a zstd frame (magic \(_hex(magic)))", at: at)
        }
        frameOffset = at
        try readExactly(blockBuffer, 1, what: "frame header")
        let descriptor = blockBuffer[0]
        let contentSizeFlag = Int(descriptor >> 6)
        let singleSegment = descriptor & 0x20 != 0
        guard descriptor & 0x08 == 0 else { throw failure("reserved bit set in the frame header", at: at + 4) }
        let dictionaryBytes = [0, 1, 2, 4][Int(descriptor & 3)]
        let contentBytes = [singleSegment ? 1 : 0, 2, 4, 8][contentSizeFlag]
        let rest = (singleSegment ? 0 : 1) + dictionaryBytes + contentBytes
        try readExactly(blockBuffer, rest, what: "frame header")
        var pos = 0
        var window = 0
        if !singleSegment {
            let exponent = Int(blockBuffer[0] >> 3), mantissa = Int(blockBuffer[0] & 7)
            let base = 1 << (10 + exponent)
            window = base + (base / 8) * mantissa
            pos = 1
        }
        var dictionary = 0
        for i in 0..<dictionaryBytes { dictionary |= Int(blockBuffer[pos + i]) << (8 * i) }
        pos += dictionaryBytes
        guard dictionary == 0 else { throw failure("frame needs dictionary \(dictionary), which is not supported", at: at) }
        contentSize = nil
        if contentBytes > 0 {
            var value: UInt64 = 0
            for i in 0..<contentBytes { value |= UInt64(blockBuffer[pos + i]) << UInt64(8 * i) }
            if contentBytes == 2 { value += 256 }
            contentSize = value
        }
        if singleSegment { window = Int(clamping: contentSize ?? 0) }
        guard window <= Self.maximumWindow else {
            // At the window descriptor (or, in a single segment, the content size that sets it).
            throw failure("window of \(window) bytes exceeds the 128 MiB limit (zstd --long=27); decompress it with zstd -d --long=31 first (into a pipe will do)",
                          at: at + 5 + (singleSegment ? dictionaryBytes : 0))
        }
        windowSize = window
        blockMaximum = min(window, Self.maximumBlock)
        // History never reaches past the frame's start, so a known content size caps the buffer.
        reserveWindow(Int(clamping: min(UInt64(window), contentSize ?? UInt64(window))))
        historyStart = writePosition
        checksum = descriptor & 0x04 != 0 ? _XXHash64() : nil
        frameOutput = 0
        huffman = nil
        literalLengthTable = nil
        offsetTable = nil
        matchLengthTable = nil
        repeatOffsets = (1, 4, 8)
        lastBlock = false
        inFrame = true
    }

    /// Makes the window buffer big enough for `window` bytes of history plus room to decode ahead.
    private func reserveWindow(_ window: Int) {
        let needed = window + max(window, 1 << 20) + Self.maximumBlock + 2 * Self.slack
        guard needed > windowCapacity else { return }
        // Left uninitialised: bytes are only read after being decoded into it.
        let grown = UnsafeMutablePointer<UInt8>.allocate(capacity: needed)
        // Only unread output moves: a new frame never refers to the previous one.
        let unread = writePosition - readPosition
        grown.update(from: self.window + readPosition, count: unread)
        self.window.deallocate()
        self.window = grown
        windowCapacity = needed
        readPosition = 0
        writePosition = unread
    }

    private func finishFrame() throws(TraceError) {
        inFrame = false
        if let total = contentSize, frameOutput != total {
            throw failure("frame decodes to \(frameOutput) bytes, its header says \(total)", at: frameOffset)
        }
        guard let checksum else { return }
        let at = source.bytesRead
        try readExactly(blockBuffer, 4, what: "content checksum")
        let stored = UInt32(blockBuffer[0]) | UInt32(blockBuffer[1]) << 8 | UInt32(blockBuffer[2]) << 16 | UInt32(blockBuffer[3]) << 24
        let computed = UInt32(truncatingIfNeeded: checksum.digest())
        guard stored == computed else {
            throw failure("content checksum \(_hex(stored)) does not match the decoded \(_hex(computed))", at: at)
        }
    }
}

/// `0x` and eight uppercase hex digits, for magic numbers and checksums in messages.
func _hex(_ value: UInt32, digits width: Int = 8) -> String {
    let digits = String(value, radix: 16, uppercase: true)
    return "0x" + String(repeating: "0", count: max(0, width - digits.count)) + digits
}
