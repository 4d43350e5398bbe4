@testable import CacheBench
import Foundation
import Testing
import TestSupport

@Suite("analyze, against libCacheSim's traceAnalyzer")
struct TraceAnalyzerTests {
    static func analyze(_ name: String) throws -> TraceAnalysis {
        var reader = try TraceSpec(path: Repository.trace(name)).open()
        return try TraceAnalyzer.analyze(&reader)
    }

    /// traceAnalyzer 0.3.5 `--common` on the same file prints: 113872 requests, 48974 objects,
    /// obj 1.8904 GiB, time span 7200, request rate min 3.0433 max 117.5267 (300 s windows),
    /// Zipf alpha 0.5464 R2 0.8743, X-hit 21049, 18839, 827, 6059, 263, 973, 79, 564 and most
    /// popular 1630, 1342, 1341, 652, 360, 360, 326, 326.
    @Test("the bundled cloudPhysicsIO trace: traceAnalyzer's summary numbers")
    func cloudPhysics() throws {
        let a = try Self.analyze("cloudPhysicsIO.oracleGeneral.bin")
        #expect(a.requests == 113_872)
        #expect(a.objects == 48974)
        #expect(a.objectBytes == 2_029_769_728)
        #expect(a.lastTime - a.firstTime == 7200)
        #expect(a.objectsByRequestCount == [21049, 18839, 827, 6059, 263, 973, 79, 564])
        #expect(a.topFrequencies == [1630, 1342, 1341, 652, 360, 360, 326, 326])
        #expect(abs(a.zipfAlpha - 0.5464) < 0.00005)
        #expect(abs(a.zipfR2 - 0.8743) < 0.00005)
        #expect(abs(a.minimumRate - 3.0433) < 0.00005)
        #expect(abs(a.maximumRate - 117.5267) < 0.00005)
    }

    /// traceAnalyzer on the lcs sample: compulsory miss ratio 0.4065 / 0.6836, sizes by
    /// request/object 9288 / 15621, span 517 s, X-hit 623, 39, 34, 48, 12, 14, 4, 11.
    @Test("the lcs sample: the same figures as traceAnalyzer")
    func lcsSample() throws {
        let a = try Self.analyze("cloudPhysicsIO-2k.lcs")
        #expect(a.requests == 2000)
        #expect(a.objects == 813)
        #expect(a.requestBytes / a.requests == 9288)
        #expect(a.objectBytes / a.objects == 15621)
        #expect(String(format: "%.4f", Double(a.objectBytes) / Double(a.requestBytes)) == "0.6836")
        #expect(a.lastTime - a.firstTime == 517)
        #expect(a.objectsByRequestCount == [623, 39, 34, 48, 12, 14, 4, 11])
        #expect(a.topFrequencies == [115, 92, 91, 46, 29, 28, 23, 23])
    }

    @Test("hand-worked: operations, zero sizes, size changes, request counts and windows")
    func handWorked() throws {
        // Object k requested 8/k times (k = 1, 2, 4, 8), then key 1 once more with another size.
        var rows = "timestamp,key,size,op\n"
        var t = 0
        for (key, count) in [(1, 8), (2, 4), (4, 2), (8, 1)] {
            for _ in 0..<count { rows += "\(t),\(key),\(key * 10),get\n"; t += 1 }
        }
        rows += "20,1,99,get\n20,9,5,set\n21,9,0,get\n"
        let path = try temporaryFile(rows)
        var reader = try TraceSpec(path: path).open()
        let a = try TraceAnalyzer.analyze(&reader, window: 10)
        #expect(a.requests == 16)
        #expect(a.objects == 4)
        #expect(a.objectBytes == 150)
        #expect(a.sizeChanges == 1)
        #expect(a.zeroSizeRequests == 1)
        #expect(a.operations == ["get": 17, "set": 1])
        #expect(a.objectsByRequestCount == [1, 1, 0, 1, 0, 0, 0, 0])   // 1, 2 and 4 requests; key 1 has 9
        #expect(a.topFrequencies == [9, 4, 2, 1])
        // Windows [0,10) and [10,20) are complete with 10 and 5 requests; [20,30) is not.
        #expect(a.minimumRate == 0.5 && a.maximumRate == 1.0)
    }
}
