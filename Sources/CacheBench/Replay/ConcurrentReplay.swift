import Dispatch
import EvictionPolicies
import Synchronization

/// Replays one trace from several threads through one ``SynchronizedCache``: the way an app
/// shares a cache between threads, to measure what the lock costs under contention.
///
/// Threads take batches from the trace in turn and apply each request under the cache's lock,
/// with their own counters, merged at the end. Interleaving across threads is not
/// deterministic, so hit ratios may differ slightly from a single-threaded replay; throughput is
/// the figure of interest.
@usableFromInline
enum ConcurrentReplay {
    @usableFromInline
    struct Outcome {
        @usableFromInline var counters: ReplayCounters
        @usableFromInline var trims: TrimTimings
        @usableFromInline var seconds: Double
        @usableFromInline var policyMetrics: [PolicyMetric] = []
        /// What the policy holds at the end, by its own count and by its arena's (see
        /// ``PolicyRun/residents``), for the end-of-run checks.
        @usableFromInline var held: (count: Int, cost: Int) = (0, 0)
        @usableFromInline var residents: (count: Int, cost: Int)?
    }

    /// Inlinable, as ``RegisteredPolicy/of(_:)``: the loop is compiled where `P` is concrete, in
    /// the module that registers it.
    @inlinable
    static func run<P: ReplayPolicy & SendableMetatype>(_ type: P.Type, limits: CacheLimits, options: PolicyOptions,
                                                       ignoreSize: Bool, threads: Int,
                                                       reader: consuming sending any TraceReader) throws(CacheBenchError) -> Outcome {
        // The single-threaded replay's policy and driver: one policy behind a lock, one driver a thread.
        let policy: P
        do { policy = try Replayer<P>.makePolicy(limits: limits, options: options) } catch { throw error.asRunError }
        let cache = SynchronizedCache(policy)
        let shared = _SharedTrace(reader)
        let start = monotonicNanoseconds()
        DispatchQueue.concurrentPerform(iterations: threads) { _ in
            var driver = Replayer<P>.makeDriver(ignoreSize: ignoreSize)
            var batch: [Request] = []
            while shared.next(&batch) {
                for request in batch {
                    cache.withLock { driver.apply(request, to: &$0) }
                }
            }
            shared.finish(driver)
        }
        let seconds = Double(monotonicNanoseconds() - start) / 1e9
        var outcome = try shared.outcome(seconds: seconds)
        cache.withLock { policy in
            outcome.policyMetrics = policy.extraMetrics
            outcome.held = (policy.count, policy.totalCost)
            outcome.residents = _arenaResidents(policy)
        }
        return outcome
    }
}

/// The trace reader and the merged results, shared by the replay threads.
@usableFromInline
final class _SharedTrace: Sendable {
    private struct State {
        var reader: any TraceReader
        var error: TraceError?
        var counters = ReplayCounters()
        var trims: TrimTimings = (LatencyHistogram(), LatencyHistogram(), LatencyHistogram())
    }
    private let state: Mutex<State>

    @usableFromInline
    init(_ reader: consuming sending any TraceReader) {
        state = Mutex(State(reader: reader))
    }

    /// Fills `batch` with the next rows; `false` at the end or after an error.
    @usableFromInline
    func next(_ batch: inout [Request]) -> Bool {
        state.withLock { state in
            guard state.error == nil else { return false }
            do throws(TraceError) { return try state.reader.nextBatch(&batch) } catch {
                state.error = error
                return false
            }
        }
    }

    @usableFromInline
    func finish(_ driver: RequestDriver) {
        let counters = driver.counters
        let trims = driver.trims
        state.withLock { state in
            state.counters.add(counters)
            state.trims.all.merge(trims.all)
            state.trims.caller.merge(trims.caller)
            state.trims.deferred.merge(trims.deferred)
        }
    }

    @usableFromInline
    func outcome(seconds: Double) throws(CacheBenchError) -> ConcurrentReplay.Outcome {
        let (counters, trims, error) = state.withLock { ($0.counters, $0.trims, $0.error) }
        if let error { throw .trace(error) }
        return ConcurrentReplay.Outcome(counters: counters, trims: trims, seconds: seconds)
    }
}

extension ReplayCounters {
    /// Adds another run's counts to these.
    public mutating func add(_ other: ReplayCounters) {
        requests += other.requests
        hits += other.hits
        byteRequests += other.byteRequests
        byteHits += other.byteHits
        evictions += other.evictions
        skipped += other.skipped
        sets += other.sets
        deletes += other.deletes
        events += other.events
        storedBySet = storedBySet || other.storedBySet
    }
}
