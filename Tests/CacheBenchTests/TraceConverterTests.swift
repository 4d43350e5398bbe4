@testable import CacheBench
import Foundation
import Testing
import TestSupport

@Suite("convert as libCacheSim's traceConv")
struct TraceConverterTests {
    static func records(_ path: String) throws -> [(time: UInt32, id: UInt64, size: UInt32, next: Int64)] {
        let data = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        return stride(from: 0, to: data.count, by: 24).map { at in
            data.withUnsafeBytes { raw in
                let r = UnsafeRawPointer(raw.baseAddress.unsafelyUnwrapped) + at
                return (r._le(0, as: UInt32.self), r._le(4, as: UInt64.self), r._le(12, as: UInt32.self), r._le(16, as: Int64.self))
            }
        }
    }

    @Test("times of 2^32 s or more are written modulo 2^32, as traceConv writes them, and counted")
    func wrappedTimes() throws {
        // From 2^63 on traceConv 0.3.5 writes 0 (its int64 conversion's "indefinite" value).
        let input = try temporaryFile("timestamp,key,size\n4294967295,1,10\n4294967296,2,10\n5000000000,3,10\n"
                                      + "9223372036854774784,4,10\n9223372036854775808,5,10\n99999999999999999999,6,10\n")
        let output = input + ".og"
        defer { try? FileManager.default.removeItem(atPath: output) }
        let summary = try TraceConverter.convert(TraceSpec(path: input), to: output)
        #expect(summary.records == 6 && summary.timesWrapped == 5)
        #expect(try Self.records(output).map(\.time) == [4_294_967_295, 0, 705_032_704, 4_294_966_272, 0, 0])
    }

    /// Worked by hand: zero-size rows vanish from the output and from the next-access chain;
    /// a 20-digit key stays that number; with removeSizeChange an object keeps its first size.
    /// traceConv 0.3.5 writes exactly these records for this CSV (checked byte for byte).
    @Test("zero-size rows leave the chain, numeric keys are kept, sizes can be pinned")
    func handWorked() throws {
        let csv = """
        timestamp,key,size
        1,7,100
        2,18446744073709551615,0
        3,18446744073709551615,50
        4,7,120
        5,00000000000000000007,0
        6,7,100
        """
        let input = try temporaryFile(csv + "\n")
        let output = input + ".og"
        defer { try? FileManager.default.removeItem(atPath: output) }
        let summary = try TraceConverter.convert(TraceSpec(path: input), to: output)
        #expect(summary == TraceConverter.Summary(records: 4, leftOut: 0, zeroSize: 2, sizesChanged: 0))
        let plain = try Self.records(output)
        #expect(plain.map(\.id) == [7, UInt64.max, 7, 7])
        #expect(plain.map(\.size) == [100, 50, 120, 100])
        #expect(plain.map(\.next) == [3, -1, 4, -1])
        #expect(plain.map(\.time) == [1, 3, 4, 6])

        let pinned = try TraceConverter.convert(TraceSpec(path: input), to: output, options: .init(removeSizeChange: true))
        #expect(pinned.sizesChanged == 1)
        #expect(try Self.records(output).map(\.size) == [100, 50, 100, 100])
    }

