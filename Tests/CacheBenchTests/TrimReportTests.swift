import CacheBench
import TestSupport
import Testing

/// The replay report separates trim passes the caller waits for from deferred ones.
@Suite("trim latency: caller and deferred passes reach the report")
struct TrimReportTests {
    /// `json["trim"]["caller"]["count"]` and the like.
    func field(_ value: JSONValue, _ path: String...) -> JSONValue? {
        var current = value
        for name in path {
            guard case .object(let fields) = current, let next = fields.first(where: { $0.0 == name })?.1 else { return nil }
            current = next
        }
        return current
    }

    func count(_ json: JSONValue, _ path: String...) -> Int? {
        var current: JSONValue? = json
        for name in path { current = current.flatMap { field($0, name) } }
        if case .int(let n) = current { return n }
        return nil
    }

    @Test("af-lru: the barrier purge is deferred, removeAllImages on a memory warning is the caller's")
    func afLRU() throws {
        let trace = try temporaryFile("""
        timestamp,key,size,op
        0,1,4,get
        0,2,4,get
        0,3,4,get
        0,4,4,get
        1,,,memory-warning
        """)
        // 12 > 10 queues a purge to 6 bytes: it removes 1 and 2 before the request for 4.
        let result = try Replay.run(ReplayJob(trace: TraceSpec(path: trace), policy: "af-lru", capacity: 10))
        #expect(result.counters.evictions == 4)
        #expect(result.trimDeferred.count == 1 && result.trimCaller.count == 1 && result.trim.count == 2)
        let json = result.json
        #expect(count(json, "trim", "count") == 2)
        #expect(count(json, "trim", "caller", "count") == 1)
        #expect(count(json, "trim", "deferred", "count") == 1)
    }

    @Test("yy-lru: queued cost trim deferred; count overflow and memory warning the caller's; idle ticks report nothing")
    func yyLRU() throws {
        let trace = try temporaryFile("""
        timestamp,key,size,op
        0,1,6,get
        0,2,6,get
        0,3,1,get
        0,4,1,get
        0,5,1,get
        12,,,tick
        13,,,memory-warning
        """)
        // 2 pushes the cost to 12: a trim is queued and removes 1 before the request for 3.
        // 5 is the fourth entry over a count limit of 3: 2, the tail, goes at once.
        let result = try Replay.run(ReplayJob(trace: TraceSpec(path: trace), policy: "yy-lru", capacity: 10, countLimit: 3))
        #expect(result.counters.evictions == 5)
        #expect(result.trimDeferred.count == 1)
        #expect(result.trimCaller.count == 2)
        #expect(count(result.json, "trim", "deferred", "count") == 1)
        #expect(count(result.json, "trim", "caller", "count") == 2)
    }

    @Test("yy-lru: the timer's pass is deferred and happens in trace time")
    func yyTimer() throws {
        let trace = try temporaryFile("""
        timestamp,key,size,op
        0,1,1,get
        1,2,1,get
        20,3,1,get
        """)
        // With a 4 s age limit, the tick at 5 removes 1 (5 s idle); the tick at 10 removes 2 (9 s).
        let result = try Replay.run(ReplayJob(trace: TraceSpec(path: trace), policy: "yy-lru", capacity: 100,
                                              options: .init(["age-limit": "4"])))
        #expect(result.counters.evictions == 2)
        #expect(result.trimDeferred.count == 2 && result.trimCaller.count == 0)
    }
}
