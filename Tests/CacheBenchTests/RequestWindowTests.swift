@testable import CacheBench
import EvictionPolicies
import Foundation
import TestSupport
import Testing

/// A trace of `get` rows of size 1 with increasing timestamps (steps of 0 to 3 s), skewed keys.
private func windowTrace(seed: UInt64, rows: Int, keys: Int) -> [(time: Double, key: UInt64)] {
    var random = SeededRandom(seed: seed)
    var time = 0.0
    return (0..<rows).map { _ in
        time += Double(Int.random(in: 0...3, using: &random))
        let key = min(UInt64.random(in: 0..<UInt64(keys), using: &random), UInt64.random(in: 0..<UInt64(keys), using: &random))
        return (time, key)
    }
}

private func csv(_ rows: [(time: Double, key: UInt64)]) throws -> String {
    try temporaryFile("timestamp,key,size,op\n" + rows.map { "\(Int($0.time)),\($0.key),1,get\n" }.joined())
}

/// LRU by object count, as plainly as it can be written: a list, most recent last.
private struct ReferenceLRU {
    let capacity: Int
    var order: [UInt64] = []
    mutating func access(_ key: UInt64) -> Bool {
        if let index = order.firstIndex(of: key) {
            order.remove(at: index)
            order.append(key)
            return true
        }
        order.append(key)
        if order.count > capacity { order.removeFirst() }
        return false
    }
}

/// The reference's counts: every row goes to the cache; a row counts when `measured(index, time)`
/// and lands in the interval `interval(index, time)`.
private func reference(_ rows: [(time: Double, key: UInt64)], capacity: Int, measured: (Int, Double) -> Bool,
                       interval: (Int, Double) -> Double) -> (requests: Int, hits: Int, intervals: [(start: Double, requests: Int, hits: Int)]) {
    var lru = ReferenceLRU(capacity: capacity)
    var requests = 0, hits = 0
    var intervals: [(start: Double, requests: Int, hits: Int)] = []
    for (index, row) in rows.enumerated() {
        let hit = lru.access(row.key)
        guard measured(index, row.time) else { continue }
        requests += 1
        if hit { hits += 1 }
        let start = interval(index, row.time)
        if intervals.last?.start != start { intervals.append((start, 0, 0)) }
        intervals[intervals.count - 1].requests += 1
        if hit { intervals[intervals.count - 1].hits += 1 }
    }
    return (requests, hits, intervals)
}

private func replay(_ path: String, capacity: Int, window: RequestWindow, policy: String = "lru") throws -> ReplayResult {
    var job = ReplayJob(trace: TraceSpec(path: path), policy: policy, capacity: capacity, ignoreSize: true)
    job.window = window
    return try Replay.run(job)
}

@Suite("Methods: warm-up, caps, sampling and report intervals")
struct RequestWindowTests {
    @Test("spans: rows with req, durations with s m h d; a bare number or zero is refused")
    func spans() throws {
        #expect(try TraceSpan.parse("100000req") == .requests(100_000))
        #expect(try TraceSpan.parse("5 requests") == .requests(5))
        #expect(try TraceSpan.parse("30s") == .seconds(30))
        #expect(try TraceSpan.parse("15m") == .seconds(900))
        #expect(try TraceSpan.parse("1.5h") == .seconds(5400))
        #expect(try TraceSpan.parse("1d") == .seconds(86400))
        for bad in ["10", "0req", "1.5req", "-5s", "0s", "5x", "", "req"] {
            #expect(throws: InvalidValueError.self, "\(bad)") { try TraceSpan.parse(bad) }
        }
    }

    @Test("sampling ratios: above 0 and at most 1, as a decimal or a percentage")
    func ratios() throws {
        #expect(try RequestWindow.parseSampleRatio("0.01") == 0.01)
        #expect(try RequestWindow.parseSampleRatio("1%") == 0.01)
        #expect(try RequestWindow.parseSampleRatio("1") == 1)
        for bad in ["0", "0%", "1.5", "101%", "-0.1", "abc", "nan", "inf", ""] {
            #expect(throws: InvalidValueError.self, "\(bad)") { try RequestWindow.parseSampleRatio(bad) }
        }
        #expect(RequestWindow(sampleRatio: 0.01).scaled(1_000_000) == 10_000)
        #expect(RequestWindow(sampleRatio: 0.01).scaled(10) == 1)
        #expect(RequestWindow().scaled(77) == 77)
    }

