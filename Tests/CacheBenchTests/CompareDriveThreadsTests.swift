@testable import CacheBench
import Foundation
import TestSupport
import Testing

/// Which thread does what while `compare` (and `replay`, a compare of one run) reads a trace on
/// two threads: the runs stay on the calling thread, which never sleeps between batches, and a
/// worker decodes the next batch meanwhile (see `Compare.drive`).
@Suite("Compare's threads")
struct CompareDriveThreadsTests {
    /// A reader of `batches` batches of `size` rows that notes the threads it is called on.
    struct ThreadNotingReader: TraceReader {
        let threads: ThreadLog
        var batches: Int
        let size: Int
        var name: String { "noting" }
        var providesNextAccess: Bool { false }

        mutating func nextBatch(_ batch: inout [Request]) throws(TraceError) -> Bool {
            threads.note()
            batch.removeAll(keepingCapacity: true)
            guard batches > 0 else { return false }
            batches -= 1
            for key in 0..<size { batch.append(Request(time: 0, key: UInt64(key), size: 1)) }
            return true
        }
    }

    /// The threads something ran on, other than the one that made the log.
    final class ThreadLog: @unchecked Sendable {  // unchecked: guarded by `lock`
        private let lock = NSLock()
        private let owner = Thread.current
        private var others = Set<ObjectIdentifier>()
        private var onOwner = 0

        func note() {
            let current = Thread.current
            lock.withLock {
                if current === owner { onOwner += 1 } else { others.insert(ObjectIdentifier(current)) }
            }
        }

        var counts: (onCaller: Int, otherThreads: Int) { lock.withLock { (onOwner, others.count) } }
    }

    @Test func runsStayOnTheCallerWhileAWorkerDecodes() throws {
        let decoding = ThreadLog(), applying = ThreadLog()
        var rows = 0
        let lane = _Lane(apply: { batch in
            applying.note()
            rows += batch.count
        })
        let source = try TraceSpec(path: Repository.trace("zipf.csv")).openWithSource().source
        let read = try Compare.drive([lane], (ThreadNotingReader(threads: decoding, batches: 20, size: 100), source),
                                     threads: 2, progress: nil)
        #expect(read == 2_000 && rows == 2_000)
        // Every batch applied on the calling thread.
        #expect(applying.counts.onCaller == 20 && applying.counts.otherThreads == 0)
        // The first batch is decoded before the threads start; every later read is a worker's.
        #expect(decoding.counts.onCaller == 1 && decoding.counts.otherThreads == 1)
    }

    @Test func theDecodingGroupIsAWorkersAndGetsTheFewestRuns() {
        let lanes = (0..<3).map { _ in _Lane(apply: { _ in }) }
        var groups = _Groups(lanes: Array(lanes.prefix(1)), count: 2)
        #expect(groups.decodingGroup == 1)
        #expect(groups.members.map(\.count) == [1, 0])
        // Balanced by time, the one run stays off the decoding group, which starts with the decoding.
        lanes[0].nanoseconds = 1_000
        groups.rebalance(decodeNanoseconds: 100)
        #expect(groups.members.map(\.count) == [1, 0])

        groups = _Groups(lanes: lanes, count: 2)
        #expect(groups.members.map(\.count) == [2, 1])
        lanes[1].nanoseconds = 900
        lanes[2].nanoseconds = 800
        groups.rebalance(decodeNanoseconds: 500)
        // Costliest first to the least loaded: 1,000 to group 0 (0 against the decoding's 500), 900
        // to the decoding group (500 against 1,000), 800 to group 0 (1,000 against 1,400).
        #expect(groups.members[0].map(\.nanoseconds) == [1_000, 800])
        #expect(groups.members[1].map(\.nanoseconds) == [900])
    }
}
