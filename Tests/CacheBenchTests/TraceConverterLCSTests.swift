@testable import CacheBench
import Foundation
import Testing
import TestSupport

/// `convert --output-format lcs` and `--sample` against libCacheSim 0.3.5's traceConv
/// (Tests/Fixtures/traceconv/README.md says how each expected file was made).
@Suite("convert to lcs and sampled, as traceConv")
struct TraceConverterLCSTests {
    static func convert(_ trace: String, _ options: TraceConverter.Options) throws -> [UInt8] {
        let output = scratchDirectory.appendingPathComponent("cachebench-lcs-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: output) }
        _ = try TraceConverter.convert(TraceSpec(path: trace), to: output, options: options)
        return [UInt8](try Data(contentsOf: URL(fileURLWithPath: output)))
    }

    /// 64-bit FNV-1a, to pin large outputs without committing them.
    static func fnv(_ bytes: some Sequence<UInt8>) -> UInt64 {
        bytes.reduce(0xcbf2_9ce4_8422_2325 as UInt64) { ($0 ^ UInt64($1)) &* 0x100_0000_01b3 }
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

    @Test("string keys get libCacheSim's ids: XXH3-64 at every length class, vectors from xxHash 0.7.4 itself")
    func xxh3Strings() {
        // Bytes (7i + 3) mod 256, hashed by the xxHash that libCacheSim 0.3.5 bundles.
        let vectors: [(Int, UInt64)] = [
            (0, 0x2d06800538d394c2), (1, 0x13e608bc156defed), (2, 0x1c9074b93943b86c), (3, 0xa9088dda485b481c),
            (4, 0x6d9253b16c8b1ed3), (5, 0x998620e10e3a4b37), (7, 0x8e8291ad89127e2e), (8, 0x60539db630471163),
            (9, 0xfeff668361d723a8), (15, 0x9ec169f4a98231c1), (16, 0xb8c859b0f030b585), (17, 0x714a04408e79b80f),
            (31, 0xed41ac283d0674b3), (32, 0x19ff4ee1d6ba1a55), (33, 0x3e44983ad21679c8), (63, 0x1353bea3d0ebf7e1),
            (64, 0x287eb1fa9e4be2c1), (65, 0x829218de4d798646), (96, 0xf084e7cfbc624743), (97, 0x1daa83271a8e7b7c),
            (127, 0x998fa0631fd78d0b), (128, 0x67425a03650261bf), (129, 0xc664bf3311c6abc4), (200, 0x746cd0025327bf5b),
            (239, 0x1d861931c1f3cafa), (240, 0x64556dc6b462a6cf), (241, 0x8beadd3a8874fe17), (255, 0xb67b6637a76e6c39),
            (256, 0x3c38817f6d79c0da), (1023, 0xd26986a0b85dcc44), (1024, 0x9b81661c641c72b1), (1025, 0x806c2072ed713576),
            (2048, 0xabe604813ba62ed1), (5000, 0x799aaddd7339581d),
        ]
        let bytes = (0..<5000).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ 3) }
        for (length, hash) in vectors {
            #expect(bytes[..<length].withUnsafeBytes { _XXH3.hash($0) } == hash, "length \(length)")
        }
        // traceConv's id for the key "abc".
        #expect(Array("abc".utf8).withUnsafeBytes { _XXH3.hash($0) } == 8_696_274_497_037_089_104)
    }

    @Test("a CSV of string keys converts to traceConv's ids, byte for byte")
    func stringKeys() throws {
        // traceConv -t "time-col=1,obj-id-col=2,obj-size-col=3,header=true" -f oracleGeneral on this file.
        let path = try temporaryFile("timestamp,key,size\n1,abc,10\n2,def,20\n3, abc ,10\n4,\"d\"\"e\",5\n")
        let bytes = try Self.convert(path, .init())
        func id(_ record: Int) -> UInt64 { (0..<8).reduce(0 as UInt64) { $0 | UInt64(bytes[24 * record + 4 + $1]) << (8 * $1) } }
        #expect(bytes.count == 96)
        #expect(id(0) == 8_696_274_497_037_089_104 && id(1) == 11_233_357_625_814_872_456 && id(2) == id(0))
        #expect(id(3) == Array("d\"e".utf8).withUnsafeBytes { _XXH3.hash($0) })
    }

    @Test("a CSV whose first rows have size 0: traceConv drops them but its lcs header starts at the first; byte for byte")
    func leadingZeroSizeRows() throws {
        let path = try temporaryFile("timestamp,key,size\n100,1,0\n200,2,0\n300,1,5\n400,2,6\n500,1,5\n")
        defer { try? FileManager.default.removeItem(atPath: path) }
        let ours = try Self.convert(path, .init(format: .lcs))
        #expect(ours == (try Fixture.bytes("Tests/Fixtures/traceconv/leading-zero-size.lcs")))
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
        #expect(Array(ours.prefix(8192)) == theirs, "header")
    }

    /// Byte-identical, header included: equally common sizes and request counts are listed
    /// (and cut at 16) in traceConv's order (many sizes tie at the 16th place in the CSV sample).
    @Test("lcs, sampled and from libCacheSim's CSV sample: traceConv's files byte for byte", arguments: [
        ("cloudPhysicsIO.oracleGeneral.bin", 0.01, "cloudPhysicsIO-sample0.01.lcs"),
        ("twitter_cluster52-1500.csv", 1, "twitter_cluster52-1500.lcs"),
    ])
    func lcsFiles(trace: String, ratio: Double, expected: String) throws {
        let ours = try Self.convert(Repository.trace(trace), .init(format: .lcs, sampler: try SpatialSampler(ratio: ratio)))
        let theirs = try Fixture.bytes("Tests/Fixtures/traceconv/\(expected)")
        #expect(ours.count == theirs.count)
        #expect(ours[8192...] == theirs[8192...], "records")
        #expect(ours[..<8192] == theirs[..<8192], "header")
    }

