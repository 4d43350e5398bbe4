/// A trace generator that cannot run as asked, in the engine's own words: which parameter,
/// which value, what was expected. A command-line tool names its flags instead by switching
/// over the cases (`cachebench generate` does, in `CacheBenchCommandLine`).
public enum GeneratorError: Error, Sendable, Equatable, CustomStringConvertible {
    /// No generator has this kind; the known kinds are listed.
    case unknownKind(String, known: [String])
    /// The kind takes no parameter of this name; the parameters it takes are listed.
    case parameterNotTaken(String, kind: String, taken: [String])
    /// A parameter's value is malformed or out of range (``InvalidValueError/setting`` is the
    /// parameter's name), or the number of requests is negative (`requests`).
    case invalidValue(InvalidValueError)
    /// The largest object size is below the smallest.
    case sizeRangeInverted(minimum: Int, maximum: Int)
    /// Weights that cannot all be 0 are.
    case weightsAllZero([String])
    /// Shares of the requests that add up to more than 1.
    case sharesAboveOne([String])
    /// The rows' sizes add up past `Int.max` bytes by row `row` (1-based): a trace that every
    /// reader refuses, since no byte total over it could be represented.
    case sizesPastLimit(row: Int)

    /// The problem in one line, in the engine's words.
    public var description: String {
        switch self {
        case let .unknownKind(kind, known): "unknown trace kind '\(kind)' (known: \(known.joined(separator: ", ")))"
        case let .parameterNotTaken(name, kind, taken):
            "parameter \(name) does not apply to '\(kind)' (" + (taken.isEmpty ? "it takes only seed and requests" : "it takes " + taken.joined(separator: ", ")) + ")"
        case .invalidValue(let error): error.description
        case let .sizeRangeInverted(minimum, maximum): "max-size \(maximum) is below min-size \(minimum)"
        case .weightsAllZero(let names): "\(Self.list(names)) cannot all be 0"
        case .sharesAboveOne(let names): "\(Self.list(names)) add up to more than 1"
        case .sizesPastLimit(let row):
            "the sizes of the first \(row) rows add up to more than 2^63-1 bytes, which no trace can hold: ask for fewer requests or smaller sizes"
        }
    }

    /// Names joined as prose, `a, b and c`, as the messages list parameters (a command line
    /// lists its flags the same way).
    public static func list(_ names: [String]) -> String {
        names.count < 2 ? names.joined() : names.dropLast().joined(separator: ", ") + " and " + (names.last ?? "")
    }
}
