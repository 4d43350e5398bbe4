import _CSupport

/// Reads a trace through a ``RequestWindow``: stops after `maxRequests` rows (not counting the
/// size-0 gets and sets a replay skips, or events, which are no requests), drops the rows
/// whose key is outside the sample, and marks the warm-up's end and each interval's end in a
/// ``WindowSchedule`` for the runs to cut their statistics at.
///
/// Per row: one comparison for the cap, one hash and comparison for the sample, and a
/// comparison for the next mark; with a census, the measured rows under its threshold are
/// gathered for a lane on another thread to count (``_CensusFeed``). The batches it returns are
/// never empty.
public struct WindowedReader: TraceReader {
    private var base: any TraceReader
    /// `base` when it reads oracleGeneral records and no row's time or position matters
    /// (``wholeRows``): read in its place, so a dropped row is never decoded.
    private var records: OracleGeneralReader?
    /// No warm-up, interval or cap: a row matters only for the sample and the census.
    private let wholeRows: Bool
    private let window: RequestWindow
    private let keepBelow: UInt64?
    private let salt: UInt64
    /// The marks, shared with the runs.
    public let schedule: WindowSchedule
    private var inner: [Request] = []
    private var traceRows = 0
    /// The rows `maxRequests` counts: every row but the gets and sets of size 0, which the replay
    /// skips, as libCacheSim's `-n` counts only the requests its reader delivers.
    private var cappedRows = 0
    private var keptRows = 0
    private var firstTime: Double?
    private var lastTime = -Double.infinity
    /// ``lastTime`` in whole seconds of the trace's clock, for the warm-up.
    private var lastSecond = -Double.infinity
    private var warming: Bool
    private var warmedRows = 0
    /// The end of the current interval (row index or seconds after the first row); infinite when
    /// intervals are off or not started.
    private var intervalEnd = Double.infinity
    /// With intervals in seconds: where the first starts, and the number of the current one
    /// (interval k starts at `intervalOrigin + k · length`, computed, never summed, so that no
    /// rounding error builds up over thousands of intervals).
    private var intervalOrigin = 0.0
    /// The current interval's number from the origin; a `Double`, since a trace's times (up to
    /// 1e22) divided by a short interval pass any integer.
    private var intervalNumber = 0.0
    /// Whether a trace row has fallen in the current interval since it started.
    private var intervalHasRows = false
    private var capped = false
    /// The trace has ended (rows read whole only: ``nextWholeRows(_:)``).
    private var ended = false
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
        wholeRows = window.warmup == nil && window.reportInterval == nil && window.maxRequests == nil
        records = wholeRows ? base as? OracleGeneralReader : nil
        self.keepBelow = window.keepBelow
        self.salt = SpatialSample.salt(seed: window.sampleSeed)
        self.schedule = schedule
        warming = window.warmup != nil
        if records == nil { inner.reserveCapacity(1 << 14) }
        if !warming { startIntervals(row: 0, time: 0) }
    }

    /// The next rows in the window, never an empty batch; `false` at the end of the trace or the cap.
    ///
    /// - Throws: the trace's errors, and at the end a ``TraceError`` when the warm-up covered the whole trace.
    public mutating func nextBatch(_ batch: inout [Request]) throws(TraceError) -> Bool {
        batch.removeAll(keepingCapacity: true)
        if wholeRows { return try nextWholeRows(&batch) }
        while batch.isEmpty {
            // At the cap, no more is read: a bad row after it is not this window's.
            if let cap = window.maxRequests, cappedRows >= cap { capped = true }
            guard !capped, try base.nextBatch(&inner) else { try finish(); return false }
            for request in inner {
                if let cap = window.maxRequests, cappedRows >= cap { capped = true; break }
                // Row counts (`--warmup Nreq`, intervals) count the rows `--max-requests` counts,
                // so a warm-up of N ends where a cap of N would: a size-0 row or an event (a memory
                // warning, a tick: no request) belongs to the stretch the counted rows before it
                // are in (a trailing one is not an interval or a measured stretch of its own).
                let position = cappedRows, counted = request.isCountedRequest
                if counted { cappedRows += 1 }
                // Time starts at the first request, as libCacheSim's clock starts at the first
                // row its reader delivers (it skips size-0 rows): rows before it are at time 0.
                if firstTime == nil && counted { firstTime = request.time }
                let time = firstTime.map { request.time - $0 } ?? 0
                if time > lastTime { lastTime = time }
                // The warm-up counts whole seconds, as libCacheSim's clock keeps a CSV's time
                // (`(int64_t)strtod`) and a binary trace holds it, so a CSV with decimal times and
                // its conversion warm up alike; intervals keep the decimals (`--report-interval 0.1s`).
                if warming, let firstTime {
                    let second = request.time.rounded(.down) - firstTime.rounded(.down)
                    if second > lastSecond { lastSecond = second }
                    endWarmupIfDue(row: position, counted: counted, traceRow: traceRows, second: lastSecond, time: lastTime)
                }
                if !warming {
                    markIntervalsIfDue(row: position, counted: counted, time: lastTime)
                    intervalHasRows = true
                }
                traceRows += 1
                // One hash per row serves the census and the sample.
                let hash = keepBelow == nil && census == nil ? 0 : SpatialSample.hash(request.key, salt: salt)
                if !warming && request.operation != .get && request.operation.hasKey { census?.sawOtherOperations = true }
                if !warming && request.operation == .get && request.size > 0 {
                    measuredRequests += 1
                    measuredBytes &+= request.size
                    if let census, hash <= census.threshold { census.filling.append(hash: hash, size: request.size) }
                }
                // Events (memory warnings, background, ticks) have no key: every sample keeps them.
                if let keepBelow, hash >= keepBelow, request.operation.hasKey { continue }
                batch.append(request)
                keptRows += 1
            }
        }
        return true
    }

    /// The fewest trace rows behind one batch when only the sample and the census matter: a
    /// sampled batch is a small part of what was read, and each batch costs the driver a
    /// hand-over between threads (tens of microseconds), so a batch gathers several chunks.
    static let wholeRowsPerBatch = 1 << 16

    /// ``nextBatch(_:)`` when no warm-up, interval or cap asks for each row's time or position:
    /// the sampled rows of at least ``wholeRowsPerBatch`` trace rows (or the rest of the trace),
    /// read in place from oracleGeneral records, else from the base reader's batches.
    private mutating func nextWholeRows(_ batch: inout [Request]) throws(TraceError) -> Bool {
        guard !ended else { return false }
        let start = traceRows
        while batch.isEmpty || traceRows - start < Self.wholeRowsPerBatch {
            let more: Bool
            if var reader = records {
                // Every record is a measured request or of size 0: the measured bytes are the sizes' sum.
                more = try reader.nextRecords { base, count in
                    UInt64(filterWhole(_OracleGeneralRecords(base: base, count: count), into: &batch))
                }
                records = reader
            } else {
                more = try base.nextBatch(&inner)
                let decoded = inner
                if more { _ = decoded.withUnsafeBufferPointer { rows in filterWhole(rows, into: &batch) } }
            }
            if !more {
                ended = true
                try finish()
                return !batch.isEmpty
            }
        }
        return true
    }

    /// The rows of `rows` in the sample, appended to `batch`, and the measured ones under the
    /// census's threshold gathered for it; what ``nextBatch(_:)`` does when no warm-up, interval
    /// or cap asks it to look at each row's time or position. Specialised per kind of rows, so an
    /// oracleGeneral chunk is filtered in place and only its kept rows become requests.
    ///
    /// The loop is the reader thread's main cost: one hash per row, the row's slot in the
    /// census's rows written whether or not it is kept (the count advances only for those under
    /// the threshold, a quarter of the rows or so, which a branch would mispredict), and a
    /// branch for the sample, kept rarely.
    /// Returns the measured bytes of `rows`.
    @discardableResult
    private mutating func filterWhole<Rows: _FilterableRows>(_ rows: Rows, into batch: inout [Request]) -> Int {
        let salt = self.salt
        // Without a ratio every row is kept (a census without sampling).
        let keepBelow = self.keepBelow, sampleBelow = self.keepBelow ?? .max
        var measured = 0, bytes = 0
        let kept = batch.count
        if let census {
            if !census.sawOtherOperations && rows.hasOtherOperations { census.sawOtherOperations = true }
            let threshold = census.threshold
            census.filling.gather(upTo: rows.count) { hashes, sizes, gathered in
                for i in 0..<rows.count {
                    rows.prefetch(i)
                    let hash = SpatialSample.hash(rows.key(i), salt: salt)
                    let size = rows.measuredSize(i)
                    measured &+= size > 0 ? 1 : 0
                    bytes &+= size
                    hashes[gathered] = hash
                    sizes[gathered] = UInt32(clamping: size)
                    gathered &+= size > 0 && hash <= threshold ? 1 : 0
                    if keepBelow == nil || hash < sampleBelow || rows.isEvent(i) { batch.append(rows.request(i)) }
                }
            }
        } else {
            for i in 0..<rows.count {
                rows.prefetch(i)
                let size = rows.measuredSize(i)
                measured &+= size > 0 ? 1 : 0
                bytes &+= size
                if keepBelow == nil || SpatialSample.hash(rows.key(i), salt: salt) < sampleBelow || rows.isEvent(i) {
                    batch.append(rows.request(i))
                }
            }
        }
        traceRows += rows.count
        keptRows += batch.count - kept
        measuredRequests += measured
        measuredBytes &+= bytes
        return bytes
    }

    /// Ends the warm-up at this row when it is due: `row` counts the rows before it as
    /// `--max-requests` does (`counted`: whether this row is one of them), `traceRow` counts every
    /// row before it; `second` is the latest time so far in whole seconds after the first row's,
    /// `time` the same exactly (where intervals after a warm-up of rows start).
    private mutating func endWarmupIfDue(row: Int, counted: Bool, traceRow: Int, second: Double, time: Double) {
        switch window.warmup {
        case .requests(let rows)? where counted && row >= rows: break
        // libCacheSim's rule (`cachesim`: `clock_time <= warmup_sec` warms): a row at exactly the
        // warm-up's length from the first is still warming, so counts agree with `--warmup-sec`.
        case .seconds(let seconds)? where second > seconds: break
        default: return
        }
        warming = false
        warmedRows = traceRow
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
            intervalOrigin = time
            intervalNumber = 0
            intervalEnd = time + seconds
        case nil: intervalEnd = .infinity
        }
        intervalHasRows = false
    }

    /// Closes the current interval when this row lies past its end; with durations, intervals
    /// with no rows (a gap in the trace) are skipped rather than reported empty.
    private mutating func markIntervalsIfDue(row: Int, counted: Bool, time: Double) {
        switch window.reportInterval {
        case .requests(let rows)?:
            guard counted, Double(row) >= intervalEnd else { return }
            schedule.append(.init(position: keptRows, kind: .intervalEnd(nextStart: intervalEnd)))
            intervalEnd += Double(rows)
        case .seconds(let seconds)?:
            // Most rows are well inside the current interval: one comparison.
            guard time >= intervalEnd - seconds * 1e-9 else { return }
            // The row's interval number; a row within a billionth of an interval of an edge is on
            // it (a decimal time of 0.3 is 2.9999999999999996 tenths in binary).
            let exact = (time - intervalOrigin) / seconds
            var number = exact.rounded(.down)
            if exact - number > 1 - 1e-9 { number += 1 }
            guard number > intervalNumber else { return }
            intervalNumber = number
            let next = intervalOrigin + number * seconds
            intervalEnd = intervalOrigin + (number + 1) * seconds
            // An interval no row fell in (the first after a warm-up that ended in a gap) is
            // not reported: the first interval starts at this row's instead.
            guard intervalHasRows else {
                schedule.noteFirstInterval(start: next)
                return
            }
            schedule.append(.init(position: keptRows, kind: .intervalEnd(nextStart: next)))
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
            let counted = cappedRows == traceRows ? "" : " (\(cappedRows) counted: gets and sets of size 0 and events are not)"
            throw TraceError(.malformed, file: base.name,
                             reason: "the warm-up (\(warmup)) is as long as the trace or longer: the trace has \(traceRows) rows\(counted)\(span), so no request is left to measure")
        }
    }
}

