import _CSupport
import Foundation

/// A file the tool writes: whole or not at all.
///
/// Every file cachebench writes (reports, charts, generated and converted traces) goes through
/// this one type. Content is written to a temporary file beside the target, flushed and
/// `fsync`ed, then renamed over the target, so a reader sees either the old file or the whole new
/// one. The target is never removed or truncated before the new content is complete. Any error
/// (a full disk, a closed descriptor, a missing folder) removes the temporary file and leaves the
/// target as it was; so does SIGINT, SIGTERM or SIGHUP while the file is open.
///
/// Three kinds of target are written in place instead, because renaming over them would replace
/// something that is not ours: `-` (standard output), and an existing device or FIFO
/// (`/dev/null`, `/dev/stdout`, a named pipe). A symbolic link to a regular file is followed:
/// the file it names is replaced and the link is kept.
///
/// ```swift
/// let file = try AtomicFile(path: "report.json")
/// try file.write("{}\n")
/// try file.commit()          // or drop it: an uncommitted file is discarded
/// ```
///
/// For several outputs that belong together (a report and its charts), open them all, write
/// them all, then ``commitAll(_:)``: nothing is renamed until every one is complete.
///
/// Fault injection: when the environment variable `CACHEBENCH_FAULT_WRITE_AFTER_BYTES` is set to
/// a whole number N, every `AtomicFile` fails with "No space left on device" once it has written
/// N bytes. Tests use it to check that failed writes leave every target as it was.
public final class AtomicFile {
    /// Where the content goes, as the caller named it (`-` for standard output).
    public let path: String
    private let descriptor: Int32
    /// The temporary file, or `nil` when the target is written in place.
    private let temporary: String?
    /// The file the temporary replaces (the target, or what its symbolic link names).
    private let destination: String
    private var buffer: [UInt8] = []
    private var written = 0
    private var finished = false
    private var signalSlot: Int32 = -1
    private let faultAfterBytes: Int?

    private static let bufferSize = 1 << 20
    static let environmentFault: Int? = ProcessInfo.processInfo.environment["CACHEBENCH_FAULT_WRITE_AFTER_BYTES"].flatMap { Int($0) }
    private static let counter = _AtomicCounter()
    /// Set once at startup by ``protectStandardDescriptors()``, before any other thread exists.
    nonisolated(unsafe) private static var standardOutputWasClosed = false
    /// Set with ``standardOutputWasClosed``: reading a trace from `-` then fails (exit 66)
    /// rather than reading `/dev/null` as an empty trace.
    nonisolated(unsafe) private(set) static var standardInputWasClosed = false

    /// Call first thing in `main`: a standard descriptor (0, 1, 2) the process was started
    /// without (`>&-`) is occupied by `/dev/null`, so no file opened later takes its number
    /// and receives output meant for the terminal. A closed standard output is remembered:
    /// writing a report to `-` then fails (exit 74) rather than vanishing into `/dev/null`; so is
    /// a closed standard input: reading `-` then fails (exit 66) rather than reading nothing.
    public static func protectStandardDescriptors() {
        for descriptor in [STDIN_FILENO, STDOUT_FILENO, STDERR_FILENO] where fcntl(descriptor, F_GETFD) == -1 && errno == EBADF {
            let placeholder = open("/dev/null", descriptor == STDIN_FILENO ? O_RDONLY : O_WRONLY)
            if placeholder >= 0, placeholder != descriptor {
                dup2(placeholder, descriptor)
                close(placeholder)
            }
            if descriptor == STDOUT_FILENO { standardOutputWasClosed = true }
            if descriptor == STDIN_FILENO { standardInputWasClosed = true }
        }
    }

    /// Opens `path` for writing: `-` is standard output.
    ///
    /// - Throws: ``OutputError`` when the temporary file cannot be created (a missing folder,
    ///   no permission) or the target is a folder.
    public convenience init(path: String) throws(OutputError) {
        try self.init(path: path, faultAfterBytes: Self.environmentFault)
    }

