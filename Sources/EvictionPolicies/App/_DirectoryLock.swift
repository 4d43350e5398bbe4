#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// What keeps two processes from opening one ``DiskCache`` directory at once: an exclusive
/// `flock` on a lock file in it, held while any instance in this process has the directory open
/// and released when the last one is deallocated, or when the process ends however it ends (the
/// kernel drops a killed process's locks, so a crash never leaves a directory locked).
///
/// Why shared within a process, counted per lock file: `cache = try DiskCache(directory: d)`
/// opens the new instance while the old one is still alive, and must not fail; two `flock`s of
/// one process on two descriptors would exclude each other.
///
/// - Complexity: ``acquire(_:)`` and ``release(_:)`` O(1) expected, and one `open` and one
///   `flock` for the first instance.
enum _DirectoryLock {
    /// A lock file, by the file system's identity of it (its path may be spelled many ways).
    struct Identity: Hashable, Sendable {
        let device: UInt64
        let inode: UInt64

        init(_ status: stat) {
            device = UInt64(truncatingIfNeeded: status.st_dev)
            inode = UInt64(truncatingIfNeeded: status.st_ino)
        }
    }

    private static let lock = _Lock()
    /// The locks this process holds: the descriptor that holds each and how many instances share it.
    nonisolated(unsafe) private static var held: [Identity: (descriptor: Int32, holders: Int)] = [:]

    /// Takes the lock of the file at `path`, creating the file, for one more instance; returns
    /// what ``release(_:)`` needs, or `nil` when no lock could be taken for another reason than
    /// another process holding it (a read-only or full disk, a file system without locks): the
    /// cache then works unlocked rather than not at all.
    /// - Throws: `EWOULDBLOCK` when another process holds it.
    static func acquire(_ path: String) throws(DiskCacheError) -> Identity? {
        // Shared without opening the file again where this process holds it already: on a file
        // system that emulates `flock` with POSIX record locks (Linux over NFS), closing any
        // descriptor of the file would drop the process's lock.
        var existing = stat()
        if stat(path, &existing) == 0 {
            let identity = Identity(existing)
            if lock.withLock({ shareIfHeld(identity) }) { return identity }
        }
        var descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        // A folder that cannot be written to: an existing lock file can still be locked.
        if descriptor < 0 { descriptor = open(path, O_RDONLY | O_CLOEXEC) }
        guard descriptor >= 0 else { return nil }
        var status = stat()
        guard fstat(descriptor, &status) == 0 else {
            close(descriptor)
            return nil
        }
        let identity = Identity(status)
        let code: Int32 = lock.withLock {
            // Another instance took it between the check above and here.
            if shareIfHeld(identity) {
                close(descriptor)
                return 0
            }
            // A refusal is retried for up to a second: a child this process is starting holds a
            // copy of a lock its last instance just released until the child's exec closes it
            // (the descriptor is close-on-exec), and that must not refuse a reopening. Another
            // process's lock lasts.
            var retries = 200
            while flock(descriptor, LOCK_EX | LOCK_NB) != 0 {
                let code = errno
                if code == EINTR { continue }
                if code == EWOULDBLOCK && retries > 0 {
                    retries -= 1
                    usleep(5_000)
                    continue
                }
                close(descriptor)
                return code
            }
            held[identity] = (descriptor, 1)
            return 0
        }
        if code == EWOULDBLOCK {
            throw DiskCacheError(path: path, operation: "lock (another process has this cache directory open)", code: code)
        }
        return code == 0 ? identity : nil
    }

    /// One instance more shares the lock `identity` names, if this process holds it. Called
    /// holding ``lock``.
    private static func shareIfHeld(_ identity: Identity) -> Bool {
        guard let shared = held[identity] else { return false }
        held[identity] = (shared.descriptor, shared.holders + 1)
        return true
    }

    /// One instance fewer holds the lock `identity` names; the last one releases it.
    static func release(_ identity: Identity?) {
        guard let identity else { return }
        lock.withLock {
            guard let shared = held[identity] else { return }
            if shared.holders > 1 {
                held[identity] = (shared.descriptor, shared.holders - 1)
            } else {
                held[identity] = nil
                // Closing the descriptor releases the lock.
                close(shared.descriptor)
            }
        }
    }
}
