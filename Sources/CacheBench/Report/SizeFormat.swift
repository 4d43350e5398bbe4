import EvictionPolicies

/// Parsing and printing of sizes such as `64MiB`.
public enum SizeFormat {
    /// Parses a size: a plain integer (bytes, or objects with `--ignore-size`) or a number with a
    /// suffix: `KB MB GB TB` (powers of 1000), `KiB MiB GiB TiB` or `K M G T` (powers of 1024),
    /// case-insensitive, optionally `B`. Decimals are allowed with a suffix (`1.5GiB`) and
    /// rounded down. The grammar is ``SizeText``'s, which policy options share.
    ///
    /// - Throws: ``InvalidValueError`` for `setting`.
    public static func parse(_ text: String, setting: String = "size") throws(InvalidValueError) -> Int {
        switch SizeText.parse(text) {
        case .success(let size): return size.bytes
        case .failure(.negative): throw InvalidValueError(setting, text, expected: "a size cannot be negative")
        case .failure(.unknownSuffix(let suffix)):
            throw InvalidValueError(setting, text, expected: "unknown size suffix '\(suffix)' (use KB, MB, GB, TB, KiB, MiB, GiB, TiB or K, M, G, T)")
        case .failure(.notANumber): throw InvalidValueError(setting, text, expected: "not a size (examples: 1048576, 64MiB, 1GB)")
        case .failure(.fractionOfAByte(let withB)):
            throw InvalidValueError(setting, text, expected: withB ? "a size in bytes (B) must be a whole number" : "a size without a unit must be a whole number")
        case .failure(.tooLarge(let inUnits)):
            throw InvalidValueError(setting, text, expected: inUnits ? "too large (at most \(Int.max) bytes, about 8 EiB)" : "too large (at most \(Int.max))")
        }
    }

    /// `64 MiB (67108864 bytes)`, or `500 objects`.
    public static func describe(_ size: Int, objects: Bool) -> String {
        if objects { return "\(size) objects" }
        let units: [(Int, String)] = [(1 << 60, "EiB"), (1 << 50, "PiB"), (1 << 40, "TiB"), (1 << 30, "GiB"), (1 << 20, "MiB"), (1 << 10, "KiB")]
        for (unit, name) in units where size >= unit {
            return "\(figure(Double(size) / Double(unit), decimals: 2)) \(name) (\(size) bytes)"
        }
        return "\(size) bytes"
    }

    /// A size in a unit, `value`: whole when it is whole, otherwise cut (not rounded) to
    /// `decimals` and given more when fewer would read as a whole number, so that a label never
    /// claims a round size it is not: 2^20 - 1 bytes is `1023.99 KiB`, not `1024 KiB`, and 5,121
    /// bytes `5.0009 KiB`, not `5 KiB` (up to 9 decimals).
    static func figure(_ value: Double, decimals: Int) -> String {
        if value == value.rounded() { return SVGLineChart.trimmed(value, decimals: 0) }
        var decimals = decimals
        while true {
            var scale = 1.0
            for _ in 0..<decimals { scale *= 10 }
            let cut = (value * scale).rounded(.towardZero) / scale
            if cut != cut.rounded() || decimals >= 9 {
                var text = _fixed(cut, decimals: decimals)
                while text.hasSuffix("0") { text.removeLast() }
                return text
            }
            decimals += 1
        }
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
