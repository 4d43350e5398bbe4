#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The capacities of a `compare` or `mrc` run, as the user wrote them (`--capacities`).
///
/// Three forms, mixable in one comma-separated list:
/// - sizes, as `--capacity` takes them: `64MiB,128MiB`, `500` (objects with `--ignore-size`);
/// - a log-spaced range, both ends included: `1MiB...1GiB:12` is 12 sizes whose ratios are equal;
/// - fractions of the trace's working set, as libCacheSim accepts them: a number below 1 written
///   with a decimal point (`0.01,0.1,0.3`), or a percentage up to 100 (`1%,10%,12.5%`), also as a
///   range (`0.001...0.5:10`, `0.1%...50%:10`). These need a first pass over the file to measure
///   the working set.
public struct CapacityList: Sendable, Equatable {
    /// One capacity before resolution.
    public enum Item: Sendable, Equatable {
        /// An absolute size (bytes, or objects with `--ignore-size`).
        case size(Int)
        /// `numerator / denominator` of the working set.
        case fraction(numerator: Int, denominator: Int)
    }

    /// The items in the order given, ranges expanded.
    public var items: [Item]

    /// The most capacities one list may name, so a typo such as `:100000` fails fast.
    public static let maximumCount = 4096

    /// Creates a list from items.
    public init(_ items: [Item]) { self.items = items }

    /// Whether resolving needs the trace's working set.
    public var needsWorkingSet: Bool {
        items.contains { if case .fraction = $0 { true } else { false } }
    }

    /// The capacities in ascending order without duplicates; fractions are taken of
    /// `workingSet` (rounded down, at least 1).
    public func resolve(workingSet: Int?) -> [Int] { resolveWithOrigins(workingSet: workingSet).map(\.capacity) }

    /// ``resolve(workingSet:)``, each capacity with whether it came from a fraction of the
    /// working set (`false` when a size in the list names it, even if a fraction also does).
    public func resolveWithOrigins(workingSet: Int?) -> [(capacity: Int, isFraction: Bool)] {
        var sizes: [Int: Bool] = [:]
        for item in items {
            switch item {
            case .size(let size): sizes[size] = false
            case .fraction(let numerator, let denominator):
                let total = workingSet ?? 0
                let (product, overflow) = total.multipliedReportingOverflow(by: numerator)
                // Beyond Int, the product is taken in floating point: a fraction above 1 of a working
                // set near 2^63 is as large a size as there is.
                let value = overflow ? _saturatingInt(Double(total) * Double(numerator) / Double(denominator)) : product / denominator
                let size = max(1, value)
                if sizes[size] == nil { sizes[size] = true }
            }
        }
        return sizes.sorted { $0.key < $1.key }.map { (capacity: $0.key, isFraction: $0.value) }
    }

    /// Parses a list of capacities: sizes, fractions of the working set and `LOW...HIGH:COUNT`
    /// ranges, separated by commas.
    ///
    /// - Throws: ``InvalidValueError`` for `setting`, naming the item at fault.
    public static func parse(_ text: String, setting: String = "capacities") throws(InvalidValueError) -> CapacityList {
        var items: [Item] = []
        for rawPart in text.split(separator: ",", omittingEmptySubsequences: false) {
            let part = rawPart.trimmingSpaces
            guard !part.isEmpty else { throw InvalidValueError(setting, text, expected: "empty item (write sizes separated by commas)") }
            if part.contains("...") {
                items += try parseRange(part, setting: setting)
            } else {
                items.append(try parseItem(part, setting: setting))
            }
            guard items.count <= maximumCount else {
                throw InvalidValueError(setting, text, expected: "more than \(maximumCount) capacities")
            }
        }
        return CapacityList(items)
    }

    /// One size or fraction.
    static func parseItem(_ text: String, setting: String) throws(InvalidValueError) -> Item {
        if let fraction = try parseFraction(text, setting: setting) { return fraction }
        let size = try SizeFormat.parse(text, setting: setting)
        guard size > 0 else { throw InvalidValueError(setting, text, expected: "must be greater than 0") }
        return .size(size)
    }

