@testable import CacheBench
import Foundation
import TestSupport
import Testing

/// An oracleGeneral reader behind another type, so a ``WindowedReader`` cannot read its records
/// in place and filters its decoded batches instead.
private struct HiddenOracleGeneral: TraceReader {
    var base: OracleGeneralReader
    var name: String { base.name }
    var providesNextAccess: Bool { base.providesNextAccess }
    mutating func nextBatch(_ batch: inout [Request]) throws(TraceError) -> Bool { try base.nextBatch(&batch) }
}

/// `count` records of a skewed key popularity, sizes 0 to 9 (0: not a measured request) and
/// next-access indices that look real (-1 or later).
private func skewedRecords(_ count: Int, seed: UInt64) -> Data {
    var random = SeededRandom(seed: seed)
    return oracleGeneralBytes((0..<count).map { row in
        let key = UInt64(min(Int.random(in: 0..<40_000, using: &random), Int.random(in: 0..<40_000, using: &random)))
        let next: Int64 = Bool.random(using: &random) ? -1 : Int64(row + 2 + Int.random(in: 0..<100, using: &random))
        return (UInt32(row / 10), key &* 0x9E37_79B9, UInt32.random(in: 0...9, using: &random), next)
    })
}

/// Everything a sampled read of `reader` gives: its rows, the schedule's counts and the census
/// (fed a batch behind, as the driver feeds it).
private func sampledRead(_ reader: any TraceReader, window: RequestWindow, censusBudget: Int) throws
    -> (rows: [Request], traceRows: Int, requests: Int, bytes: Int, census: _KeyCensus) {
    let census = _KeyCensus(ratio: 1, maximumKeys: censusBudget)
    guard let claimed = census.claim(covering: window) else { throw CancellationError() }
    let feed = _CensusFeed(claimed)
    let lane = feed.makeLane()
    let schedule = WindowSchedule()
    var windowed = WindowedReader(reader, window: window, schedule: schedule, census: feed)
    var rows: [Request] = []
    var batch: [Request] = []
    while try windowed.nextBatch(&batch) {
        #expect(!batch.isEmpty)
        rows += batch
        lane.handOver?()
        lane.apply([])
    }
    lane.takeLastHandOver()
    let requests = schedule.traceRequests
    return (rows, schedule.traceRows, requests.count, requests.bytes, census)
}

