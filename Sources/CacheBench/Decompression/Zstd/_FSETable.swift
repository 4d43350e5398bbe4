/// One state of a finite state entropy decoding table, with the value its symbol stands for.
///
/// For literal and match lengths the symbol is a length code; `baseValue` and `extraBits` are the
/// code's baseline and the count of bits added to it, so that decoding a value is one lookup.
struct _FSEEntry {
    /// The baseline of the decoded symbol (the symbol itself for Huffman weights).
    var baseValue: UInt32
    /// Added to the `stateBits` bits read to form the next state.
    var nextState: UInt16
    /// Bits read to move to the next state.
    var stateBits: UInt8
    /// Bits read and added to `baseValue`.
    var extraBits: UInt8
}

/// A finite state entropy decoding table (RFC 8878 §4.1): `1 << accuracyLog` states.
///
/// Built from normalised probabilities in O(states + symbols).
struct _FSETable {
    /// What the symbols mean, which decides each entry's `baseValue` and `extraBits`.
    enum Meaning {
        case literalLength, matchLength, offset, symbol

        var maximumSymbol: Int {
            switch self {
            case .literalLength: 35
            case .matchLength: 52
            case .offset: 31
            case .symbol: 255
            }
        }

        var maximumAccuracyLog: Int {
            switch self {
            case .literalLength, .matchLength: 9
            case .offset: 8
            case .symbol: 6
            }
        }

        // RFC 8878 §3.1.1.3.2.1.1: literal length codes 16...35 and match length codes 32...52.
        private static let literalBaselines: [UInt32] = [16, 18, 20, 22, 24, 28, 32, 40, 48, 64, 128, 256, 512,
                                                          1024, 2048, 4096, 8192, 16384, 32768, 65536]
        private static let literalBits: [UInt8] = [1, 1, 1, 1, 2, 2, 3, 3, 4, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16]
        private static let matchBaselines: [UInt32] = [35, 37, 39, 41, 43, 47, 51, 59, 67, 83, 99, 131, 259, 515,
                                                        1027, 2051, 4099, 8195, 16387, 32771, 65539]
        private static let matchBits: [UInt8] = [1, 1, 1, 1, 2, 2, 3, 3, 4, 4, 5, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16]

        func value(of symbol: Int) -> (base: UInt32, bits: UInt8) {
            switch self {
            case .literalLength: symbol < 16 ? (UInt32(symbol), 0) : (Self.literalBaselines[symbol - 16], Self.literalBits[symbol - 16])
            case .matchLength: symbol < 32 ? (UInt32(symbol + 3), 0) : (Self.matchBaselines[symbol - 32], Self.matchBits[symbol - 32])
            case .offset: (UInt32(1) << UInt32(symbol), UInt8(symbol))
            case .symbol: (UInt32(symbol), 0)
            }
        }
    }

    private(set) var accuracyLog = 0
    private(set) var entries: [_FSEEntry] = []

    /// The table in which every state decodes `symbol` and reads no bits (RLE mode).
    init(rle symbol: Int, meaning: Meaning) throws(_DecodeFailure) {
        guard symbol <= meaning.maximumSymbol else { throw _DecodeFailure("RLE symbol \(symbol) out of range") }
        let (base, bits) = meaning.value(of: symbol)
        entries = [_FSEEntry(baseValue: base, nextState: 0, stateBits: 0, extraBits: bits)]
    }

