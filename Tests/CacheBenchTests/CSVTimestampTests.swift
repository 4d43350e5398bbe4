import CacheBench
import TestSupport
import Testing

@Suite("CSV reader: decimal timestamps and operations without a String per row")
struct CSVTimestampTests {
    @Test("decimal timestamps decode exactly as Double(String) does")
    func decimals() throws {
        var random = Xoshiro256StarStar(seed: 99)
        var texts: [String] = ["0.5", ".25", "5.", "12.000", "0.001", "123456789.123456", "99999999999999.9", "1.5e3", "7"]
        for _ in 0..<3_000 {
            let whole = random.next(in: 0...99_999_999)
            let digits = random.next(in: 1...7)
            var fraction = ""
            for _ in 0..<digits { fraction += String(random.next(in: 0...9)) }
            texts.append("\(whole).\(fraction)")
        }
        let csv = "timestamp,key,size,op\n" + texts.enumerated().map { "\($1),\($0),1,get" }.joined(separator: "\n")
        var reader = try TraceSpec(path: try temporaryFile(csv)).open()
        var rows: [Request] = []
        var batch: [Request] = []
        while try reader.nextBatch(&batch) { rows += batch }
        #expect(rows.count == texts.count)
        for (row, text) in zip(rows, texts) {
            #expect(row.time == Double(text), "\(text)")
        }
    }

    @Test("operations in any case are recognised")
    func operations() throws {
        let csv = "timestamp,key,size,op\n0,1,1,get\n0,1,1,GET\n0,1,1,Set\n0,1,1,set\n0,1,1,read\n0,,,memory-warning\n"
        var reader = try TraceSpec(path: try temporaryFile(csv)).open()
        var batch: [Request] = []
        _ = try reader.nextBatch(&batch)
        #expect(batch.map(\.operation) == [.get, .get, .set, .set, .get, .memoryWarning])
    }
}