@Suite("oracleGeneral records sampled in place")
struct SampledOracleGeneralTests {
    @Test("the in-place path keeps the rows, counts and census the decoded path and the row-by-row path keep, and those a direct filter of the decoded trace keeps",
          arguments: [(ratio: 0.01, budget: 500, seed: UInt64(1)), (ratio: 0.2, budget: 100_000, seed: 2), (ratio: 1.0, budget: 3_000, seed: 3)])
    func sameAsDecodedRows(_ ratio: Double, _ budget: Int, _ seed: UInt64) throws {
        // More rows than one batch gathers (several chunks per batch), ending mid-chunk.
        let path = try temporaryFile(skewedRecords(150_001, seed: seed), suffix: ".oracleGeneral.bin")
        defer { try? FileManager.default.removeItem(atPath: path) }
        let window = RequestWindow(sampleRatio: ratio, sampleSeed: seed)
        let inPlace = try sampledRead(try OracleGeneralReader(path: path), window: window, censusBudget: budget)
        let decoded = try sampledRead(HiddenOracleGeneral(base: try OracleGeneralReader(path: path)), window: window, censusBudget: budget)
        var capped = window
        capped.maxRequests = 10_000_000  // past the end: the row-by-row path, same rows
        let rowByRow = try sampledRead(try OracleGeneralReader(path: path), window: capped, censusBudget: budget)

        var whole = try OracleGeneralReader(path: path)
        let all = try readAll(&whole)
        let salt = SpatialSample.salt(seed: seed)
        let expected = all.filter { request in
            window.keepBelow.map { below in SpatialSample.hash(request.key, salt: salt) < below } ?? true
        }
        let measured = all.filter { $0.size > 0 }
        #expect(inPlace.rows.count == expected.count)
        #expect(inPlace.rows == expected)
        for other in [decoded, rowByRow] {
            #expect(other.rows == inPlace.rows)
            #expect(other.census.keys == inPlace.census.keys)
            #expect(other.census.maxHash == inPlace.census.maxHash)
            let (a, b) = (other.census.groups(keepBelow: nil), inPlace.census.groups(keepBelow: nil))
            #expect(a.map(\.requests) == b.map(\.requests))
            #expect(a.map(\.keys) == b.map(\.keys))
            #expect(a.map(\.bytes) == b.map(\.bytes))
        }
        for read in [inPlace, decoded, rowByRow] {
            #expect(read.traceRows == all.count)
            #expect(read.requests == measured.count)
            #expect(read.bytes == measured.reduce(0) { $0 + $1.size })
        }
        if ratio < 1 && budget < 10_000 { #expect(inPlace.census.ratio < 1, "the budget should have made the census halve") }
    }

    @Test("a file read in place gives the bytes read(2) gives, after a peek, in chunks of any length")
    func borrowedBytesAreTheFile() throws {
        var random = SeededRandom(seed: 5)
        let bytes = (0..<(3 << 20) + 77).map { _ in UInt8.random(in: 0 ... .max, using: &random) }
        let path = try temporaryFile(Data(bytes), suffix: ".bin")
        defer { try? FileManager.default.removeItem(atPath: path) }
        for chunk in [24 * 16_384, 1 << 20, 999_983] {
            let source = try ByteSource(path: path)
            #expect(try source.peek(upTo: 8_192) == Array(bytes.prefix(8_192)))
            let buffer = UnsafeMutableRawPointer.allocate(byteCount: chunk, alignment: 8)
            defer { buffer.deallocate() }
            var read: [UInt8] = []
            var borrowed = try source.borrow(upTo: chunk, copyingInto: buffer)
            // A regular file of megabytes is mapped: its chunks are not copied into the buffer.
            #expect(borrowed.baseAddress != UnsafeRawPointer(buffer))
            while !borrowed.isEmpty {
                read += borrowed
                borrowed = try source.borrow(upTo: chunk, copyingInto: buffer)
            }
            #expect(read == bytes)
            #expect(source.bytesRead == bytes.count)
        }
    }

    @Test("a mapped file that grows while it is read is read to its new end, as read(2) reads it")
    func growingFile() throws {
        let first = skewedRecords(60_000, seed: 6), added = skewedRecords(5_000, seed: 7)
        let path = try temporaryFile(first, suffix: ".oracleGeneral.bin")
        defer { try? FileManager.default.removeItem(atPath: path) }
        var reader = try OracleGeneralReader(path: path)
        var batch: [Request] = []
        var rows: [Request] = []
        #expect(try reader.nextBatch(&batch))
        rows += batch
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        try handle.seekToEnd()
        try handle.write(contentsOf: added)
        try handle.close()
        while try reader.nextBatch(&batch) { rows += batch }
        var whole = try OracleGeneralReader(path: path)
        #expect(rows == (try readAll(&whole)))
        #expect(rows.count == 65_000)
    }

    @Test("a mapped file cut shorter while it is read ends where it is cut (a truncated record at its byte), without a fault")
    func shrinkingFile() throws {
        let path = try temporaryFile(skewedRecords(100_000, seed: 8), suffix: ".oracleGeneral.bin")
        defer { try? FileManager.default.removeItem(atPath: path) }
        var reader = try OracleGeneralReader(path: path)
        var batch: [Request] = []
        #expect(try reader.nextBatch(&batch))
        #expect(batch.count == 16_384)
        #expect(truncate(path, off_t(20_000 * 24 + 7)) == 0)
        var error: TraceError?
        do { while try reader.nextBatch(&batch) {} } catch let thrown { error = thrown }
        #expect(error?.offset == 20_000 * 24)
        #expect(error?.reason.contains("truncated record") == true)
    }
}
