import Foundation

/// Paths inside the repository, found from this file's location (Tests/TestSupport/), so tests
/// run from any working directory on a fresh clone. Tests never read ../shared.
public enum Repository {
    public static let root: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    public static func trace(_ name: String) -> String { root.appendingPathComponent("Traces").appendingPathComponent(name).path }
}

/// Writes `contents` to a fresh temporary file and returns its path.
public func temporaryFile(_ contents: String, suffix: String = ".csv") throws -> String {
    try temporaryFile(Data(contents.utf8), suffix: suffix)
}

/// Writes `bytes` to a fresh temporary file and returns its path.
public func temporaryFile(_ bytes: Data, suffix: String = ".csv") throws -> String {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("cachebench-test-\(UUID().uuidString)\(suffix)")
    try bytes.write(to: url)
    return url.path
}
