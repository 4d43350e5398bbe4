@testable import CacheBench
import EvictionPolicies
import TestSupport
import Testing

/// Seeded mutation fuzzing of both trace readers: 10^5 inputs derived from valid traces by byte
/// flips, insertions of delimiters and special bytes, deletions, duplications and truncations.
/// Every input must either decode or fail with a ``TraceError`` naming a line or offset; none may
/// crash, hang or corrupt the policy it is replayed into.
@Suite("Reader fuzzing")
struct ReaderFuzzTests {
    static let seeds: [[UInt8]] = [
        Array("timestamp,key,size\n1,2,3\n2,3,4\n3,2,3\n".utf8),
        Array("timestamp,key,size,op\n1,a,10,get\n2,b,20,set\n3,a,0,delete\n4,,,memory-warning\n5,,,tick\n".utf8),
        Array("time\tkey\tsize\n1.5\t\"x,y\"\t7\r\n2.25\t\"q\"\"r\"\t9\r\n".utf8),
        Array("5\n6\n5\n# comment\n\n7".utf8),
        Array("version,time,op,size,lbn\n1,100,read,4096,77\n1,101,write,512,78\n".utf8),
    ]

    /// Bytes that make parsers take unusual paths.
    static let special: [UInt8] = Array(",\t\"\n\r#-.0123456789eE+ ".utf8) + [0, 0x7F, 0x80, 0xBF, 0xC3, 0xE2, 0xF0, 0xFF]

    static func mutate(_ input: [UInt8], _ rng: inout SeededRandom) -> [UInt8] {
        var bytes = input
        for _ in 0..<Int.random(in: 1...4, using: &rng) {
            let position = bytes.isEmpty ? 0 : Int.random(in: 0..<bytes.count, using: &rng)
            switch Int.random(in: 0..<7, using: &rng) {
            case 0 where !bytes.isEmpty: bytes[position] = UInt8.random(in: 0...255, using: &rng)
            case 1: bytes.insert(special.randomElement(using: &rng) ?? 0, at: position)
            case 2 where !bytes.isEmpty:
                bytes.removeSubrange(position..<min(bytes.count, position + Int.random(in: 1...8, using: &rng)))
            case 3 where !bytes.isEmpty:
                let end = min(bytes.count, position + Int.random(in: 1...32, using: &rng))
                bytes.insert(contentsOf: bytes[position..<end], at: position)
            case 4: bytes = Array(bytes.prefix(position))
            case 5: bytes.insert(contentsOf: Array(String(UInt64.random(in: 0...UInt64.max, using: &rng)).utf8), at: position)
            default: bytes.append(special.randomElement(using: &rng) ?? 0)
            }
        }
        return bytes
    }

    /// Decodes `bytes` completely and replays them into an LRU cache; returns whether it decoded.
    @discardableResult
    static func exercise(_ bytes: [UInt8], binary: Bool, columns: CSVColumns?) -> Bool {
        // Short reads of a few bytes exercise every partial-line and partial-record path.
        let source = ByteSource(bytes: bytes, name: "fuzz", readSize: bytes.count % 7 + 1)
        var reader: any TraceReader = binary ? OracleGeneralReader(source: source, recordsPerChunk: 4)
                                             : CSVTraceReader(source: source, columns: columns)
        var replayer: Replayer<LRUCache<UInt64, Void>>
        do { replayer = try Replayer(limits: CacheLimits(capacity: 1 << 20), options: PolicyOptions(), ignoreSize: false) } catch {
            Issue.record("configuration")
            return false
        }
        var batch: [Request] = []
        do {
            while try reader.nextBatch(&batch) {
                for request in batch {
                    #expect(request.size >= 0 && request.size <= 1 << 53)
                    #expect(request.time.isFinite)
                }
                replayer.apply(batch)
            }
        } catch {
            #expect(error.line != nil || error.offset != nil || error.reason.contains("no rows"), "\(error)")
            return false
        }
        #expect(replayer.policy.totalCost <= 1 << 20)
        return true
    }

