/// A value the engine cannot take, in its own words: which setting, the value as given, and
/// what was expected. A command-line tool names its flag instead of ``setting`` (`cachebench`
/// does, in `CacheBenchCommandLine`).
public struct InvalidValueError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The setting at fault, in the engine's words: `size`, `capacities`, `span`, `shard`, or a
    /// generator's parameter name such as `alpha`.
    public var setting: String
    /// The value as given (for a list, the item at fault).
    public var value: String
    /// What was expected, or why the value cannot be used.
    public var expected: String

    /// Creates an error for `value` of `setting`.
    public init(_ setting: String, _ value: String, expected: String) {
        self.setting = setting
        self.value = value
        self.expected = expected
    }

    /// `setting value: expected`.
    public var description: String { "\(setting) \(value): \(expected)" }
}
