/// A canonical Huffman decoding table for DEFLATE (RFC 1951 §3.2.2): `1 << maximumLength`
/// entries indexed by the next bits as they arrive (least significant first), each the symbol in
/// the low 9 bits and the code length above them; length 0 marks a bit pattern no code has.
struct _InflateTable {
    private(set) var maximumLength = 0
    private(set) var entries: [UInt16] = []

    /// Builds the table from each symbol's code length (0 = unused). Over-subscribed lengths are
    /// an error; incomplete ones are allowed (zlib allows a lone distance code).
    init(lengths: ArraySlice<UInt8>) throws(_DecodeFailure) {
        var count = [Int](repeating: 0, count: 16)
        for length in lengths { count[Int(length)] += 1 }
        count[0] = 0
        var left = 1
        for length in 1...15 {
            left = (left << 1) - count[length]
            guard left >= 0 else { throw _DecodeFailure("over-subscribed Huffman code lengths") }
        }
        maximumLength = max(1, lengths.max().map(Int.init) ?? 1)
        entries = [UInt16](repeating: 0, count: 1 << maximumLength)
        var next = [Int](repeating: 0, count: 16)
        var code = 0
        for length in 1...15 {
            code = (code + count[length - 1]) << 1
            next[length] = code
        }
        for (symbol, length) in zip(0..., lengths) where length > 0 {
            let n = Int(length)
            let code = next[n]
            next[n] += 1
            var reversed = 0
            for bit in 0..<n where code & (1 << bit) != 0 { reversed |= 1 << (n - 1 - bit) }
            let entry = UInt16(n) << 9 | UInt16(symbol)
            var index = reversed
            while index < entries.count {
                entries[index] = entry
                index += 1 << n
            }
        }
    }

    static let fixedLiteralLength: _InflateTable? = try? _InflateTable(
        lengths: ArraySlice([UInt8](repeating: 8, count: 144) + [UInt8](repeating: 9, count: 112)
                            + [UInt8](repeating: 7, count: 24) + [UInt8](repeating: 8, count: 8)))
    static let fixedDistance: _InflateTable? = try? _InflateTable(lengths: ArraySlice([UInt8](repeating: 5, count: 30)))
}
