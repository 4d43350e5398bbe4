import Foundation

/// The version of cachebench that wrote a result.
///
/// Sweep records carry it, so a merge that joins records from different builds can say so.
public enum ToolVersion {
    /// The version string, bumped with each release of the tool.
    public static let current = "0.19.0"

    /// The running program's build: the content hash of its executable (16 hexadecimal digits),
    /// or `nil` when the executable cannot be read. Computed once per process, on first use.
    ///
    /// Why: a policy registered by another package is compiled into that package's program, so
    /// editing the policy changes the results without changing ``current``. Records carry the
    /// build, and a sweep or merge that meets records of another build says so, rather than
    /// mixing old cells with new ones in silence.
    public static let build: String? = {
        #if os(Linux)
        let path: String? = "/proc/self/exe"
        #else
        let path = Bundle.main.executablePath
        #endif
        guard let path, let identity = try? TraceIdentity.of(path: path) else { return nil }
        return identity.hash
    }()
}
