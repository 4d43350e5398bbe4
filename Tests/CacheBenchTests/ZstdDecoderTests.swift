@testable import CacheBench
import Foundation
import Testing

/// Decodes `bytes` with ``ZstdDecoder`` directly, handing the compressed input over in
/// `readSize`-byte reads; returns the output or the error.
func zstdDecode(_ bytes: [UInt8], readSize: Int = .max) -> Result<[UInt8], TraceError> {
    let decoder = ZstdDecoder(source: ByteSource(bytes: bytes, name: "in.zst", readSize: readSize))
    var output: [UInt8] = []
    let chunk = UnsafeMutableRawBufferPointer.allocate(byteCount: 65536, alignment: 1)
    defer { chunk.deallocate() }
    do throws(TraceError) {
        while true {
            let n = try decoder.read(into: chunk.baseAddress.unsafelyUnwrapped, count: chunk.count)
            if n == 0 { return .success(output) }
            output += chunk.prefix(n)
        }
    } catch {
        return .failure(error)
    }
}

enum Fixture {
    static func bytes(_ path: String) throws -> [UInt8] {
        [UInt8](try Data(contentsOf: Repository.root.appendingPathComponent(path)))
    }

    static func zstd(_ name: String) throws -> [UInt8] { try bytes("Tests/Fixtures/zstd/\(name)") }

    /// The first `count` bytes of a bundled trace.
    static func tracePrefix(_ name: String, _ count: Int) throws -> [UInt8] { Array(try bytes("Traces/\(name)").prefix(count)) }
}

@Suite("zstd decoder")
struct ZstdDecoderTests {
    @Test("XXH64 matches the published vectors, fed whole and in pieces")
    func xxhash() {
        func hash(_ text: String, pieces: Int = 1) -> UInt64 {
            var h = _XXHash64()
            let bytes = Array(text.utf8)
            let step = max(1, bytes.count / pieces)
            var at = 0
            while at < bytes.count {
                let n = min(step, bytes.count - at)
                bytes.withUnsafeBytes { h.update($0.baseAddress.unsafelyUnwrapped + at, count: n) }
                at += n
            }
            return h.digest()
        }
        #expect(hash("") == 0xEF46_DB37_51D8_E999)
        #expect(hash("a") == 0xD24E_C4F1_A98C_6E5B)
        #expect(hash("abc") == 0x44BC_2CF5_AD77_0999)
        let long = String(repeating: "The quick brown fox jumps over the lazy dog. ", count: 9)
        #expect(hash(long, pieces: 1) == hash(long, pieces: 7))
        #expect(hash(long, pieces: 1) == hash(long, pieces: 100))
    }

    /// Fixtures made by the reference `zstd` 1.5 CLI from prefixes of bundled traces.
    static let fixtures: [(file: String, trace: String, bytes: Int)] = [
        ("og192k-level3.zst", "cloudPhysicsIO.oracleGeneral.bin", 196_608),   // two blocks, checksum
        ("og48k-level19.zst", "cloudPhysicsIO.oracleGeneral.bin", 49152),     // -19
        ("og48k-nocheck.zst", "cloudPhysicsIO.oracleGeneral.bin", 49152),     // -1 --no-check
        ("ps30k-level22.zst", "lirs-ps.csv", 30000),                          // --ultra -22
        ("ps30k-fast5.zst", "lirs-ps.csv", 30000),                            // --fast=5
        // a skippable frame, a 12000-byte frame, an empty frame, then the rest in a frame without checksum
        ("ps30k-frames.zst", "lirs-ps.csv", 30000),
    ]

    @Test("decodes the reference tool's output byte for byte", arguments: fixtures.indices)
    func fixture(_ index: Int) throws {
        let (file, trace, count) = Self.fixtures[index]
        let expected = try Fixture.tracePrefix(trace, count)
        let compressed = try Fixture.zstd(file)
        #expect(try zstdDecode(compressed).get() == expected)
        // Short reads of the compressed input change nothing.
        #expect(try zstdDecode(compressed, readSize: 7).get() == expected)
    }
}
