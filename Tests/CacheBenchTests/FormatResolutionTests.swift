import Foundation
import Testing
import TestSupport
@testable import CacheBench

/// Where issue 14's detection table meets issue 17's formats: the content decides, a signature
/// outranks a binary name, a name settles only what the content leaves open, a name that
/// contradicts the content is an error saying what was found, and compressed files are decoded
/// with their name counted without `.zst`/`.gz`.
@Suite("Format resolution: content, names and containers")
struct FormatResolutionTests {
    static func failure(_ bytes: Data, suffix: String, format: TraceFormat = .auto) throws -> TraceError? {
        let path = try temporaryFile(bytes, suffix: suffix)
        defer { try? FileManager.default.removeItem(atPath: path) }
        do { _ = try readTrace(path, format: format) } catch let error as TraceError { return error }
        return nil
    }

    static func read(_ bytes: Data, suffix: String) throws -> [Request] {
        let path = try temporaryFile(bytes, suffix: suffix)
        defer { try? FileManager.default.removeItem(atPath: path) }
        return try readTrace(path)
    }

    @Test("lcs's magic outranks a binary name (.bin, .twr); a text name on it is a contradiction")
    func signatureAgainstNames() throws {
        let lcs = Data(ReaderFormatTests.lcs(version: 3, statedRequests: 4, records: ReaderFormatTests.records))
        for suffix in [".bin", ".twr", ".lcs", ""] {
            #expect(try Self.read(lcs, suffix: suffix).map(\.key) == [10, 11, 10, 12], "\(suffix)")
        }
        let named = try Self.failure(lcs, suffix: ".csv")
        #expect(named?.offset == 0 && named?.reason.contains("the name says CSV text but the content is lcs binary") == true)
        let vscsi = try Data(contentsOf: URL(fileURLWithPath: Repository.trace("cloudPhysicsIO-2k.vscsi")))
        #expect(try Self.read(vscsi, suffix: ".bin").map(\.key) == (try readTrace(Repository.trace("cloudPhysicsIO-2k.vscsi"))).map(\.key))
        // A compression name is contradicted by plain records, signed or not, as oracleGeneral is.
        for (content, label) in [(lcs, "lcs binary"), (vscsi, "vscsi binary")] {
            for suffix in [".zst", ".gz", ".csv.zst", ".bin.gz"] {
                let error = try Self.failure(content, suffix: suffix)
                #expect(error?.offset == 0 && error?.reason.contains("the name says") == true
                        && error?.reason.contains("but the content is \(label)") == true, "\(suffix): \(String(describing: error))")
            }
        }
    }

    @Test("a name chooses Twitter's unsigned records, but never on text")
    func nameOnlyFormats() throws {
        let text = Data("timestamp,key,size\n1,2,3\n".utf8)
        let error = try Self.failure(text, suffix: ".twr")
        #expect(error?.reason.contains("the name says twr binary but the content is CSV text") == true)
        // Without a name, unsigned binary that fits no format is unrecognised, not guessed as Twitter's.
        let unknown = try Self.failure(Data([UInt8](repeating: 0xFE, count: 2) + [UInt8](repeating: 0, count: 38)), suffix: "")
        #expect(unknown?.reason.contains("unrecognised binary content") == true)
    }

    /// `count` Twitter binary records (twr, or twrNS with `namespace`): times that never
    /// decrease, memcached's operation codes, random keys and sizes.
    static func twitterRecords(_ count: Int, namespace: Bool, seed: UInt64) -> Data {
        var random = SeededRandom(seed: seed)
        var bytes: [UInt8] = []
        func put<T: FixedWidthInteger>(_ v: T) { withUnsafeBytes(of: v.littleEndian) { bytes += $0 } }
        for row in 0..<count {
            put(UInt32(row / 4)); put(random.next() % 1000)
            put(UInt32(1 + random.next() % 200) << 22 | UInt32(random.next() % 100_000))
            put(UInt32(1 + random.next() % 11) << 24 | UInt32(random.next() % 3600))
            if namespace { put(UInt16(random.next() % 8)) }
        }
        return Data(bytes)
    }

    /// `data` (at most 128 KiB) in a zstd frame of one raw block (RFC 8878 §3.1.1): the
    /// container the content must be found inside.
    static func zstdCompressed(_ data: Data) -> Data {
        precondition(data.count < 1 << 17)
        let blockHeader = UInt32(1 | data.count << 3)   // last block, raw, its size
        return Data([0x28, 0xB5, 0x2F, 0xFD, 0x00, 0x50]    // magic; no flags; a 1 MiB window
                    + [UInt8(blockHeader & 0xFF), UInt8(blockHeader >> 8 & 0xFF), UInt8(blockHeader >> 16)]) + data
    }

    @Test("Twitter's binary records are told by their structure, without a name; oracleGeneral stays oracleGeneral")
    func twitterByContent() throws {
        for namespace in [false, true] {
            let records = Self.twitterRecords(600, namespace: namespace, seed: namespace ? 2 : 1)
            let named = try Self.read(records, suffix: namespace ? ".twrNS" : ".twr")
            #expect(named.count == 600)
            for suffix in ["", ".dat", ".zst"] {
                let data = suffix == ".zst" ? Self.zstdCompressed(records) : records
                #expect(try Self.read(data, suffix: suffix) == named, "\(namespace) \(suffix)")
            }
        }
        // `.sbin` (libCacheSim's name for twr) is twr, not oracleGeneral's `.bin`.
        let twr = Self.twitterRecords(3, namespace: false, seed: 3)
        #expect(try Self.read(twr, suffix: ".sbin") == (try Self.read(twr, suffix: ".twr")))
        // Every bundled oracleGeneral trace is still read as oracleGeneral without its name.
        let oracle = try Data(contentsOf: URL(fileURLWithPath: Repository.trace("cloudPhysicsIO.oracleGeneral.bin")))
        #expect(try Self.read(oracle, suffix: "") == (try readTrace(Repository.trace("cloudPhysicsIO.oracleGeneral.bin"))))
        #expect(TraceFormatDetection.twitterRecordsFit(Array(oracle.prefix(8192)), recordSize: 20) == .no)
        #expect(TraceFormatDetection.twitterRecordsFit(Array(oracle.prefix(8192)), recordSize: 22) == .no)
    }

    @Test("oracleGeneral records are known by content whether next-access indices count from 1 (traceConv) or from 0")
    func nextAccessFromZeroOrOne() throws {
        // Keys 1, 1, 2, 1: each record's next access, counted both ways, and -1 or INT64_MAX for none.
        func records(nextAccess: [Int64]) -> Data {
            var data = Data()
            for (index, (key, next)) in zip([UInt64(1), 1, 2, 1], nextAccess).enumerated() {
                withUnsafeBytes(of: UInt32(index).littleEndian) { data.append(contentsOf: $0) }
                withUnsafeBytes(of: key.littleEndian) { data.append(contentsOf: $0) }
                withUnsafeBytes(of: UInt32(100).littleEndian) { data.append(contentsOf: $0) }
                withUnsafeBytes(of: next.littleEndian) { data.append(contentsOf: $0) }
            }
            return data
        }
        let fromOne = try Self.read(records(nextAccess: [2, 4, -1, -1]), suffix: "")
        let fromZero = try Self.read(records(nextAccess: [1, 3, Int64.max, -1]), suffix: "")
        #expect(fromOne.map(\.key) == [1, 1, 2, 1] && fromZero.map(\.key) == fromOne.map(\.key))
        // A next access at or before the record itself is not oracleGeneral's.
        #expect(try Self.failure(records(nextAccess: [0, 4, -1, -1]), suffix: "") != nil)
    }

    @Test("a Twitter name on content that contradicts it is an error, not a silent misreading")
    func twitterNameContradicted() throws {
        // oracleGeneral records named twr or sbin (plain or compressed), and each Twitter layout
        // named as the other, with a length both record sizes divide (220 bytes a unit).
        let oracle = try Data(contentsOf: URL(fileURLWithPath: Repository.trace("cloudPhysicsIO.oracleGeneral.bin"))).prefix(24 * 2200)
        for (data, suffix) in [(Data(oracle), ".twr"), (Data(oracle), ".sbin"), (Self.zstdCompressed(Data(oracle.prefix(24 * 1000))), ".twr.zst")] {
            let error = try Self.failure(data, suffix: suffix)
            #expect(error?.reason.contains("but the content is oracleGeneral binary") == true, "\(suffix): \(String(describing: error))")
        }
        let twr = Self.twitterRecords(2200, namespace: false, seed: 5)
        let twrNS = Self.twitterRecords(2000, namespace: true, seed: 6)
        #expect(twr.count % 22 == 0 && twrNS.count % 20 == 0)
        let asNS = try Self.failure(twr, suffix: ".twrNS")
        #expect(asNS?.reason.contains("the name says twrNS binary but the content is twr binary") == true, "\(String(describing: asNS))")
        let asTwr = try Self.failure(twrNS, suffix: ".twr")
        #expect(asTwr?.reason.contains("the name says twr binary but the content is twrNS binary") == true, "\(String(describing: asTwr))")
    }

    /// Six binary bytes fit no layout (an oracleGeneral record is 24): named CSV, or read as CSV
    /// on request, they are not called oracleGeneral; named as nothing, the oracleGeneral reader
    /// says the record is cut short.
    @Test("vscsi's two version bytes alone do not make binary data a vscsi trace; its records must confirm them, unless a name or the format says vscsi")
    func vscsiNeedsItsRecords() throws {
        // Random bytes (no SCSI commands, version bytes nowhere else) with the version 1 byte at
        // 15 and 47, where libCacheSim's reader looks: replayed before as 2,000 garbage requests.
        var generator = SeededRandom(seed: 1)
        var bytes = (0..<64_000).map { _ in UInt8.random(in: 0...255, using: &generator) }
        bytes[15] = 1
        bytes[47] = 1
        if bytes.count % 24 == 0 { bytes.append(0) }   // and no whole oracleGeneral records
        let unnamed = try Self.failure(Data(bytes), suffix: "")
        #expect(unnamed?.reason.contains("unrecognised binary content") == true, "\(String(describing: unnamed))")
        // The real sample, with no name, is still vscsi: every record has its version and commands.
        let sample = try Data(contentsOf: URL(fileURLWithPath: Repository.trace("cloudPhysicsIO-2k.vscsi")))
        #expect(try Self.read(sample, suffix: "").count == 2_000)
        // Named, the weak signature is read as the name says (its reader judges the records).
        #expect(TraceFormatDetection.vscsiRecordsFit(bytes) == .possible)
        #expect(TraceFormatDetection.detect(bytes) == nil)
        // A confirmed vscsi file forced to oracleGeneral is refused, as oracleGeneral forced to
        // vscsi is (it read 1,500 records of garbage with exit 0).
        let forced = try Self.failure(sample, suffix: "", format: .oracleGeneral)
        #expect(forced?.reason.contains("read as oracleGeneral binary as asked, but the content is vscsi binary") == true,
                "\(String(describing: forced))")
    }

    @Test("binary content shorter than a record is not named as a format")
    func shortBinaryContent() throws {
        let six = Data([1, 0, 0, 0, 5, 0])
        let named = try Self.failure(six, suffix: ".csv")
        #expect(named?.reason.contains("the name says CSV text but the content is binary data of no known layout") == true,
                "\(String(describing: named))")
        let asked = try Self.failure(six, suffix: "", format: .csv)
        #expect(asked?.reason.contains("read as CSV text as asked, but the content is binary data of no known layout") == true,
                "\(String(describing: asked))")
        let plain = try Self.failure(six, suffix: ".bin")
        #expect(plain?.offset == 0 && plain?.reason.contains("truncated record: 6 of 24 bytes") == true, "\(String(describing: plain))")
    }

    @Test("a text suffix outranks a binary format named inside the name: X.oracleGeneral.csv is CSV")
    func textSuffixFirst() throws {
        let text = Data("timestamp,key,size\n1,2,3\n2,3,4\n".utf8)
        for suffix in [".oracleGeneral.csv", "-twrNS.csv", ".oracleGeneral.txt"] {
            #expect(try Self.read(text, suffix: suffix).map(\.key) == [2, 3], "\(suffix)")
        }
        #expect(try Self.read(Self.zstdCompressed(text), suffix: ".oracleGeneral.csv.zst").map(\.key) == [2, 3])
    }

    @Test("a Twitter file whose records do not show their structure is still read as its name says")
    func twitterByNameStill() throws {
        // Times out of order and an operation code 0: not Twitter's structure, but the name says so.
        var records = [UInt8](Self.twitterRecords(10, namespace: false, seed: 4))
        records[0] = 0xFF
        records[19] = 0
        #expect(try Self.read(Data(records), suffix: ".twr").count == 10)
        #expect(TraceFormatDetection.twitterRecordsFit(records, recordSize: 20) == .possible)
    }

    @Test("compressed files: decoded whatever the name; inside, the name without .zst must fit the content")
    func containers() throws {
        let zstd = try Data(contentsOf: Repository.root.appendingPathComponent("Tests/Fixtures/zstd/og48k-level19.zst"))
        let plain = try Data(contentsOf: URL(fileURLWithPath: Repository.trace("cloudPhysicsIO.oracleGeneral.bin"))).prefix(49152)
        let expected = try Self.read(Data(plain), suffix: ".bin").map(\.key)
        #expect(expected.count == 2048)
        for suffix in [".zst", ".oracleGeneral.bin.zst", ".bin", ""] {
            #expect(try Self.read(zstd, suffix: suffix).map(\.key) == expected, "\(suffix)")
        }
        let inner = try Self.failure(zstd, suffix: ".csv.zst")
        #expect(inner?.reason.contains("the name says CSV text but the content is oracleGeneral binary") == true)
        let outer = try Self.failure(zstd, suffix: ".gz")
        #expect(outer?.reason.contains("the name says gzip-compressed but the content is zstd-compressed") == true)
        // --trace-format names what the container holds.
        let asked = try Self.failure(zstd, suffix: ".zst", format: .csv)
        #expect(asked?.reason.contains("read as CSV text as asked, but the content is oracleGeneral binary") == true)
    }

    @Test("offsets name what they count: decoded bytes inside a compressed trace, a gzip trailer's own fields")
    func offsetsInContainers() throws {
        let oracle = try Data(contentsOf: URL(fileURLWithPath: Repository.trace("cloudPhysicsIO.oracleGeneral.bin"))).prefix(24 * 100 - 5)
        let plain = try Self.failure(Data(oracle), suffix: ".bin")
        #expect(plain?.offset == 24 * 99 && plain?.offsetIsDecompressed == false && plain?.description.contains("byte 2376: truncated") == true)
        let packed = try Self.failure(Self.zstdCompressed(Data(oracle)), suffix: ".zst")
        #expect(packed?.offset == 24 * 99 && packed?.offsetIsDecompressed == true, "\(String(describing: packed))")
        #expect(packed?.description.contains("byte 2376 of the decompressed data: truncated record") == true)

        let gzip = try Data(contentsOf: Repository.root.appendingPathComponent("Tests/Fixtures/gzip/ps30k-level9.gz"))
        for (field, at) in [("CRC-32", gzip.count - 8), ("decodes to", gzip.count - 4)] {
            var damaged = gzip
            damaged[at] ^= 0x01
            let error = try Self.failure(damaged, suffix: ".gz")
            #expect(error?.offset == at && error?.offsetIsDecompressed == false && error?.reason.contains(field) == true,
                    "\(field): \(String(describing: error))")
        }
        var trailing = gzip
        trailing.append(contentsOf: [0, 0, 0, 0x78])
        let junk = try Self.failure(trailing, suffix: ".gz")
        #expect(junk?.offset == gzip.count + 3 && junk?.reason.contains("(offset") == false, "\(String(describing: junk))")
    }
}
