@testable import CacheBench
import Foundation
import Testing
import TestSupport

/// Reads every request of the trace at `path`, its format chosen by content.
func readTrace(_ path: String, format: TraceFormat = .auto) throws -> [Request] {
    var reader = try TraceSpec(path: path, format: format).open()
    return try readAll(&reader)
}

/// LRU misses on `requests` at `capacity` bytes, by a plain reference model (a list, O(n) per
/// request) so the check does not lean on the code under test; size-0 rows are skipped.
func referenceLRUMisses(_ requests: [Request], capacity: Int, ignoreSize: Bool = false) -> Int {
    var order: [UInt64] = []
    var sizes: [UInt64: Int] = [:]
    var used = 0, misses = 0
    for request in requests where request.operation == .get && request.size > 0 {
        let size = ignoreSize ? 1 : request.size
        if let at = order.firstIndex(of: request.key) {
            order.remove(at: at)
            order.append(request.key)
            continue
        }
        misses += 1
        guard size <= capacity else { continue }
        while used + size > capacity, let victim = order.first {
            order.removeFirst()
            used -= sizes.removeValue(forKey: victim) ?? 0
        }
        order.append(request.key)
        sizes[request.key] = size
        used += size
    }
    return misses
}

@Suite("Trace formats chosen by content, checked on libCacheSim's own sample files")
struct ReaderFormatTests {
    /// The same 2,000 CloudPhysics requests as vscsi, lcs v1 and lcs v3 (converted by libCacheSim's
    /// traceConv); libCacheSim's cachesim gives 1,584 LRU misses at 64 KiB and 1,278 at 256 KiB.
    @Test("vscsi and lcs v1/v3 samples: same requests, libCacheSim's miss counts",
          arguments: ["cloudPhysicsIO-2k.vscsi", "cloudPhysicsIO-2k.lcs", "cloudPhysicsIO-2k.v3.lcs"])
    func blockSamples(_ name: String) throws {
        let requests = try readTrace(Repository.trace(name))
        #expect(requests.count == 2000)
        #expect(requests.first?.key == 42_932_745)
        #expect(requests.first?.size == 512)
        #expect(referenceLRUMisses(requests, capacity: 64 << 10) == 1584)
        #expect(referenceLRUMisses(requests, capacity: 256 << 10) == 1278)
        let vscsi = try readTrace(Repository.trace("cloudPhysicsIO-2k.vscsi"))
        #expect(requests.map(\.key) == vscsi.map(\.key))
        #expect(requests.map(\.size) == vscsi.map(\.size))
        #expect(requests.map(\.time) == vscsi.map(\.time))
    }

    @Test("libCacheSim's CSV sample with a '#' header: 20-digit keys stay numbers; cachesim's counts")
    func twitterSample() throws {
        let requests = try readTrace(Repository.trace("twitter_cluster52-1500.csv"))
        #expect(requests.count == 1500)
        #expect(requests.first?.key == 13_053_225_291_711_363_978)
        #expect(requests.first?.size == 737)
        #expect(referenceLRUMisses(requests, capacity: 64 << 10) == 690)
        #expect(referenceLRUMisses(requests, capacity: 1 << 20) == 657)
    }

    @Test("libCacheSim's txt sample: one key per line; cachesim's counts by object")
    func textSample() throws {
        let requests = try readTrace(Repository.trace("cloudPhysicsIO-2k.txt"))
        #expect(requests.count == 2000)
        #expect(referenceLRUMisses(requests, capacity: 100, ignoreSize: true) == 1027)
        #expect(referenceLRUMisses(requests, capacity: 500, ignoreSize: true) == 816)
    }

