// Sizes as people write them (`40MiB`, `1.5G`, `60MB`), parsed once here: policy options
// (`preferred=40MiB`) use it, and so does CacheBench's `--capacity` (SizeFormat), which adds its
// own wording to the failures.

/// A size written with an optional unit: `KB MB GB TB` are powers of 1000, `KiB MiB GiB TiB` and
/// libCacheSim's `K M G T` powers of 1024, `B` or none is bytes; case and spaces do not matter.
/// A whole number of a unit is exact up to `Int.max` bytes; a decimal one (`1.5GiB`) is rounded
/// down; bytes must be whole.
public enum SizeText {
    /// Why a text is not a size.
    public enum Failure: Error, Sendable, Equatable {
        /// A minus sign.
        case negative
        /// A suffix that is no unit (`64Q`): the suffix, lowercased.
        case unknownSuffix(String)
        /// No number before the unit.
        case notANumber
        /// A fraction of a byte (`0.5`, `0.5B`); `withB` when the unit `B` was written.
        case fractionOfAByte(withB: Bool)
        /// More than `Int.max` bytes; `inUnits` when a unit larger than a byte was written.
        case tooLarge(inUnits: Bool)
    }

    /// The bytes `text` gives and whether it names a unit (`B` counts), or why it is not a size.
    public static func parse(_ text: String) -> Result<(bytes: Int, hasUnit: Bool), Failure> {
        let trimmed = text.trimmingSpacesAndTabs
        // Said before the suffix check, which would otherwise take "-5" for a suffix.
        guard !trimmed.hasPrefix("-") else { return .failure(.negative) }
        let digits = trimmed.prefix { $0.isASCII && ($0.isNumber || $0 == ".") }
        let suffix = String(trimmed.dropFirst(digits.count)).trimmingSpacesAndTabs.lowercased()
        let multipliers: [String: Int] = [
            "": 1, "b": 1,
            "kb": 1_000, "mb": 1_000_000, "gb": 1_000_000_000, "tb": 1_000_000_000_000,
            "kib": 1 << 10, "mib": 1 << 20, "gib": 1 << 30, "tib": 1 << 40,
            "k": 1 << 10, "m": 1 << 20, "g": 1 << 30, "t": 1 << 40,
        ]
        guard let multiplier = multipliers[suffix] else { return .failure(.unknownSuffix(suffix)) }
        guard !digits.isEmpty, digits != ".", let number = Double(digits) else { return .failure(.notANumber) }
        let hasUnit = !suffix.isEmpty
        let tooLarge = Failure.tooLarge(inUnits: multiplier > 1)
        if let whole = Int(digits) {
            let (bytes, overflow) = whole.multipliedReportingOverflow(by: multiplier)
            return overflow ? .failure(tooLarge) : .success((bytes, hasUnit))
        }
        // Only ASCII digits, yet no Int: the number is beyond the largest size.
        if digits.allSatisfy({ $0 != "." }) { return .failure(tooLarge) }
        if multiplier == 1 { return .failure(.fractionOfAByte(withB: hasUnit)) }
        let value = (number * Double(multiplier)).rounded(.down)
        // 2^63 is the first Double past Int.max; every Double below it converts.
        guard value < 0x1p63 else { return .failure(tooLarge) }
        return .success((Int(value), hasUnit))
    }
}

extension StringProtocol {
    /// Without the spaces and tabs at either end.
    var trimmingSpacesAndTabs: Substring {
        var text = self[...]
        while text.first == " " || text.first == "\t" { text = text.dropFirst() }
        while text.last == " " || text.last == "\t" { text = text.dropLast() }
        return Substring(text)
    }
}

extension PolicyOptions {
    /// Parses a size with a unit such as `40MiB`, `60MB`, `1.5GiB` or `1048576B` (``SizeText``).
    /// A bare number has no unit and is not a size.
    ///
    /// - Returns: the size in bytes, or `nil` when `text` is not a size with a unit.
    public static func parseSize(_ text: String) -> Int? {
        guard case .success(let size) = SizeText.parse(text), size.hasUnit else { return nil }
        return size.bytes
    }

    /// A parameter given either as a fraction of `whole` (a bare number, `0.6`) or as a size with
    /// a unit (`40MiB`, `60MB`, `1048576B`), in bytes; `defaultBytes` when absent.
    ///
    /// A fraction is rounded to the nearest byte.
    ///
    /// - Parameters:
    ///   - key: the option's name.
    ///   - whole: what a fraction is a fraction of (the capacity).
    ///   - defaultBytes: the value when the option is absent (computed exactly by the caller, so
    ///     that a library's `60 * 1024 * 1024` is not subject to floating-point rounding).
    ///   - maximumFraction: the largest fraction accepted; `nil` for no bound (a model that
    ///     reproduces a misconfiguration, such as AFNetworking's preferred size above its capacity).
    /// - Throws: ``PolicyConfigurationError`` naming the option when the value is neither, or a
    ///   fraction is out of range.
    public func fractionOrSize(_ key: String, of whole: Int, default defaultBytes: Int,
                               maximumFraction: Double? = nil) throws(PolicyConfigurationError) -> Int {
        guard let raw = values[key] else { return defaultBytes }
        let text = raw.filter { $0 != " " }
        let shape = "a fraction of the capacity (0.6 or 60%) or a size with a unit (40MiB, 60MB, 60B)"
        let fraction: Double
        if text.hasSuffix("%") {
            // A percentage is a fraction, as `--capacity 60%` is.
            guard let percent = Self.decimal(String(text.dropLast())) else { throw .invalidOption(key, value: raw, expected: shape) }
            fraction = percent / 100
        } else {
            switch SizeText.parse(text) {
            case .success(let size) where size.hasUnit: return size.bytes
            case .failure(.tooLarge(let inUnits)) where inUnits || text.lowercased().hasSuffix("b"):
                throw .invalidOption(key, value: raw, expected: "a size of at most \(Int.max) bytes")
            case .failure(.fractionOfAByte(withB: true)): throw .invalidOption(key, value: raw, expected: "a whole number of bytes")
            default:
                guard let number = Self.decimal(text) else { throw .invalidOption(key, value: raw, expected: shape) }
                fraction = number
            }
        }
        guard fraction >= 0, maximumFraction.map({ fraction <= $0 }) ?? true else {
            let bound = maximumFraction.map { "between 0 and \($0)" } ?? "at least 0"
            // A number without a unit is a fraction; a size needs its unit (60B for bytes).
            throw .invalidOption(key, value: raw, expected: "a fraction \(bound), or a size with a unit (60MB, 60B)")
        }
        return Self.scale(whole, by: fraction)
    }

    /// `whole × fraction`, rounded to the nearest integer and clamped to `Int`.
    static func scale(_ whole: Int, by fraction: Double) -> Int {
        let product = (Double(whole) * fraction).rounded()
        return product >= 9.2e18 ? Int.max : Int(product)
    }
}
