import Foundation
import EvictionPolicies

/// Folders an output needs, made with the operating system's own reasons when they cannot be.
public enum Folders {
    /// Makes `path` and any missing folder above it; returns the outermost folder it made (`nil`
    /// when `path` was there already), which a caller that fails later may remove again.
    ///
    /// - Throws: ``OutputError`` naming the first part of the path that is a file, or the folder
    ///   that could not be made and why (Foundation's own error says "error 512").
    @discardableResult
    public static func make(_ path: String) throws(OutputError) -> String? {
        var missing: [String] = []
        var candidate = path
        while !candidate.isEmpty {
            var info = stat()
            if stat(candidate, &info) == 0 {
                guard (info.st_mode & S_IFMT) == S_IFDIR else {
                    throw OutputError(path: path, reason: "\(candidate) is a file, not a folder")
                }
                break
            }
            // ENOTDIR: a part above is a file, which the walk up then names.
            guard errno == ENOENT || errno == ENOTDIR else { throw OutputError(path: path, reason: "\(candidate): \(String(cString: strerror(errno)))") }
            missing.append(candidate)
            let parent = _parentPath(candidate)
            if parent == candidate { break }
            candidate = parent
        }
        for folder in missing.reversed() {
            guard mkdir(folder, 0o777) == 0 || errno == EEXIST else {
                let code = errno
                if let outermost = missing.last { try? FileManager.default.removeItem(atPath: outermost) }
                throw OutputError(path: path, reason: "cannot make the folder \(folder): \(String(cString: strerror(code)))")
            }
        }
        return missing.last
    }
}
