#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Sequential bytes from a file or standard input, read in large chunks with `read(2)`, or in
/// place from a large regular file (``borrow(upTo:copyingInto:)``).
///
/// Holds one reusable buffer, so memory stays constant however long the input is.
public final class ByteSource {
    /// The name for messages: the path, or `-` for standard input.
    public let name: String
    private let descriptor: Int32
    private let ownsDescriptor: Bool
    /// Bytes handed to the reader so far, for progress reports.
    public private(set) var bytesRead = 0
    /// The file's length when it is a regular file (not standard input or a pipe), for progress reports.
    public private(set) var length: Int?

    /// Opens `path`, or standard input when `path` is `-`.
    ///
    /// - Throws: ``TraceError`` of kind `cannotOpen` when the path does not exist, is a directory
    ///   or cannot be read.
    public convenience init(path: String) throws(TraceError) {
        if path == "-" {
            if AtomicFile.standardInputWasClosed {
                throw TraceError(.cannotOpen, file: path, reason: "cannot open: standard input is closed")
            }
            self.init(standardInputNamed: path)
            return
        }
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else {
            throw TraceError(.cannotOpen, file: path, reason: "cannot open: \(String(cString: strerror(errno)))")
        }
        try self.init(owning: fd, name: path)
    }

    /// Every byte of `path` (standard input for `-`), read once with `read(2)`: a regular file, a
    /// FIFO, a pipe (`@<(...)`) or `/dev/stdin` alike. For small inputs (a baseline, a list of
    /// traces); a trace is read in chunks instead.
    ///
    /// - Throws: ``TraceError`` of kind `cannotOpen` when the path cannot be opened or read.
    public static func contents(ofPath path: String) throws(TraceError) -> [UInt8] {
        let source = try ByteSource(path: path)
        var bytes: [UInt8] = []
        let chunk = UnsafeMutableRawPointer.allocate(byteCount: 1 << 16, alignment: 8)
        defer { chunk.deallocate() }
        while true {
            let n = try source.read(into: chunk, count: 1 << 16)
            if n == 0 { return bytes }
            bytes.append(contentsOf: UnsafeRawBufferPointer(start: chunk, count: n))
        }
    }

    private init(standardInputNamed name: String) {
        self.name = name
        descriptor = STDIN_FILENO
        ownsDescriptor = false
    }

    /// A new source over the file this one has open, from its first byte, through a duplicate of
    /// the descriptor that it owns: another pass reads the same file even if its name has since
    /// been given to another (a trace replaced or deleted between passes). A regular file is read
    /// at explicit offsets (`pread`), so passes sharing one open file never move each other's place.
    func reopened() throws(TraceError) -> ByteSource {
        let fd = fcntl(descriptor, F_DUPFD_CLOEXEC, 0)
        guard fd >= 0 else {
            throw TraceError(.cannotOpen, file: name, reason: "cannot open: \(String(cString: strerror(errno)))")
        }
        return try ByteSource(owning: fd, name: name)
    }

    /// Takes ownership of `fd`, open on `name`; closes it and throws when it is a directory.
    private init(owning fd: Int32, name: String) throws(TraceError) {
        self.name = name
        var info = stat()
        if fstat(fd, &info) == 0, (info.st_mode & S_IFMT) == S_IFDIR {
            close(fd)
            throw TraceError(.cannotOpen, file: name, reason: "cannot open: is a directory")
        }
        if (info.st_mode & S_IFMT) == S_IFREG { length = Int(info.st_size) }
        descriptor = fd
        ownsDescriptor = true
    }

    /// Serves `bytes` from memory, as if they were a file called `name` (for tests and fuzzing),
    /// at most `readSize` bytes per read, like a pipe that returns short reads.
    public init(bytes: [UInt8], name: String, readSize: Int = .max) {
        self.name = name
        descriptor = -1
        ownsDescriptor = false
        pending = bytes
        maximumRead = max(1, readSize)
    }

    /// Serves the bytes `stream` decodes, as if they were a file called `name`.
    public init(decoding stream: any DecodedByteStream, name: String) {
        self.name = name
        descriptor = -1
        ownsDescriptor = false
        upstream = stream
    }

    /// Whether the bytes come from a decoder (a compressed file), so offsets count decoded bytes.
    public var isDecoded: Bool { upstream != nil }

    private var maximumRead = Int.max
    /// The decoder this source reads from instead of a descriptor.
    private var upstream: (any DecodedByteStream)?

    /// A read-once input shared with other sources of the same trace, and this source's place in it.
    private var oneShot: _OneShotInput?
    /// The offset of the next byte to read: in the one-shot input, or in a regular file (read
    /// with `pread`, so that sources sharing its open file keep their own places).
    private var position = 0

    /// Reads a one-shot input from its first byte (see ``_OneShotInput``).
    init(oneShot: _OneShotInput) {
        name = oneShot.name
        descriptor = -1
        ownsDescriptor = false
        self.oneShot = oneShot
    }