    /// Opens `path`, failing with ENOSPC after `faultAfterBytes` bytes when it is not `nil`.
    init(path: String, faultAfterBytes: Int?) throws(OutputError) {
        self.path = path
        self.faultAfterBytes = faultAfterBytes
        buffer.reserveCapacity(Self.bufferSize)
        if path == "-" {
            if Self.standardOutputWasClosed { throw OutputError(path: path, errno: EBADF) }
            descriptor = STDOUT_FILENO
            temporary = nil
            destination = path
            return
        }
        var resolved = path
        var info = stat()
        if lstat(path, &info) == 0, (info.st_mode & S_IFMT) == S_IFLNK, let real = realpath(path, nil) {
            resolved = String(cString: real)
            free(real)
        }
        if stat(resolved, &info) == 0 {
            let type = info.st_mode & S_IFMT
            if type == S_IFDIR { throw OutputError(path: path, reason: "is a directory") }
            if type != S_IFREG {
                let fd = open(resolved, O_WRONLY | O_CLOEXEC)
                guard fd >= 0 else { throw OutputError(path: path, errno: errno) }
                descriptor = fd
                temporary = nil
                destination = resolved
                return
            }
        }
        let slash = resolved.lastIndex(of: "/")
        let directory = slash.map { String(resolved[...$0]) } ?? ""
        let name = slash.map { String(resolved[resolved.index(after: $0)...]) } ?? resolved
        let temporary = "\(directory).\(name).cachebench-\(getpid())-\(Self.counter.next()).tmp"
        let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o666)
        guard fd >= 0 else { throw OutputError(path: path, errno: errno) }
        // A replaced file keeps its permissions.
        if stat(resolved, &info) == 0 { fchmod(fd, info.st_mode & 0o7777) }
        signalSlot = _cs_temporary_register(temporary)
        descriptor = fd
        self.temporary = temporary
        destination = resolved
    }

    deinit { if !finished { discard() } }

    /// Appends `text` as UTF-8.
    public func write(_ text: String) throws(OutputError) {
        try write(Array(text.utf8))
    }

    /// Appends `bytes`.
    public func write(_ bytes: [UInt8]) throws(OutputError) {
        let result: Result<Void, OutputError> = bytes.withUnsafeBytes { raw in Result { () throws(OutputError) in try write(raw) } }
        try result.get()
    }

    /// Appends `bytes`. Buffered: the content reaches the file in 1 MiB writes.
    public func write(_ bytes: UnsafeRawBufferPointer) throws(OutputError) {
        if buffer.count + bytes.count > Self.bufferSize { try flush() }
        if bytes.count >= Self.bufferSize {
            try writeThrough(bytes)
        } else {
            buffer.append(contentsOf: bytes)
        }
    }

    /// Writes the buffered bytes to the file (not yet renamed into place).
    public func flush() throws(OutputError) {
        guard !buffer.isEmpty else { return }
        let pending = buffer
        buffer.removeAll(keepingCapacity: true)
        let result: Result<Void, OutputError> = pending.withUnsafeBytes { raw in Result { () throws(OutputError) in try writeThrough(raw) } }
        try result.get()
    }

    /// Completes the file: flushes, `fsync`s and renames it over the target.
    ///
    /// - Throws: ``OutputError``, after removing the temporary file; the target is as it was.
    public func commit() throws(OutputError) {
        try prepare()
        try install()
    }

    /// Abandons the file: the temporary is removed and the target is left as it was.
    public func discard() {
        guard !finished else { return }
        finished = true
        guard let temporary else {
            if descriptor != STDOUT_FILENO { close(descriptor) }
            return
        }
        close(descriptor)
        unlink(temporary)
        _cs_temporary_unregister(signalSlot)
    }

    /// Commits several files together: every file is completed and `fsync`ed before the first
    /// rename, so a failure in any of them leaves every target as it was.
    public static func commitAll(_ files: [AtomicFile]) throws(OutputError) {
        do throws(OutputError) {
            for file in files { try file.prepare() }
        } catch {
            for file in files { file.discard() }
            throw error
        }
        for file in files { try file.install() }
    }

    /// Whether two paths name the same file: the same device and inode when both exist,
    /// otherwise the same absolute path once `.`, `..` and symbolic links in existing folders
    /// are resolved. `-` (standard output) is the same only as `-`.
    public static func sameFile(_ first: String, _ second: String) -> Bool {
        if first == "-" || second == "-" { return first == second }
        var a = stat(), b = stat()
        if stat(first, &a) == 0, stat(second, &b) == 0 { return a.st_dev == b.st_dev && a.st_ino == b.st_ino }
        return canonical(first) == canonical(second)
    }

    // MARK: - Steps

    /// Flushes and syncs: after it, only the rename is left.
    private func prepare() throws(OutputError) {
        guard !finished else { return }
        do throws(OutputError) {
            try flush()
            if temporary != nil, fsync(descriptor) != 0 { throw OutputError(path: path, errno: errno) }
        } catch {
            discard()
            throw error
        }
    }

    private func install() throws(OutputError) {
        guard !finished else { return }
        finished = true
        guard let temporary else {
            // Standard output stays open for the rest of the process; a device or FIFO is closed.
            if descriptor != STDOUT_FILENO, close(descriptor) != 0 { throw OutputError(path: path, errno: errno) }
            return
        }
        defer { _cs_temporary_unregister(signalSlot) }
        if close(descriptor) != 0 {
            let code = errno
            unlink(temporary)
            throw OutputError(path: path, errno: code)
        }
        if rename(temporary, destination) != 0 {
            let code = errno
            unlink(temporary)
            throw OutputError(path: path, errno: code)
        }
        // Make the rename itself durable. A file system that cannot sync a folder (EINVAL) has
        // still renamed the file, so that alone is not a failure.
        let slash = destination.lastIndex(of: "/")
        let folder = slash.map { String(destination[...$0]) } ?? "."
        let folderDescriptor = open(folder, O_RDONLY | O_CLOEXEC)
        if folderDescriptor >= 0 {
            let synced = fsync(folderDescriptor) == 0 || errno == EINVAL
            let code = errno
            close(folderDescriptor)
            if !synced { throw OutputError(path: path, errno: code) }
        }
    }

    private func writeThrough(_ bytes: UnsafeRawBufferPointer) throws(OutputError) {
        guard let base = bytes.baseAddress else { return }
        var offset = 0
        while offset < bytes.count {
            var length = bytes.count - offset
            if let limit = faultAfterBytes {
                if written >= limit {
                    discard()
                    throw OutputError(path: path, errno: ENOSPC)
                }
                length = min(length, limit - written)
            }
            let result = Foundation.write(descriptor, base + offset, length)
            if result < 0 {
                if errno == EINTR { continue }
                let code = errno
                discard()
                throw OutputError(path: path, errno: code)
            }
            offset += result
            written += result
        }
    }

    private static func canonical(_ path: String) -> String {
        let absolute = path.hasPrefix("/") ? path : FileManager.default.currentDirectoryPath + "/" + path
        let url = URL(fileURLWithPath: absolute).standardizedFileURL
        let folder = url.deletingLastPathComponent().path
        if let real = realpath(folder, nil) {
            defer { free(real) }
            return String(cString: real) + "/" + url.lastPathComponent
        }
        return url.path
    }
}

/// An output that could not be written (exit 74): the path as the user named it and why.
public struct OutputError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The path as given (`-` for standard output).
    public var path: String
    /// Why, in the operating system's words.
    public var reason: String

    /// An error for `path` with a reason.
    public init(path: String, reason: String) {
        self.path = path
        self.reason = reason
    }

    /// An error for `path` from an `errno` value.
    public init(path: String, errno code: Int32) {
        self.init(path: path, reason: String(cString: strerror(code)))
    }

    /// `PATH: cannot write: REASON`, with `standard output` for `-`.
    public var description: String {
        "\(path == "-" ? "standard output" : path): cannot write: \(reason)"
    }
}

/// Numbers temporary files within the process, so two outputs opened together never share one.
private final class _AtomicCounter: @unchecked Sendable {
    private var value = 0
    private let lock = NSLock()
    func next() -> Int {
        lock.lock()
        defer { lock.unlock() }
        value += 1
        return value
    }
}
