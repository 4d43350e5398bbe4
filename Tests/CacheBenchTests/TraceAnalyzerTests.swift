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
        // traceAnalyzer's "object rate min 1.1467 obj/s, max 81.2400 obj/s, window 300s".
        #expect(String(format: "%.4f %.4f", a.minimumObjectRate, a.maximumObjectRate) == "1.1467 81.2400")
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

    @Test("rate windows count whole seconds from the first request's, as traceAnalyzer: decimal times and their conversion agree")
    func windowsOfWholeSeconds() throws {
        func windows(_ times: [String]) throws -> [Int] {
            let path = try temporaryFile("time,key,size\n" + times.enumerated().map { "\($1),\($0 % 3),1\n" }.joined())
            defer { try? FileManager.default.removeItem(atPath: path) }
            var reader = try TraceSpec(path: path).open()
            return try TraceAnalyzer.analyze(&reader, window: 10).windows.map(\.requests)
        }
        // 10.4 is 9.9 s after 0.5, but in second 10: the second window's, as in traceAnalyzer.
        let decimal = try windows(["0.5", "5", "9.9", "10.4", "15", "19.9", "20.5"])
        #expect(decimal == [3, 3, 1])
        #expect(try windows(["0", "5", "9", "10", "15", "19", "20"]) == decimal)
    }

    /// traceAnalyzer 0.3.5 `--reuse --size --reqRate --warmup-sec=0` on the same file writes
    /// (`.reuse`) reuse real time in 5 s bins, e.g. 753:1241, 763:1520, 766:6975, 767:7679, 384
    /// bins in all, and reuse virtual time in log-1.5 bins 0:2685, 1:655, 2:534, 3:975, 9:1038,
    /// 22:9883, 26:4737 with 48974 first requests; (`.size`) 65536:40591 and 69632:13251 requests;
    /// (`.reqRate_w300`) requests per second per window 3,4,3,3,4,48,100,4,… and new objects
    /// per second 1,2,1,0,1,39,64,1,… (whole numbers, as it prints them). Every bin matches; the
    /// test pins a sample of them and the totals.
    @Test("the bundled cloudPhysicsIO trace: traceAnalyzer's reuse, size and rate files")
    func cloudPhysicsDistributions() throws {
        let a = try Self.analyze("cloudPhysicsIO.oracleGeneral.bin")
        #expect(a.reuseTimeBin == 5)
        #expect(a.reuseTimeHistogram.reduce(0, +) == a.requests - a.objects)
        #expect(a.reuseTimeHistogram.filter { $0 > 0 }.count == 384)
        for (bin, count) in [(753, 1241), (763, 1520), (766, 6975), (767, 7679)] { #expect(a.reuseTimeHistogram[bin] == count, "bin \(bin)") }
        for (bin, count) in [(0, 2685), (1, 655), (2, 534), (3, 975), (9, 1038), (22, 9883), (26, 4737)] {
            #expect(a.requestsSinceHistogram[bin] == count, "bin \(bin)")
        }
        #expect(a.commonSizes.prefix(1) == [.init(size: 65536, requests: 40591, objects: 18638)])
        #expect(a.commonSizes.first { $0.size == 69632 }?.requests == 13251)
        #expect(a.windows.prefix(8).map { $0.requests / 300 } == [3, 4, 3, 3, 4, 48, 100, 4])
        #expect(a.windows.prefix(8).map { $0.newObjects / 300 } == [1, 2, 1, 0, 1, 39, 64, 1])
        #expect(a.windows.map(\.newObjects).reduce(0, +) == a.objects)
        #expect(a.reuseDistanceHistogram.reduce(0, +) == a.requests - a.objects)
        #expect(a.sizeHistogramByRequests.reduce(0, +) == a.requests && a.sizeHistogramByObjects.reduce(0, +) == a.objects)
        #expect(a.frequencyCounts.first == .init(frequency: 1630, objects: 1))
        #expect(a.frequencyCounts.last == .init(frequency: 1, objects: 21049))
        #expect(a.requestsWithTTL == 0 && a.sizeChanges == 0)
    }

    /// traceAnalyzer 0.3.5 (`-t time-col=1,obj-id-col=2,obj-size-col=3,header=true,obj-id-is-num=1
    /// --reuse --popularity --warmup-sec=0`) on the bundled Twitter sample: reuse real time 0:843
    /// (every reuse within 5 s) and 657 first requests; reuse virtual time 0:79, 1:45, 2:33, 3:47,
    /// 4:40, 5:53, 6:74, 7:58, 8:60, 9:61, 10:54, 11:62, 12:54, 13:40, 14:37, 15:24, 16:16, 17:6;
    /// most popular objects 98, 46, 44, 34, 30, 28 requests.
    @Test("libCacheSim's Twitter sample: traceAnalyzer's reuse and popularity files")
    func twitterDistributions() throws {
        let a = try Self.analyze("twitter_cluster52-1500.csv")
        #expect(a.objects == 657)
        #expect(a.reuseTimeHistogram == [843])
        #expect(a.requestsSinceHistogram == [79, 45, 33, 47, 40, 53, 74, 58, 60, 61, 54, 62, 54, 40, 37, 24, 16, 6])
        #expect(a.frequencyCounts.prefix(6).map(\.frequency) == [98, 46, 44, 34, 30, 28])
    }

    /// Worked by hand: A B C A B B D A.
    /// Reuse distances: A → 2 (B, C), B → 2 (C, A), B → 0, A → 2 (B, D): bin 0 once, bin "2-3" three times.
    /// Requests since: 3, 3, 1, 4 → log-1.5 bins 2, 2, 0, 3. Times are 0, 1, 2, … so reuse
    /// times 3, 3, 1, 4 s all fall in the first 5 s bin.
    @Test("hand-worked: reuse distance, requests since, reuse time")
    func reuseHandWorked() throws {
        let rows = zip(0..., ["A", "B", "C", "A", "B", "B", "D", "A"]).map { "\($0),\($1),10" }.joined(separator: "\n")
        var reader = try TraceSpec(path: try temporaryFile("timestamp,key,size\n" + rows + "\n")).open()
        let a = try TraceAnalyzer.analyze(&reader)
        #expect(a.reuseDistanceHistogram == [1, 0, 3])
        #expect(a.requestsSinceHistogram == [1, 0, 2, 1])
        #expect(a.reuseTimeHistogram == [4])
        // One window: A, B requested 3 and 2 times... A 3, B 3, C 1, D 1: 2 of 4 objects once.
        #expect(a.windows == [.init(requests: 8, bytes: 80, objects: 4, newObjects: 4, oneHitObjects: 2)])
    }

    @Test("reuse times past 500,000 s widen the bins rather than pile into the last one")
    func longReuseTimes() throws {
        // A at 0, 600,000 and 600,007 s; B at 3 and 1,234,567 s; C at 4 and 5.
        let text = "timestamp,key,size\n0,A,1\n3,B,1\n4,C,1\n5,C,1\n600000,A,1\n600007,A,1\n1234567,B,1\n"
        var reader = try TraceSpec(path: try temporaryFile(text)).open()
        let a = try TraceAnalyzer.analyze(&reader, window: 1e6)
        // 1,234,564 s needs bins of 20 s (5 s × 4): 61,728 of them.
        #expect(a.reuseTimeBin == 20)
        #expect(a.reuseTimeHistogram.reduce(0, +) == 4 && a.reuseTimeHistogram.count == 61_729)
        #expect(a.reuseTimeHistogram[0] == 2 && a.reuseTimeHistogram[30_000] == 1 && a.reuseTimeHistogram[61_728] == 1)
        // Uniform popularity is Zipf's α = 0 exactly, not rounding noise; its R² is 0/0, which
        // traceAnalyzer reports as 0 (a loop trace: "Zipf alpha=-0.0000, R2=0.0000").
        #expect(TraceAnalyzer.zipfFit([3, 3, 3, 3]) == (0, 0) && TraceAnalyzer.zipfFit([7]) == (0, 0))
        // Short traces keep traceAnalyzer's 5 s bins.
        var short = try TraceSpec(path: try temporaryFile("timestamp,key,size\n0,A,1\n499999,A,1\n")).open()
        let b = try TraceAnalyzer.analyze(&short, window: 1e6)
        #expect(b.reuseTimeBin == 5 && b.reuseTimeHistogram.count == 100_000)
    }

    /// The reuse distance against the definition, computed naively (the distinct keys between
    /// two requests for a key), on random traces long enough to compact the tree many times.
    @Test("differential: reuse distances equal a naive count on random traces", arguments: [1, 2, 3])
    func reuseDistanceDifferential(seed: UInt64) throws {
        var random = SeededRandom(seed: seed)
        let keyCount = [5, 200, 1500][Int(seed - 1)]
        let keys = (0..<6_000).map { _ in Int.random(in: 0..<keyCount, using: &random) }
        var expected: [Int] = []
        var last: [Int: Int] = [:]
        for (i, key) in keys.enumerated() {
            if let previous = last[key] {
                let distance = Set(keys[(previous + 1)..<i]).count
                let bin = distance == 0 ? 0 : TraceAnalyzer.log2Bin(distance) + 1
                if bin >= expected.count { expected += repeatElement(0, count: bin - expected.count + 1) }
                expected[bin] += 1
            }
            last[key] = i
        }
        var axis = _ReuseDistanceAxis()
        var histogram: [Int] = []
        for key in keys {
            if let distance = axis.request(key) {
                let bin = distance == 0 ? 0 : TraceAnalyzer.log2Bin(distance) + 1
                if bin >= histogram.count { histogram += repeatElement(0, count: bin - histogram.count + 1) }
                histogram[bin] += 1
            }
        }
        #expect(histogram == expected)
    }

    /// Two windows of 10 s: window 0 has k1 ×2, k2 ×1 (one of two objects once); window 1 has
    /// k1 ×1, k3 ×1 (both once; k3 new). k2 changes size once then back: two size changes, one object.
    @Test("hand-worked: one-hit wonders and new objects per window, size changes")
    func windowsHandWorked() throws {
        let csv = "timestamp,key,size\n0,1,5\n1,1,5\n2,2,7\n10,1,5\n11,3,9\n12,2,8\n13,2,7\n"
        var reader = try TraceSpec(path: try temporaryFile(csv)).open()
        let a = try TraceAnalyzer.analyze(&reader, window: 10)
        #expect(a.windows.count == 2)
        #expect(a.windows[0] == .init(requests: 3, bytes: 17, objects: 2, newObjects: 2, oneHitObjects: 1))
        #expect(a.windows[1] == .init(requests: 4, bytes: 29, objects: 3, newObjects: 1, oneHitObjects: 2))
        #expect(a.sizeChanges == 2 && a.objectsWithSizeChanges == 1)
        #expect(a.smallestSize == 5 && a.largestSize == 9)
    }

    /// Twitter's binary layout carries a TTL in the low 24 bits of its last word.
    @Test("TTL use from a Twitter binary trace")
    func ttl() throws {
        var bytes: [UInt8] = []
        func put<T: FixedWidthInteger>(_ v: T) { withUnsafeBytes(of: v.littleEndian) { bytes += $0 } }
        for (time, key, ttl) in [(1, 7, 60), (2, 8, 60), (3, 9, 0), (4, 7, 3600)] as [(UInt32, UInt64, UInt32)] {
            put(time); put(key); put(UInt32(8) << 22 | 100); put(UInt32(1) << 24 | ttl)
        }
        let path = try temporaryFile(Data(bytes), suffix: ".twr")
        var reader = try TraceSpec(path: path, format: .twr).open()
        let a = try TraceAnalyzer.analyze(&reader)
        #expect(a.requests == 4)
        #expect(a.requestsWithTTL == 3)
        #expect(a.commonTTLs == [.init(ttl: 60, requests: 2), .init(ttl: 3600, requests: 1)])
    }

    @Test("request rate: complete windows only, or the whole trace's rate when none is complete")
    func requestRateLine() throws {
        let short = try Self.analyze("twitter_cluster52-1500.csv")
        let wholeRate = 1500 / max(short.lastTime - short.firstTime, 1)
        // Every format carries the whole trace's rate: the fields of JSON as the table's line.
        #expect(short.windows.count == 1 && short.minimumRate == wholeRate && short.maximumRate == wholeRate)
        let objectRate = Double(short.objects) / max(short.lastTime - short.firstTime, 1)
        #expect(short.minimumObjectRate == objectRate && short.maximumObjectRate == objectRate && objectRate > 0)
        let shortLine = TraceAnalysisReport.rows(short, trace: "t").first { $0.0 == "request rate" }?.1 ?? ""
        #expect(shortLine == String(format: "no complete window of 300 s; %.4f req/s over the whole trace", wholeRate), "\(shortLine)")
        let objectLine = TraceAnalysisReport.rows(short, trace: "t").first { $0.0 == "object rate" }?.1 ?? ""
        #expect(objectLine == String(format: "no complete window; %.4f obj/s over the whole trace", objectRate), "\(objectLine)")
        let long = try Self.analyze("cloudPhysicsIO.oracleGeneral.bin")
        let longLine = TraceAnalysisReport.rows(long, trace: "t").first { $0.0 == "request rate" }?.1 ?? ""
        #expect(longLine == "min 3.0433, max 117.5267 req/s (window 300 s)", "\(longLine)")
    }

    @Test("JSON: a ratio over no objects (an empty window) and a Zipf fit to fewer than two objects are null, not 0")
    func undefinedFiguresAreNull() throws {
        // Requests at 0 and 1000 s: windows 1 and 2 of 300 s hold nothing.
        let gap = try temporaryFile("timestamp,key,size\n0,1,10\n1,2,10\n1000,1,10\n1001,3,10\n")
        var reader = try TraceSpec(path: gap).open()
        let a = try TraceAnalyzer.analyze(&reader)
        let windows = TraceAnalysisReport.json(a, trace: "gap").serialized()
        let parsed = try #require(try JSONSerialization.jsonObject(with: Data(windows.utf8)) as? [String: Any])
        let ratios = (parsed["windows"] as? [[String: Any]] ?? []).map { $0["oneHitWonderRatio"] }
        #expect(ratios.count == 4)
        #expect(ratios.map { $0 is NSNull } == [false, true, true, false], "\(ratios)")
        #expect(parsed["zipfAlpha"] is NSNumber && parsed["oneHitWonderRatio"] is NSNumber)

        let one = try temporaryFile("timestamp,key,size\n0,1,10\n1,1,10\n")
        var single = try TraceSpec(path: one).open()
        let b = try TraceAnalyzer.analyze(&single)
        let text = TraceAnalysisReport.json(b, trace: "one").serialized()
        let fields = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
        #expect(fields["zipfAlpha"] is NSNull && fields["zipfR2"] is NSNull)
        #expect(fields["oneHitWonderRatio"] as? Double == 0)
        #expect(TraceAnalysisReport.rows(b, trace: "one").first { $0.0 == "popularity" }?.1 == "-")

        let sizeZero = try temporaryFile("timestamp,key,size\n0,1,0\n1,2,0\n")
        var empty = try TraceSpec(path: sizeZero).open()
        let c = try TraceAnalyzer.analyze(&empty)
        let none = try #require(try JSONSerialization.jsonObject(with: Data(TraceAnalysisReport.json(c, trace: "z").serialized().utf8)) as? [String: Any])
        #expect(none["oneHitWonderRatio"] is NSNull && none["zipfAlpha"] is NSNull)
    }

    @Test("a window far shorter than the trace's span is refused at the request past 10^6 windows, not allocated")
    func windowLimit() throws {
        let path = try temporaryFile("timestamp,key,size\n0,1,10\n1,2,10\n2,3,10\n")
        var reader = try TraceSpec(path: path).open()
        #expect(try TraceAnalyzer.analyze(&reader, window: 1e-5).requests == 3)   // 200,000 windows
        var tooFine = try TraceSpec(path: path).open()
        let error = try #require(throws: TraceError.self) { try TraceAnalyzer.analyze(&tooFine, window: 1e-6) }
        #expect(error.kind == .malformed && error.reason.contains("request 2"))
    }

    @Test("plots: six SVG documents with the trace's name and data")
    func plots() throws {
        let a = try Self.analyze("cloudPhysicsIO-2k.lcs")
        let plots = TraceAnalysisReport.plots(a, trace: "Traces/cloudPhysicsIO-2k.lcs")
        #expect(plots.map(\.name) == ["popularity.svg", "reuse-distance.svg", "reuse-time.svg", "sizes.svg", "request-rate.svg", "one-hit-wonders.svg"])
        for plot in plots {
            #expect(plot.svg.hasPrefix("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<svg") && plot.svg.hasSuffix("</svg>\n"), "\(plot.name)")
            #expect(plot.svg.contains("cloudPhysicsIO-2k.lcs"), "\(plot.name)")
            #expect(plot.svg.contains("<polyline"), "\(plot.name)")
        }
    }
}
