import _CSupport
import Foundation

/// A file the tool writes: whole or not at all.
///
/// Every file cachebench writes (reports, charts, generated and converted traces) goes through
/// this one type. Content is written to a temporary file beside the target, flushed and
/// `fsync`ed, then renamed over the target, so a reader sees either the old file or the whole new
/// one. The target is never removed or truncated before the new content is complete. Any error
/// (a full disk, a closed descriptor, a missing folder) removes the temporary file and leaves the
/// target as it was; so does a terminating signal (SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2, SIGALRM) while the file is open.
///
/// Some targets are written in place instead, because renaming over them would replace
/// something that is not ours: `-` (standard output); a path that names a descriptor the process
/// already has open (`/dev/stdout`, `/dev/stderr`, `/dev/fd/N`, `/proc/self/fd/N`), written
/// through that descriptor, so a shell's `>> log` keeps its content and its append mode; and an
/// existing device or FIFO (`/dev/null`, a named pipe). A symbolic link is followed, dangling or
/// not: the file it names is replaced (or created) and the link is kept.
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
/// N bytes. Tests use it to check that failed writes leave every target as it was. When
/// `CACHEBENCH_FAULT_SIGNAL_IN_COMMIT` is set to a signal number, ``commitAll(_:)`` sends it to
/// the process after its first rename.
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
    /// Fault injection: a signal number that ``commitAll(_:)`` sends the process itself after
    /// its first rename (`CACHEBENCH_FAULT_SIGNAL_IN_COMMIT`), so tests can check that a signal
    /// there neither splits the outputs nor leaves files behind.
    static let environmentSignalInCommit: Int32? = ProcessInfo.processInfo.environment["CACHEBENCH_FAULT_SIGNAL_IN_COMMIT"].flatMap { Int32($0) }
    private static let counter = _AtomicCounter()
    /// Set once at startup by ``protectStandardDescriptors()``, before any other thread exists.
    nonisolated(unsafe) private static var standardOutputWasClosed = false
    /// Set with ``standardOutputWasClosed``: reading a trace from `-` then fails (exit 66)
    /// rather than reading `/dev/null` as an empty trace.
    nonisolated(unsafe) private(set) static var standardInputWasClosed = false
    /// Set with ``standardOutputWasClosed``: writing to `/dev/stderr` then fails (exit 74).
    nonisolated(unsafe) private static var standardErrorWasClosed = false

    /// Makes every terminating signal (SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2,
    /// SIGALRM) remove the temporary files of unfinished writes and end the process with the
    /// signal's default action, from now on rather than from the first write. A program calls it
    /// at its start: without it, SIGQUIT (Ctrl-\) reaches Swift's backtracer, which reports a
    /// crash and lets the run go on. A signal the parent set to be ignored stays ignored.
    public static func handleTerminatingSignals() { _cs_signals_install() }

    /// Call first thing in `main`: a standard descriptor (0, 1, 2) the process was started
    /// without (`>&-`) is occupied by `/dev/null`, so no file opened later takes its number
    /// and receives output meant for the terminal. A closed standard output is remembered:
    /// writing a report to `-` then fails (exit 74) rather than vanishing into `/dev/null`; so is
    /// a closed standard input: reading `-` then fails (exit 66) rather than reading nothing; and
    /// a closed standard error: a report to `/dev/stderr` fails (exit 74).
    public static func protectStandardDescriptors() {
        for descriptor in [STDIN_FILENO, STDOUT_FILENO, STDERR_FILENO] where fcntl(descriptor, F_GETFD) == -1 && errno == EBADF {
            let placeholder = open("/dev/null", descriptor == STDIN_FILENO ? O_RDONLY : O_WRONLY)
            if placeholder >= 0, placeholder != descriptor {
                dup2(placeholder, descriptor)
                close(placeholder)
            }
            if descriptor == STDOUT_FILENO { standardOutputWasClosed = true }
            if descriptor == STDIN_FILENO { standardInputWasClosed = true }
            if descriptor == STDERR_FILENO { standardErrorWasClosed = true }
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
        if let standing = Self.openDescriptor(named: path) {
            if standing == STDOUT_FILENO && Self.standardOutputWasClosed || standing == STDERR_FILENO && Self.standardErrorWasClosed {
                throw OutputError(path: path, errno: EBADF)
            }
            let copy = fcntl(standing, F_DUPFD_CLOEXEC, 3)
            guard copy >= 0 else { throw OutputError(path: path, errno: errno) }
            descriptor = copy
            temporary = nil
            destination = path
            return
        }
        let (resolved, inPlace) = try Self.fileTarget(path)
        if inPlace {
            let fd = open(resolved, O_WRONLY | O_CLOEXEC)
            guard fd >= 0 else { throw OutputError(path: path, errno: errno) }
            descriptor = fd
            temporary = nil
            destination = resolved
            return
        }
        let (directory, name) = Self.folderAndName(resolved)
        var info = stat()
        // Created and registered with signals held: a signal between the two left the file behind.
        let (temporary, fd, slot) = try Self.holdingSignals { () throws(OutputError) -> (String, Int32, Int32) in
            let (temporary, fd) = Self.createTemporary(in: directory, for: name)
            guard fd >= 0 else { throw OutputError(path: path, errno: errno) }
            // A replaced file keeps its permissions.
            if stat(resolved, &info) == 0 { fchmod(fd, info.st_mode & 0o7777) }
            return (temporary, fd, _cs_temporary_register(temporary))
        }
        signalSlot = slot
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

    /// Completes the file only if the target does not exist yet: flushes, `fsync`s and links it
    /// into place (a hard link, which fails rather than replaces), so of two processes creating
    /// one file at once exactly one succeeds. Returns `false`, leaving the existing target as it
    /// was and removing the temporary, when the target exists. On a file system without hard
    /// links it renames instead (the check is then not atomic).
    ///
    /// - Throws: ``OutputError``, after removing the temporary file.
    public func commitIfAbsent() throws(OutputError) -> Bool {
        try prepare()
        guard let temporary, !finished else { try install(); return true }
        if link(temporary, destination) != 0 {
            let code = errno
            if code == EEXIST {
                discard()
                return false
            }
            guard code == EPERM || code == ENOTSUP || code == EOPNOTSUPP else {
                discard()
                throw OutputError(path: path, errno: code)
            }
            var info = stat()
            if lstat(destination, &info) == 0 {
                discard()
                return false
            }
            try install()
            return true
        }
        // Linked: the temporary name goes, and the link is made durable as a rename would be.
        finished = true
        close(descriptor)
        unlink(temporary)
        _cs_temporary_unregister(signalSlot)
        try syncFolder()
        return true
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

    /// Commits several files together, all or none: every file is completed and `fsync`ed
    /// before the first rename; each target a rename replaces is kept (a hard link) until every
    /// rename has succeeded, so a rename that fails (a target another user owns in a sticky
    /// folder, an immutable file) puts back the targets already replaced. Targets written in place
    /// (standard output, devices) go last, once every file is installed: standard output failing
    /// then puts the files back too. (What was already written in place cannot be taken back.)
    /// The terminating signals are held back meanwhile (``holdingSignals(_:)``): one that
    /// arrives takes effect once every file is in place or every target is put back, so a signal
    /// never leaves a new report beside an old chart, or the kept targets' links behind.
    public static func commitAll(_ files: [AtomicFile]) throws(OutputError) {
        try holdingSignals { () throws(OutputError) in try _commitAll(files) }
    }

    /// Runs `body` with the terminating signals held back: one that arrives meanwhile ends the
    /// process (removing the registered temporary files, with the signal's own exit status) only
    /// once `body` has returned or thrown. For steps that must not be cut in two; keep them short.
    public static func holdingSignals<Result, Failure: Error>(_ body: () throws(Failure) -> Result) throws(Failure) -> Result {
        _cs_signals_hold()
        defer { _cs_signals_release() }
        return try body()
    }

    private static func _commitAll(_ files: [AtomicFile]) throws(OutputError) {
        // Written in place, nothing can be undone: standard output goes last, so that a chart
        // refused by a device (`/dev/full`) leaves no report behind either.
        let renamed = files.filter { $0.temporary != nil }
        let inPlace = files.filter { $0.temporary == nil && $0.path != "-" } + files.filter { $0.temporary == nil && $0.path == "-" }
        do throws(OutputError) {
            for file in renamed { try file.prepare() }
            // A rename the folder's sticky bit forbids fails before any file is replaced.
            if let refused = renamed.first(where: \.isProtectedBySticky) { throw OutputError(path: refused.path, errno: EPERM) }
        } catch {
            for file in files { file.discard() }
            throw error
        }
        var installed: [(file: AtomicFile, previous: String?)] = []
        func rollBack() {
            for (file, previous) in installed.reversed() {
                if let previous { rename(previous, file.destination) } else { unlink(file.destination) }
            }
        }
        do throws(OutputError) {
            for file in renamed {
                let previous = file.keepPrevious()
                do throws(OutputError) { try file.install() } catch {
                    if let previous { unlink(previous) }
                    throw error
                }
                installed.append((file, previous))
                if installed.count == 1, let signal = environmentSignalInCommit { raise(signal) }
            }
            for file in inPlace {
                try file.prepare()
                try file.install()
            }
        } catch {
            rollBack()
            for file in files { file.discard() }
            throw error
        }
        for case let (_, previous?) in installed { unlink(previous) }
    }

    /// Whether the target is another user's file in a sticky folder (`/tmp`), which only its
    /// owner (or the folder's, or root) may replace: the rename would fail.
    private var isProtectedBySticky: Bool {
        var file = stat(), folder = stat()
        let user = geteuid()
        guard user != 0, lstat(destination, &file) == 0, file.st_uid != user,
              stat(Self.folder(of: destination), &folder) == 0, folder.st_mode & S_ISVTX != 0 else { return false }
        return folder.st_uid != user
    }

    /// The folder `path` is in (`.` for a bare name).
    private static func folder(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }

    /// A hard link to the regular file the rename is about to replace, beside it, or `nil` when
    /// there is none (or the file system refuses the link: then that target cannot be put back).
    private func keepPrevious() -> String? {
        var info = stat()
        guard lstat(destination, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { return nil }
        let (directory, name) = Self.folderAndName(destination)
        for _ in 0..<8 {
            let candidate = Self.temporaryName(in: directory, for: name, kind: "previous")
            if link(destination, candidate) == 0 { return candidate }
            if errno != EEXIST { return nil }
        }
        return nil
    }

    /// The descriptor `path` names when it stands for one this process has open (`/dev/stdout`,
    /// `/dev/stderr`, `/dev/stdin`, `/dev/fd/N`, `/proc/self/fd/N`) and it is open, or `nil`.
    public static func openDescriptor(named path: String) -> Int32? {
        let number: Int32?
        switch path {
        case "/dev/stdin": number = STDIN_FILENO
        case "/dev/stdout": number = STDOUT_FILENO
        case "/dev/stderr": number = STDERR_FILENO
        default:
            number = ["/dev/fd/", "/proc/self/fd/"].lazy.compactMap { prefix in
                path.hasPrefix(prefix) ? Int32(path.dropFirst(prefix.count)) : nil
            }.first
        }
        guard let number, number >= 0, fcntl(number, F_GETFD) != -1 else { return nil }
        return number
    }

    /// Whether a file could be written at `path` now, checked without writing anything: for a
    /// command to fail at once, before a long run, rather than after it. Throws what
    /// ``init(path:)`` would: a loop of links, a folder as the target, a missing folder, or one
    /// the process may not write in. Standard output, open descriptors and devices pass (they are
    /// written in place). A pass promises nothing: the disk may still fill, or the folder change.
    public static func checkWritable(_ path: String) throws(OutputError) {
        if path == "-" || openDescriptor(named: path) != nil { return }
        let (resolved, inPlace) = try fileTarget(path)
        if inPlace { return }
        let directory = folder(of: resolved)
        var info = stat()
        guard stat(directory, &info) == 0 else { throw OutputError(path: path, errno: errno) }
        guard info.st_mode & S_IFMT == S_IFDIR else { throw OutputError(path: path, errno: ENOTDIR) }
        // The effective user's rights (AT_EACCESS), which creating and renaming use, not the real one's.
        guard faccessat(AT_FDCWD, directory, W_OK | X_OK, AT_EACCESS) == 0 else { throw OutputError(path: path, errno: errno) }
    }

    /// The file a path other than a descriptor's names, its links followed, and whether it is
    /// written in place (an existing device or FIFO) rather than replaced by a renamed temporary.
    /// Throws for a loop of links (ELOOP) and for a folder as the target.
    private static func fileTarget(_ path: String) throws(OutputError) -> (resolved: String, inPlace: Bool) {
        guard let resolved = followingLinks(path) else { throw OutputError(path: path, errno: ELOOP) }
        var info = stat()
        guard stat(resolved, &info) == 0 else { return (resolved, false) }
        let type = info.st_mode & S_IFMT
        if type == S_IFDIR { throw OutputError(path: path, reason: "is a directory") }
        return (resolved, type != S_IFREG)
    }

    /// `path`'s folder, with its final `/` (empty for a bare name), and the name in it.
    private static func folderAndName(_ path: String) -> (directory: String, name: String) {
        guard let slash = path.lastIndex(of: "/") else { return ("", path) }
        return (String(path[...slash]), String(path[path.index(after: slash)...]))
    }

    /// `path` with its symbolic links followed, the last one too even when it dangles (so a
    /// link to a file not yet made makes that file, and the link stays); `nil` when more than
    /// 40 links follow one another (a loop), where writing through them fails as `open` would
    /// (`ELOOP`) rather than replacing the last link read with a file.
    static func followingLinks(_ path: String) -> String? {
        var current = path
        for _ in 0..<40 {
            var info = stat()
            guard lstat(current, &info) == 0, (info.st_mode & S_IFMT) == S_IFLNK else { return current }
            if let real = realpath(current, nil) {
                defer { free(real) }
                return String(cString: real)
            }
            // Dangling: read the link and go on from what it names.
            var target = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
            let length = readlink(current, &target, target.count - 1)
            guard length > 0 else { return current }
            let named = String(decoding: target.prefix(length).map { UInt8(bitPattern: $0) }, as: UTF8.self)
            if named.hasPrefix("/") {
                current = named
            } else {
                current = folderAndName(current).directory + named
            }
        }
        var info = stat()
        return lstat(current, &info) == 0 && (info.st_mode & S_IFMT) == S_IFLNK ? nil : current
    }

    /// A name for a temporary beside `name` in `directory`: `.NAME.cachebench-PID-N-RANDOM.tmp`,
    /// or, when that would pass the 255-byte limit on a file name, `.cachebench-PID-N-RANDOM.tmp`.
    private static func temporaryName(in directory: String, for name: String, kind: String = "tmp") -> String {
        let tag = "cachebench-\(getpid())-\(counter.next())-\(String(UInt32.random(in: 0...UInt32.max), radix: 36)).\(kind)"
        let long = ".\(name).\(tag)"
        return directory + (long.utf8.count <= 255 ? long : "." + tag)
    }

    /// Creates a new temporary for `name` in `directory` (never an existing file: a name left by
    /// a killed run, or taken by another process with the same process id in another container,
    /// is passed over); its descriptor, or -1 with `errno` set.
    private static func createTemporary(in directory: String, for name: String) -> (String, Int32) {
        var path = ""
        for _ in 0..<16 {
            path = temporaryName(in: directory, for: name)
            let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o666)
            if fd >= 0 || errno != EEXIST { return (path, fd) }
        }
        return (path, -1)
    }

    /// Whether two paths name the same file: the same device and inode when both exist,
    /// otherwise the same absolute path once `.`, `..`, symbolic links in existing folders and a
    /// dangling link at the end are resolved, as writing would resolve them. `-` (standard
    /// output) is the same only as `-`.
    public static func sameFile(_ first: String, _ second: String) -> Bool {
        if first == "-" || second == "-" { return first == second }
        var a = stat(), b = stat()
        if stat(first, &a) == 0, stat(second, &b) == 0 { return a.st_dev == b.st_dev && a.st_ino == b.st_ino }
        // Not both there yet: compare where writing each would land, through any dangling link
        // (a link to a file not yet written is the file a write creates).
        return canonical(followingLinks(first) ?? first) == canonical(followingLinks(second) ?? second)
    }

    /// Whether `path` is the regular file open as `descriptor` (standard input read as `-`,
    /// standard output written as `-`, redirected to a file), so that writing it would replace
    /// that file: the same device and inode.
    public static func isFile(_ path: String, openAs descriptor: Int32) -> Bool {
        names(path, openAs: descriptor, regularFilesOnly: true)
    }

    /// Whether `path` names what is open as `descriptor`, of any type (a pipe, a terminal) or,
    /// with `regularFilesOnly`, only a regular file: the same device and inode.
    public static func names(_ path: String, openAs descriptor: Int32, regularFilesOnly: Bool = false) -> Bool {
        var open = stat(), named = stat()
        guard fstat(descriptor, &open) == 0, !regularFilesOnly || (open.st_mode & S_IFMT) == S_IFREG,
              stat(path, &named) == 0 else { return false }
        return open.st_dev == named.st_dev && open.st_ino == named.st_ino
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
        try syncFolder()
    }

    /// Makes the rename or link that put the file in place durable: syncs the target's folder.
    /// A file system that cannot sync a folder (EINVAL) has still made the name, so that alone is
    /// not a failure; nor is a folder this process may not open for reading (the name is made).
    private func syncFolder() throws(OutputError) {
        let folder = open(Self.folder(of: destination), O_RDONLY | O_CLOEXEC)
        guard folder >= 0 else { return }
        let synced = fsync(folder) == 0 || errno == EINVAL
        let code = errno
        close(folder)
        if !synced { throw OutputError(path: path, errno: code) }
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
