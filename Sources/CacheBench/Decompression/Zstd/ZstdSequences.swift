extension ZstdDecoder {
    /// Decodes a compressed block's sequences section (RFC 8878 §3.1.1.3.2) and executes the
    /// sequences (§3.1.1.4): literals copied, then matches copied from earlier output, into the
    /// window at ``writePosition``. O(sequences + output bytes).
    func decodeSequences(_ block: UnsafePointer<UInt8>, size: Int, literals: UnsafePointer<UInt8>, literalCount: Int) throws(_DecodeFailure) {
        guard size > 0 else { throw _DecodeFailure("missing sequences section") }
        var pos = 0
        let first = Int(block[0])
        let sequenceCount: Int
        if first < 128 {
            sequenceCount = first
            pos = 1
        } else if first < 255 {
            guard size >= 2 else { throw _DecodeFailure("sequences header runs past the block") }
            sequenceCount = ((first - 128) << 8) + Int(block[1])
            pos = 2
        } else {
            guard size >= 3 else { throw _DecodeFailure("sequences header runs past the block") }
            sequenceCount = Int(block[1]) + (Int(block[2]) << 8) + 0x7F00
            pos = 3
        }
        guard sequenceCount > 0 else {
            try emitLiterals(literals, count: literalCount)
            return
        }
        guard pos < size else { throw _DecodeFailure("sequences header runs past the block") }
        let modes = block[pos]
        pos += 1
        guard modes & 3 == 0 else { throw _DecodeFailure("reserved bits set in the sequence compression modes") }
        literalLengthTable = try table(mode: modes >> 6, previous: literalLengthTable, predefined: _FSETable.predefinedLiteralLength,
                                       meaning: .literalLength, block, size: size, at: &pos)
        offsetTable = try table(mode: (modes >> 4) & 3, previous: offsetTable, predefined: _FSETable.predefinedOffset,
                                meaning: .offset, block, size: size, at: &pos)
        matchLengthTable = try table(mode: (modes >> 2) & 3, previous: matchLengthTable, predefined: _FSETable.predefinedMatchLength,
                                     meaning: .matchLength, block, size: size, at: &pos)
        guard let ll = literalLengthTable, let of = offsetTable, let ml = matchLengthTable else {
            throw _DecodeFailure("missing sequence table")
        }
        var reader = try _BackwardBitReader(base: block + pos, count: size - pos)
        try ll.entries.withUnsafeBufferPointer { (llEntries) throws(_DecodeFailure) in
            try of.entries.withUnsafeBufferPointer { (ofEntries) throws(_DecodeFailure) in
                try ml.entries.withUnsafeBufferPointer { (mlEntries) throws(_DecodeFailure) in
                    try executeSequences(count: sequenceCount, reader: &reader,
                                         tables: (llEntries, ofEntries, mlEntries), logs: (ll.accuracyLog, of.accuracyLog, ml.accuracyLog),
                                         literals: literals, literalCount: literalCount)
                }
            }
        }
    }

    private func table(mode: UInt8, previous: _FSETable?, predefined: _FSETable?, meaning: _FSETable.Meaning,
                       _ block: UnsafePointer<UInt8>, size: Int, at pos: inout Int) throws(_DecodeFailure) -> _FSETable {
        switch mode {
        case 0:
            guard let predefined else { throw _DecodeFailure("predefined table unavailable") }
            return predefined
        case 1:
            guard pos < size else { throw _DecodeFailure("RLE symbol runs past the block") }
            pos += 1
            return try _FSETable(rle: Int(block[pos - 1]), meaning: meaning)
        case 2:
            let (table, used) = try _FSETable.read(block + pos, count: size - pos, meaning: meaning)
            pos += used
            return table
        default:
            guard let previous else { throw _DecodeFailure("repeated sequence table before any table") }
            return previous
        }
    }

    private func executeSequences(count: Int, reader: inout _BackwardBitReader,
                                  tables: (UnsafeBufferPointer<_FSEEntry>, UnsafeBufferPointer<_FSEEntry>, UnsafeBufferPointer<_FSEEntry>),
                                  logs: (Int, Int, Int),
                                  literals: UnsafePointer<UInt8>, literalCount: Int) throws(_DecodeFailure) {
        let (llTable, ofTable, mlTable) = tables
        var llState = Int(reader.read(logs.0))
        var ofState = Int(reader.read(logs.1))
        var mlState = Int(reader.read(logs.2))
        var (rep1, rep2, rep3) = repeatOffsets
        let window = self.window
        var out = writePosition
        let limit = blockLimit
        let history = historyStart
        let windowSize = self.windowSize
        var literal = 0
        for i in 0..<count {
            let ofEntry = ofTable[ofState], mlEntry = mlTable[mlState], llEntry = llTable[llState]
            let offsetValue = Int(ofEntry.baseValue) + Int(reader.read(Int(ofEntry.extraBits)))
            let matchLength = Int(mlEntry.baseValue) + Int(reader.read(Int(mlEntry.extraBits)))
            let literalLength = Int(llEntry.baseValue) + Int(reader.read(Int(llEntry.extraBits)))
            let offset: Int
            if offsetValue > 3 {
                offset = offsetValue - 3
                rep3 = rep2; rep2 = rep1; rep1 = offset
            } else {
                let index = literalLength == 0 ? offsetValue : offsetValue - 1
                switch index {
                case 0: offset = rep1
                case 1: offset = rep2; rep2 = rep1; rep1 = offset
                case 2: offset = rep3; rep3 = rep2; rep2 = rep1; rep1 = offset
                default:
                    offset = rep1 - 1
                    guard offset > 0 else { throw _DecodeFailure("repeat offset of zero") }
                    rep3 = rep2; rep2 = rep1; rep1 = offset
                }
            }
            if i != count - 1 {
                llState = Int(llEntry.nextState) + Int(reader.read(Int(llEntry.stateBits)))
                mlState = Int(mlEntry.nextState) + Int(reader.read(Int(mlEntry.stateBits)))
                ofState = Int(ofEntry.nextState) + Int(reader.read(Int(ofEntry.stateBits)))
            }
            guard literalLength <= literalCount - literal else { throw _DecodeFailure("sequence uses more literals than decoded") }
            guard literalLength + matchLength <= limit - out else { throw _DecodeFailure("block decodes to more than its maximum size") }
            // Literals: short runs as two 8-byte words (the buffers keep 16 bytes of slack).
            if literalLength <= 16 {
                let from = UnsafeRawPointer(literals + literal), to = UnsafeMutableRawPointer(window + out)
                to.storeBytes(of: from.loadUnaligned(as: UInt64.self), as: UInt64.self)
                (to + 8).storeBytes(of: (from + 8).loadUnaligned(as: UInt64.self), as: UInt64.self)
            } else {
                (window + out).update(from: literals + literal, count: literalLength)
            }
            literal += literalLength
            out += literalLength
            guard offset <= out - history, offset <= windowSize else { throw _DecodeFailure("match offset \(offset) reaches before the window (corrupt, or compressed with a dictionary, which is not supported)") }
            var from = window + out - offset
            let to = window + out
            if offset >= 8 {
                // Each 8-byte word reads bytes written before it, so overlapping matches repeat correctly.
                var copied = 0
                while copied < matchLength {
                    UnsafeMutableRawPointer(to + copied).storeBytes(of: UnsafeRawPointer(from + copied).loadUnaligned(as: UInt64.self), as: UInt64.self)
                    copied += 8
                }
            } else {
                for j in 0..<matchLength { to[j] = from.pointee; from += 1 }
            }
            out += matchLength
        }
        guard reader.bitsLeft == 0 else { throw _DecodeFailure("sequence bitstream length does not match its sequences") }
        repeatOffsets = (rep1, rep2, rep3)
        writePosition = out
        try emitLiterals(literals + literal, count: literalCount - literal)
    }

    /// Appends the literals no sequence used.
    func emitLiterals(_ literals: UnsafePointer<UInt8>, count: Int) throws(_DecodeFailure) {
        guard count <= blockLimit - writePosition else { throw _DecodeFailure("block decodes to more than its maximum size") }
        (window + writePosition).update(from: literals, count: count)
        writePosition += count
    }
}
