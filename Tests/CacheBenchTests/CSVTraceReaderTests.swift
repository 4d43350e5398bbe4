@testable import CacheBench
@testable import CacheBenchCommandLine
import Foundation
import TestSupport
import Testing

/// Decodes a whole trace given as text.
func decode(_ text: String, columns: CSVColumns? = nil, header: HeaderMode = .auto) throws -> [Request] {
    let path = try temporaryFile(text)
    defer { try? FileManager.default.removeItem(atPath: path) }
    var reader = try CSVTraceReader(path: path, columns: columns, header: header)
    var all: [Request] = []
    var batch: [Request] = []
    while try reader.nextBatch(&batch) { all += batch }
    return all
}

/// The error a malformed trace gives.
func decodeError(_ text: String, columns: CSVColumns? = nil) -> TraceError? {
    do {
        _ = try decode(text, columns: columns)
        return nil
    } catch let error as TraceError {
        return error
    } catch {
        return nil
    }
}

@Suite("CSV trace reader")
struct CSVTraceReaderTests {
    @Test("a header names the columns, in any order")
    func header() throws {
        let rows = try decode("size,op,key,timestamp\n10,get,7,1.5\n20,set,8,2\n")
        #expect(rows == [Request(time: 1.5, key: 7, size: 10, operation: .get),
                         Request(time: 2, key: 8, size: 20, operation: .set)])
    }

    @Test("without a header the layout is timestamp,key,size[,op]")
    func noHeader() throws {
        let rows = try decode("1,5,100\n2,6,200\n")
        #expect(rows.map(\.key) == [5, 6])
        #expect(rows.map(\.size) == [100, 200])
        let withOps = try decode("1,5,100,delete\n2,,,memory-warning\n3,,,background\n4,,,tick\n5,,,terminate\n")
        #expect(withOps.map(\.operation) == [.delete, .memoryWarning, .background, .tick, .terminate])
        // libCacheSim's other operation names: update writes, nop reads as its binary readers read it.
        #expect(try decode("1,5,100,update\n2,5,100,NOP\n").map(\.operation) == [.set, .get])
    }

    @Test("a headerless first line of one field (a key per line) refuses a later line with separators: a title, not a header")
    func titleLineBeforeRows() throws {
        for first in ["hello world", "42", "trace of 2026-11-30"] {
            let error = decodeError(first + "\n1,2,3,get\n2,2,3,get\n")
            #expect(error?.line == 2 && error?.reason.contains("first line has one and no header") == true, "\(first): \(String(describing: error))")
        }
        // A key per line stays a key per line; a column map reads what it names.
        #expect(try decode("7\n8\n7\n").map(\.key) == [7, 8, 7])
        #expect(try decode("7\n1,8\n", columns: CSVColumns(time: nil, key: 0, size: nil, operation: nil)).map(\.key) == [7, 1])
    }

    @Test("a headerless trace whose first row has 3 fields refuses a later row with an operation")
    func operationColumnPartWay() throws {
        for later in ["2,6,200,delete", "2,6,200,evict", "2,\"6\",\"200\",set"] {
            let error = decodeError("1,5,100\n" + later + "\n3,5,100\n")
            #expect(error?.line == 2 && error?.reason.contains("first row has 3") == true, "\(later): \(String(describing: error))")
        }
        // With a column map, extra fields are the user's choice to leave unread.
        #expect(try decode("1,5,100\n2,6,200,delete\n", columns: CSVColumns(time: 0, key: 1, size: 2, operation: nil)).count == 2)
        #expect(try decode("1,5,100\n2,\"6\",200\n").map(\.key) == [5, 6])
    }

    @Test("CR-only line endings are named at line 1, not read as a header and no rows")
    func carriageReturnsOnly() throws {
        for text in ["timestamp,key,size\r1,5,100\r2,6,200\r", "1,5,100\r2,6,200\r"] {
            let error = decodeError(text)
            #expect(error?.line == 1 && error?.reason.contains("carriage returns without line feeds") == true, "\(String(describing: error))")
        }
        // CRLF stays fine.
        #expect(try decode("timestamp,key,size\r\n1,5,100\r\n2,6,200\r\n").map(\.key) == [5, 6])
        // A file too long for one line says the same, not "line is longer than 65536 bytes".
        let long = String(repeating: "1,5,100\r", count: 20_000)
        let error = decodeError(long)
        #expect(error?.line == 1 && error?.reason.contains("carriage returns without line feeds") == true, "\(String(describing: error))")
        // A long line without CRs is still too long.
        #expect(decodeError(String(repeating: "x", count: 70_000) + "\n")?.reason.contains("longer than") == true)
    }

    @Test("a first row holding a number is a row, even when a field is a column's name")
    func numbersAreNotHeaders() throws {
        for name in ["id", "key", "size", "timestamp", "op"] {
            let rows = try decode("1,\(name),10\n2,\(name),10\n")
            #expect(rows.count == 2 && rows.map(\.size) == [10, 10] && rows[0].key == rows[1].key, "\(name): \(rows)")
        }
        #expect(try decode("1.5e3,7\n2e3,7\n").map(\.key) == [7, 7])
        // A header has no numbers; libCacheSim's '#' header neither.
        #expect(try decode("time,id,size\n1,7,10\n").map(\.key) == [7])
        #expect(try decode("# time, object, size, next_access_vtime\n1, 7, 10, -1\n").map(\.key) == [7])
        for (text, number) in [("10", true), ("-3", true), ("1.5", true), (".5", true), ("2e9", true), ("+1E-3", true),
                               ("", false), (".", false), ("e5", false), ("1e", false), ("id", false), ("1a", false)] {
            #expect(CSVTraceReader.isNumber(text) == number, "\(text)")
        }
    }

    @Test("one column is keys only, with the row index as time")
    func keysOnly() throws {
        let rows = try decode("3\n4\n3\n")
        #expect(rows.map(\.key) == [3, 4, 3])
        #expect(rows.map(\.time) == [0, 1, 2])
        #expect(rows.allSatisfy { $0.size == 1 })
    }

    @Test("--columns maps fields and ignores unmapped ones (libCacheSim's cloudPhysicsIO layout)")
    func columnMap() throws {
        let columns = try CSVColumns.parse("time=2,key=5,size=4")
        let rows = try decode("version,time,op,size,lbn\n1,100,write,4096,77\n1,101,read,512,78\n", columns: columns)
        #expect(rows == [Request(time: 100, key: 77, size: 4096), Request(time: 101, key: 78, size: 512)])
    }

    @Test("aliases and case: read/write (the contract's aliases of get and set), GET, SET")
    func aliases() throws {
        let rows = try decode("time,key,size,op\n1,1,1,READ\n2,1,1,Write\n3,1,1,GET\n4,1,1,SET\n")
        #expect(rows.map(\.operation) == [.get, .set, .get, .set])
    }

    @Test("CRLF line endings, a last line without newline, blank lines, comment lines at the top")
    func lineEndings() throws {
        let rows = try decode("# exported 2026-12-02\r\n# by a script\r\ntimestamp,key,size\r\n1,1,10\r\n\r\n2,2,20")
        #expect(rows.map(\.key) == [1, 2])
        #expect(rows.map(\.size) == [10, 20])
    }

    @Test("after the header or a row, a line starting with # is a row whose key starts with #, as libCacheSim reads it")
    func keysStartingWithHash() throws {
        let rows = try decode("key,size\n#a,10\n#b,10\n#a,10\nc,10\n")
        #expect(rows.count == 4 && rows[0].key == rows[2].key && Set(rows.map(\.key)).count == 3)
        let keysOnly = try decode("a\n#b\n#b\n")
        #expect(keysOnly.count == 3 && keysOnly[1].key == keysOnly[2].key && keysOnly[0].key != keysOnly[1].key)
    }

    @Test("string keys are hashed consistently; quoted fields may hold commas and quotes")
    func stringKeys() throws {
        let rows = try decode("time,key,size\n1,https://a/x.png,10\n2,\"https://a/x,y.png\",10\n3,https://a/x.png,10\n4,\"say \"\"hi\"\"\",1\n")
        #expect(rows[0].key == rows[2].key)
        #expect(rows[0].key != rows[1].key)
        #expect(rows.count == 4)
    }

    @Test("tab-separated files")
    func tabs() throws {
        let rows = try decode("time\tkey\tsize\n1\t9\t3\n")
        #expect(rows == [Request(time: 1, key: 9, size: 3)])
    }

    @Test("streams across chunk boundaries without losing or splitting rows")
    func chunks() throws {
        var text = "timestamp,key,size\n"
        for i in 0..<300_000 { text += "\(i),\(i % 977),\(i % 13 + 1)\n" }
        let rows = try decode(text)
        #expect(rows.count == 300_000)
        #expect(rows.last == Request(time: 299_999, key: UInt64(299_999 % 977), size: 299_999 % 13 + 1))
    }

    @Test("the 8-byte digit parser agrees with a digit-by-digit one on every length and tail")
    func leadingDigits() {
        var generator = SystemRandomNumberGenerator()
        let tails: [UInt8] = [0x2C, 0x09, 0x0A, 0x0D, 0x2E, 0x20, 0x2F, 0x3A, 0x00, 0xFF, 0x80, 0x41]
        for _ in 0..<20_000 {
            var bytes = (0..<8).map { _ in UInt8.random(in: 0x30...0x39, using: &generator) }
            let length = Int.random(in: 0...8, using: &generator)
            if length < 8 { bytes[length] = tails.randomElement(using: &generator) ?? 0x2C }
            for k in (length + 1)..<max(length + 1, 8) where k < 8 { bytes[k] = UInt8.random(in: 0...255, using: &generator) }
            var expected: UInt64 = 0
            for byte in bytes.prefix(length) { expected = expected * 10 + UInt64(byte - 0x30) }
            let (value, parsedLength) = bytes.withUnsafeBufferPointer { _leadingDigits($0.baseAddress!) }
            #expect(parsedLength == length, "\(bytes)")
            #expect(value == expected, "\(bytes)")
        }
    }

    @Test("numbers of 1 to 19 digits, leading zeros and a number ending the last line")
    func numberLengths() throws {
        var text = "timestamp,key,size\n"
        var expected: [Request] = []
        for digits in 1...19 {
            let key = String(repeating: "9", count: digits)
            let size = "0" + String(digits)
            text += "\(digits),\(key),\(size)\n"
            expected.append(Request(time: Double(digits), key: UInt64(key) ?? 0, size: digits))
        }
        text += "20,0000000000000000007,12345678"                     // no newline at the end
        expected.append(Request(time: 20, key: 7, size: 12_345_678))
        #expect(try decode(text) == expected)
    }

    @Test("malformed rows name the file and line", arguments: [
        ("timestamp,key,size\n1,2,3\n4,5,x\n", 3, "not a whole number"),
        ("timestamp,key,size\n1,2,-3\n", 2, "negative"),
        ("timestamp,key,size\n1,,3\n", 2, "empty key"),
        ("timestamp,key,size\n1,2\n", 2, "expected at least 3 columns"),
        ("timestamp,key,size,op\n1,2,3,fly\n", 2, "unknown operation"),
        ("timestamp,key,size\n1,2,99999999999999999\n", 2, "exceeds 2^53"),
        ("timestamp,key,size\nabc,2,3\n", 2, "timestamp"),
        // Another layout (key,size,op,time) read as timestamp,key,size,op: the first field is
        // named, not the stray one in the operation's place.
        ("k1,100,get,5\n", 1, "timestamp 'k1'"),
        ("timestamp,key,size\n1,\"open,3\n", 2, "unterminated"),
        ("timestamp,key,size\n1,a\u{0}b,3\n", 2, "NUL"),
        ("time,foo\n", 1, "the header names no key column"),
    ])
    func malformed(text: String, line: Int, reason: String) throws {
        let error = try #require(decodeError(text))
        #expect(error.kind == .malformed)
        #expect(error.line == line)
        #expect(error.reason.contains(reason), "\(error)")
        #expect(error.description.hasPrefix(error.file + ":\(line): "))
    }

    @Test("invalid UTF-8 in a key is an error")
    func invalidUTF8() throws {
        let path = try temporaryFile(Data("timestamp,key,size\n1,ab".utf8) + Data([0xC3, 0x28]) + Data(",3\n".utf8))
        var reader = try CSVTraceReader(path: path)
        var batch: [Request] = []
        #expect(throws: TraceError.self) { _ = try reader.nextBatch(&batch) }
    }

    @Test("--columns parsing", arguments: [
        ("time=1,key=2,size=3,op=4", CSVColumns(time: 0, key: 1, size: 2, operation: 3)),
        ("key=1", CSVColumns(time: nil, key: 0, size: nil, operation: nil)),
        ("size=3, key=2", CSVColumns(time: nil, key: 1, size: 2, operation: nil)),
    ])
    func columns(text: String, expected: CSVColumns) throws {
        #expect(try CSVColumns.parse(text) == expected)
    }

    @Test("bad --columns", arguments: ["time=1", "key=0", "key=x", "key=1,key=2", "key=1,colour=2", "key=1,size=1", "key"])
    func badColumns(text: String) {
        #expect(throws: UsageError.self) { try CSVColumns.parse(text) }
    }

    @Test("sizes", arguments: [("100", 100), ("64MiB", 64 << 20), ("1GB", 1_000_000_000), ("1.5KiB", 1536), ("2 kb", 2000),
                               // A whole number of a unit is exact up to Int.max, as a byte count is.
                               ("8388607T", 8_388_607 << 40), ("9223372036854775KB", 9_223_372_036_854_775_000),
                               ("9223372036854775807B", Int.max), ("8388607.5TiB", 9_223_371_487_098_961_920)])
    func sizes(text: String, expected: Int) throws {
        #expect(try SizeFormat.parse(text) == expected)
    }

    @Test("bad sizes", arguments: ["", "MiB", "12XB", "1.5", "-5", "1e3"])
    func badSizes(text: String) {
        #expect(throws: InvalidValueError.self) { try SizeFormat.parse(text) }
    }

    @Test("a bad size says what is wrong with it", arguments: [
        ("-5", "cannot be negative"), ("-64MiB", "cannot be negative"),
        ("99999999999999999999999", "too large"), ("1.5", "without a unit must be a whole number"), ("0.4B", "in bytes (B) must be a whole number"),
        ("12XB", "unknown size suffix 'xb'"), ("1e30GiB", "unknown size suffix"),
        ("100000000000TiB", "too large"), ("8388608T", "too large"), ("9223372036854776KB", "too large"),
        ("8388608.5TiB", "too large"),
    ])
    func badSizeWording(text: String, wording: String) {
        #expect(throws: InvalidValueError.self) { try SizeFormat.parse(text) }
        do {
            _ = try SizeFormat.parse(text)
        } catch {
            #expect("\(error)".contains(wording), "\(text): \(error)")
        }
    }
}
