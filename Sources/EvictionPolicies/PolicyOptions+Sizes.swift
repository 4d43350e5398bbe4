// Sizes in policy options (`preferred=40MiB`). CacheBench's SizeFormat parses `--capacity`, but
// EvictionPolicies cannot import CacheBench, so the few lines are repeated here with the same
// suffixes: KB MB GB TB are powers of 1000, KiB MiB GiB TiB powers of 1024, B or none is bytes.

extension PolicyOptions {
    /// Parses a size such as `40MiB`, `60MB`, `1.5GiB` or `1048576B`: a non-negative number
    /// followed by a unit suffix (case-insensitive). A bare number has no unit and is not a size.
    ///
    /// - Returns: the size in bytes, rounded down, or `nil` when `text` is not a size with a unit.
    public static func parseSize(_ text: String) -> Int? {
        let trimmed = text.filter { $0 != " " }
        let number = trimmed.prefix { $0.isASCII && ($0.isNumber || $0 == ".") }
        let suffix = trimmed.dropFirst(number.count).lowercased()
        let multiplier: Double
        switch suffix {
        case "b": multiplier = 1
        case "kb": multiplier = 1e3
        case "mb": multiplier = 1e6
        case "gb": multiplier = 1e9
        case "tb": multiplier = 1e12
        case "kib": multiplier = 1024
        case "mib": multiplier = 1_048_576
        case "gib": multiplier = 1_073_741_824
        case "tib": multiplier = 1_099_511_627_776
        default: return nil
        }
        guard !number.isEmpty, let value = Double(number), value.isFinite else { return nil }
        let bytes = (value * multiplier).rounded(.down)
        guard bytes < 9.2e18 else { return nil }
        return Int(bytes)
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
        if let bytes = Self.parseSize(raw) { return bytes }
        guard let fraction = Double(raw), fraction.isFinite else {
            throw .invalidOption(key, value: raw,
                                 expected: "a fraction of the capacity (0.6) or a size with a unit (40MiB, 60MB)")
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
