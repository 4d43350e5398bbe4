/// A streaming gzip decoder (RFC 1952 members holding RFC 1951 DEFLATE data), written for
/// cachebench with no external library.
///
/// Decodes every member of a file in turn (as `gzip -d` does for concatenated files), checks each
/// member's CRC-32 and length, and accepts zero bytes of padding after the last member. Memory
/// is constant: 32 KiB of history, 256 KiB of output ahead of the reader and 64 KiB of input.
/// Corrupt input throws ``TraceError`` of kind `malformed` with the compressed byte offset.
public final class GzipDecoder: DecodedByteStream {
    static let history = 32 << 10
    static let outputArea = 256 << 10
    /// The longest match, so a symbol never has to be split across reads.
    static let longestMatch = 258

    private let source: ByteSource
    private let name: String

    // Compressed input and the bit buffer over it.
    private let input: UnsafeMutablePointer<UInt8>
    private let inputCapacity = 64 << 10
    private var inputPosition = 0
    private var inputEnd = 0
    /// Bytes of input consumed before `input[0]`.
    private var inputBase = 0
    private var inputEnded = false
    private var bits: UInt64 = 0
    private var bitCount = 0
    /// Zero bytes appended past the end of the input; consuming them means the input was cut short.
    private var phantomBytes = 0

    // Decoded output: history, then bytes not yet handed out.
    private let window: UnsafeMutablePointer<UInt8>
    private static let windowCapacity = history + outputArea + longestMatch
    private var windowCapacity: Int { Self.windowCapacity }
    private var readPosition = 0
    private var writePosition = 0
    private var historyStart = 0

    // Where decoding is.
    private enum State { case memberHeader, blockHeader, stored(remaining: Int), huffman, trailer, finished }
    private var state = State.memberHeader
    private var lastBlock = false
    private var literalLengths: _InflateTable?
    private var distances: _InflateTable?
    private var crc = _CRC32()
    private var memberLength: UInt32 = 0
    private var memberOffset = 0
    private var members = 0
    /// Whether a member's header is being read (before `members` counts that member).
    private var readingHeader = false

    /// Decodes the gzip data read from `source`.
    public init(source: ByteSource) {
        self.source = source
        name = source.name
        input = .allocate(capacity: inputCapacity)
        window = .allocate(capacity: Self.windowCapacity)
    }

    deinit {
        input.deallocate()
        window.deallocate()
    }

    public func read(into buffer: UnsafeMutableRawPointer, count: Int) throws(TraceError) -> Int {
        while readPosition == writePosition {
            if case .finished = state { return 0 }
            do throws(_DecodeFailure) {
                try decodeMore()
            } catch {
                throw TraceError(.malformed, file: name, offset: error.offset ?? failureOffset, reason: "gzip: \(error.reason)")
            }
        }
        let n = min(count, writePosition - readPosition)
        buffer.copyMemory(from: window + readPosition, byteCount: n)
        readPosition += n
        return n
    }

    /// The compressed byte being decoded (the end of the input when it was cut short).
    private var failureOffset: Int {
        min(inputBase + inputEnd, max(0, inputBase + inputPosition - (bitCount >> 3) + phantomBytes))
    }

    // MARK: Input bits

    /// Makes at least `n` (≤ 56) bits available, appending zeros past the end of the input.
    @inline(__always)
    private func need(_ n: Int) throws(_DecodeFailure) {
        while bitCount < n {
            if inputPosition == inputEnd { try refill() }
            let byte: UInt64
            if inputPosition < inputEnd {
                byte = UInt64(input[inputPosition])
                inputPosition += 1
            } else {
                byte = 0
                phantomBytes += 1
            }
            bits |= byte << UInt64(bitCount)
            bitCount += 8
        }
    }

    @inline(__always)
    private func consume(_ n: Int) throws(_DecodeFailure) {
        bits >>= UInt64(n)
        bitCount -= n
        guard bitCount >= phantomBytes * 8 else { throw _DecodeFailure("truncated: the input ends inside member \(members + (readingHeader ? 1 : 0))") }
    }

    private func take(_ n: Int) throws(_DecodeFailure) -> Int {
        try need(n)
        let value = Int(bits & ((1 << UInt64(n)) - 1))
        try consume(n)
        return value
    }

    private func refill() throws(_DecodeFailure) {
        guard !inputEnded else { return }
        inputBase += inputEnd
        inputPosition = 0
        do throws(TraceError) {
            inputEnd = try source.read(into: input, count: inputCapacity)
        } catch {
            throw _DecodeFailure(error.reason)
        }
        if inputEnd == 0 { inputEnded = true }
    }

    /// Whether any input is left after the bits already buffered.
    private func atEndOfInput() throws(_DecodeFailure) -> Bool {
        if bitCount - phantomBytes * 8 > 0 { return false }
        if inputPosition == inputEnd { try refill() }
        return inputPosition == inputEnd
    }