    @Test("libCacheSim's one-letter sizes are powers of 1024; KB stays 1000")
    func sizes() throws {
        #expect(try SizeFormat.parse("64M") == 64 << 20)
        #expect(try SizeFormat.parse("1G") == 1 << 30)
        #expect(try SizeFormat.parse("1g") == 1 << 30)
        #expect(try SizeFormat.parse("512K") == 512 << 10)
        #expect(try SizeFormat.parse("64MiB") == 64 << 20)
        #expect(try SizeFormat.parse("64KB") == 64_000)
        #expect(throws: InvalidValueError.self) { try SizeFormat.parse("64Q") }
    }

    @Test("the sample keeps a key always or never, about ratio of the keys, and all of them at 1")
    func sampleFilter() throws {
        let keys = 100_000
        let rows = (0..<keys * 2).map { Request(time: Double($0), key: UInt64($0 % keys), size: 1) }
        for ratio in [0.01, 0.1, 0.5, 1.0] {
            var reader = WindowedReader(ArrayTraceReader(rows), window: RequestWindow(sampleRatio: ratio))
            var batch: [Request] = []
            var counts: [UInt64: Int] = [:]
            while try reader.nextBatch(&batch) { for request in batch { counts[request.key, default: 0] += 1 } }
            #expect(counts.values.allSatisfy { $0 == 2 }, "ratio \(ratio): a key kept once was dropped once")
            let expected = Double(keys) * ratio
            // Binomial: within 5 standard deviations.
            #expect(abs(Double(counts.count) - expected) <= 5 * (expected * (1 - ratio)).squareRoot() + 1, "ratio \(ratio): \(counts.count) keys")
        }
    }

    @Test("--max-requests counts the trace's rows before sampling")
    func cap() throws {
        let rows = (0..<1000).map { Request(time: Double($0), key: UInt64($0), size: 1) }
        var reader = WindowedReader(ArrayTraceReader(rows), window: RequestWindow(maxRequests: 300, sampleRatio: 0.5))
        var batch: [Request] = []
        var kept: [UInt64] = []
        while try reader.nextBatch(&batch) { kept += batch.map(\.key) }
        #expect(reader.schedule.traceRows == 300)
        #expect(kept.allSatisfy { $0 < 300 } && !kept.isEmpty && kept.count < 300)
    }

    @Test("warm-up and intervals in rows equal a plain LRU that counts only after the warm-up", arguments: [1, 2, 3] as [UInt64])
    func rowsAgainstReference(_ seed: UInt64) throws {
        let rows = windowTrace(seed: seed, rows: 3000, keys: 400)
        let path = try csv(rows)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let warm = 700, every = 450
        let result = try replay(path, capacity: 50, window: RequestWindow(warmup: .requests(warm), reportInterval: .requests(every)))
        let expected = reference(rows, capacity: 50, measured: { index, _ in index >= warm },
                                 interval: { index, _ in Double(warm + (index - warm) / every * every) })
        #expect(result.requests == expected.requests && result.hits == expected.hits)
        let window = try #require(result.window)
        #expect(window.warmupTraceRows == warm && window.warmupRequests == warm && window.traceRows == rows.count)
        #expect(window.intervals.map(\.start) == expected.intervals.map(\.start))
        #expect(window.intervals.map(\.counters.requests) == expected.intervals.map(\.requests))
        #expect(window.intervals.map(\.counters.hits) == expected.intervals.map(\.hits))
        #expect(window.intervals.reduce(0) { $0 + $1.counters.hits } == result.hits)
    }

    @Test("warm-up and intervals in trace time equal the reference, gaps skipped", arguments: [4, 5] as [UInt64])
    func durationsAgainstReference(_ seed: UInt64) throws {
        var rows = windowTrace(seed: seed, rows: 3000, keys: 400)
        // A gap of many intervals, which must not produce empty intervals.
        for i in 2000..<rows.count { rows[i].time += 5000 }
        let path = try csv(rows)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let warm = 600.0, every = 250.0
        let result = try replay(path, capacity: 80, window: RequestWindow(warmup: .seconds(warm), reportInterval: .seconds(every)))
        // Trace time counts from the first row.
        let first = rows[0].time
        // A row exactly at the warm-up's end still warms, as in libCacheSim (`clock_time <= warmup_sec`).
        let expected = reference(rows, capacity: 80, measured: { _, time in time - first > warm },
                                 interval: { _, time in warm + ((time - first - warm) / every).rounded(.down) * every })
        #expect(result.requests == expected.requests && result.hits == expected.hits)
        let window = try #require(result.window)
        #expect(window.intervals.map(\.start) == expected.intervals.map(\.start))
        #expect(window.intervals.map(\.counters.hits) == expected.intervals.map(\.hits))
        #expect(window.intervals.allSatisfy { $0.counters.requests > 0 })
    }

