/// A JSON value that keeps object keys in the order they were added, so reports read in the
/// contract's order.
public indirect enum JSONValue: Sendable, Equatable {
    case null
    case bool(Bool)
    case int(Int)
    case double(Double)
    case string(String)
    case array([JSONValue])
    case object([(String, JSONValue)])

    public static func == (lhs: JSONValue, rhs: JSONValue) -> Bool { lhs.serialized() == rhs.serialized() }

    /// An optional number, `null` when absent.
    public static func number(_ value: Double?) -> JSONValue { value.map { .double($0) } ?? .null }
    /// An optional integer, `null` when absent.
    public static func integer(_ value: Int?) -> JSONValue { value.map { .int($0) } ?? .null }

    /// Compact text, or indented with two spaces when `pretty`.
    public func serialized(pretty: Bool = false) -> String {
        var out = ""
        write(into: &out, pretty: pretty, indent: 0)
        return out
    }

    private func write(into out: inout String, pretty: Bool, indent: Int) {
        switch self {
        case .null: out += "null"
        case .bool(let value): out += value ? "true" : "false"
        case .int(let value): out += String(value)
        case .double(let value):
            if !value.isFinite { out += "null" }
            // A whole number keeps its ".0": readers that type JSON numbers (Python's json, Swift's
            // Codable into Int) must see a ratio of exactly 0 or 1 as the fraction it is.
            else if value == value.rounded(), abs(value) < 1e15 { out += String(Int64(value)) + ".0" }
            else { out += "\(value)" }
        case .string(let value): Self.writeString(value, into: &out)
        case .array(let values):
            if values.isEmpty { out += "[]"; return }
            out += "["
            for (i, value) in values.enumerated() {
                if i > 0 { out += "," }
                if pretty { out += "\n" + String(repeating: "  ", count: indent + 1) }
                value.write(into: &out, pretty: pretty, indent: indent + 1)
            }
            if pretty { out += "\n" + String(repeating: "  ", count: indent) }
            out += "]"
        case .object(let fields):
            if fields.isEmpty { out += "{}"; return }
            out += "{"
            for (i, (key, value)) in fields.enumerated() {
                if i > 0 { out += pretty ? "," : ", " }
                if pretty { out += "\n" + String(repeating: "  ", count: indent + 1) }
                Self.writeString(key, into: &out)
                out += ": "
                value.write(into: &out, pretty: pretty, indent: indent + 1)
            }
            if pretty { out += "\n" + String(repeating: "  ", count: indent) }
            out += "}"
        }
    }

    private static func writeString(_ value: String, into out: inout String) {
        out += "\""
        for scalar in value.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case let s where s.value < 0x20:
                let hex = String(s.value, radix: 16)
                out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: out.unicodeScalars.append(scalar)
            }
        }
        out += "\""
    }
}
