/// A stretch of a trace, as `--warmup` and `--report-interval` take it: a number of the trace's
/// rows (`100000req`) or a duration of trace time (`30s`, `15m`, `2h`, `1d`).
public enum TraceSpan: Sendable, Equatable, CustomStringConvertible {
    /// The trace's rows, counted as they are read, before any sampling, leaving out the gets and
    /// sets of size 0 that a replay skips (as ``RequestWindow/maxRequests`` counts them).
    case requests(Int)
    /// Seconds of trace time, from the first row's timestamp.
    case seconds(Double)

    /// Parses `N req` (also `requests`, `reqs`, `r`) or a duration with a unit `s`, `m`, `h` or `d`.
    ///
    /// - Throws: ``InvalidValueError`` for `setting`: no unit, an unknown unit, zero or a negative span.
    public static func parse(_ text: String, setting: String = "span") throws(InvalidValueError) -> TraceSpan {
        let trimmed = text.trimmingSpaces
        let number = trimmed.prefix { $0.isASCII && ($0.isNumber || $0 == ".") }
        let unit = trimmed.dropFirst(number.count).trimmingSpaces.lowercased()
        let shape = InvalidValueError(setting, text, expected: "expected a row count such as 100000req or a duration such as 30s, 15m, 2h or 1d")
        guard !number.isEmpty, let value = Double(number), value.isFinite else { throw shape }
        switch unit {
        case "req", "reqs", "request", "requests", "r":
            guard !number.contains("."), value > 0 else { throw InvalidValueError(setting, text, expected: "must be a whole number of rows above 0") }
            guard let rows = Int(number) else { throw InvalidValueError(setting, text, expected: "out of range: at most \(Int.max) rows") }
            return .requests(rows)
        case "s", "sec": return try duration(value, 1, text, setting)
        case "m", "min": return try duration(value, 60, text, setting)
        case "h": return try duration(value, 3600, text, setting)
        case "d": return try duration(value, 86400, text, setting)
        default: throw shape
        }
    }

    private static func duration(_ value: Double, _ unit: Double, _ text: String, _ setting: String) throws(InvalidValueError) -> TraceSpan {
        guard value > 0 else { throw InvalidValueError(setting, text, expected: "must be above 0") }
        // Finite in its own unit may not be in seconds (10^308 days).
        guard (value * unit).isFinite, value * unit < 1e300 else { throw InvalidValueError(setting, text, expected: "out of range: too long") }
        return .seconds(value * unit)
    }

    /// `100000 rows` (`1 row`) or `3600 s`.
    public var description: String {
        switch self {
        case .requests(let rows): rows == 1 ? "1 row" : "\(rows) rows"
        case .seconds(let seconds):
            seconds == seconds.rounded() && seconds < 1e15 ? "\(Int(seconds)) s" : "\(String(format6: seconds)) s"
        }
    }
}
