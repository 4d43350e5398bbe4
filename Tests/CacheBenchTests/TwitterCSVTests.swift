@testable import CacheBench
import Foundation
import TestSupport
import Testing

/// Twitter's published CSV traces (`timestamp, key, key size, value size, client id, operation,
/// TTL`, no header), read by content as libCacheSim's twr form of the same rows is read.
@Suite("Twitter's CSV traces")
struct TwitterCSVTests {
    /// Memcached's operations and libCacheSim's codes for them (`req_op_e`), as twr records carry them.
    static let operations: [(name: String, code: UInt32)] = [
        ("get", 1), ("gets", 2), ("set", 3), ("add", 4), ("cas", 5), ("replace", 6),
        ("append", 7), ("prepend", 8), ("delete", 9), ("incr", 10), ("decr", 11),
    ]

    @Test("hand-worked: sizes are key plus value, a get of value size 0 is size 0, writes are sets, TTLs kept")
    func handWorked() throws {
        let rows = try decode("""
            0,AAAAAC2cSo8UQ,18,2017,1014,get,0
            0,AAAAAC2cSo8UQ,18,2017,1014,set,3600
            1,42,2,0,7,get,0
            2,BBB:key-2,9,100,77,gets,0
            3,BBB:key-2,9,0,77,delete,0
            5,C,1,50,1,incr,60

            """)
        #expect(rows.map(\.time) == [0, 0, 1, 2, 3, 5])
        #expect(rows.map(\.size) == [2035, 2035, 0, 109, 9, 51])
        #expect(rows.map(\.operation) == [.get, .set, .get, .get, .delete, .set])
        #expect(rows.map(\.ttl) == [0, 3600, 0, 0, 0, 60])
        // Keys: the same text is the same key, a numeric key stays its number.
        #expect(rows[0].key == rows[1].key && rows[3].key == rows[4].key && rows[0].key != rows[3].key)
        #expect(rows[2].key == 42)
    }

    @Test("differential: random rows read from CSV equal the same rows as twr records", arguments: [1, 2, 3] as [UInt64])
    func sameAsTwr(seed: UInt64) throws {
        var generator = SeededRandom(seed: seed)
        var csv = ""
        var twr: [UInt8] = []
        func put<T: FixedWidthInteger>(_ v: T) { withUnsafeBytes(of: v.littleEndian) { twr += $0 } }
        for row in 0..<2_000 {
            let time = UInt32(row / 3)
            let key = generator.next() % 300
            let keySize = UInt32(1 + generator.next() % 1023)
            let valueSize = generator.next() % 5 == 0 ? 0 : UInt32(generator.next() % 4_000_000)
            let (name, code) = Self.operations[Int(generator.next() % UInt64(Self.operations.count))]
            let ttl = code >= 3 && code != 9 ? UInt32(generator.next() % 100_000) : 0
            // Twitter writes its operations in lower case; the reader does not mind either way.
            let spelled = row % 7 == 0 ? name.uppercased() : name
            csv += "\(time),\(key),\(keySize),\(valueSize),\(generator.next() % 2000),\(spelled),\(ttl)\n"
            put(time); put(key); put(keySize << 22 | valueSize); put(code << 24 | ttl)
        }
        let fromCSV = try decode(csv)
        let fromTwr = try readTrace(try temporaryFile(Data(twr), suffix: ".twr"))
        #expect(fromCSV.count == 2_000)
        #expect(fromCSV == fromTwr)
    }

    @Test("analyze counts the TTLs Twitter's writes carry, apart from the gets'")
    func analyzeTTLs() throws {
        let path = try temporaryFile("""
            0,a,1,10,1,set,3600
            1,a,1,10,1,get,0
            2,b,1,10,1,add,60
            3,b,1,10,1,get,0
            4,c,1,10,1,set,3600

            """)
        var reader = try TraceSpec(path: path).open()
        let a = try TraceAnalyzer.analyze(&reader)
        #expect(a.requests == 2 && a.requestsWithTTL == 0 && a.setsWithTTL == 3)
        #expect(a.commonTTLs == [.init(ttl: 3600, requests: 2), .init(ttl: 60, requests: 1)])
        let line = TraceAnalysisReport.rows(a, trace: path).first { $0.0 == "TTL" }?.1 ?? ""
        #expect(line.hasPrefix("0 requests (0.0000), 3 sets; most common: 3600 s (2), 60 s (1)"), "\(line)")
    }

    @Test("only a headerless row of Twitter's shape is read so; other CSVs keep their layouts")
    func detection() throws {
        // A header naming columns wins.
        let headed = try decode("time,key,size,op,a,b,c\n1,7,10,get,0,0,0\n")
        #expect(headed == [Request(time: 1, key: 7, size: 10, operation: .get)])
        // Seven fields without an operation in the sixth: the default layout, whose fourth is the operation.
        let plain = try decode("1,7,10,get,5,6,7\n")
        #expect(plain == [Request(time: 1, key: 7, size: 10, operation: .get)])
        // A non-numeric size column: not Twitter's.
        #expect(decodeError("1,7,x,10,5,get,0\n") != nil)
        // --header absent: still Twitter's when the rows are.
        let absent = try decode("0,k,1,2,3,set,60\n", header: .absent)
        #expect(absent.map(\.size) == [3] && absent.map(\.ttl) == [60])
        // --header present: the first row is a header, never Twitter's data.
        let present = try decode("time,key,size\n1,7,10\n", header: .present)
        #expect(present == [Request(time: 1, key: 7, size: 10)])
    }

    @Test("a bad row of a Twitter trace is named by its line", arguments: [
        ("0,k,1,2,3,get,0\n1,k,1,2,3,get\n", 2, "has 7 fields"),
        ("0,k,1,2,3,get,0\n1,k,1,2,3,get,0,9\n", 2, "has 7 fields"),
        ("0,k,1,2,3,get,0\n1,k,1,2,3,fetch,0\n", 2, "unknown operation 'fetch'"),
        ("0,k,1,2,3,get,0\n1,k,1,-2,3,get,0\n", 2, "value size -2 is negative"),
        ("0,k,1,2,3,get,0\n1,k,x,2,3,get,0\n", 2, "key size 'x' is not a whole number"),
        ("0,k,1,2,3,get,0\n1,k,1,2,3,set,soon\n", 2, "TTL 'soon' is not a whole number"),
        ("0,k,1,2,3,get,0\n\n2,k,1,2,3,set,99999999999\n", 3, "TTL"),
    ])
    func badRows(text: String, line: Int, wording: String) {
        let error = decodeError(text)
        #expect(error?.kind == .malformed)
        #expect(error?.line == line, "\(String(describing: error))")
        #expect(error?.reason.contains(wording) == true, "\(String(describing: error))")
    }
}
