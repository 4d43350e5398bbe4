@testable import CacheBench
import Foundation
import Testing
import TestSupport

/// `convert --output-format lcs` and `--sample` against libCacheSim 0.3.5's traceConv
/// (Tests/Fixtures/traceconv/README.md says how each expected file was made).
@Suite("convert to lcs and sampled, as traceConv")
struct TraceConverterLCSTests {
    static func convert(_ trace: String, _ options: TraceConverter.Options) throws -> [UInt8] {
        let output = FileManager.default.temporaryDirectory.appendingPathComponent("cachebench-lcs-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: output) }
        _ = try TraceConverter.convert(TraceSpec(path: trace), to: output, options: options)
        return [UInt8](try Data(contentsOf: URL(fileURLWithPath: output)))
    }

    /// 64-bit FNV-1a, to pin large outputs without committing them.
    static func fnv(_ bytes: some Sequence<UInt8>) -> UInt64 {
        bytes.reduce(0xcbf2_9ce4_8422_2325 as UInt64) { ($0 ^ UInt64($1)) &* 0x100_0000_01b3 }
    }

    /// The header with the entries of its two "most common" lists in a canonical order: entries
    /// of equal share are ordered by traceConv's hash-table iteration, which cachebench does not
    /// reproduce (see ``LCSHeaderStatistics``). Everything else must match byte for byte.
    static func canonicalHeader(_ bytes: [UInt8]) -> [UInt8] {
        var header = Array(bytes.prefix(LCSLayout.headerSize))
        func reorder(values: Int, valueSize: Int, shares: Int) {
            // (share, value) as little-endian numbers; shares are non-negative floats, whose bit
            // patterns order as the floats do.
            func number(_ at: Int, _ size: Int) -> UInt64 {
                (0..<size).reduce(0 as UInt64) { $0 | UInt64(header[at + $1]) << (8 * UInt64($1)) }
            }
            let entries: [(share: UInt64, value: UInt64)] = (0..<16).map { (number(shares + 4 * $0, 4), number(values + valueSize * $0, valueSize)) }
            let sorted = entries.sorted { $0.share != $1.share ? $0.share > $1.share : $0.value < $1.value }
            for (i, entry) in sorted.enumerated() {
                for b in 0..<valueSize { header[values + valueSize * i + b] = UInt8(truncatingIfNeeded: entry.value >> (8 * UInt64(b))) }
                for b in 0..<4 { header[shares + 4 * i + b] = UInt8(truncatingIfNeeded: entry.share >> (8 * UInt64(b))) }
            }
        }
        reorder(values: 16 + 96, valueSize: 8, shares: 16 + 224)
        reorder(values: 16 + 416, valueSize: 4, shares: 16 + 480)
        return header
    }

    @Test("the sampler is XXH3-64 of the id: reference vectors from xxHash's own implementation")
    func xxh3Vectors() {
        let vectors: [(UInt64, UInt64)] = [
            (0, 14_374_147_212_387_527_897), (1, 3_439_722_301_264_460_078), (7, 9_324_454_920_402_081_455),
            (42_932_745, 10_390_747_031_333_332_584), (13_053_225_291_711_363_978, 4_696_000_118_319_764_080),
            (.max, 5_841_669_975_847_748_627),
        ]
        for (id, hash) in vectors { #expect(SpatialSampler.xxh3(id) == hash, "id \(id)") }
    }

    @Test("ratios: 1 keeps all, (0, 0.5] samples, 0, negatives, NaN, above 1 and (0.5, 1) are refused")
    func ratios() throws {
        #expect(try SpatialSampler(ratio: 1).modulus == 1)
        #expect(try SpatialSampler(ratio: 0.5).modulus == 2)
        #expect(try SpatialSampler(ratio: 0.3).modulus == 3)
        #expect(try SpatialSampler(ratio: 1e-300).modulus == 1 << 63)
        for bad in [0, -0.1, 1.5, .nan, .infinity] { #expect(throws: SpatialSampler.Problem.outOfRange) { try SpatialSampler(ratio: bad) } }
        #expect(throws: SpatialSampler.Problem.coarserThanHalf) { try SpatialSampler(ratio: 0.75) }
        // An object's requests are all kept or all dropped; about a tenth of 100k ids are kept at 0.1.
        let sampler = try SpatialSampler(ratio: 0.1)
        let kept = (0..<100_000 as Range<UInt64>).filter { sampler.keeps($0) }.count
        #expect((9_500...10_500).contains(kept))
    }

    @Test("--sample 0.01 to oracleGeneral: byte-identical to traceConv's file")
    func sampledOracleGeneral() throws {
        let ours = try Self.convert(Repository.trace("cloudPhysicsIO.oracleGeneral.bin"), .init(sampler: try SpatialSampler(ratio: 0.01)))
        let theirs = try Fixture.bytes("Tests/Fixtures/traceconv/cloudPhysicsIO-sample0.01.oracleGeneral.bin")
        #expect(ours.count == 984 * 24)
        #expect(ours == theirs)
    }

    @Test("--sample 0.1 to oracleGeneral: traceConv's 10,948 records (pinned by their FNV-1a)")
    func sampledTenth() throws {
        let ours = try Self.convert(Repository.trace("cloudPhysicsIO.oracleGeneral.bin"), .init(sampler: try SpatialSampler(ratio: 0.1)))
        #expect(ours.count == 262_752)
        #expect(Self.fnv(ours) == 0x28a5_e79a_a566_5469)
    }

    @Test("lcs of the whole cloudPhysicsIO trace: traceConv's records and header")
    func lcsWhole() throws {
        let ours = try Self.convert(Repository.trace("cloudPhysicsIO.oracleGeneral.bin"), .init(format: .lcs))
        #expect(ours.count == 8192 + 113_872 * 24)
        #expect(Self.fnv(ours[8192...]) == 0xfef5_2889_608d_e38c)
        let theirs = try Fixture.bytes("Tests/Fixtures/traceconv/cloudPhysicsIO.lcs-header")
        #expect(Self.canonicalHeader(ours) == Self.canonicalHeader(theirs), "header")
    }

    @Test("lcs, sampled: traceConv's file")
    func lcsSampled() throws {
        let ours = try Self.convert(Repository.trace("cloudPhysicsIO.oracleGeneral.bin"), .init(format: .lcs, sampler: try SpatialSampler(ratio: 0.01)))
        let theirs = try Fixture.bytes("Tests/Fixtures/traceconv/cloudPhysicsIO-sample0.01.lcs")
        #expect(ours.count == theirs.count)
        #expect(ours[8192...] == theirs[8192...], "records")
        #expect(Self.canonicalHeader(ours) == Self.canonicalHeader(theirs), "header")
    }

    /// On this trace many sizes are equally common at the 16th place, so traceConv's hash order
    /// also decides which of them make the list; the lists are left out of the comparison.
    @Test("lcs from libCacheSim's CSV sample: traceConv's records and header outside the tied lists")
    func lcsFromCSV() throws {
        let ours = try Self.convert(Repository.trace("twitter_cluster52-1500.csv"), .init(format: .lcs))
        let theirs = try Fixture.bytes("Tests/Fixtures/traceconv/twitter_cluster52-1500.lcs")
        #expect(ours.count == theirs.count)
        #expect(ours[8192...] == theirs[8192...], "records")
        let lists = [16 + 96 ..< 16 + 288, 16 + 416 ..< 16 + 544]
        let outside = (0..<8192).filter { at in !lists.contains { $0.contains(at) } }
        #expect(outside.map { ours[$0] } == outside.map { theirs[$0] }, "header")
        // The entries above the first tie are the same: the 4 most common sizes, the 5 most common counts.
        #expect(ours[16 + 96 ..< 16 + 96 + 32] == theirs[16 + 96 ..< 16 + 96 + 32])
        #expect(ours[16 + 416 ..< 16 + 416 + 20] == theirs[16 + 416 ..< 16 + 416 + 20])
    }

    /// traceConv 0.3.5 on this CSV with `-f lcs --remove-size-change`: records (1,7,130,3),
    /// (2,8,50,never), (3,7,130,4), (4,7,130,never), (6,9,10,never); header n_req 5, n_obj 3,
    /// bytes 450 and 190, times 1 and 6, sizes 10..130, highest counts 3, 1 and counts 1 (0.6667)
    /// and 3 (0.3333), Zipf alpha 1.0629899530962323.
    @Test("hand-worked: lcs keeps an object's last size with --remove-size-change, as traceConv")
    func lcsHandWorked() throws {
        let path = try temporaryFile("time,key,size\n1,7,100\n2,8,50\n3,7,120\n4,7,130\n5,8,0\n6,9,10\n")
        let bytes = try Self.convert(path, .init(removeSizeChange: true, format: .lcs))
        let records = stride(from: 8192, to: bytes.count, by: 24).map { at in
            bytes.withUnsafeBytes { raw in
                let r = UnsafeRawPointer(raw.baseAddress.unsafelyUnwrapped) + at
                return [Int64(r._le(0, as: UInt32.self)), Int64(r._le(4, as: UInt64.self)), Int64(r._le(12, as: UInt32.self)), r._le(16, as: Int64.self)]
            }
        }
        #expect(records == [[1, 7, 130, 3], [2, 8, 50, .max], [3, 7, 130, 4], [4, 7, 130, .max], [6, 9, 10, .max]])
        let field = { (offset: Int) in bytes.withUnsafeBytes { UnsafeRawPointer($0.baseAddress.unsafelyUnwrapped)._le(16 + offset, as: Int64.self) } }
        #expect((0..<12).map { field(8 * $0) } == [1, 5, 3, 450, 190, 1, 6, 0, 0, 0, 10, 130])
        #expect(Set((0..<3).map { field(96 + 8 * $0) }) == [10, 50, 130])
        #expect(field(288) == 3 && field(296) == 1)
        #expect(Double(bitPattern: UInt64(bitPattern: field(544))) == 1.0629899530962323)
        #expect(bytes.count == 8192 + 5 * 24)
    }
}