    /// Builds the table for normalised counts (`-1` marks a "less than one" probability).
    init(counts: [Int16], accuracyLog: Int, meaning: Meaning) throws(_DecodeFailure) {
        self.accuracyLog = accuracyLog
        let size = 1 << accuracyLog
        var symbols = [UInt8](repeating: 0, count: size)
        var next = [Int](repeating: 0, count: counts.count)
        var high = size - 1
        for (s, count) in counts.enumerated() where count == -1 {
            symbols[high] = UInt8(s)
            high -= 1
            next[s] = 1
        }
        let step = (size >> 1) + (size >> 3) + 3
        var position = 0
        for (s, count) in counts.enumerated() where count > 0 {
            next[s] = Int(count)
            for _ in 0..<Int(count) {
                symbols[position] = UInt8(s)
                repeat { position = (position + step) & (size - 1) } while position > high
            }
        }
        guard position == 0 else { throw _DecodeFailure("FSE probabilities do not fill the table") }
        entries = [_FSEEntry](repeating: _FSEEntry(baseValue: 0, nextState: 0, stateBits: 0, extraBits: 0), count: size)
        for state in 0..<size {
            let s = Int(symbols[state])
            let x = next[s]
            next[s] += 1
            let bits = accuracyLog - (Int.bitWidth - 1 - x.leadingZeroBitCount)
            let (base, extra) = meaning.value(of: s)
            entries[state] = _FSEEntry(baseValue: base, nextState: UInt16((x << bits) - size),
                                       stateBits: UInt8(bits), extraBits: extra)
        }
    }

    /// Reads a table description (RFC 8878 §4.1.1) from the start of `bytes`; returns the table
    /// and the bytes the description took.
    static func read(_ base: UnsafePointer<UInt8>, count: Int, meaning: Meaning) throws(_DecodeFailure) -> (_FSETable, Int) {
        var reader = _ForwardBitReader(base: base, count: count)
        let accuracyLog = Int(try reader.read(4)) + 5
        guard accuracyLog <= meaning.maximumAccuracyLog else {
            throw _DecodeFailure("FSE accuracy log \(accuracyLog) above \(meaning.maximumAccuracyLog)")
        }
        var remaining = 1 << accuracyLog
        var counts: [Int16] = []
        while remaining > 0 {
            guard counts.count <= meaning.maximumSymbol else { throw _DecodeFailure("FSE table has too many symbols") }
            let bits = (Int.bitWidth - 1 - (remaining + 1).leadingZeroBitCount) + 1
            var value = Int(try reader.read(bits))
            let lowerMask = (1 << (bits - 1)) - 1
            let threshold = (1 << bits) - 1 - (remaining + 1)
            if value & lowerMask < threshold {
                reader.rewind(1)
                value &= lowerMask
            } else if value > lowerMask {
                value -= threshold
            }
            let probability = value - 1
            remaining -= abs(probability)
            counts.append(Int16(probability))
            if probability == 0 {
                while true {
                    let repeats = Int(try reader.read(2))
                    for _ in 0..<repeats { counts.append(0) }
                    guard counts.count <= meaning.maximumSymbol + 1 else { throw _DecodeFailure("FSE table has too many symbols") }
                    if repeats != 3 { break }
                }
            }
        }
        guard remaining == 0 else { throw _DecodeFailure("FSE probabilities exceed the table") }
        try reader.checkInside()
        return (try _FSETable(counts: counts, accuracyLog: accuracyLog, meaning: meaning), reader.bytesUsed)
    }

    // RFC 8878 §3.1.1.3.2.2: the predefined distributions.
    static let predefinedLiteralLength = try? _FSETable(
        counts: [4, 3, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 1, 1, 1, 2, 2, 2, 2, 2, 2, 2, 2, 2, 3, 2, 1, 1, 1, 1, 1, -1, -1, -1, -1],
        accuracyLog: 6, meaning: .literalLength)
    static let predefinedMatchLength = try? _FSETable(
        counts: [1, 4, 3, 2, 2, 2, 2, 2, 2, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
                 1, 1, 1, 1, 1, 1, 1, 1, -1, -1, -1, -1, -1, -1, -1],
        accuracyLog: 6, meaning: .matchLength)
    static let predefinedOffset = try? _FSETable(
        counts: [1, 1, 1, 1, 1, 1, 2, 2, 2, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, -1, -1, -1, -1, -1],
        accuracyLog: 5, meaning: .offset)
}
