import Foundation

/// Paths inside the repository, found from this file's location (Tests/TestSupport/), so tests
/// run from any working directory on a fresh clone. Tests never read ../shared.
public enum Repository {
    public static let root: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    public static func trace(_ name: String) -> String { root.appendingPathComponent("Traces").appendingPathComponent(name).path }
}

/// This test process's scratch folder in the system's temporary directory, created on first use
/// and removed with everything in it when the process exits, so a test run leaves nothing behind.
/// Each process has its own (named by its process id), so parallel test processes never share one.
public let scratchDirectory: URL = {
    let url = _scratchDirectory(for: getpid())
    try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    atexit { try? FileManager.default.removeItem(at: _scratchDirectory(for: getpid())) }
    return url
}()

func _scratchDirectory(for process: pid_t) -> URL {
    FileManager.default.temporaryDirectory.appendingPathComponent("cachebench-tests-\(process)")
}

/// Writes `contents` to a fresh temporary file and returns its path.
public func temporaryFile(_ contents: String, suffix: String = ".csv") throws -> String {
    try temporaryFile(Data(contents.utf8), suffix: suffix)
}

/// Writes `bytes` to a fresh temporary file and returns its path.
public func temporaryFile(_ bytes: Data, suffix: String = ".csv") throws -> String {
    let url = scratchDirectory.appendingPathComponent("cachebench-test-\(UUID().uuidString)\(suffix)")
    try bytes.write(to: url)
    return url.path
}
