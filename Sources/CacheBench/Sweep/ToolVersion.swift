/// The version of cachebench that wrote a result.
///
/// Sweep records carry it, so a merge that joins records from different builds can say so.
public enum ToolVersion {
    /// The version string, bumped with each release of the tool.
    public static let current = "0.19.0"
}