    /// An lcs file of `version` with the given records, built field by field.
    static func lcs(version: UInt64, statedRequests: Int64, records: [(time: UInt32, id: UInt64, size: Int64, op: UInt8, next: Int64)]) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: 8192)
        func put<T: FixedWidthInteger>(_ value: T, at offset: Int, in buffer: inout [UInt8]) {
            withUnsafeBytes(of: value.littleEndian) { for (i, b) in $0.enumerated() { buffer[offset + i] = b } }
        }
        put(LCSLayout.magic, at: 0, in: &bytes)
        put(version, at: 8, in: &bytes)
        put(statedRequests, at: 24, in: &bytes)
        put(LCSLayout.magic, at: 8184, in: &bytes)
        let features = [0, 0, 0, 0, 1, 2, 4, 8, 16][Int(min(version, 8))]
        for r in records {
            var record: [UInt8] = []
            func add<T: FixedWidthInteger>(_ value: T) { withUnsafeBytes(of: value.littleEndian) { record += $0 } }
            add(r.time); add(r.id)
            switch version {
            case 1: add(UInt32(r.size)); add(r.next)
            case 2: add(UInt32(r.size)); add(UInt32(r.op) | 7 << 8); add(r.next)
            default:
                add(r.size); add(UInt32(r.op) | 7 << 8); add(UInt32(3600)); add(r.next)
                for f in 0..<features { add(UInt32(f + 100)) }
            }
            bytes += record
        }
        return bytes
    }

    static let records: [(time: UInt32, id: UInt64, size: Int64, op: UInt8, next: Int64)] = [
        (1, 10, 100, 1, 3), (2, 11, 200, 3, -1), (3, 10, 100, 9, -1), (4, 12, 0, 13, -1),
    ]

    @Test("lcs v1 to v8: every record layout, operations mapped", arguments: 1...8)
    func lcsVersions(_ version: Int) throws {
        let path = try temporaryFile(Data(Self.lcs(version: UInt64(version), statedRequests: 4, records: Self.records)), suffix: ".bin")
        let requests = try readTrace(path)
        #expect(requests.map(\.key) == [10, 11, 10, 12])
        #expect(requests.map(\.size) == [100, 200, 100, 0])
        #expect(requests.map(\.time) == [1, 2, 3, 4])
        #expect(requests.map(\.nextAccess) == [3, .max, .max, .max])
        // v1 has no operation field; later versions carry libCacheSim's codes (get, set, delete, write).
        #expect(requests.map(\.operation) == (version == 1 ? [.get, .get, .get, .get] : [.get, .set, .delete, .get]))
    }

    @Test("bad lcs and vscsi files: a wrong version, a header that disagrees, records cut short")
    func badBinary() throws {
        func failure(_ bytes: [UInt8], _ format: TraceFormat = .auto) throws -> TraceError? {
            let path = try temporaryFile(Data(bytes), suffix: ".bin")
            do { _ = try readTrace(path, format: format) } catch let error as TraceError { return error }
            return nil
        }
        let wrongVersion = try failure(Self.lcs(version: 9, statedRequests: 4, records: Self.records))
        #expect(wrongVersion?.offset == 8 && wrongVersion?.reason.contains("version 9") == true)
        let disagrees = try failure(Self.lcs(version: 2, statedRequests: 5, records: Self.records))
        #expect(disagrees?.reason.contains("says 5 requests, the file holds 4") == true)
        let cut = try failure(Array(Self.lcs(version: 3, statedRequests: 4, records: Self.records).dropLast(5)))
        #expect(cut?.offset == 8192 + 3 * 36 && cut?.reason.contains("truncated record") == true)
        let shortHeader = try failure(Array(Self.lcs(version: 1, statedRequests: 0, records: []).prefix(100)), .lcs)
        #expect(shortHeader?.reason.contains("truncated lcs header") == true)
        let vscsi = [UInt8](try Data(contentsOf: URL(fileURLWithPath: Repository.trace("cloudPhysicsIO-2k.vscsi"))))
        let vscsiCut = try failure(Array(vscsi.prefix(32 * 10 + 7)))
        #expect(vscsiCut?.offset == 320 && vscsiCut?.reason.contains("vscsi v1 records are 32 bytes") == true)
        #expect(try failure([UInt8](repeating: 0, count: 100), .vscsi)?.reason.contains("not a vscsi trace") == true)
        // lcs v3+ sizes are signed 64-bit: a negative one, one above 2^53 and two that add up past
        // Int.max are refused at their record, not clamped or summed into an overflow.
        for (sizes, bad, reason) in [([100, -5], 1, "negative or above 2^53"), ([1 << 54, 1], 0, "negative or above 2^53"),
                                     ([1 << 53, 1 << 53] + Array(repeating: 1 << 53, count: 1030), 1023, "add up to more than 2^63-1")]
            as [([Int64], Int, String)] {
            let records = sizes.enumerated().map { (UInt32($0.offset), UInt64($0.offset), $0.element, UInt8(1), Int64(-1)) }
            let error = try failure(Self.lcs(version: 3, statedRequests: Int64(records.count), records: records))
            #expect(error?.offset == 8192 + 36 * bad && error?.reason.contains(reason) == true, "\(String(describing: error))")
        }
    }

    @Test("Twitter binary records: sizes from the packed key and value sizes, operations, twrNS's extra namespace")
    func twitterBinary() throws {
        func record(_ time: UInt32, _ id: UInt64, key: UInt32, value: UInt32, op: UInt32, ns: UInt16?) -> [UInt8] {
            var r: [UInt8] = []
            withUnsafeBytes(of: time.littleEndian) { r += $0 }
            withUnsafeBytes(of: id.littleEndian) { r += $0 }
            withUnsafeBytes(of: (key << 22 | value).littleEndian) { r += $0 }
            withUnsafeBytes(of: (op << 24 | 60).littleEndian) { r += $0 }
            if let ns { withUnsafeBytes(of: ns.littleEndian) { r += $0 } }
            return r
        }
        for ns in [nil, UInt16(5)] as [UInt16?] {
            let bytes = record(7, 99, key: 20, value: 300, op: 1, ns: ns) + record(8, 99, key: 20, value: 0, op: 1, ns: ns)
                + record(9, 98, key: 10, value: 50, op: 3, ns: ns)
            let path = try temporaryFile(Data(bytes), suffix: ns == nil ? ".twr" : ".twrNS")
            let requests = try readTrace(path)
            #expect(requests.map(\.key) == [99, 99, 98])
            #expect(requests.map(\.size) == [320, 0, 60])
            #expect(requests.map(\.operation) == [.get, .get, .set])
        }
        // libCacheSim's forward read skips only get (1) and gets (2) of value size 0: a no-op (0)
        // or an unnamed code (13) of value size 0 stays a request of its key's size.
        let others = record(1, 5, key: 20, value: 0, op: 2, ns: nil) + record(2, 6, key: 20, value: 0, op: 0, ns: nil)
            + record(3, 7, key: 16, value: 0, op: 13, ns: nil) + record(4, 8, key: 16, value: 0, op: 9, ns: nil)
        let requests = try readTrace(try temporaryFile(Data(others), suffix: ".twr"))
        #expect(requests.map(\.size) == [0, 20, 16, 16])
        #expect(requests.map(\.operation) == [.get, .get, .get, .delete])
    }

    @Test("a Twitter binary trace whose timestamps hold vscsi's version byte is still Twitter's, named or not")
    func twitterTimestampsLikeVSCSIVersions() throws {
        // Timestamps from 2^25 put 2 in each record's fourth byte, where a vscsi v2 record keeps
        // its version, in records 0, 2, 4, ...: libCacheSim's two-record version test passes.
        var bytes: [UInt8] = []
        for i in 0..<100 {
            withUnsafeBytes(of: UInt32(40_000_000 + i).littleEndian) { bytes += $0 }
            withUnsafeBytes(of: UInt64(1000 + i % 10).littleEndian) { bytes += $0 }
            withUnsafeBytes(of: (UInt32(20) << 22 | 100).littleEndian) { bytes += $0 }
            withUnsafeBytes(of: (UInt32(1) << 24).littleEndian) { bytes += $0 }
        }
        #expect(bytes[3] == 2 && bytes[43] == 2)
        for suffix in [".twr", ".trace"] {
            let requests = try readTrace(try temporaryFile(Data(bytes), suffix: suffix))
            #expect(requests.count == 100, "\(suffix)")
            #expect(requests.allSatisfy { $0.size == 120 }, "\(suffix)")
            #expect(referenceLRUMisses(requests, capacity: 100_000) == 10, "\(suffix)")
        }
        // A real vscsi sample stays vscsi, with or without its name.
        let sample = try Data(contentsOf: URL(fileURLWithPath: "Traces/cloudPhysicsIO-2k.vscsi"))
        #expect(TraceFormatDetection.detect(Array(sample.prefix(TraceFormatDetection.prefixLength)))?.format == .vscsi)
        #expect(try readTrace(try temporaryFile(sample, suffix: ".trace")).count == 2000)
    }

    @Test("text is ASCII, tab, CR, LF and UTF-8's bytes; 0xFF, 0xFE, 0xC0 and 0xC1, which UTF-8 never uses, are not")
    func textBytes() {
        let csv = Array("time,key,size\n1,caf\u{E9}-\u{1F600},10\r\n".utf8)
        #expect(TraceFormatDetection.looksLikeText(csv))
        // Records whose fields are -1 (all 0xFF) and a few 0xFE, 0xC0 and 0xC1 bytes.
        let negative = Array(repeating: UInt8(0xFF), count: 90) + [0xFE, 0xC0, 0xC1] + Array("abcdefg".utf8)
        #expect(!TraceFormatDetection.looksLikeText(negative))
        // One byte in ten that is not text is still text (a stray NUL); two are not.
        #expect(TraceFormatDetection.looksLikeText(Array(repeating: UInt8(ascii: "a"), count: 90) + Array(repeating: 0xFF, count: 10)))
        #expect(!TraceFormatDetection.looksLikeText(Array(repeating: UInt8(ascii: "a"), count: 80) + Array(repeating: 0xFF, count: 20)))
        #expect(!TraceFormatDetection.looksLikeText(Array(repeating: UInt8(ascii: "a"), count: 80) + Array(repeating: 0x7F, count: 20)))
    }
}
