extension ZstdDecoder {
    /// Decodes a compressed block's literals section (RFC 8878 §3.1.1.3.1) at `block` into
    /// ``literals`` or in place; returns where the literals are, how many, and the section's size.
    func decodeLiterals(_ block: UnsafePointer<UInt8>, size: Int) throws(_DecodeFailure) -> (UnsafePointer<UInt8>, count: Int, used: Int) {
        guard size > 0 else { throw _DecodeFailure("empty compressed block") }
        let type = block[0] & 3
        let sizeFormat = Int(block[0] >> 2) & 3
        func byte(_ i: Int) throws(_DecodeFailure) -> Int {
            guard i < size else { throw _DecodeFailure("literals section header runs past the block") }
            return Int(block[i])
        }
        if type < 2 {
            let count: Int, header: Int
            switch sizeFormat {
            case 0, 2: count = Int(block[0] >> 3); header = 1
            case 1: count = Int(block[0] >> 4) + (try byte(1) << 4); header = 2
            default: count = Int(block[0] >> 4) + (try byte(1) << 4) + (try byte(2) << 12); header = 3
            }
            guard count <= blockMaximum else { throw _DecodeFailure("literals larger than a block") }
            if type == 0 {
                guard header + count <= size else { throw _DecodeFailure("raw literals run past the block") }
                return (block + header, count, header + count)
            }
            literals.update(repeating: UInt8(try byte(header)), count: count)
            return (UnsafePointer(literals), count, header + 1)
        }
        let header = [3, 3, 4, 5][sizeFormat]
        var fields = 0
        for i in 0..<header { fields |= try byte(i) << (8 * i) }
        let bits = [10, 10, 14, 18][sizeFormat]
        let count = (fields >> 4) & ((1 << bits) - 1)
        let compressed = (fields >> (4 + bits)) & ((1 << bits) - 1)
        guard count <= blockMaximum else { throw _DecodeFailure("literals larger than a block") }
        guard header + compressed <= size else { throw _DecodeFailure("compressed literals run past the block") }
        var start = header
        if type == 2 {
            let (table, used) = try _HuffmanTable.read(block + start, count: compressed)
            huffman = table
            start += used
        }
        guard let table = huffman else { throw _DecodeFailure("treeless literals before any Huffman table") }
        let end = header + compressed
        if sizeFormat == 0 {
            try table.decode(block + start, size: end - start, into: literals, count: count)
        } else {
            guard end - start >= 6 else { throw _DecodeFailure("literal streams shorter than their jump table") }
            let sizes = (0..<3).map { Int(block[start + 2 * $0]) | Int(block[start + 2 * $0 + 1]) << 8 }
            let segment = (count + 3) / 4
            guard segment * 3 <= count else { throw _DecodeFailure("too few literals for four streams") }
            var at = start + 6
            var produced = 0
            for stream in 0..<4 {
                let length = stream < 3 ? sizes[stream] : end - at
                guard length > 0, at + length <= end else { throw _DecodeFailure("literal stream sizes exceed the section") }
                let n = stream < 3 ? segment : count - produced
                try table.decode(block + at, size: length, into: literals + produced, count: n)
                at += length
                produced += n
            }
        }
        return (UnsafePointer(literals), count, end)
    }
}