/// Rows a ``WindowedReader`` filters by key alone (see `filterWhole`): decoded requests, or an
/// oracleGeneral chunk's records read in place. Each accessor is O(1) and inlined.
protocol _FilterableRows {
    /// The rows.
    var count: Int { get }
    /// Row `i`'s key.
    func key(_ i: Int) -> UInt64
    /// Row `i`'s size when it is a measured request (a `get` of size > 0), else 0.
    func measuredSize(_ i: Int) -> Int
    /// Row `i` as a request.
    func request(_ i: Int) -> Request
    /// Whether row `i` is an event (no key), which every sample keeps.
    func isEvent(_ i: Int) -> Bool
    /// Whether a row is a set or a delete.
    var hasOtherOperations: Bool { get }
    /// Asks for the memory of a row a little after `i` (rows read in place from a file).
    func prefetch(_ i: Int)
}

extension UnsafeBufferPointer: _FilterableRows where Element == Request {
    @inline(__always) func key(_ i: Int) -> UInt64 { self[i].key }
    @inline(__always) func measuredSize(_ i: Int) -> Int {
        self[i].operation == .get && self[i].size > 0 ? self[i].size : 0
    }
    @inline(__always) func request(_ i: Int) -> Request { self[i] }
    @inline(__always) func isEvent(_ i: Int) -> Bool { !self[i].operation.hasKey }
    var hasOtherOperations: Bool { contains { $0.operation != .get && $0.operation.hasKey } }
    @inline(__always) func prefetch(_ i: Int) {}
}

/// An oracleGeneral chunk's records, in place: every record is a `get`.
struct _OracleGeneralRecords: _FilterableRows {
    let base: UnsafeRawPointer
    let count: Int
    @inline(__always) private func record(_ i: Int) -> UnsafeRawPointer { base + i &* OracleGeneralReader.recordSize }
    @inline(__always) func key(_ i: Int) -> UInt64 { OracleGeneralReader.key(at: record(i)) }
    @inline(__always) func measuredSize(_ i: Int) -> Int { Int(OracleGeneralReader.size(at: record(i))) }
    @inline(__always) func request(_ i: Int) -> Request { OracleGeneralReader.request(at: record(i)) }
    @inline(__always) func isEvent(_ i: Int) -> Bool { false }
    /// oracleGeneral has gets only.
    var hasOtherOperations: Bool { false }
    /// The file's pages are not contiguous in memory, and the processor's prefetcher stops at
    /// each page's end: asking 2 KB ahead keeps the stream flowing across them.
    @inline(__always) func prefetch(_ i: Int) { _cs_prefetch(record(i) + 2_048) }
}