    @Test("10^5 mutated CSV and binary inputs: no crash, every failure is a located TraceError")
    func mutations() throws {
        var rng = SeededRandom(seed: 2026)
        var decoded = 0
        var binarySeed: [UInt8] = []
        for i in 0..<6 {
            binarySeed += withUnsafeBytes(of: UInt32(i).littleEndian, Array.init)
            binarySeed += withUnsafeBytes(of: UInt64(i % 3).littleEndian, Array.init)
            binarySeed += withUnsafeBytes(of: UInt32(100 * i).littleEndian, Array.init)
            binarySeed += withUnsafeBytes(of: Int64(i + 4).littleEndian, Array.init)
        }
        let columnChoices: [CSVColumns?] = [nil, CSVColumns(time: 0, key: 1, size: 2, operation: 3), CSVColumns(time: nil, key: 0, size: nil, operation: nil)]
        for i in 0..<100_000 {
            if i % 5 == 0 {
                if Self.exercise(Self.mutate(binarySeed, &rng), binary: true, columns: nil) { decoded += 1 }
            } else {
                let seed = Self.seeds[i % Self.seeds.count]
                let columns = columnChoices[Int.random(in: 0..<columnChoices.count, using: &rng)]
                if Self.exercise(Self.mutate(seed, &rng), binary: false, columns: columns) { decoded += 1 }
            }
        }
        // Both outcomes must be common, or the mutations are too weak or too destructive.
        #expect(decoded > 10_000 && decoded < 90_000, "\(decoded) of 100000 decoded")
    }

    @Test("6,000 mutated inputs through format detection: a reader or a located error, never a crash")
    func detection() throws {
        var rng = SeededRandom(seed: 14)
        var binarySeed: [UInt8] = []
        for i in 0..<8 {
            binarySeed += withUnsafeBytes(of: UInt32(i).littleEndian, Array.init)
            binarySeed += withUnsafeBytes(of: UInt64(i % 3).littleEndian, Array.init)
            binarySeed += withUnsafeBytes(of: UInt32(100 * i).littleEndian, Array.init)
            binarySeed += withUnsafeBytes(of: Int64(i % 3 == 2 ? -1 : i + 4).littleEndian, Array.init)
        }
        let seeds = Self.seeds + [binarySeed, [0xEF, 0xBB, 0xBF] + Self.seeds[0], [0x28, 0xB5, 0x2F, 0xFD, 1, 2], [0x1F, 0x8B, 8]]
        var kinds: [String: Int] = [:]
        for i in 0..<6_000 {
            let bytes = Self.mutate(seeds[i % seeds.count], &rng)
            let source = ByteSource(bytes: bytes, name: "fuzz", readSize: bytes.count % 5 + 1)
            let prefix = try source.peek(upTo: TraceFormatDetection.prefixLength)
            guard let entry = TraceFormatDetection.detect(prefix) else {
                #expect(!prefix.isEmpty && !TraceFormatDetection.looksLikeText(prefix))
                kinds["unrecognised", default: 0] += 1
                continue
            }
            kinds[entry.name, default: 0] += 1
            do {
                var reader = try entry.open(source, TraceSpec(path: "fuzz"))
                var batch: [Request] = []
                while try reader.nextBatch(&batch) {
                    for request in batch { #expect(request.size >= 0 && request.size <= 1 << 53 && request.time.isFinite) }
                }
            } catch {
                #expect(error.line != nil || error.offset != nil, "\(error)")
            }
        }
        // Every family is reached: text, binary records, compressed and unrecognised data.
        #expect(kinds["CSV text", default: 0] > 1_000 && kinds["oracleGeneral binary", default: 0] > 100, "\(kinds)")
        #expect(kinds["zstd-compressed", default: 0] > 100 && kinds["gzip-compressed", default: 0] > 100, "\(kinds)")
    }

    @Test("wide rows decode the same whatever the read sizes")
    func boundaries() {
        let rows = (0..<50).map { "1,2,3,4,5,6,7,8,9,10,k\($0),\($0 + 1)" }.joined(separator: "\n")
        let wide = Array(("a,b,c,d,e,f,g,h,i,j,key,size\n" + rows).utf8)
        for readSize in [1, 2, 3, 7, 64, 4096] {
            var r = CSVTraceReader(source: ByteSource(bytes: wide, name: "wide", readSize: readSize))
            var batch: [Request] = []
            var rows = 0
            while (try? r.nextBatch(&batch)) == true { rows += batch.count }
            #expect(rows == 50)
        }
    }
}

