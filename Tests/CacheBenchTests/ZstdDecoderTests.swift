@testable import CacheBench
import Foundation
import Testing
import TestSupport

/// Decodes `bytes` with ``ZstdDecoder`` directly, handing the compressed input over in
/// `readSize`-byte reads; returns the output or the error.
func zstdDecode(_ bytes: [UInt8], readSize: Int = .max) -> Result<[UInt8], TraceError> {
    drain(ZstdDecoder(source: ByteSource(bytes: bytes, name: "in.zst", readSize: readSize)))
}

/// Everything `decoder` produces, or its error.
func drain(_ decoder: some DecodedByteStream) -> Result<[UInt8], TraceError> {
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

    static func gzip(_ name: String) throws -> [UInt8] { try bytes("Tests/Fixtures/gzip/\(name)") }

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

@Suite("zstd decoder: corrupt input")
struct ZstdCorruptInputTests {
    static func failure(_ bytes: [UInt8]) -> TraceError? {
        if case .failure(let error) = zstdDecode(bytes) { return error }
        return nil
    }

    @Test("a file cut anywhere fails with the offset of the part cut short")
    func truncated() throws {
        let whole = try Fixture.zstd("og48k-level19.zst")
        for cut in [1, 4, 5, 8, 100, whole.count / 2, whole.count - 4, whole.count - 1] {
            let error = try #require(Self.failure(Array(whole.prefix(cut))), "cut at \(cut)")
            #expect(error.kind == .malformed)
            #expect(error.reason.contains("truncated"), "\(error)")
            #expect((error.offset ?? -1) <= cut)
        }
    }

    @Test("a wrong content checksum is reported at the checksum's offset")
    func badChecksum() throws {
        var bytes = try Fixture.zstd("og48k-level19.zst")
        bytes[bytes.count - 2] ^= 0x40
        let error = try #require(Self.failure(bytes))
        #expect(error.offset == bytes.count - 4)
        #expect(error.reason.contains("checksum"))
    }

    @Test("flipped bits never crash, and never pass a checksummed frame with different content")
    func flippedBits() throws {
        let bytes = try Fixture.zstd("ps30k-level22.zst")
        let expected = try Fixture.tracePrefix("lirs-ps.csv", 30000)
        var rng = SeededRandom(seed: 17)
        var rejected = 0
        for _ in 0..<300 {
            var corrupt = bytes
            for _ in 0..<Int.random(in: 1...3, using: &rng) {
                corrupt[Int.random(in: 0..<corrupt.count, using: &rng)] ^= 1 << UInt8.random(in: 0...7, using: &rng)
            }
            switch zstdDecode(corrupt) {
            case .success(let output): #expect(output == expected)
            case .failure(let error):
                #expect(error.kind == .malformed)
                #expect(error.offset != nil)
                rejected += 1
            }
        }
        #expect(rejected > 250)
    }

    @Test("bytes after the last frame that are not a frame are an error, not ignored")
    func trailingGarbage() throws {
        let bytes = try Fixture.zstd("og48k-nocheck.zst")
        let error = try #require(Self.failure(bytes + Array("garbage".utf8)))
        #expect(error.offset == bytes.count)
        #expect(error.reason.contains("not a zstd frame"))
    }

    @Test("header limits: windows above 128 MiB, dictionaries, reserved bits, reserved block types")
    func headerLimits() throws {
        let magic: [UInt8] = [0x28, 0xB5, 0x2F, 0xFD]
        // Window descriptor exponent 18: 2^28 bytes.
        #expect(Self.failure(magic + [0x00, 18 << 3, 0x01, 0x00, 0x00])?.reason.contains("128 MiB") == true)
        #expect(Self.failure(magic + [0x01, 0x50, 0x07, 0x01, 0x00, 0x00])?.reason.contains("dictionary") == true)
        #expect(Self.failure(magic + [0x08, 0x50, 0x01, 0x00, 0x00])?.reason.contains("reserved") == true)
        #expect(Self.failure(magic + [0x00, 0x50, 0x07, 0x00, 0x00])?.reason.contains("reserved block type") == true)
        #expect(Self.failure([])?.reason.contains("empty") == true)
        // A 1 KiB window and a content size of 256, then a last raw block of 300 bytes.
        let long = magic + [0x40, 0x00, 0x00, 0x00, 0x61, 0x09, 0x00] + [UInt8](repeating: 7, count: 300)
        #expect(Self.failure(long)?.reason.contains("declared 256") == true)
        // The block may not exceed a window smaller than 128 KiB.
        #expect(Self.failure(magic + [0x20, 0x02, 0x19, 0x00, 0x00, 1, 2, 3])?.reason.contains("exceeds 2") == true)
    }

    @Test("hand-made frames: raw, RLE and an empty last block; a skippable frame alone decodes to nothing")
    func handMade() throws {
        let magic: [UInt8] = [0x28, 0xB5, 0x2F, 0xFD]
        // Single segment, 1-byte content size 7: a raw block "abc" then a last RLE block of four "z".
        let frame = magic + [0x20, 0x07, 0x18, 0x00, 0x00] + Array("abc".utf8) + [0x23, 0x00, 0x00, UInt8(ascii: "z")]
        #expect(try zstdDecode(frame).get() == Array("abczzzz".utf8))
        #expect(try zstdDecode(frame + frame).get() == Array("abczzzzabczzzz".utf8))
        let skippable: [UInt8] = [0x5F, 0x2A, 0x4D, 0x18, 2, 0, 0, 0, 9, 9]
        #expect(try zstdDecode(skippable).get() == [])
        #expect(try zstdDecode(skippable + frame + skippable).get() == Array("abczzzz".utf8))
        #expect(Self.failure(Array(skippable.dropLast()))?.reason.contains("truncated skippable") == true)
    }
}

@Suite("zstd decoder against the reference CLI")
struct ZstdReferenceRoundTripTests {
    static let zstd = tool("zstd")

    /// The reference tool called `name`, when installed.
    static func tool(_ name: String) -> String? {
        ["/usr/bin/", "/usr/local/bin/", "/bin/"].map { $0 + name }.first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    /// Runs `tool -q -c OPTIONS FILE` on a temporary file holding `input`; returns its output.
    static func compress(_ input: [UInt8], _ options: [String], tool: String? = zstd) throws -> [UInt8] {
        let source = try temporaryFile(Data(input), suffix: ".raw")
        defer { try? FileManager.default.removeItem(atPath: source) }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: tool ?? "zstd")
        process.arguments = ["-q", "-c"] + options + [source]
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return [UInt8](data)
    }

    /// Inputs that exercise different paths: incompressible bytes (raw blocks and literals),
    /// long runs (RLE), text, and oracleGeneral-like records (many matches and repeat offsets).
    static func input(_ kind: Int, count: Int, _ rng: inout SeededRandom) -> [UInt8] {
        switch kind {
        case 0: return (0..<count).map { _ in UInt8.random(in: 0...255, using: &rng) }
        case 1: return (0..<count).map { i in UInt8((i / Int.random(in: 50...5000, using: &rng)) % 3) }
        case 2:
            let words = ["get", "set", "delete", "image", "feed", "0", "42", "\n", ",", "cache"]
            var text: [UInt8] = []
            while text.count < count { text += Array((words.randomElement(using: &rng) ?? "").utf8) }
            return text
        default:
            var records: [UInt8] = []
            var time: UInt32 = 0
            while records.count < count {
                time += UInt32.random(in: 0...2, using: &rng)
                let key = UInt64.random(in: 0..<UInt64(max(1, count / 200)), using: &rng)
                records += withUnsafeBytes(of: time.littleEndian, Array.init)
                records += withUnsafeBytes(of: key.littleEndian, Array.init)
                records += withUnsafeBytes(of: UInt32(key % 7 * 512).littleEndian, Array.init)
                records += withUnsafeBytes(of: Int64(-1).littleEndian, Array.init)
            }
            return records
        }
    }

    @Test("random inputs at random levels and options decode byte for byte",
          .enabled(if: zstd != nil, "the reference zstd CLI is not installed"))
    func roundTrip() throws {
        var rng = SeededRandom(seed: 8878)
        let optionChoices: [[String]] = [["-1"], ["-3"], ["-9"], ["-19"], ["--fast=3"], ["-6", "--no-check"],
                                         ["-3", "--long=27"], ["-12", "--no-content-size"], ["--ultra", "-22"],
                                         ["-5", "--block-size=4096"]]
        for round in 0..<24 {
            let kind = round % 4
            let count = [0, 1, 100, 5000, 70000, 300_000][Int.random(in: 0..<6, using: &rng)]
            let input = Self.input(kind, count: count, &rng)
            let options = optionChoices[Int.random(in: 0..<optionChoices.count, using: &rng)]
            let compressed = try Self.compress(input, options)
            let decoded = zstdDecode(compressed, readSize: Int.random(in: 1...100_000, using: &rng))
            #expect((try? decoded.get()) == input, "round \(round): kind \(kind), \(count) bytes, \(options): \(decoded)")
        }
    }
}
