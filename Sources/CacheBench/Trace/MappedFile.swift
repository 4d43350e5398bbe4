#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import _CSupport

/// A large regular file mapped read-only and read front to back in place, so a reader of fixed
/// records decodes them where the kernel keeps them instead of having `read(2)` copy every byte
/// into a buffer first (a tenth of a sampled run's CPU time on a 240 MB trace).
///
/// Only what ``ByteSource/borrow(upTo:copyingInto:)`` hands out is ever touched, in order; what
/// lies behind the last chunk handed out is given back every megabyte (`MADV_DONTNEED`),
/// so the process's resident memory stays that of one buffer however long the file is. The
/// mapping covers the file's length when it was mapped; ``ByteSource`` reads what a growing
/// file adds after it with `read(2)`.
///
/// A mapped file cut shorter by another process faults (`SIGBUS`) where `read(2)` would just
/// end early, so each chunk is checked against the file's current length (`fstat`) before it is
/// handed out: a file cut before a chunk is read ends there, as `read(2)` would end it. A file
/// cut while a chunk is being decoded still faults; the mapping is registered with the fault
/// handler (`_cs_mapping_register`), which then ends the command as a failed read does: the
/// file named, the temporaries removed, exit 66, no crash report.
final class _MappedFile {
    /// Files shorter than this are read with `read(2)`: mapping costs more than it saves.
    static let minimumLength = 1 << 20
    /// How much to read past before giving the pages behind back.
    private static let releaseStride = 1 << 20

    private let base: UnsafeMutableRawPointer
    /// The mapped length: the file's length when it was mapped.
    let length: Int
    private let descriptor: Int32
    /// The offset of the next byte to hand out.
    private(set) var position: Int
    /// Pages before this offset have been given back.
    private var released = 0
    private let pageSize = max(1, Int(sysconf(Int32(_SC_PAGESIZE))))
    /// The fault handler's slot for this mapping (-1: none).
    private var faultSlot: Int32 = -1

    /// Maps the regular file open at `descriptor`, `length` bytes long, to be read from
    /// `position` on; `nil` when it is too short to be worth it or cannot be mapped.
    /// `name` is the file's name in the message of a fault.
    init?(descriptor: Int32, length: Int, position: Int, name: String) {
        guard length >= Self.minimumLength, position <= length else { return nil }
        guard let mapped = mmap(nil, length, PROT_READ, MAP_PRIVATE, descriptor, 0),
              mapped != UnsafeMutableRawPointer(bitPattern: -1) else { return nil }
        _ = madvise(mapped, length, MADV_SEQUENTIAL)
        base = mapped
        self.length = length
        self.descriptor = descriptor
        self.position = position
        let program = CommandLine.arguments.first?.split(separator: "/").last.map(String.init) ?? "cachebench"
        faultSlot = _cs_mapping_register(mapped, length, "\(program): \(name): read failed: the file was cut short while it was being read\n")
    }

    deinit {
        _cs_mapping_unregister(faultSlot)
        munmap(base, length)
    }

    /// Up to `count` bytes from ``position`` on, in place, valid until the next call; fewer at
    /// the end of the mapping or of a file cut shorter since it was mapped. O(1).
    func take(upTo count: Int) -> UnsafeRawBufferPointer {
        var end = position + min(count, length - position)
        var info = stat()
        if fstat(descriptor, &info) == 0 { end = min(end, max(position, Int(info.st_size))) }
        releaseBehind()
        defer { position = end }
        return UnsafeRawBufferPointer(start: base + position, count: end - position)
    }

    /// Gives back the whole pages before ``position`` (already handed out, no longer in use)
    /// once there is a megabyte of them: the kernel keeps them in its cache, only this
    /// process stops holding them.
    private func releaseBehind() {
        let upTo = position / pageSize * pageSize
        guard upTo - released >= Self.releaseStride else { return }
        _ = madvise(base + released, upTo - released, MADV_DONTNEED)
        released = upTo
    }
}
