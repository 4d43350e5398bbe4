/// One run's statistics cut at a ``WindowSchedule``'s marks: the counters at the warm-up's end
/// and at each interval's end, taken by applying each batch in pieces split at the marks.
///
/// Between marks a batch goes to the run whole, so the per-request loop is untouched; a mark
/// costs one copy of the rest of its batch.
final class WindowMeter: @unchecked Sendable {
    private let schedule: WindowSchedule
    private var applied = 0
    private var consumed = 0
    private var lastCut = ReplayCounters()
    private var warmup: ReplayCounters?
    private var intervalStart: Double
    private var intervals: [IntervalStatistics] = []
    private var started = false

    init(_ schedule: WindowSchedule) {
        self.schedule = schedule
        intervalStart = 0
    }

    /// Applies `batch` with `apply`, reading `counters` at each mark inside it.
    func apply(_ batch: [Request], _ apply: ([Request]) -> Void, counters: () -> ReplayCounters) {
        if !started {
            started = true
            intervalStart = schedule.firstIntervalStart
        }
        let end = applied + batch.count
        let marks = schedule.marks(from: consumed, before: end)
        guard !marks.isEmpty else {
            apply(batch)
            applied = end
            return
        }
        var from = 0
        for mark in marks {
            let cut = mark.position - applied
            if cut > from { apply(Array(batch[from..<cut])) }
            from = max(from, cut)
            self.cut(mark.kind, counters())
        }
        consumed += marks.count
        if from == 0 { apply(batch) } else if from < batch.count { apply(Array(batch[from...])) }
        applied = end
    }

    private func cut(_ kind: WindowSchedule.Mark.Kind, _ now: ReplayCounters) {
        switch kind {
        case .warmupEnd:
            warmup = now
            intervalStart = schedule.firstIntervalStart
        case .intervalEnd(let nextStart):
            intervals.append(IntervalStatistics(start: intervalStart, counters: now.subtracting(lastCut)))
            intervalStart = nextStart
        }
        lastCut = now
    }

    /// The run's measured counters (all minus the warm-up's) and the intervals, the last one
    /// closed at the end of the stream when it has rows.
    func finish(_ final: ReplayCounters) -> (measured: ReplayCounters, intervals: [IntervalStatistics], warmup: ReplayCounters?) {
        // Marks at the very end of the stream: a batch applies only the marks inside it. A
        // warm-up that ends after the last row the run saw (a sample that keeps no row after it)
        // covers every request, and none may be counted as measured.
        let atEnd = schedule.marks(from: consumed, before: applied + 1)
        consumed += atEnd.count
        for mark in atEnd { cut(mark.kind, final) }
        var all = intervals
        let tail = final.subtracting(lastCut)
        if tail.requests + tail.sets + tail.deletes + tail.events + tail.skipped > 0 {
            all.append(IntervalStatistics(start: intervalStart, counters: tail))
        }
        return (warmup.map { final.subtracting($0) } ?? final, all, warmup)
    }
}

/// The counts of one report interval.
public struct IntervalStatistics: Sendable, Equatable {
    /// Where it starts: a trace row index, or seconds after the first row (as `--report-interval`).
    public var start: Double
    /// What happened in it.
    public var counters: ReplayCounters

    /// Misses over requests, `nil` without requests.
    public var missRatio: Double? {
        counters.requests == 0 ? nil : Double(counters.requests - counters.hits) / Double(counters.requests)
    }
    /// Missed bytes over requested bytes, `nil` without requests.
    public var byteMissRatio: Double? {
        counters.byteRequests == 0 ? nil : Double(counters.byteRequests - counters.byteHits) / Double(counters.byteRequests)
    }
}

extension ReplayCounters {
    /// The counts since `earlier`.
    func subtracting(_ earlier: ReplayCounters) -> ReplayCounters {
        var d = ReplayCounters()
        d.requests = requests - earlier.requests
        d.hits = hits - earlier.hits
        d.byteRequests = byteRequests - earlier.byteRequests
        d.byteHits = byteHits - earlier.byteHits
        d.evictions = evictions - earlier.evictions
        d.skipped = skipped - earlier.skipped
        d.sets = sets - earlier.sets
        d.deletes = deletes - earlier.deletes
        d.events = events - earlier.events
        d.storedBySet = storedBySet
        return d
    }
}