    @Test("a sampled replay is the reference LRU on the kept keys at the scaled capacity", arguments: [6, 7] as [UInt64])
    func sampledAgainstReference(_ seed: UInt64) throws {
        let rows = windowTrace(seed: seed, rows: 4000, keys: 2000)
        let path = try csv(rows)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let window = RequestWindow(warmup: .requests(500), sampleRatio: 0.3)
        let result = try replay(path, capacity: 200, window: window)
        // Which keys the sample keeps, read through the window alone.
        var reader = WindowedReader(try TraceSpec(path: path).open(), window: RequestWindow(sampleRatio: 0.3))
        var batch: [Request] = []
        var kept = Set<UInt64>()
        while try reader.nextBatch(&batch) { for request in batch { kept.insert(request.key) } }
        let sampled = rows.enumerated().filter { kept.contains($0.element.key) }
        let expected = reference(sampled.map(\.element), capacity: 60, measured: { i, _ in sampled[i].offset >= 500 }, interval: { _, _ in 0 })
        #expect(result.capacity == 200 && result.window?.sampledCapacity == 60)
        #expect(result.requests == expected.requests && result.hits == expected.hits)
    }

    @Test("--max-requests counts requests as libCacheSim's -n: size-0 rows, which are skipped, do not count, for the run or its working set")
    func capSkipsSizeZeroRows() throws {
        // Keys 1…12, every third row of size 0: the first 6 requests are keys 1 2 4 5 7 8 (rows 1–8).
        var text = "timestamp,key,size\n"
        for i in 1...12 { text += "\(i),\(i),\(i % 3 == 0 ? 0 : 10)\n" }
        let path = try temporaryFile(text)
        defer { try? FileManager.default.removeItem(atPath: path) }
        var job = ReplayJob(trace: TraceSpec(path: path), policy: "lru", capacity: 100, ignoreSize: true)
        job.window = RequestWindow(maxRequests: 6)
        let result = try Replay.run(job)
        #expect(result.requests == 6 && result.misses == 6)
        #expect(try WorkingSet.measure(TraceSpec(path: path), ignoreSize: true, maxRows: 6).objects == 6)
        #expect(try WorkingSet.measure(TraceSpec(path: path), ignoreSize: false, maxRows: 6).bytes == 60)
    }

    @Test("a pipe read by one job keeps no copy on the job's last pass (a second read fails); by default, or before a pass of its own, it is copied")
    func oneJobKeepsNoCopyOfAPipe() throws {
        var text = "timestamp,key,size\n"
        for i in 0..<3_000 { text += "\(i),\(i % 97),\(1 + i % 13)\n" }
        let bytes = Array(text.utf8)
        // (read by one job, capacity given, offline policy) → whether the same spec reads it again.
        for (oneJob, capacity, policy, readsAgain) in [(false, 100, "lru", true), (true, 100, "lru", false),
                                                       (true, nil, "lru", true), (true, 100, "belady", true)] as [(Bool, Int?, String, Bool)] {
            let fifo = scratchDirectory.appendingPathComponent("cachebench-fifo-\(UUID().uuidString)").path
            #expect(mkfifo(fifo, 0o600) == 0)
            defer { unlink(fifo) }
            let writer = Thread {
                let fd = open(fifo, O_WRONLY)
                guard fd >= 0 else { return }
                bytes.withUnsafeBytes { raw in
                    var offset = 0
                    while offset < raw.count, let base = raw.baseAddress {
                        let n = write(fd, base + offset, raw.count - offset)
                        if n <= 0 { break }
                        offset += n
                    }
                }
                close(fd)
            }
            writer.start()
            var job = ReplayJob(trace: TraceSpec(path: fifo), policy: policy, capacity: capacity, ignoreSize: true)
            job.trace.isReadByOneJob = oneJob
            let first = try Replay.run(job)
            #expect(first.requests == 3_000)
            // The working-set pass (no capacity) and belady's future are passes of their own, copied
            // for the replay; the replay's own pass is the last one.
            let again = Result { () throws(CacheBenchError) in try Replay.run(job) }
            switch again {
            case .success(let result): #expect(readsAgain && result.requests == 3_000, "\(oneJob) \(String(describing: capacity)) \(policy)")
            case .failure(let error): #expect(!readsAgain && error.description.contains("can be read only once"), "\(error)")
            }
        }
    }

