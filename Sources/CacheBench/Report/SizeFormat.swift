/// Parsing and printing of sizes such as `64MiB`.
public enum SizeFormat {
    /// Parses a size: a plain integer (bytes, or objects with `--ignore-size`) or a number with a
    /// suffix: `KB MB GB TB` (powers of 1000) or `KiB MiB GiB TiB` (powers of 1024), case-insensitive,
    /// optionally `B`. Decimals are allowed with a suffix (`1.5GiB`) and rounded down.
    ///
    /// - Throws: ``InvalidValueError`` for `setting`.
    public static func parse(_ text: String, setting: String = "size") throws(InvalidValueError) -> Int {
        let trimmed = text.trimmingSpaces
        // Said before the suffix check, which would otherwise take "-5" for a suffix.
        guard !trimmed.hasPrefix("-") else { throw InvalidValueError(setting, text, expected: "a size cannot be negative") }
        let digits = trimmed.prefix { $0.isNumber || $0 == "." }
        let suffix = trimmed.dropFirst(digits.count).trimmingSpaces.lowercased()
        let multipliers: [String: Double] = [
            "": 1, "b": 1,
            "kb": 1e3, "mb": 1e6, "gb": 1e9, "tb": 1e12,
            "kib": 1024, "mib": 1048576, "gib": 1073741824, "tib": 1099511627776,
            "k": 1024, "m": 1048576, "g": 1073741824, "t": 1099511627776,
        ]
        guard let multiplier = multipliers[suffix] else {
            throw InvalidValueError(setting, text, expected: "unknown size suffix '\(suffix)' (use KB, MB, GB, TB, KiB, MiB, GiB, TiB or K, M, G, T)")
        }
        guard !digits.isEmpty, let number = Double(digits) else {
            throw InvalidValueError(setting, text, expected: "not a size (examples: 1048576, 64MiB, 1GB)")
        }
        if suffix.isEmpty || suffix == "b" {
            if let exact = Int(digits) { return exact }
            // Only ASCII digits, yet no Int: the number is beyond the largest size.
            let tooLarge = digits.allSatisfy { $0.isASCII && $0.isNumber }
            throw InvalidValueError(setting, text, expected: tooLarge ? "too large (at most \(Int.max))" : suffix.isEmpty ? "a size without a unit must be a whole number" : "a size in bytes (B) must be a whole number")
        }
        let tooLarge = InvalidValueError(setting, text, expected: "too large (at most \(Int.max) bytes, about 8 EiB)")
        // A whole number of a unit is exact, as a plain byte count is, up to Int.max.
        if let whole = Int(digits) {
            let (bytes, overflow) = whole.multipliedReportingOverflow(by: Int(multiplier))
            guard !overflow else { throw tooLarge }
            return bytes
        }
        let value = (number * multiplier).rounded(.down)
        // 2^63 is the first Double past Int.max; every Double below it converts.
        guard value < 0x1p63 else { throw tooLarge }
        return Int(value)
    }

    /// `64 MiB (67108864 bytes)`, or `500 objects`.
    public static func describe(_ size: Int, objects: Bool) -> String {
        if objects { return "\(size) objects" }
        let units: [(Int, String)] = [(1 << 60, "EiB"), (1 << 50, "PiB"), (1 << 40, "TiB"), (1 << 30, "GiB"), (1 << 20, "MiB"), (1 << 10, "KiB")]
        for (unit, name) in units where size >= unit {
            let value = Double(size) / Double(unit)
            let text = value == value.rounded() ? String(Int(value)) : String(format2: value)
            return "\(text) \(name) (\(size) bytes)"
        }
        return "\(size) bytes"
    }

    /// `12,345,678`.
    public static func grouped(_ value: Int) -> String {
        let digits = String(value.magnitude)
        var out = ""
        for (i, ch) in digits.enumerated() {
            if i > 0 && (digits.count - i) % 3 == 0 { out += "," }
            out.append(ch)
        }
        return value < 0 ? "-" + out : out
    }
}
