/// Reads a trace through a ``RequestWindow``: stops after `maxRequests` rows, drops the rows
/// whose key is outside the sample, and marks the warm-up's end and each interval's end in a
/// ``WindowSchedule`` for the runs to cut their statistics at.
///
/// Per row: one comparison for the cap, one hash and comparison for the sample, and a
/// comparison for the next mark; with a census, the measured rows under its threshold are
/// gathered for a lane on another thread to count (``_CensusFeed``). The batches it returns are
/// never empty.
public struct WindowedReader: TraceReader {
    private var base: any TraceReader
    private let window: RequestWindow
    private let keepBelow: UInt64?
    private let salt: UInt64
    /// The marks, shared with the runs.
    public let schedule: WindowSchedule
    private var inner: [Request] = []
    private var traceRows = 0
    private var keptRows = 0
    private var firstTime: Double?
    private var lastTime = -Double.infinity
    private var warming: Bool
    private var warmedRows = 0
    /// The end of the current interval (row index or seconds after the first row); infinite when
    /// intervals are off or not started.
    private var intervalEnd = Double.infinity
    private var capped = false
    /// `get` rows of size > 0 after the warm-up, and their bytes, before sampling: what the
    /// sample stands for.
    private var measuredRequests = 0
    private var measuredBytes = 0
    /// Receives the measured requests of the census's keys (before sampling), when a control
    /// variate needs them: their hashes and sizes are gathered here, a batch at a time, and
    /// counted on another thread.
    private let census: _CensusFeed?

    /// The underlying trace's name.
    public var name: String { base.name }
    /// Whether the underlying trace gives next-access indices (kept through sampling: they
    /// order the kept keys' next requests as in the whole trace).
    public var providesNextAccess: Bool { base.providesNextAccess }

    /// Wraps `base`; `schedule` receives the marks.
    public init(_ base: any TraceReader, window: RequestWindow, schedule: WindowSchedule = WindowSchedule()) {
        self.init(base, window: window, schedule: schedule, census: nil)
    }

    /// Wraps `base`; `schedule` receives the marks and `census` every measured request's key
    /// under its threshold.
    init(_ base: any TraceReader, window: RequestWindow, schedule: WindowSchedule, census: _CensusFeed?) {
        self.census = census
        self.base = base
        self.window = window
        self.keepBelow = window.keepBelow
        self.salt = SpatialSample.salt(seed: window.sampleSeed)
        self.schedule = schedule
        warming = window.warmup != nil
        inner.reserveCapacity(1 << 14)
        if !warming { startIntervals(row: 0, time: 0) }
    }

    /// The next rows in the window, never an empty batch; `false` at the end of the trace or the cap.
    ///
    /// - Throws: the trace's errors, and at the end a ``TraceError`` when the warm-up covered the whole trace.
    public mutating func nextBatch(_ batch: inout [Request]) throws(TraceError) -> Bool {
        batch.removeAll(keepingCapacity: true)
        while batch.isEmpty {
            guard !capped, try base.nextBatch(&inner) else { try finish(); return false }
            if window.warmup == nil && window.reportInterval == nil && window.maxRequests == nil {
                // No marks and no cap: the rows' times are not needed, only the sample and the census.
                filterWholeBatch(into: &batch)
                continue
            }
            for request in inner {
                if let cap = window.maxRequests, traceRows >= cap { capped = true; break }
                let time: Double
                if let firstTime { time = request.time - firstTime } else { firstTime = request.time; time = 0 }
                if time > lastTime { lastTime = time }
                if warming { endWarmupIfDue(row: traceRows, time: lastTime) }
                if !warming { markIntervalsIfDue(row: traceRows, time: lastTime) }
                traceRows += 1
                // One hash per row serves the census and the sample.
                let hash = keepBelow == nil && census == nil ? 0 : SpatialSample.hash(request.key, salt: salt)
                if !warming && request.operation == .get && request.size > 0 {
                    measuredRequests += 1
                    measuredBytes &+= request.size
                    if let census, hash <= census.threshold { census.filling.append(hash: hash, size: request.size) }
                }
                if let keepBelow, hash >= keepBelow { continue }
                batch.append(request)
                keptRows += 1
            }
        }
        return true
    }