    /// traceConv 0.3.5 on this CSV with `-f lcs --remove-size-change`: records (1,7,130,3),
    /// (2,8,50,never), (3,7,130,4), (4,7,130,never), (6,9,10,never); header n_req 5, n_obj 3,
    /// bytes 450 and 190, times 1 and 6, sizes 10..130 listed 10, 130, 50, highest counts 3, 1 and counts 1 (0.6667)
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
        #expect((0..<3).map { field(96 + 8 * $0) } == [10, 130, 50])   // three sizes of one object each, in traceConv's order
        #expect(field(288) == 3 && field(296) == 1)
        #expect(Double(bitPattern: UInt64(bitPattern: field(544))) == 1.0629899530962323)
        #expect(bytes.count == 8192 + 5 * 24)
    }

    /// Expected orders printed by a program built with GCC 12's libstdc++ (the one traceConv
    /// 0.3.5 is built with): `std::sort` of 40 pairs ((7i) mod 41, i mod 4) by the second field,
    /// descending; the iteration order of an `unordered_map<int64_t, int>` after inserting 512,
    /// 4096, 512, 65536, 7, 4096, -3, 2^20, 13, 26, 39; and, for an `unordered_map<uint64_t, int>`
    /// reserved for 10015 elements then given the keys (2654435761 i) mod 100003 for i < 30000,
    /// the FNV-1a hash of the keys in iteration order.
    @Test("times past 2^32: records wrap as traceConv's u32 assignment, the lcs header keeps them whole")
    func largeTimes() throws {
        let path = try temporaryFile("timestamp,key,size\n5000000000,5,10\n5000000001,6,10\n5000000002,5,10\n")
        for format in [TraceConverter.OutputFormat.oracleGeneral, .lcs] {
            let bytes = try Self.convert(path, .init(format: format))
            let records = format == .lcs ? Array(bytes[8192...]) : bytes
            func u32(_ at: Int) -> UInt32 { (0..<4).reduce(0) { $0 | UInt32(records[at + $1]) << (8 * $1) } }
            #expect([u32(0), u32(24), u32(48)] == [705_032_704, 705_032_705, 705_032_706], "\(format)")
            if format == .lcs {
                func i64(_ at: Int) -> Int64 { Int64(bitPattern: (0..<8).reduce(0 as UInt64) { $0 | UInt64(bytes[at + $1]) << (8 * $1) }) }
                #expect(i64(16 + 40) == 5_000_000_000 && i64(16 + 48) == 5_000_000_002)
            }
        }
    }

    @Test("one object: the header's Zipf slope is C's positive NaN, bit for bit")
    func oneObjectSlope() throws {
        let bytes = try Self.convert(try temporaryFile("timestamp,key,size\n1,7,10\n2,7,10\n"), .init(format: .lcs))
        let slope = (0..<8).reduce(0 as UInt64) { (word: UInt64, i: Int) -> UInt64 in word | UInt64(bytes[560 + i]) << UInt64(8 * i) }
        #expect(slope == 0x7ff8_0000_0000_0000)
    }

    @Test("libstdc++'s sort and unordered_map orders, as GCC 12 gives them")
    func libstdcxxOrders() {
        var pairs = (0..<40).map { (value: (7 * $0) % 41, count: $0 % 4) }
        _LibstdcxxOrder.sort(&pairs) { $0.count > $1.count }
        #expect(pairs.map(\.value) == [27, 25, 10, 23, 12, 38, 36, 40, 8, 21, 33, 29, 1, 20, 16, 5, 31, 3, 14, 18,
                                        7, 11, 39, 26, 13, 24, 37, 9, 22, 35, 4, 17, 32, 30, 19, 2, 15, 6, 28, 0])
        var small = _LibstdcxxOrder.UnorderedMap()
        for key: Int64 in [512, 4096, 512, 65536, 7, 4096, -3, 1 << 20, 13, 26, 39] { small.insert(UInt64(bitPattern: key)) }
        #expect(small.keys.map { Int64(bitPattern: $0) } == [1_048_576, 39, 26, 13, -3, 7, 65536, 4096, 512])
        var large = _LibstdcxxOrder.UnorderedMap()
        large.reserve(10015)
        for i in 0..<30_000 as Range<UInt64> { large.insert((i &* 2_654_435_761) % 100_003) }
        let keys = large.keys
        #expect(keys.count == 30_000)
        #expect(keys.reduce(1_469_598_103_934_665_603 as UInt64) { ($0 ^ $1) &* 1_099_511_628_211 } == 5_763_017_920_741_011_347)
    }

    /// Sorting is a permutation whatever the comparator's ties, including past the depth limit
    /// (many equal keys in a long array), and agrees with a stable sort on the keys.
    @Test("differential: the libstdc++ sort orders by the key on random arrays", arguments: [1, 2, 3, 4])
    func libstdcxxSortIsASort(seed: UInt64) {
        var random = SeededRandom(seed: seed)
        var values = (0..<Int.random(in: 1...3000, using: &random)).map { i in (key: Int.random(in: 0..<[2, 10, 1000, 1 << 30][Int(seed - 1)], using: &random), id: i) }
        let reference = values.sorted { $0.key > $1.key }
        _LibstdcxxOrder.sort(&values) { $0.key > $1.key }
        #expect(values.map(\.key) == reference.map(\.key))
        #expect(Set(values.map(\.id)).count == values.count)
    }
}