    deinit {
        mapped = nil
        if ownsDescriptor { close(descriptor) }
    }

    /// The file mapped for ``borrow(upTo:copyingInto:)``, while it serves the reads.
    private var mapped: _MappedFile?
    private var mappingTried = false

    /// The next bytes of the input, `count` of them unless it ends first, valid until the next
    /// read from this source: in place when the input is a large regular file (``_MappedFile``:
    /// no copy), otherwise read into `buffer`, which holds `count` bytes. The bytes are those
    /// ``readFully(into:count:)`` would give, a file that grows or shrinks while it is read
    /// included.
    public func borrow(upTo count: Int, copyingInto buffer: UnsafeMutableRawPointer) throws(TraceError) -> UnsafeRawBufferPointer {
        if !mappingTried {
            mappingTried = true
            // The file's bytes from the first one not yet consumed: what was peeked is in the mapping too.
            if ownsDescriptor, let length, let file = _MappedFile(descriptor: descriptor, length: length, position: bytesRead, name: name) {
                mapped = file
                pending = []
            }
        }
        if let mapped {
            let bytes = mapped.take(upTo: count)
            bytesRead += bytes.count
            if bytes.count == count { return bytes }
            // The end of the mapping: whatever follows it (a file that grew) is read as any file is.
            if let start = bytes.baseAddress { buffer.copyMemory(from: start, byteCount: bytes.count) }
            try leaveMapping()
            let more = try readFully(into: buffer + bytes.count, count: count - bytes.count)
            return UnsafeRawBufferPointer(start: buffer, count: bytes.count + more)
        }
        let n = try readFully(into: buffer, count: count)
        return UnsafeRawBufferPointer(start: buffer, count: n)
    }

    /// Goes back to `read(2)` at the first byte the mapping did not hand out.
    private func leaveMapping() throws(TraceError) {
        guard let file = mapped else { return }
        mapped = nil
        position = file.position
    }

    /// Bytes already read by ``peek(upTo:)`` and not yet consumed.
    private var pending: [UInt8] = []

    /// Returns up to `count` bytes from the start of the input without consuming them, so that a
    /// format can be recognised even on standard input.
    public func peek(upTo count: Int) throws(TraceError) -> [UInt8] {
        try leaveMapping()
        if pending.count < count {
            guard descriptor >= 0 || oneShot != nil || upstream != nil else { return Array(pending.prefix(count)) }
            let wanted = count - pending.count
            let chunk = UnsafeMutableRawPointer.allocate(byteCount: wanted, alignment: 1)
            defer { chunk.deallocate() }
            let n = try readFromDescriptor(into: chunk, count: wanted, fully: true)
            pending += UnsafeRawBufferPointer(start: chunk, count: n)
        }
        return Array(pending.prefix(count))
    }

    /// Reads up to `count` bytes into `buffer`; returns the number read, 0 at the end of input.
    public func read(into buffer: UnsafeMutableRawPointer, count: Int) throws(TraceError) -> Int {
        try leaveMapping()
        if !pending.isEmpty {
            let n = min(count, pending.count, maximumRead)
            pending.withUnsafeBytes { bytes in
                if let base = bytes.baseAddress { buffer.copyMemory(from: base, byteCount: n) }
            }
            pending.removeFirst(n)
            bytesRead += n
            return n
        }
        guard descriptor >= 0 || oneShot != nil || upstream != nil else { return 0 }
        let n = try readFromDescriptor(into: buffer, count: count, fully: false)
        bytesRead += n
        return n
    }

    private func readFromDescriptor(into buffer: UnsafeMutableRawPointer, count: Int, fully: Bool) throws(TraceError) -> Int {
        var total = 0
        while total < count {
            let n = try readOnce(into: buffer + total, count: count - total)
            if n == 0 { break }
            total += n
            if !fully { break }
        }
        return total
    }

    private func readOnce(into buffer: UnsafeMutableRawPointer, count: Int) throws(TraceError) -> Int {
        if let upstream { return try upstream.read(into: buffer, count: count) }
        if let oneShot {
            let n = try oneShot.read(at: position, into: buffer, count: count)
            position += n
            return n
        }
        while true {
            #if canImport(Glibc)
            let n = length == nil ? Glibc.read(descriptor, buffer, count) : Glibc.pread(descriptor, buffer, count, off_t(position))
            #else
            let n = length == nil ? Darwin.read(descriptor, buffer, count) : Darwin.pread(descriptor, buffer, count, off_t(position))
            #endif
            if n >= 0 {
                position += n
                return n
            }
            if errno == EINTR { continue }
            throw TraceError(.cannotOpen, file: name, reason: "read failed: \(String(cString: strerror(errno)))")
        }
    }

    /// Fills `buffer` completely unless the input ends first; returns the number of bytes read.
    public func readFully(into buffer: UnsafeMutableRawPointer, count: Int) throws(TraceError) -> Int {
        var total = 0
        while total < count {
            let n = try read(into: buffer + total, count: count - total)
            if n == 0 { break }
            total += n
        }
        return total
    }
}
