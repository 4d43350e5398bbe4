/// A Huffman decoding table for zstd literals (RFC 8878 §4.2): `1 << maximumBits` entries, each
/// the symbol in the low byte and its code length in the high byte, so a symbol is one lookup of
/// the next `maximumBits` bits.
struct _HuffmanTable {
    /// The longest code, at most 11 bits.
    private(set) var maximumBits = 0
    private(set) var entries: [UInt16] = []

    /// Reads a Huffman tree description (RFC 8878 §4.2.1) from the start of the bytes; returns the
    /// table and the bytes the description took.
    static func read(_ base: UnsafePointer<UInt8>, count: Int) throws(_DecodeFailure) -> (_HuffmanTable, Int) {
        guard count > 0 else { throw _DecodeFailure("missing Huffman tree description") }
        let header = Int(base[0])
        var weights: [UInt8] = []
        let used: Int
        if header >= 128 {
            let n = header - 127
            used = 1 + (n + 1) / 2
            guard used <= count else { throw _DecodeFailure("Huffman weights run past the literals section") }
            for i in 0..<n {
                let byte = base[1 + i / 2]
                weights.append(i % 2 == 0 ? byte >> 4 : byte & 15)
            }
        } else {
            used = 1 + header
            guard header > 0, used <= count else { throw _DecodeFailure("Huffman weights run past the literals section") }
            weights = try decodeWeights(base + 1, count: header)
        }
        return (try _HuffmanTable(weights: weights), used)
    }

    /// FSE-compressed weights: a table description, then a backward stream read by two
    /// interleaved states until it runs out.
    private static func decodeWeights(_ base: UnsafePointer<UInt8>, count: Int) throws(_DecodeFailure) -> [UInt8] {
        let (table, used) = try _FSETable.read(base, count: count, meaning: .symbol)
        guard used < count else { throw _DecodeFailure("Huffman weight stream is empty") }
        var reader = try _BackwardBitReader(base: base + used, count: count - used)
        var weights: [UInt8] = []
        try table.entries.withUnsafeBufferPointer { (entries) throws(_DecodeFailure) in
            var first = Int(reader.read(table.accuracyLog))
            var second = Int(reader.read(table.accuracyLog))
            while true {
                guard weights.count < 255 else { throw _DecodeFailure("too many Huffman weights") }
                weights.append(UInt8(truncatingIfNeeded: entries[first].baseValue))
                first = Int(entries[first].nextState) + Int(reader.read(Int(entries[first].stateBits)))
                if reader.bitsLeft < 0 { weights.append(UInt8(truncatingIfNeeded: entries[second].baseValue)); break }
                guard weights.count < 255 else { throw _DecodeFailure("too many Huffman weights") }
                weights.append(UInt8(truncatingIfNeeded: entries[second].baseValue))
                second = Int(entries[second].nextState) + Int(reader.read(Int(entries[second].stateBits)))
                if reader.bitsLeft < 0 { weights.append(UInt8(truncatingIfNeeded: entries[first].baseValue)); break }
            }
        }
        return weights
    }

    /// Builds the table from the weights of all symbols but the last, whose weight is implied by
    /// the others summing to a power of two.
    init(weights: [UInt8]) throws(_DecodeFailure) {
        var sum = 0
        for w in weights {
            guard w <= 11 else { throw _DecodeFailure("Huffman weight \(w) above 11") }
            if w > 0 { sum += 1 << (Int(w) - 1) }
        }
        guard sum > 0 else { throw _DecodeFailure("Huffman weights are all zero") }
        let maximumBits = Int.bitWidth - sum.leadingZeroBitCount
        guard maximumBits <= 11 else { throw _DecodeFailure("Huffman codes longer than 11 bits") }
        let leftover = (1 << maximumBits) - sum
        guard leftover.nonzeroBitCount == 1 else { throw _DecodeFailure("Huffman weights do not complete a tree") }
        let all = weights + [UInt8(leftover.trailingZeroBitCount + 1)]
        self.maximumBits = maximumBits
        // Codes of each length take consecutive ranges, longest codes (lowest weights) first.
        var lengthCount = [Int](repeating: 0, count: maximumBits + 2)
        for w in all where w > 0 { lengthCount[maximumBits + 1 - Int(w)] += 1 }
        var next = [Int](repeating: 0, count: maximumBits + 2)
        var start = 0
        for length in stride(from: maximumBits, through: 1, by: -1) {
            next[length] = start
            start += lengthCount[length] << (maximumBits - length)
        }
        entries = [UInt16](repeating: 0, count: 1 << maximumBits)
        for (symbol, w) in all.enumerated() where w > 0 {
            let length = maximumBits + 1 - Int(w)
            let span = 1 << (maximumBits - length)
            let entry = UInt16(length) << 8 | UInt16(symbol)
            for i in next[length]..<(next[length] + span) { entries[i] = entry }
            next[length] += span
        }
    }

    /// Decodes exactly `count` symbols from the backward stream of `size` bytes at `base` into `output`.
    func decode(_ base: UnsafePointer<UInt8>, size: Int, into output: UnsafeMutablePointer<UInt8>, count: Int) throws(_DecodeFailure) {
        var reader = try _BackwardBitReader(base: base, count: size)
        let bits = maximumBits
        entries.withUnsafeBufferPointer { table in
            for i in 0..<count {
                let entry = table[Int(truncatingIfNeeded: reader.peek(bits))]
                output[i] = UInt8(truncatingIfNeeded: entry)
                reader.bitsLeft -= Int(entry >> 8)
            }
        }
        guard reader.bitsLeft == 0 else { throw _DecodeFailure("Huffman stream length does not match its symbols") }
    }
}