    /// The rows of `inner` in the sample, appended to `batch`, and the measured ones under the
    /// census's threshold gathered for it; what ``nextBatch(_:)`` does when no warm-up, interval
    /// or cap asks it to look at each row's time or position.
    ///
    /// The loop is the reader thread's main cost: one hash per row, the row's slot in the
    /// census's rows written whether or not it is kept (the count advances only for those under
    /// the threshold, a quarter of the rows or so, which a branch would mispredict), and a
    /// branch for the sample, kept rarely.
    private mutating func filterWholeBatch(into batch: inout [Request]) {
        let salt = self.salt
        // Without a ratio every row is kept (a census without sampling).
        let keepBelow = self.keepBelow, sampleBelow = self.keepBelow ?? .max
        var measured = 0, bytes = 0
        if let census {
            let threshold = census.threshold
            census.filling.gather(upTo: inner.count) { hashes, sizes, gathered in
                inner.withUnsafeBufferPointer { rows in
                    for request in rows {
                        let hash = SpatialSample.hash(request.key, salt: salt)
                        let counts = request.operation == .get && request.size > 0
                        if counts {
                            measured &+= 1
                            bytes &+= request.size
                        }
                        hashes[gathered] = hash
                        sizes[gathered] = UInt32(clamping: request.size)
                        gathered &+= counts && hash <= threshold ? 1 : 0
                        if keepBelow == nil || hash < sampleBelow { batch.append(request) }
                    }
                }
            }
        } else {
            for request in inner {
                if request.operation == .get && request.size > 0 {
                    measured &+= 1
                    bytes &+= request.size
                }
                if keepBelow == nil || SpatialSample.hash(request.key, salt: salt) < sampleBelow { batch.append(request) }
            }
        }
        traceRows += inner.count
        keptRows += batch.count
        measuredRequests += measured
        measuredBytes &+= bytes
    }

    private mutating func endWarmupIfDue(row: Int, time: Double) {
        switch window.warmup {
        case .requests(let rows)? where row >= rows: break
        case .seconds(let seconds)? where time >= seconds: break
        default: return
        }
        warming = false
        warmedRows = row
        schedule.append(.init(position: keptRows, kind: .warmupEnd))
        // Intervals start where the warm-up ends: at this row, or at the warm-up's last instant.
        if case .seconds(let seconds)? = window.warmup { startIntervals(row: row, time: seconds) } else { startIntervals(row: row, time: time) }
    }

    private mutating func startIntervals(row: Int, time: Double) {
        switch window.reportInterval {
        case .requests(let rows)?:
            schedule.noteFirstInterval(start: Double(row))
            intervalEnd = Double(row) + Double(rows)
        case .seconds(let seconds)?:
            schedule.noteFirstInterval(start: time)
            intervalEnd = time + seconds
        case nil: intervalEnd = .infinity
        }
    }

    /// Closes the current interval when this row lies past its end; with durations, intervals
    /// with no rows (a gap in the trace) are skipped rather than reported empty.
    private mutating func markIntervalsIfDue(row: Int, time: Double) {
        switch window.reportInterval {
        case .requests(let rows)?:
            guard Double(row) >= intervalEnd else { return }
            schedule.append(.init(position: keptRows, kind: .intervalEnd(nextStart: intervalEnd)))
            intervalEnd += Double(rows)
        case .seconds(let seconds)?:
            guard time >= intervalEnd else { return }
            let start = intervalEnd - seconds
            let next = start + ((time - start) / seconds).rounded(.down) * seconds
            schedule.append(.init(position: keptRows, kind: .intervalEnd(nextStart: next)))
            intervalEnd = next + seconds
        case nil: return
        }
    }

    /// At the end of the stream: a warm-up that never ended covered the whole trace, which
    /// leaves nothing to measure.
    private mutating func finish() throws(TraceError) {
        schedule.noteRows(trace: traceRows, warmed: warming ? traceRows : warmedRows, requests: measuredRequests,
                          bytes: measuredBytes)
        if warming, let warmup = window.warmup {
            let span = firstTime == nil ? "" : ", spanning \(TraceSpan.seconds(lastTime.rounded(.down)).description)"
            throw TraceError(.malformed, file: base.name,
                             reason: "the warm-up (\(warmup)) is as long as the trace or longer: the trace has \(traceRows) rows\(span), so no request is left to measure")
        }
    }
}