    /// `0.25` → 25/100 and `12.5%` → 125/1000; `nil` when `text` is neither a bare decimal nor a
    /// percentage (so it is a size). A decimal is below 1; a percentage is above 0 and at most 100.
    public static func parseFraction(_ text: String, setting: String = "capacity") throws(InvalidValueError) -> Item? {
        let percent = text.hasSuffix("%")
        let number = percent ? String(text.dropLast()).trimmingSpaces : text
        guard percent || number.contains("."), number.allSatisfy({ $0.isASCII && ($0.isNumber || $0 == ".") }) else {
            if percent { throw InvalidValueError(setting, text, expected: "a percentage is a number followed by %, such as 10% or 0.5%") }
            return nil
        }
        let parts = number.split(separator: ".", omittingEmptySubsequences: false)
        let decimalDigits = parts.count == 2 ? parts[1] : ""
        guard parts.count <= 2, !(parts[0].isEmpty && decimalDigits.isEmpty) else {
            throw InvalidValueError(setting, text, expected: "not a number")
        }
        // The fraction is kept exact, as a ratio of integers: 15 places fit.
        guard decimalDigits.count <= 15, let decimals = decimalDigits.isEmpty ? 0 : Int(decimalDigits) else {
            throw InvalidValueError(setting, text, expected: "at most 15 decimal places")
        }
        let outOfRange = percent
            ? InvalidValueError(setting, text, expected: "a percentage of the working set must be above 0 and at most 100")
            : InvalidValueError(setting, text, expected: "a fraction of the working set must be above 0 and below 1 (a size without a unit must be a whole number)")
        // The whole part is bounded before any arithmetic: at most 100 (a percentage) or 0, times
        // at most 10^15, so nothing below can overflow.
        let whole = parts[0].isEmpty ? 0 : Int(parts[0])
        guard let whole, whole <= (percent ? 100 : 0) else { throw outOfRange }
        var scale = 1
        for _ in 0..<decimalDigits.count { scale *= 10 }
        let numerator = whole * scale + decimals
        let denominator = percent ? scale * 100 : scale
        guard numerator > 0, numerator <= denominator else { throw outOfRange }
        return .fraction(numerator: numerator, denominator: denominator)
    }

    /// `LOW...HIGH:COUNT`, log-spaced, both ends included.
    static func parseRange(_ text: String, setting: String) throws(InvalidValueError) -> [Item] {
        let shape = InvalidValueError(setting, text, expected: "expected LOW...HIGH:COUNT, e.g. 1MiB...1GiB:12, 0.001...0.5:8 or 1%...50%:8")
        guard let dots = text.range(of: "..."), let colon = text.lastIndex(of: ":"), colon > dots.upperBound else {
            throw shape
        }
        let lowText = String(text[..<dots.lowerBound]).trimmingSpaces
        let highText = String(text[dots.upperBound..<colon]).trimmingSpaces
        let countText = String(text[text.index(after: colon)...]).trimmingSpaces
        guard !lowText.isEmpty, !highText.isEmpty else { throw shape }
        guard let count = Int(countText), count >= 2, count <= maximumCount else {
            throw InvalidValueError(setting, text, expected: "the number of points after ':' must be a whole number from 2 to \(maximumCount)")
        }
        let low = try parseItem(lowText, setting: setting)
        let high = try parseItem(highText, setting: setting)
        switch (low, high) {
        case (.size(let a), .size(let b)):
            guard a < b else { throw InvalidValueError(setting, text, expected: "the low end must be below the high end") }
            // The ends as given; the points between them rounded and kept inside them (near
            // Int.max a Double rounds up to 2^63, which no Int holds).
            let points = logSpaced(Double(a), Double(b), count: count)
            return points.indices.map { i in
                if i == 0 { return .size(a) }
                if i == points.count - 1 { return .size(b) }
                let point = points[i].rounded()
                return .size(point >= Double(b) ? b : max(a, Int(point)))
            }
        case (.fraction(let an, let ad), .fraction(let bn, let bd)):
            let a = Double(an) / Double(ad), b = Double(bn) / Double(bd)
            guard a < b else { throw InvalidValueError(setting, text, expected: "the low end must be below the high end") }
            // Fractions keep nine decimals, plenty for any working set a trace can have.
            return logSpaced(a, b, count: count).map {
                .fraction(numerator: max(1, Int(($0 * 1e9).rounded())), denominator: 1_000_000_000)
            }
        default:
            throw InvalidValueError(setting, text, expected: "both ends must be sizes, or both fractions of the working set")
        }
    }

    /// `count` values from `low` to `high` with a constant ratio; the ends are exact. `low` may
    /// equal `high` (two sizes near 2^63 that one `Double` stands for): every value is then it.
    public static func logSpaced(_ low: Double, _ high: Double, count: Int) -> [Double] {
        precondition(count >= 2 && low > 0 && high >= low)
        let ratio = high / low
        return (0..<count).map { i in
            if i == 0 { return low }
            if i == count - 1 { return high }
            return low * pow(ratio, Double(i) / Double(count - 1))
        }
    }
}
