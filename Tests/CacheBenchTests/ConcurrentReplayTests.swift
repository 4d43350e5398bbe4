import CacheBench
import EvictionPolicies
import Testing
import TestSupport

/// The threaded replay makes its policy and drivers as the single-threaded one does.
@Suite("Threaded replay")
struct ConcurrentReplayTests {
    static func job(threads: Int, policy: String = "lru", options: PolicyOptions = PolicyOptions(),
                    countLimit: Int? = nil) -> ReplayJob {
        var job = ReplayJob(trace: TraceSpec(path: Repository.trace("zipf.csv")), policy: policy, capacity: 40,
                            countLimit: countLimit, ignoreSize: true)
        job.options = options
        job.threads = threads
        return job
    }

    @Test("two threads count every request once, as one thread does")
    func counts() throws {
        let plain = try Replay.run(Self.job(threads: 1))
        let threaded = try Replay.run(Self.job(threads: 2))
        #expect(threaded.counters.requests == plain.counters.requests)
        #expect(threaded.counters.skipped == plain.counters.skipped)
        #expect(threaded.counters.hits + threaded.counters.evictions > 0)
        // Interleaving moves the hits only a little; far from it means a lost or doubled request.
        #expect(abs(threaded.counters.hits - plain.counters.hits) < plain.counters.requests / 10)
    }

    @Test("a refused option or limit is the same error on one thread and on two")
    func refusals() {
        // LRU takes no options; ARC has no count limit.
        for (policy, options, countLimit) in [("lru", PolicyOptions(["nope": "1"]), nil), ("arc", PolicyOptions(), 5)] {
            var errors: [String] = []
            for threads in [1, 2] {
                do { _ = try Replay.run(Self.job(threads: threads, policy: policy, options: options, countLimit: countLimit)) } catch {
                    errors.append(error.description)
                }
            }
            #expect(errors.count == 2 && errors[0] == errors[1], "\(errors)")
        }
    }
}
