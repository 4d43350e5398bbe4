import CacheBench
import Foundation

/// Writes command output: to standard output, or whole to a file (`--output`), never half-written.
enum Output {
    static func emit(_ text: String, to path: String?) throws(CacheBenchError) {
        guard let path, path != "-" else {
            FileHandle.standardOutput.write(Data(text.utf8))
            return
        }
        // A device or a pipe (/dev/null, a FIFO) is written in place: renaming a file over it
        // would replace the device itself (as root, /dev/null would become a regular file).
        if let type = try? FileManager.default.attributesOfItem(atPath: path)[.type] as? FileAttributeType,
           type != .typeRegular, type != .typeDirectory {
            guard let handle = FileHandle(forWritingAtPath: path) else { throw .output("\(path): cannot write") }
            defer { try? handle.close() }
            do { try handle.write(contentsOf: Data(text.utf8)) } catch {
                throw .output("\(path): cannot write: \(error.localizedDescription)")
            }
            return
        }
        // Write beside the target, then rename: readers see the old file or the whole new one.
        let url = URL(fileURLWithPath: path)
        let temporary = url.deletingLastPathComponent()
            .appendingPathComponent(".\(url.lastPathComponent).\(ProcessInfo.processInfo.processIdentifier).tmp")
        do { try Data(text.utf8).write(to: temporary) } catch {
            try? FileManager.default.removeItem(at: temporary)
            throw .output("\(path): cannot write: \(error.localizedDescription)")
        }
        // rename(2) replaces an existing file atomically. (FileManager.replaceItemAt on Linux
        // removed the old file and then failed, losing it.)
        if rename(temporary.path, url.path) != 0 {
            let reason = String(cString: strerror(errno))
            try? FileManager.default.removeItem(at: temporary)
            throw .output("\(path): cannot write: \(reason)")
        }
    }

    /// Charts go to files: `-` (standard output, where the report goes) is refused for `options`.
    static func requireFiles(_ arguments: Arguments, _ options: [String]) throws(UsageError) {
        for option in options where arguments.value(option) == "-" {
            throw UsageError("\(option) needs a file name (the report itself goes to standard output)")
        }
    }

    static func error(_ message: String) {
        FileHandle.standardError.write(Data(("cachebench: " + message + "\n").utf8))
    }
}
