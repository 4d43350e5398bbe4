/// What a windowed run measured beyond its counters: the warm-up, the cap, the sample and the
/// intervals (the `window` and `intervals` objects of a replay's JSON).
public struct WindowReport: Sendable, Equatable {
    /// The window the run used.
    public var window: RequestWindow
    /// Rows of the trace read in all (before sampling), warm-up included.
    public var traceRows: Int
    /// Rows of the trace read during the warm-up (before sampling).
    public var warmupTraceRows: Int
    /// `get` requests of the trace after the warm-up, before sampling (all of them without a sample).
    public var traceRequests: Int
    /// Their bytes.
    public var traceByteRequests: Int
    /// `get` requests the cache served during the warm-up, not counted in the results.
    public var warmupRequests: Int
    /// The capacity the policy had: the reported capacity scaled by the sampling ratio.
    public var sampledCapacity: Int?
    /// The count limit the policy had, scaled likewise.
    public var sampledCountLimit: Int?
    /// The sample's own `get` requests and hits, when the counts were scaled up from it
    /// (``MiniatureSimulation``); otherwise the counts are the sample's.
    public var sampledRequests: Int?
    /// The sample's own hits, beside ``sampledRequests``.
    public var sampledHits: Int?
    /// Miss ratios per interval, when `--report-interval` is given.
    public var intervals: [IntervalStatistics]

    /// The JSON object `window`.
    public var json: JSONValue {
        var fields: [(String, JSONValue)] = [
            ("traceRows", .int(traceRows)),
            ("warmup", window.warmup.map { .string($0.description) } ?? .null),
            ("warmupTraceRows", .int(warmupTraceRows)),
            ("traceRequests", .int(traceRequests)), ("traceByteRequests", .int(traceByteRequests)),
            ("warmupRequests", .int(warmupRequests)),
            ("maxRequests", .integer(window.maxRequests)),
            ("sampleRatio", .number(window.sampleRatio)),
            ("sampledCapacity", .integer(sampledCapacity)),
            ("sampledCountLimit", .integer(sampledCountLimit)),
        ]
        // Only another sample than the default says which: seed 0's reports stay as they were.
        if window.sampleSeed != 0 { fields.append(("sampleSeed", .int(Int(truncatingIfNeeded: window.sampleSeed)))) }
        if let sampledRequests, let sampledHits {
            fields += [("sampledRequests", .int(sampledRequests)), ("sampledHits", .int(sampledHits))]
        }
        if let interval = window.reportInterval {
            let (unit, length): (String, Double) = switch interval {
            case .requests(let rows): ("requests", Double(rows))
            case .seconds(let seconds): ("seconds", seconds)
            }
            fields.append(("intervals", .object([
                ("unit", .string(unit)), ("length", .double(length)),
                ("points", .array(intervals.map { interval in
                    .object([
                        ("start", .double(interval.start)),
                        ("requests", .int(interval.counters.requests)), ("hits", .int(interval.counters.hits)),
                        ("byteRequests", .int(interval.counters.byteRequests)), ("byteHits", .int(interval.counters.byteHits)),
                        ("missRatio", .number(interval.missRatio)), ("byteMissRatio", .number(interval.byteMissRatio)),
                    ])
                })),
            ])))
        }
        return .object(fields)
    }

    /// Lines for the table report.
    var tableRows: [(String, String)] {
        var rows: [(String, String)] = []
        if let warmup = window.warmup {
            rows.append(("warm-up", "\(warmup): \(traceRows == 0 ? 0 : warmupTraceRows) trace rows, \(warmupRequests) requests not counted"))
        }
        if let cap = window.maxRequests { rows.append(("max requests", "\(cap) (read \(traceRows) trace rows)")) }
        if let ratio = window.sampleRatio {
            let capacity = sampledCapacity.map { ", capacity scaled to \($0)" } ?? ""
            let seed = window.sampleSeed == 0 ? "" : " (seed \(window.sampleSeed))"
            rows.append(("sample", "keys with hash below \(String(format6: ratio)) of 2^64 (SHARDS)\(seed)\(capacity)"))
        }
        if let interval = window.reportInterval {
            let ratios = intervals.compactMap(\.missRatio)
            let low = _ratio((ratios.min() ?? 0) * 100, decimals: 2, of: 100), high = _ratio((ratios.max() ?? 0) * 100, decimals: 2, of: 100)
            let range = ratios.isEmpty ? "" : ", miss ratio \(low) % to \(high) %"
            rows.append(("intervals", "\(intervals.count) of \(interval)\(range) (each one is in the JSON report and the interval chart)"))
        }
        return rows
    }
}

/// A run's reader and meter for a window: the trace read through a ``WindowedReader``, and the
/// meter that cuts the run's statistics at its marks.
struct _WindowedStream {
    let reader: any TraceReader
    let schedule: WindowSchedule?

    init(_ reader: any TraceReader, window: RequestWindow, census: _CensusFeed? = nil) {
        if window.isWholeTrace && census == nil {
            self.reader = reader
            schedule = nil
        } else {
            let schedule = WindowSchedule()
            self.reader = WindowedReader(reader, window: window, schedule: schedule, census: census)
            self.schedule = schedule
        }
    }

    /// A meter for one run, when the window cuts statistics.
    func meter(_ window: RequestWindow) -> WindowMeter? {
        guard window.needsMeter, let schedule else { return nil }
        return WindowMeter(schedule)
    }

    /// The run's measured counters and its window report.
    func finish(_ window: RequestWindow, meter: WindowMeter?, counters: ReplayCounters, capacity: Int?,
                countLimit: Int?) -> (ReplayCounters, WindowReport?) {
        guard let schedule else { return (counters, nil) }
        let (measured, intervals, warmup) = meter?.finish(counters) ?? (counters, [], nil)
        let report = WindowReport(
            window: window, traceRows: schedule.traceRows, warmupTraceRows: window.warmup == nil ? 0 : schedule.warmedTraceRows,
            traceRequests: schedule.traceRequests.count, traceByteRequests: schedule.traceRequests.bytes,
            warmupRequests: warmup?.requests ?? 0,
            sampledCapacity: window.sampleRatio == nil ? nil : capacity.map(window.scaled),
            sampledCountLimit: window.sampleRatio == nil ? nil : countLimit.map(window.scaled),
            intervals: intervals)
        return (measured, report)
    }
}