    @Test("an offline policy under --max-requests sees the future of the rows it replays: the same run as on those rows alone, and a bad row after them is not read")
    func offlineFutureStopsAtTheCap() throws {
        var random = SeededRandom(seed: 11)
        var rows = ""
        for i in 0..<600 { rows += "\(i),\(Int.random(in: 0..<120, using: &random)),\(Int.random(in: 1...40, using: &random))\n" }
        let cut = try temporaryFile("timestamp,key,size\n" + rows)
        // The same rows, then more whose keys come back (a future beyond the cap), then a bad row.
        var more = ""
        for i in 600..<900 { more += "\(i),\(Int.random(in: 0..<120, using: &random)),\(Int.random(in: 1...40, using: &random))\n" }
        let longer = try temporaryFile("timestamp,key,size\n" + rows + more + "900,x,notasize\n")
        defer { for path in [cut, longer] { try? FileManager.default.removeItem(atPath: path) } }
        for policy in ["belady", "beladysize"] {
            for ignoreSize in [true, false] {
                let alone = try Replay.run(ReplayJob(trace: TraceSpec(path: cut), policy: policy, capacity: ignoreSize ? 20 : 400,
                                                     ignoreSize: ignoreSize))
                var job = ReplayJob(trace: TraceSpec(path: longer), policy: policy, capacity: ignoreSize ? 20 : 400, ignoreSize: ignoreSize)
                job.window = RequestWindow(maxRequests: 600)
                let capped = try Replay.run(job)
                #expect(capped.counters.hits == alone.counters.hits && capped.counters.evictions == alone.counters.evictions
                        && capped.requests == 600, "\(policy) \(ignoreSize): \(capped.counters) vs \(alone.counters)")
                var compare = CompareJob(trace: TraceSpec(path: longer), policies: [policy, "lru"],
                                         capacities: CapacityList([.size(ignoreSize ? 20 : 400)]), ignoreSize: ignoreSize, threads: 1)
                compare.window = RequestWindow(maxRequests: 600)
                let compared = try Compare.run(compare)
                #expect(compared.results.first { $0.policy == policy }?.counters.hits == alone.counters.hits)
            }
        }
    }

    @Test("--warmup Nreq and --report-interval Nreq count the rows --max-requests counts: a warm-up of N ends where a cap of N stops")
    func rowSpansSkipSizeZeroRows() throws {
        // Keys 1…12, every third row of size 0: the requests are keys 1 2 4 5 7 8 10 11.
        var text = "timestamp,key,size\n"
        for i in 1...12 { text += "\(i),\(i),\(i % 3 == 0 ? 0 : 10)\n" }
        let path = try temporaryFile(text)
        defer { try? FileManager.default.removeItem(atPath: path) }
        // Four requests warm (keys 1 2 4 5, rows 1–6: the size-0 row after them goes with them);
        // 7 8 10 11 are measured.
        let warmed = try replay(path, capacity: 100, window: RequestWindow(warmup: .requests(4)))
        #expect(warmed.requests == 4 && warmed.window?.warmupTraceRows == 6)
        // With a cap of 6, the two requests after the warm-up (7 8).
        #expect(try replay(path, capacity: 100, window: RequestWindow(warmup: .requests(4), maxRequests: 6)).requests == 2)
        // A warm-up as long as the cap leaves nothing, whatever size-0 rows lie between.
        #expect {
            _ = try replay(path, capacity: 100, window: RequestWindow(warmup: .requests(6), maxRequests: 6))
        } throws: { error in (error as? CacheBenchError)?.exitCode == 65 }
        #expect {
            _ = try replay(path, capacity: 100, window: RequestWindow(warmup: .requests(8)))
        } throws: { error in (error as? CacheBenchError)?.exitCode == 65 }
        // Intervals of two requests: (1 2) (4 5) (7 8) (10 11).
        let intervals = try #require(try replay(path, capacity: 100, window: RequestWindow(reportInterval: .requests(2))).window).intervals
        #expect(intervals.map(\.counters.requests) == [2, 2, 2, 2])
        #expect(intervals.map(\.start) == [0, 2, 4, 6])
        #expect(TraceSpan.requests(1).description == "1 row" && TraceSpan.requests(2).description == "2 rows")
    }

    @Test("a duration warm-up includes the row at its last instant, as libCacheSim's --warmup-sec does")
    func warmupBoundaryIsInclusive() throws {
        // One row per second, times 100 to 129: a 10 s warm-up holds times 100 to 110, 11 rows.
        let rows = (0..<30).map { (i: Int) -> (time: Double, key: UInt64) in (time: Double(100 + i), key: UInt64(i % 7)) }
        let path = try csv(rows)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let result = try replay(path, capacity: 3, window: RequestWindow(warmup: .seconds(10), reportInterval: .seconds(5)))
        let window = try #require(result.window)
        #expect(window.warmupTraceRows == 11 && result.requests == 19)
        // Intervals count from the warm-up's end: (110, 115], … hold the rows at 111–114, 115–119, ….
        #expect(window.intervals.map(\.start) == [10, 15, 20, 25])
        #expect(window.intervals.map(\.counters.requests) == [4, 5, 5, 5])
        // As long as the trace's span: nothing is left to measure.
        #expect {
            _ = try replay(path, capacity: 3, window: RequestWindow(warmup: .seconds(29)))
        } throws: { error in (error as? CacheBenchError)?.exitCode == 65 }
    }

    @Test("the trace's clock starts at its first request: a size-0 row or an event before it starts no warm-up or interval, and neither counts as a request")
    func clockStartsAtFirstRequest() throws {
        // libCacheSim's reader skips the size-0 row, so cachesim --warmup-sec 50 starts at time 100
        // and warms the rows at 100…150 (6 of them): 4 measured, keys 1 2 3 4 5 6 1 2 3 4.
        var rows = ""
        for (i, key) in [1, 2, 3, 4, 5, 6, 1, 2, 3, 4].enumerated() { rows += "\(100 + 10 * i),\(key),1,get\n" }
        for lead in ["0,9,0,get\n", "0,,,background\n", "0,9,0,get\n0,,,memory-warning\n"] {
            let path = try temporaryFile("timestamp,key,size,op\n" + lead + rows)
            defer { try? FileManager.default.removeItem(atPath: path) }
            let warmed = try replay(path, capacity: 10, window: RequestWindow(warmup: .seconds(50)))
            #expect(warmed.requests == 4 && warmed.hits == 4, "lead \(lead.debugDescription)")
            // Intervals of 30 s from the first request: (100…129) (130…159) (160…189), the
            // leading row in the first with them, not an empty interval of its own at time 0.
            let intervals = try #require(try replay(path, capacity: 10, window: RequestWindow(reportInterval: .seconds(30))).window).intervals
            #expect(intervals.map(\.start) == [0, 30, 60, 90] && intervals.map(\.counters.requests) == [3, 3, 3, 1],
                    "lead \(lead.debugDescription): \(intervals.map(\.start))")
            // A cap and a warm-up of rows count requests only: 3 rows warm (keys 1 2 3), the cap of 5 stops after 4 5.
            let capped = try replay(path, capacity: 10, window: RequestWindow(warmup: .requests(3), maxRequests: 5))
            #expect(capped.requests == 2 && capped.misses == 2, "lead \(lead.debugDescription)")
            #expect(try WorkingSet.measure(TraceSpec(path: path), ignoreSize: true, maxRows: 5).objects == 5)
        }
    }

    @Test("a duration warm-up counts whole seconds of decimal times, as libCacheSim's clock and a converted trace do")
    func warmupCountsWholeSeconds() throws {
        // libCacheSim keeps (int64_t)strtod of a CSV's time: 0.5, 60.7, 61.9, 62.0 are 0, 60, 61, 62,
        // so a 60 s warm-up holds the first two rows (cachesim --warmup-sec=60 measures 2 requests).
        let path = try temporaryFile("time,key,size\n0.5,a,1\n60.7,b,1\n61.9,c,1\n62.0,d,1\n")
        defer { try? FileManager.default.removeItem(atPath: path) }
        let result = try replay(path, capacity: 10, window: RequestWindow(warmup: .seconds(60)))
        #expect(result.requests == 2 && result.window?.warmupTraceRows == 2)
        // The same rows in whole seconds (what `convert` writes) warm up alike.
        let whole = try temporaryFile("time,key,size\n0,a,1\n60,b,1\n61,c,1\n62,d,1\n")
        defer { try? FileManager.default.removeItem(atPath: whole) }
        #expect(try replay(whole, capacity: 10, window: RequestWindow(warmup: .seconds(60))).requests == 2)
        // After a warm-up of rows, intervals of seconds start at the exact time it ended.
        let quarters = try temporaryFile("time,key,size\n0.5,a,1\n1.25,b,1\n1.75,c,1\n2.5,d,1\n3.0,e,1\n")
        defer { try? FileManager.default.removeItem(atPath: quarters) }
        let split = try #require(try replay(quarters, capacity: 10, window: RequestWindow(warmup: .requests(1), reportInterval: .seconds(1))).window)
        #expect(split.intervals.map(\.start) == [0.75, 1.75] && split.intervals.map(\.counters.requests) == [2, 2], "\(split.intervals.map(\.start))")
    }

    @Test("intervals stay apart when a trace's times divided by the interval pass any integer")
    func hugeIntervalNumbers() throws {
        let path = try temporaryFile("timestamp,key,size,op\n0,0,1,get\n1e19,1,1,get\n2e19,2,1,get\n3e19,3,1,get\n")
        defer { try? FileManager.default.removeItem(atPath: path) }
        let result = try replay(path, capacity: 10, window: RequestWindow(reportInterval: .seconds(1)))
        let window = try #require(result.window)
        #expect(window.intervals.map(\.counters.requests) == [1, 1, 1, 1])
        #expect(window.intervals.map(\.start) == [0, 1e19, 2e19, 3e19])
    }

    @Test("a warm-up as long as the trace is malformed input (exit 65), not a report of zeros")
    func warmupTooLong() throws {
        let rows = windowTrace(seed: 8, rows: 100, keys: 10)
        let path = try csv(rows)
        defer { try? FileManager.default.removeItem(atPath: path) }
        for warmup: TraceSpan in [.requests(100), .requests(1000), .seconds(10_000)] {
            #expect {
                _ = try replay(path, capacity: 5, window: RequestWindow(warmup: warmup))
            } throws: { error in (error as? CacheBenchError)?.exitCode == 65 }
        }
        #expect(try replay(path, capacity: 5, window: RequestWindow(warmup: .requests(99))).requests == 1)
    }

    @Test("compare with a window gives each run what a windowed replay gives")
    func compareMatchesReplay() throws {
        let rows = windowTrace(seed: 9, rows: 5000, keys: 1500)
        let path = try csv(rows)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let window = RequestWindow(warmup: .requests(800), maxRequests: 4500, sampleRatio: 0.5, reportInterval: .requests(1000))
        var job = CompareJob(trace: TraceSpec(path: path), policies: ["lru", "fifo", "s3fifo", "arc"],
                             capacities: CapacityList([.size(40), .size(300)]), ignoreSize: true, threads: 2)
        job.window = window
        let compared = try Compare.run(job)
        #expect(compared.results.count == 8)
        for result in compared.results {
            let replayed = try replay(path, capacity: result.capacity ?? 0, window: window, policy: result.policy)
            #expect(result.counters == replayed.counters, "\(result.policy) @ \(result.capacity ?? 0)")
            #expect(result.window == replayed.window, "\(result.policy) @ \(result.capacity ?? 0)")
        }
    }

    @Test("--capacity 0.1 in replay is a tenth of the working set, as compare's fractions")
    func fractionalCapacity() throws {
        var job = ReplayJob(trace: TraceSpec(path: Repository.trace("zipf.csv")), policy: "lru")
        job.capacityFraction = .fraction(numerator: 1, denominator: 10)
        let result = try Replay.run(job)
        let workingSet = try WorkingSet.measure(job.trace, ignoreSize: false)
        #expect(result.capacity == workingSet.bytes / 10 && result.capacitySource == .workingSetFraction)
    }
}

/// Rows from memory, in batches of 1,000.
struct ArrayTraceReader: TraceReader {
    let rows: [Request]
    var next = 0
    init(_ rows: [Request]) { self.rows = rows }
    var name: String { "memory" }
    var providesNextAccess: Bool { false }
    mutating func nextBatch(_ batch: inout [Request]) throws(TraceError) -> Bool {
        batch.removeAll(keepingCapacity: true)
        guard next < rows.count else { return false }
        let end = min(rows.count, next + 1000)
        batch += rows[next..<end]
        next = end
        return true
    }
}