    // MARK: Members

    private func decodeMore() throws(_DecodeFailure) {
        if writePosition + Self.longestMatch > windowCapacity - Self.outputArea / 2 { slide() }
        switch state {
        case .memberHeader: try readMemberHeader()
        case .blockHeader: try readBlockHeader()
        case .stored(let remaining): try copyStored(remaining)
        case .huffman: try decodeHuffman()
        case .trailer: try readTrailer()
        case .finished: return
        }
    }

    /// Keeps the last 32 KiB of the member's output at the start of the window.
    private func slide() {
        _slideWindow(window, history: Self.history, historyStart: &historyStart, readPosition: &readPosition, writePosition: &writePosition)
    }

    private func readMemberHeader() throws(_DecodeFailure) {
        if members > 0 {
            // After the last member only zero padding may follow.
            while !(try atEndOfInput()) {
                let start = failureOffset
                let byte = try take(8)
                if byte == 0 { continue }
                guard byte == 0x1F else { throw _DecodeFailure("bytes after member \(members) are not a gzip member", at: start) }
                try readMemberHeader(afterFirstByte: start)
                return
            }
            state = .finished
            return
        }
        guard !(try atEndOfInput()) else { throw _DecodeFailure("empty input") }
        let start = failureOffset
        guard try take(8) == 0x1F else { throw _DecodeFailure("not a gzip member") }
        try readMemberHeader(afterFirstByte: start)
    }

    private func readMemberHeader(afterFirstByte start: Int) throws(_DecodeFailure) {
        memberOffset = start
        readingHeader = true
        // The header's bytes, kept for its own CRC (FHCRC) when it has one.
        var header: [UInt8] = [0x1F]
        func byte() throws(_DecodeFailure) -> Int {
            let value = try take(8)
            header.append(UInt8(value))
            return value
        }
        guard try byte() == 0x8B else { throw _DecodeFailure("not a gzip member") }
        guard try byte() == 8 else { throw _DecodeFailure("compression method is not DEFLATE") }
        let flags = try byte()
        guard flags & 0xE0 == 0 else { throw _DecodeFailure("reserved header flags set") }
        for _ in 0..<6 { _ = try byte() }                        // time, extra flags, OS
        if flags & 0x04 != 0 {                                   // FEXTRA
            let low = try byte(), high = try byte()
            let length = low | high << 8
            for _ in 0..<length { _ = try byte() }
        }
        if flags & 0x08 != 0 { while try byte() != 0 {} }        // FNAME
        if flags & 0x10 != 0 { while try byte() != 0 {} }        // FCOMMENT
        if flags & 0x02 != 0 {                                   // FHCRC: the low 16 bits of the header's CRC-32
            let field = memberOffset + header.count
            let expected = try take(16)
            var check = _CRC32()
            header.withUnsafeBufferPointer { if let base = $0.baseAddress { check.update(base, count: $0.count) } }
            guard expected == Int(check.value & 0xFFFF) else {
                throw _DecodeFailure("header CRC-16 \(_hex(UInt32(expected), digits: 4)) of member \(members + 1) does not match the header's \(_hex(check.value & 0xFFFF, digits: 4))", at: field)
            }
        }
        members += 1
        readingHeader = false
        crc = _CRC32()
        memberLength = 0
        historyStart = writePosition
        lastBlock = false
        state = .blockHeader
    }

    private func readTrailer() throws(_DecodeFailure) {
        _ = try take(bitCount & 7)
        // Each field's own offset for its message: both are read before either is checked.
        let crcOffset = failureOffset
        let expectedCRC = UInt32(try take(16)) | UInt32(try take(16)) << 16
        let lengthOffset = failureOffset
        let expectedLength = UInt32(try take(16)) | UInt32(try take(16)) << 16
        guard expectedCRC == crc.value else {
            throw _DecodeFailure("CRC-32 \(_hex(expectedCRC)) of member \(members) does not match the decoded \(_hex(crc.value))", at: crcOffset)
        }
        guard expectedLength == memberLength else {
            throw _DecodeFailure("member \(members) decodes to \(memberLength) bytes (mod 2^32), its trailer says \(expectedLength)", at: lengthOffset)
        }
        state = .memberHeader
    }

    /// Accounts for output just written, for the member's CRC-32 and length.
    private func produced(from start: Int) {
        crc.update(window + start, count: writePosition - start)
        memberLength &+= UInt32(truncatingIfNeeded: writePosition - start)
    }

    // MARK: Blocks

    private static let codeLengthOrder = [16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15]