    /// traceConv reads binary traces backwards, where their readers' zero-size skip does not
    /// apply: a zero-size oracleGeneral row and a Twitter get of value size 0 (with its key's
    /// size) are written and keep their place in the chain. traceConv 0.3.5 writes exactly these.
    @Test("a binary trace's zero-size rows are written, as traceConv's backward read keeps them")
    func binaryZeroSizeRows() throws {
        func bytes<T: FixedWidthInteger>(_ values: T...) -> [UInt8] {
            values.flatMap { value in withUnsafeBytes(of: value.littleEndian, Array.init) }
        }
        var oracle: [UInt8] = []
        for (time, id, size, next) in [(1, 5, 100, 3), (2, 6, 0, -1), (3, 5, 100, -1)] as [(UInt32, UInt64, UInt32, Int64)] {
            oracle += bytes(time) + bytes(id) + bytes(size) + bytes(next)
        }
        var twitter: [UInt8] = []
        for (time, id, key, value, op) in [(1, 5, 20, 100, 1), (2, 6, 20, 0, 1), (3, 5, 20, 100, 1), (4, 6, 16, 0, 13), (5, 6, 20, 50, 1)]
            as [(UInt32, UInt64, UInt32, UInt32, UInt32)] {
            twitter += bytes(time) + bytes(id) + bytes(key << 22 | value, op << 24 | 60)
        }
        for (input, suffix, expected) in [
            (oracle, ".oracleGeneral.bin", [(1, 5, 100, 3), (2, 6, 0, -1), (3, 5, 100, -1)]),
            (twitter, ".twr", [(1, 5, 120, 3), (2, 6, 20, 4), (3, 5, 120, -1), (4, 6, 16, 5), (5, 6, 70, -1)]),
        ] as [([UInt8], String, [(UInt32, UInt64, UInt32, Int64)])] {
            let path = try temporaryFile(Data(input), suffix: suffix)
            let output = path + ".og"
            defer { try? FileManager.default.removeItem(atPath: output) }
            let summary = try TraceConverter.convert(TraceSpec(path: path), to: output)
            #expect(summary.zeroSize == 0 && summary.records == expected.count, "\(suffix)")
            let records = try Self.records(output)
            #expect(records.count == expected.count && zip(records, expected).allSatisfy { $0 == $1 }, "\(suffix): \(records)")
        }
    }

    /// A size of 2^32 or more does not fit a record (traceConv would truncate it): refused at the
    /// row's own line, past the header, a blank line and a set, and nothing is written. With
    /// sizes pinned to an object's first, only a size that would be written counts.
    @Test("a size that does not fit 32 bits is refused at its line, and nothing is written")
    func oversizedRowsAreLocated() throws {
        let csv = "timestamp,key,size,op\n1,7,100,get\n\n2,8,4294967296,set\n3,8,10,get\n4,9,4294967296,get\n"
        for format in [TraceConverter.OutputFormat.oracleGeneral, .lcs] {
            let input = try temporaryFile(csv)
            let output = input + ".out"
            let error = #expect(throws: CacheBenchError.self) {
                try TraceConverter.convert(TraceSpec(path: input), to: output, options: .init(format: format))
            }
            guard case .trace(let trace)? = error else {
                Issue.record("\(format): \(String(describing: error))")
                continue
            }
            #expect(trace.file == input && trace.line == 6 && trace.kind == .malformed, "\(format): \(trace)")
            #expect(trace.reason.contains("size 4294967296 does not fit"), "\(format): \(trace)")
            #expect(!FileManager.default.fileExists(atPath: output))
        }
        // Pinned to its first size (10), key 8's later oversized get is written as 10.
        let pinned = try temporaryFile("timestamp,key,size\n1,8,10\n2,8,4294967296\n")
        let output = pinned + ".og"
        defer { try? FileManager.default.removeItem(atPath: output) }
        _ = try TraceConverter.convert(TraceSpec(path: pinned), to: output, options: .init(removeSizeChange: true))
        #expect(try Self.records(output).map(\.size) == [10, 10])
    }

    @Test("libCacheSim's sample converts to the records traceConv writes for it")
    func twitterSample() throws {
        let output = scratchDirectory.appendingPathComponent("cachebench-tw-\(UUID().uuidString).og").path
        defer { try? FileManager.default.removeItem(atPath: output) }
        _ = try TraceConverter.convert(TraceSpec(path: Repository.trace("twitter_cluster52-1500.csv")), to: output)
        // The first three records of traceConv's output for this file.
        let records = try Self.records(output)
        #expect(records.count == 1500)
        #expect(records[0] == (0, 13_053_225_291_711_363_978, 737, 13))
        #expect(records[1] == (0, 61_177_148_907_475_485, 248, -1))
        #expect(records[2] == (0, 286_355_432_205_858_634, 567, 7))
        // Converting again replaces the file whole.
        _ = try TraceConverter.convert(TraceSpec(path: Repository.trace("twitter_cluster52-1500.csv")), to: output)
        #expect(try Self.records(output).count == 1500)
    }
}
