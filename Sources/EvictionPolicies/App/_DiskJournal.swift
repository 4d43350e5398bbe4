import Foundation
#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// What a ``DiskCache`` knows about one entry without opening its file.
struct _DiskRecord {
    /// The entry's file name (``_DiskFile/name(forKey:)``).
    var name: String
    /// The data's length in bytes: the entry's cost.
    var size: Int
    /// When it was stored, in ``CacheClock`` seconds (for the age limit).
    var created: Double
    /// The order of its last use (set or get): what journal compaction keeps.
    var lastUse: UInt64
    /// The number of the set that stored it, so a reader that found the file broken removes this
    /// entry only, not a newer one.
    var serial: UInt64
}

/// The index of a ``DiskCache``, kept as an append-only text file beside the entries:
///
///     P <name>                                   a set about to rename its file into place
///     S <name> <size> <created> <base64 key>     a set
///     G <name>                                   a use (a get)
///     D <name>                                   a removal or eviction
///     X <name>                                   a removal or eviction whose file could not be deleted
///
/// A `P` not followed by an `S` or `D` of its name is a set a crash interrupted: its file may
/// be the new value or the old one, so opening reads that file's size from the file. An `X` not
/// followed by a `P`, `S` or `D` of its name is a file that is no entry (removed, evicted or
/// cleared) but is still on the disk: opening deletes it rather than take it for an entry.
/// It only records order and sizes; the files are the truth. Opening replays it, then reconciles
/// it with the directory: records whose file is gone are dropped, files it does not list (a crash
/// between a file's rename and its record) are read and added. A record cut short by a crash (no
/// final newline) is ignored; any other line that does not parse makes the whole journal
/// untrusted, and the index is rebuilt from the directory alone.
struct _DiskJournal {
    let path: String
    private var descriptor: Int32 = -1
    /// Lines since the last rewrite: a rewrite is due when they far outnumber the entries.
    var lines = 0
    /// Whether the file may not say what the cache knows (an append failed and its part could
    /// not be cut off, or a rewrite failed): the next write rewrites it. Until then it is still
    /// appended to; opening distrusts a journal with a garbled line and reads the files instead.
    var needsRewrite = false

    init(path: String) { self.path = path }

    /// What opening found in the journal.
    struct Replay {
        /// The newest state of each entry it lists, by file name.
        var records: [String: (key: String, record: _DiskRecord)]
        /// Its complete lines.
        var lines: Int
        /// Whether it ends in a record cut short, which a new append must not extend.
        var isTorn: Bool
        /// Files announced by a `P` record and not recorded since: their size is the file's.
        var pending: Set<String> = []
        /// Files whose deletion failed (an `X` record) and that no set has written since.
        var doomed: Set<String> = []
    }

    /// The journal's records, or `nil` when it is missing or untrusted.
    static func replay(_ path: String) throws(DiskCacheError) -> Replay? {
        guard let data = try _POSIX.readFile(path) else { return nil }
        var byName: [String: (key: String, record: _DiskRecord)] = [:]
        var pending: Set<String> = [], doomed: Set<String> = []
        var order: UInt64 = 0
        var lines = data.split(separator: 0x0A, omittingEmptySubsequences: false)
        // The last piece has no newline: empty after a clean append, a torn record after a crash.
        let isTorn = !(lines.removeLast().isEmpty)
        for line in lines {
            order += 1
            let fields = line.split(separator: 0x20, omittingEmptySubsequences: false).map { String(decoding: $0, as: UTF8.self) }
            guard let tag = fields.first, fields.count >= 2, fields[1].count == 32 else { return nil }
            let name = fields[1]
            switch tag {
            case "P":
                guard fields.count == 2 else { return nil }
                pending.insert(name)
                doomed.remove(name)
            case "S":
                guard fields.count == 5, let size = Int(fields[2]), size >= 0, let created = Double(fields[3]), created.isFinite,
                      let keyData = Data(base64Encoded: fields[4]), let key = _DiskFile.key(fromUTF8: keyData),
                      _DiskFile.name(forKey: key) == name else { return nil }
                byName[name] = (key, _DiskRecord(name: name, size: size, created: created, lastUse: order, serial: 0))
                pending.remove(name)
                doomed.remove(name)
            case "G":
                guard fields.count == 2 else { return nil }
                byName[name]?.record.lastUse = order
            case "D":
                guard fields.count == 2 else { return nil }
                byName[name] = nil
                pending.remove(name)
                doomed.remove(name)
            case "X":
                guard fields.count == 2 else { return nil }
                byName[name] = nil
                pending.remove(name)
                doomed.insert(name)
            default:
                return nil
            }
        }
        return Replay(records: byName, lines: lines.count, isTorn: isTorn, pending: pending, doomed: doomed)
    }

    static func setLine(key: String, record: _DiskRecord) -> String {
        "S \(record.name) \(record.size) \(record.created) \(Data(key.utf8).base64EncodedString())\n"
    }

    /// Appends one record, whole or not at all: a write the disk cuts short (full) is cut off
    /// again, so the next record does not run into its part. Not flushed to the disk: the journal
    /// orders entries, the files hold them, and opening reconciles the two.
    mutating func append(_ line: String) throws(DiskCacheError) {
        if descriptor < 0 {
            descriptor = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o644)
            guard descriptor >= 0 else { throw DiskCacheError(path: path, operation: "open", code: errno) }
        }
        let end = lseek(descriptor, 0, SEEK_END)
        do {
            try _POSIX.writeAll(Array(line.utf8), to: descriptor, path: path)
        } catch {
            if end < 0 || ftruncate(descriptor, end) != 0 { needsRewrite = true }
            throw error
        }
        lines += 1
    }

    /// Replaces the journal by one set record per entry, in `entries`' order, then one `X` record
    /// per file of `doomed`, atomically (a rename). Not flushed: if a power loss leaves it empty or
    /// garbled, opening rebuilds the index from the files, which are.
    mutating func rewrite(_ entries: [(key: String, record: _DiskRecord)], doomed: [String],
                          temporaryDirectory: String) throws(DiskCacheError) {
        var text = ""
        for (key, record) in entries { text += Self.setLine(key: key, record: record) }
        for name in doomed { text += "X \(name)\n" }
        closeFile()
        // On failure the old journal stays, as it was (the rename did not happen).
        try _POSIX.writeAtomically(Array(text.utf8), to: path, temporaryDirectory: temporaryDirectory, sync: false)
        lines = entries.count + doomed.count
        needsRewrite = false
    }

    mutating func closeFile() {
        if descriptor >= 0 { close(descriptor) }
        descriptor = -1
    }
}
