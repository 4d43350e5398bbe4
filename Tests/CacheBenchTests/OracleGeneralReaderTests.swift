import CacheBench
import CacheBenchCommandLine
import Foundation
import TestSupport
import Testing

/// Builds libCacheSim oracleGeneral records: `<IQIq` little-endian, 24 bytes each.
func oracleGeneralBytes(_ records: [(time: UInt32, id: UInt64, size: UInt32, next: Int64)]) -> Data {
    var data = Data()
    for record in records {
        withUnsafeBytes(of: record.time.littleEndian) { data.append(contentsOf: $0) }
        withUnsafeBytes(of: record.id.littleEndian) { data.append(contentsOf: $0) }
        withUnsafeBytes(of: record.size.littleEndian) { data.append(contentsOf: $0) }
        withUnsafeBytes(of: record.next.littleEndian) { data.append(contentsOf: $0) }
    }
    return data
}

/// Reads every request of `reader`.
func readAll(_ reader: inout some TraceReader) throws -> [Request] {
    var all: [Request] = []
    var batch: [Request] = []
    while try reader.nextBatch(&batch) { all += batch }
    return all
}

@Suite("oracleGeneral reader")
struct OracleGeneralReaderTests {
    @Test("decodes time, id, size and next access; -1 means never")
    func decoding() throws {
        let path = try temporaryFile(oracleGeneralBytes([
            (7, 0xdead_beef_0000_0001, 4096, 3),
            (8, 42, 512, -1),
            (9, 0xdead_beef_0000_0001, 4096, -1),
        ]), suffix: ".oracleGeneral.bin")
        var reader = try OracleGeneralReader(path: path)
        let requests = try readAll(&reader)
        #expect(requests == [
            Request(time: 7, key: 0xdead_beef_0000_0001, size: 4096, operation: .get, nextAccess: 3),
            Request(time: 8, key: 42, size: 512, operation: .get, nextAccess: .max),
            Request(time: 9, key: 0xdead_beef_0000_0001, size: 4096, operation: .get, nextAccess: .max),
        ])
        #expect(reader.providesNextAccess)
    }

    @Test("records that straddle read chunks decode the same")
    func chunkBoundaries() throws {
        var records: [(time: UInt32, id: UInt64, size: UInt32, next: Int64)] = []
        for i in 0..<11 { records.append((UInt32(i), UInt64(i % 4), UInt32(1 + i), Int64(i + 5))) }
        let path = try temporaryFile(oracleGeneralBytes(records), suffix: ".bin")
        var small = OracleGeneralReader(source: try ByteSource(path: path), recordsPerChunk: 2)
        var large = try OracleGeneralReader(path: path)
        let a = try readAll(&small), b = try readAll(&large)
        #expect(a.count == 11 && a == b)
        let keys: [UInt64] = a.map { $0.key }
        #expect(keys == records.map { $0.id })
    }

    @Test("the sample trace: every next-access field points at the next request for the same id (1-based)")
    func sampleNextAccess() throws {
        var reader = try OracleGeneralReader(path: Repository.trace("cloudPhysicsIO.oracleGeneral.bin"))
        let requests = try readAll(&reader)
        #expect(requests.count == 113_872)
        var following: [UInt64: Int64] = [:]
        var mismatches = 0
        for i in requests.indices.reversed() {
            if requests[i].nextAccess != (following[requests[i].key] ?? .max) { mismatches += 1 }
            following[requests[i].key] = Int64(i + 1)
        }
        #expect(mismatches == 0)
    }

    @Test("size-0 records are skipped by the replay and counted as skipped")
    func sizeZeroSkipped() throws {
        let path = try temporaryFile(oracleGeneralBytes([
            (0, 1, 100, 3), (1, 2, 0, -1), (2, 1, 100, 5), (3, 3, 0, -1), (4, 1, 100, -1),
        ]), suffix: ".bin")
        for policy in ["lru", "belady"] {
            let result = try Replay.run(ReplayJob(trace: TraceSpec(path: path), policy: policy, capacity: 1000))
            #expect(result.counters.skipped == 2, "\(policy)")
            #expect(result.requests == 3 && result.hits == 2, "\(policy)")
            #expect(result.counters.byteRequests == 300, "\(policy)")
        }
    }

    @Test("a truncated file is malformed input (exit 65) naming the byte offset of the partial record")
    func truncated() throws {
        var records: [(time: UInt32, id: UInt64, size: UInt32, next: Int64)] = []
        for i in 0..<5 { records.append((UInt32(i), UInt64(i), 1, -1)) }
        var bytes = oracleGeneralBytes(records)
        bytes.append(contentsOf: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10])
        let path = try temporaryFile(bytes, suffix: ".oracleGeneral.bin")

        // Through chunks that end mid-file, the offset is still absolute.
        var reader = OracleGeneralReader(source: try ByteSource(path: path), recordsPerChunk: 2)
        let error = try #require(throws: TraceError.self) { _ = try readAll(&reader) }
        #expect(error.kind == .malformed)
        #expect(error.offset == 120)
        #expect(error.description.contains("byte 120"))

        let replayError = try #require(throws: CacheBenchError.self) {
            _ = try Replay.run(ReplayJob(trace: TraceSpec(path: path), policy: "lru", capacity: 10))
        }
        #expect(replayError.exitCode == 65)
        #expect(replayError.description.contains("byte 120"))
        #expect(replayError.description.contains("truncated"))
    }

    @Test("--trace-format auto: recognised by name (.bin, oracleGeneral) and by content (NUL bytes)")
    func autoDetection() throws {
        let bytes = oracleGeneralBytes([(0, 10, 1, 2), (1, 10, 1, -1)])
        let byExtension = try temporaryFile(bytes, suffix: ".bin")
        let byName = try temporaryFile(bytes, suffix: ".oracleGeneral")
        let byContent = try temporaryFile(bytes, suffix: ".trace")
        for path in [byExtension, byName, byContent] {
            let reader = try TraceSpec(path: path).open()
            #expect(reader is OracleGeneralReader, "\(path)")
            let result = try Replay.run(ReplayJob(trace: TraceSpec(path: path), policy: "lru", capacity: 4))
            #expect(result.requests == 2 && result.hits == 1, "\(path)")
        }
        // Text without NUL bytes, under a name that says nothing, is CSV.
        let text = try temporaryFile("1,10,1\n2,10,1\n", suffix: ".trace")
        #expect(try TraceSpec(path: text).open() is CSVTraceReader)
        // An explicit format wins over the name.
        let misnamed = try temporaryFile(bytes, suffix: ".csv")
        #expect(try TraceSpec(path: misnamed, format: .oracleGeneral).open() is OracleGeneralReader)
    }
}
