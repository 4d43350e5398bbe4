@testable import CacheBench
import Foundation
import Testing
import TestSupport

func gzipDecode(_ bytes: [UInt8], readSize: Int = .max) -> Result<[UInt8], TraceError> {
    drain(GzipDecoder(source: ByteSource(bytes: bytes, name: "in.gz", readSize: readSize)))
}

@Suite("gzip decoder")
struct GzipDecoderTests {
    @Test("CRC-32 matches the check value and is the same fed in pieces")
    func crc() {
        func crc(_ bytes: [UInt8], step: Int) -> UInt32 {
            var c = _CRC32()
            var at = 0
            while at < bytes.count {
                let n = min(step, bytes.count - at)
                bytes.withUnsafeBufferPointer { c.update($0.baseAddress.unsafelyUnwrapped + at, count: n) }
                at += n
            }
            return c.value
        }
        #expect(crc(Array("123456789".utf8), step: 100) == 0xCBF4_3926)
        #expect(crc([], step: 1) == 0)
        let long = (0..<1000).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        #expect(crc(long, step: 1000) == crc(long, step: 3))
    }

    @Test("decodes gzip -9 output, and stored, fixed and dynamic blocks across members with every header field")
    func fixtures() throws {
        let expected = try Fixture.tracePrefix("lirs-ps.csv", 30000)
        // gzip -9 -n of the first 30000 bytes of lirs-ps.csv.
        #expect(try gzipDecode(try Fixture.gzip("ps30k-level9.gz")).get() == expected)
        // Three members: stored blocks (zlib level 0); 100 bytes in a fixed-Huffman block under a
        // header with FEXTRA, FNAME, FCOMMENT and FHCRC; the rest at level 6; then zero padding.
        let members = try Fixture.gzip("ps-members.gz")
        #expect(try gzipDecode(members).get() == expected)
        #expect(try gzipDecode(members, readSize: 5).get() == expected)
    }

    @Test("corrupt input: cut short, flipped bits, wrong CRC, trailing bytes; never a crash")
    func corrupt() throws {
        let whole = try Fixture.gzip("ps30k-level9.gz")
        let expected = try Fixture.tracePrefix("lirs-ps.csv", 30000)
        for cut in [0, 1, 3, 10, 11, whole.count / 2, whole.count - 8, whole.count - 1] {
            guard case .failure(let error) = gzipDecode(Array(whole.prefix(cut))) else {
                Issue.record("cut at \(cut) decoded")
                continue
            }
            #expect(error.kind == .malformed)
            #expect((error.offset ?? -1) <= cut, "\(error)")
        }
        var badCRC = whole
        badCRC[whole.count - 6] ^= 1
        guard case .failure(let crcError) = gzipDecode(badCRC) else { Issue.record("bad CRC decoded"); return }
        #expect(crcError.reason.contains("CRC-32"))
        guard case .failure(let trailing) = gzipDecode(whole + Array("x".utf8)) else { Issue.record("trailing byte ignored"); return }
        #expect(trailing.reason.contains("not a gzip member"))
        // A header's own CRC (FHCRC): the low 16 bits of the CRC-32 of the bytes before it.
        func crc32(_ bytes: [UInt8]) -> UInt32 {
            var c = _CRC32()
            bytes.withUnsafeBufferPointer { c.update($0.baseAddress.unsafelyUnwrapped, count: $0.count) }
            return c.value
        }
        let header: [UInt8] = [0x1F, 0x8B, 8, 0x02 | 0x08, 0, 0, 0, 0, 0, 3] + Array("a.csv".utf8) + [0]
        let text = Array("1,2,3\n".utf8)
        let body: [UInt8] = [0x01, UInt8(text.count), 0, ~UInt8(text.count), 0xFF] + text   // one stored, final block
            + withUnsafeBytes(of: crc32(text).littleEndian, Array.init) + withUnsafeBytes(of: UInt32(text.count).littleEndian, Array.init)
        let headerCRC = UInt16(truncatingIfNeeded: crc32(header))
        let good = header + withUnsafeBytes(of: headerCRC.littleEndian, Array.init) + body
        #expect(try gzipDecode(good).get() == text)
        let bad = header + withUnsafeBytes(of: (headerCRC ^ 0x0100).littleEndian, Array.init) + body
        guard case .failure(let headerError) = gzipDecode(bad) else { Issue.record("bad header CRC decoded"); return }
        #expect(headerError.reason.contains("header CRC-16"), "\(headerError)")
        var rng = SeededRandom(seed: 1952)
        var rejected = 0
        for _ in 0..<200 {
            var corrupt = whole
            corrupt[Int.random(in: 10..<corrupt.count, using: &rng)] ^= 1 << UInt8.random(in: 0...7, using: &rng)
            switch gzipDecode(corrupt) {
            case .success(let output): #expect(output == expected)
            case .failure: rejected += 1
            }
        }
        #expect(rejected > 150)
    }

    @Test("random inputs through the gzip CLI at every level decode byte for byte",
          .enabled(if: ZstdReferenceRoundTripTests.tool("gzip") != nil, "gzip is not installed"))
    func roundTrip() throws {
        var rng = SeededRandom(seed: 1951)
        for round in 0..<16 {
            let count = [0, 1, 300, 40000, 200_000][Int.random(in: 0..<5, using: &rng)]
            let input = ZstdReferenceRoundTripTests.input(round % 4, count: count, &rng)
            let level = "-\(Int.random(in: 1...9, using: &rng))"
            let compressed = try ZstdReferenceRoundTripTests.compress(input, [level], tool: ZstdReferenceRoundTripTests.tool("gzip"))
            let decoded = gzipDecode(compressed, readSize: Int.random(in: 1...70000, using: &rng))
            #expect((try? decoded.get()) == input, "round \(round): \(count) bytes at \(level): \(decoded)")
        }
    }
}