    private func readBlockHeader() throws(_DecodeFailure) {
        if lastBlock {
            state = .trailer
            return
        }
        lastBlock = try take(1) == 1
        switch try take(2) {
        case 0:
            _ = try take(bitCount & 7)
            let length = try take(16)
            let complement = try take(16)
            guard length ^ complement == 0xFFFF else { throw _DecodeFailure("stored block length check failed") }
            state = .stored(remaining: length)
        case 1:
            literalLengths = _InflateTable.fixedLiteralLength
            distances = _InflateTable.fixedDistance
            state = .huffman
        case 2:
            try readDynamicTables()
            state = .huffman
        default:
            throw _DecodeFailure("reserved block type")
        }
    }

    private func readDynamicTables() throws(_DecodeFailure) {
        let literalCount = try take(5) + 257
        let distanceCount = try take(5) + 1
        let codeLengthCount = try take(4) + 4
        guard literalCount <= 286, distanceCount <= 30 else { throw _DecodeFailure("too many Huffman codes") }
        var codeLengthLengths = [UInt8](repeating: 0, count: 19)
        for i in 0..<codeLengthCount { codeLengthLengths[Self.codeLengthOrder[i]] = UInt8(try take(3)) }
        let codeLengths = try _InflateTable(lengths: codeLengthLengths[...])
        var lengths = [UInt8]()
        lengths.reserveCapacity(literalCount + distanceCount)
        while lengths.count < literalCount + distanceCount {
            let symbol = try decodeSymbol(codeLengths)
            switch symbol {
            case 0..<16: lengths.append(UInt8(symbol))
            case 16:
                guard let previous = lengths.last else { throw _DecodeFailure("repeated code length with none before") }
                lengths += repeatElement(previous, count: 3 + (try take(2)))
            case 17: lengths += repeatElement(0, count: 3 + (try take(3)))
            default: lengths += repeatElement(0, count: 11 + (try take(7)))
            }
        }
        guard lengths.count == literalCount + distanceCount else { throw _DecodeFailure("code lengths overrun the table sizes") }
        guard lengths[256] != 0 else { throw _DecodeFailure("no end-of-block code") }
        literalLengths = try _InflateTable(lengths: lengths[0..<literalCount])
        distances = try _InflateTable(lengths: lengths[literalCount...])
    }

    @inline(__always)
    private func decodeSymbol(_ table: _InflateTable) throws(_DecodeFailure) -> Int {
        try need(table.maximumLength)
        let entry = table.entries[Int(bits & ((1 << UInt64(table.maximumLength)) - 1))]
        let length = Int(entry >> 9)
        guard length > 0 else { throw _DecodeFailure("invalid Huffman code") }
        try consume(length)
        return Int(entry & 0x1FF)
    }

    private func copyStored(_ remaining: Int) throws(_DecodeFailure) {
        let start = writePosition
        let n = min(remaining, windowCapacity - writePosition)
        for i in 0..<n { window[writePosition + i] = UInt8(try take(8)) }
        writePosition += n
        produced(from: start)
        state = remaining == n ? .blockHeader : .stored(remaining: remaining - n)
    }

    private static let lengthBase: [Int] = [3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 15, 17, 19, 23, 27, 31, 35, 43, 51, 59,
                                            67, 83, 99, 115, 131, 163, 195, 227, 258]
    private static let lengthExtra: [Int] = [0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0]
    private static let distanceBase: [Int] = [1, 2, 3, 4, 5, 7, 9, 13, 17, 25, 33, 49, 65, 97, 129, 193, 257, 385, 513, 769,
                                              1025, 1537, 2049, 3073, 4097, 6145, 8193, 12289, 16385, 24577]
    private static let distanceExtra: [Int] = [0, 0, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7, 8, 8, 9, 9, 10, 10,
                                               11, 11, 12, 12, 13, 13]

    /// Decodes symbols until the block ends or the output area is full. O(output bytes).
    private func decodeHuffman() throws(_DecodeFailure) {
        guard let literalLengths, let distances else { throw _DecodeFailure("missing Huffman tables") }
        let start = writePosition
        defer { produced(from: start) }
        let limit = windowCapacity - Self.longestMatch
        while writePosition <= limit {
            let symbol = try decodeSymbol(literalLengths)
            if symbol < 256 {
                window[writePosition] = UInt8(symbol)
                writePosition += 1
                continue
            }
            if symbol == 256 {
                state = .blockHeader
                return
            }
            guard symbol <= 285 else { throw _DecodeFailure("invalid length code \(symbol)") }
            let length = Self.lengthBase[symbol - 257] + (try take(Self.lengthExtra[symbol - 257]))
            let code = try decodeSymbol(distances)
            guard code < 30 else { throw _DecodeFailure("invalid distance code \(code)") }
            let distance = Self.distanceBase[code] + (try take(Self.distanceExtra[code]))
            guard distance <= writePosition - historyStart else { throw _DecodeFailure("distance \(distance) reaches before the member's start") }
            var from = writePosition - distance
            for i in 0..<length {
                window[writePosition + i] = window[from]
                from += 1
            }
            writePosition += length
        }
    }
}
