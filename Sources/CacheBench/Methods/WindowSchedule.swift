import Synchronization

/// Where the statistics of a windowed run are cut, in positions of the stream the runs see
/// (after sampling): the end of the warm-up and the end of each report interval.
///
/// ``WindowedReader`` appends a mark when it reads the row the mark precedes, so every mark
/// inside a batch exists before that batch reaches a run. Runs on other threads read the marks
/// while the reader decodes the next batch, hence the lock (taken once per batch per run).
public final class WindowSchedule: Sendable {
    /// One cut in the stream.
    public struct Mark: Sendable, Equatable {
        /// What ends here.
        public enum Kind: Sendable, Equatable {
            /// The warm-up ends; counting starts.
            case warmupEnd
            /// A report interval ends; the next one starts at `nextStart`.
            case intervalEnd(nextStart: Double)
        }
        /// The number of rows of the (sampled) stream before the cut.
        public var position: Int
        /// What ends.
        public var kind: Kind
    }

    private struct State {
        var marks: [Mark] = []
        var firstIntervalStart: Double = 0
        var warmedRows = 0
        var traceRows = 0
        var traceRequests = 0
        var traceBytes = 0
    }
    private let state = Mutex(State())

    /// Creates an empty schedule.
    public init() {}

    func append(_ mark: Mark) { state.withLock { $0.marks.append(mark) } }

    func noteFirstInterval(start: Double) { state.withLock { $0.firstIntervalStart = start } }

    func noteRows(trace: Int, warmed: Int, requests: Int, bytes: Int) {
        state.withLock {
            $0.traceRows = trace
            $0.warmedRows = warmed
            $0.traceRequests = requests
            $0.traceBytes = bytes
        }
    }

    /// The marks from index `from` on whose position is below `end`.
    func marks(from: Int, before end: Int) -> [Mark] {
        state.withLock { state in
            var found: [Mark] = []
            var i = from
            while i < state.marks.count && state.marks[i].position < end {
                found.append(state.marks[i])
                i += 1
            }
            return found
        }
    }

    /// Where the first interval starts (row index or seconds from the first row).
    public var firstIntervalStart: Double { state.withLock { $0.firstIntervalStart } }
    /// Rows of the trace read before the warm-up ended (before sampling).
    public var warmedTraceRows: Int { state.withLock { $0.warmedRows } }
    /// Rows of the trace read in all.
    public var traceRows: Int { state.withLock { $0.traceRows } }
    /// `get` requests of the trace after the warm-up, before sampling, and their bytes.
    public var traceRequests: (count: Int, bytes: Int) { state.withLock { ($0.traceRequests, $0.traceBytes) } }
}
