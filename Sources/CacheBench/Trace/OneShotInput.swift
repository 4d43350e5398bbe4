#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation

/// An input that can be read only once (standard input, a pipe, a FIFO, `/dev/fd/N` from a
/// process substitution), shared by every reader of one trace, so a command that needs several
/// passes never reads it twice.
///
/// The bytes are copied, as they are first read, into an anonymous temporary file (created and
/// unlinked at once, so nothing is ever left behind, even on SIGKILL). Each reader is a cursor:
/// behind the furthest point read it reads the copy; at that point it reads the input and
/// extends the copy. Any number of passes, sequential or interleaved, see the same bytes.
///
/// If the copy cannot be kept (no temporary folder, a full disk), the first pass still works;
/// a later pass that needs the lost bytes fails with a message saying so, never with a silent
/// short read.
final class _OneShotInput: @unchecked Sendable {
    let name: String
    private let original: Int32
    private let ownsOriginal: Bool
    private var copy: Int32 = -1
    private var consumed = 0
    private var ended = false
    private var copyFailure: String?
    private let lock = NSLock()

    /// Opens `path` (`-` is standard input) and, if it `keepsCopy`, an anonymous copy in
    /// `$TMPDIR` (or /tmp).
    init(path: String, keepsCopy: Bool = true) throws(TraceError) {
        name = path
        if path == "-" {
            if AtomicFile.standardInputWasClosed {
                throw TraceError(.cannotOpen, file: path, reason: "cannot open: standard input is closed")
            }
            original = STDIN_FILENO
            ownsOriginal = false
        } else {
            let fd = open(path, O_RDONLY | O_CLOEXEC)
            guard fd >= 0 else {
                throw TraceError(.cannotOpen, file: path, reason: "cannot open: \(String(cString: strerror(errno)))")
            }
            original = fd
            ownsOriginal = true
        }
        guard keepsCopy else {
            copyFailure = "it was to be read once"
            return
        }
        let folder = ProcessInfo.processInfo.environment["TMPDIR"].flatMap { $0.isEmpty ? nil : $0 } ?? "/tmp"
        var template = Array((folder + "/cachebench-input-XXXXXX").utf8CString)
        let fd = template.withUnsafeMutableBufferPointer { buffer in buffer.baseAddress.map { mkstemp($0) } ?? -1 }
        if fd >= 0 {
            template.withUnsafeBufferPointer { buffer in _ = buffer.baseAddress.map { unlink($0) } }
            copy = fd
        } else {
            copyFailure = String(cString: strerror(errno))
        }
    }

    deinit {
        if ownsOriginal { close(original) }
        if copy >= 0 { close(copy) }
    }

    /// Reads up to `count` bytes at `offset` of the input into `buffer`; 0 at the end.
    func read(at offset: Int, into buffer: UnsafeMutableRawPointer, count: Int) throws(TraceError) -> Int {
        lock.lock()
        defer { lock.unlock() }
        if offset < consumed {
            guard copy >= 0 else {
                throw TraceError(.cannotOpen, file: name, reason: "can be read only once, and its copy for a second pass could not be kept (\(copyFailure ?? "unknown")); give a file")
            }
            while true {
                let n = pread(copy, buffer, min(count, consumed - offset), off_t(offset))
                if n >= 0 { return n }
                if errno == EINTR { continue }
                throw TraceError(.cannotOpen, file: name, reason: "read failed (temporary copy): \(String(cString: strerror(errno)))")
            }
        }
        if ended { return 0 }
        let n: Int
        while true {
            let result = Foundation.read(original, buffer, count)
            if result >= 0 { n = result; break }
            if errno == EINTR { continue }
            throw TraceError(.cannotOpen, file: name, reason: "read failed: \(String(cString: strerror(errno)))")
        }
        if n == 0 {
            ended = true
            return 0
        }
        keep(UnsafeRawPointer(buffer), n)
        consumed += n
        return n
    }

    /// Appends to the copy; on failure the copy is dropped (freeing its space) and the reason kept.
    private func keep(_ bytes: UnsafeRawPointer, _ count: Int) {
        guard copy >= 0 else { return }
        var done = 0
        while done < count {
            let n = pwrite(copy, bytes + done, count - done, off_t(consumed + done))
            if n < 0 && errno == EINTR { continue }
            if n <= 0 {
                copyFailure = n < 0 ? String(cString: strerror(errno)) : "short write"
                close(copy)
                copy = -1
                return
            }
            done += n
        }
    }

    /// Whether `path` names something that can be read only once: `-`, a pipe, a FIFO, a
    /// socket or a character device. A regular file is read again for each pass, through the
    /// descriptor its first pass opened (see ``_TraceInputBox``).
    static func isOneShot(_ path: String) -> Bool {
        if path == "-" { return true }
        var info = stat()
        guard stat(path, &info) == 0 else { return false }
        let type = info.st_mode & S_IFMT
        return type != S_IFREG && type != S_IFDIR
    }
}

/// The input behind a ``TraceSpec`` and all its copies, opened at the first read: a one-shot
/// input, or a regular file that every later pass reads through the descriptor the first pass
/// opened, so that all passes read one file even if its name is given to another meanwhile (a
/// trace replaced or deleted between the pass that sizes the cache and the replay).
///
/// Kept by path, one file at a time: a copy of the spec given another path (a sweep's template)
/// reads that path, and the file kept is then that one (a sweep of thousands of traces holds one
/// descriptor, not thousands).
final class _TraceInputBox: @unchecked Sendable {
    private var input: _OneShotInput?
    private var file: (path: String, source: ByteSource)?
    private let lock = NSLock()

    /// A fresh byte source over `path`, positioned at its first byte. A one-shot input opened
    /// here first is copied for later passes only if it `keepsCopy`.
    func source(_ path: String, keepsCopy: Bool = true) throws(TraceError) -> ByteSource {
        lock.lock()
        defer { lock.unlock() }
        if let input, input.name == path { return ByteSource(oneShot: input) }
        if let file, file.path == path { return try file.source.reopened() }
        guard _OneShotInput.isOneShot(path) else {
            let opened = try ByteSource(path: path)
            if opened.length != nil { file = (path, try opened.reopened()) }
            return opened
        }
        let opened = try _OneShotInput(path: path, keepsCopy: keepsCopy)
        input = opened
        return ByteSource(oneShot: opened)
    }
}
