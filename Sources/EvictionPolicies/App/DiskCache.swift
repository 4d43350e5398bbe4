import Foundation

/// A cache of `Data` in files, in a directory the app chooses, that survives relaunches and
/// crashes.
///
/// ```swift
/// let disk = try DiskCache(directory: cachesURL.appendingPathComponent("images"), sizeLimit: 200 << 20)
/// try await disk.setData(png, forKey: url.absoluteString)
/// let data = try await disk.data(forKey: url.absoluteString)
/// ```
///
/// - **Files.** Each entry is one file named by a 128-bit hash of its key, holding the key, the
///   data and a checksum. A write goes to a temporary file, is flushed (`fsync`, and on Apple
///   platforms `F_FULLFSYNC`, which also empties the drive's own cache), renamed into
///   place and the rename flushed: after a crash at any moment an entry is either its old value
///   or its new one, and once `setData` has returned the entry survives a crash of the process
///   (and, unless `durable` is off, a power loss).
///   A read checks the length, the key and the checksum, so a torn or foreign file is never
///   returned (it is removed instead).
/// - **Index.** Sizes and the order of use are kept in memory and in an append-only journal
///   beside the files; opening replays the journal and reconciles it with the directory (a file
///   whose length disagrees with its record, as after a power cut that took the journal's
///   unsynced tail, is read for its real size), or rebuilds the index from the files when the
///   journal is missing or corrupt.
/// - **One instance per directory.** The index lives in the instance, so two instances on one
///   directory would not see each other's writes and would delete each other's files to enforce
///   their own limits. Opening takes an exclusive lock (`flock` on a `lock` file in the
///   directory) that its process holds while any of its instances has the directory open, and
///   releases when the last is deallocated or the process ends, however it ends: opening a
///   directory that another process holds throws ``DiskCacheError`` with `EWOULDBLOCK`, after
///   a second of retries (a child being started holds a copy of a just-released lock until its exec) (an app
///   and its extension sharing a container must share the cache another way). Within one
///   process the lock is shared, so `cache = try DiskCache(directory: d)` can reopen while the
///   old instance lives; using two instances at once is still a mistake. Share one instance (it
///   is `Sendable`), or give each its own directory. Where no lock can be taken (a read-only or
///   full disk, a file system without locks) the cache opens unlocked. A directory deleted while
///   open (a "clear caches" tool) is made again by the next write, which takes the lock again
///   first (and is refused with `EWOULDBLOCK` if another process has taken the new directory)
///   and forgets the entries whose files went with it; until then ``count``, ``totalSize`` and
///   ``contains(_:)`` still count them, and a read of one finds it gone (and forgets it).
/// - **Limits.** `sizeLimit` (bytes of data), `countLimit` and `ageLimit` (seconds since the entry
///   was stored) are enforced by a policy of this library (``CachePolicy/lru`` by default): each
///   write deletes the files the policy evicts to make room for it, and no more; nothing ever
///   rescans the directory except opening. A file that cannot be deleted (made immutable) does
///   not stop the others or fail the write that evicted it: it is tried again at each write,
///   and by the next opening. An entry past its age limit is not returned by
///   ``data(forKey:)-8mj31`` (which deletes it), but until then, or until a write or a reopening
///   removes it, it still counts in ``count``, ``totalSize`` and ``contains(_:)``, as an
///   expired entry of ``Cache`` does.
/// - **Failures.** A set that throws stored nothing (the old value stays), except one whose file
///   was renamed into place when flushing the folder failed: that value is stored and the error
///   says it may not survive a power cut; and one the policy refuses (larger than `sizeLimit`),
///   whose old value is removed before the error of deleting or flushing its file is thrown. One that returns `true` stored the new value (`false`: the policy refused the entry, as a ``Cache``
///   refuses one larger than its limit, and the key has no entry); a read throws only when the entry's file cannot be read (the
///   order of use it writes to the journal is bookkeeping that a full disk may lose).
/// - **Threads.** All methods are thread-safe. The synchronous ones do their I/O on the caller's
///   thread; the `async` ones on a background queue. Reads of different keys run in parallel;
///   writes hold a lock only to rename and update the index.
public final class DiskCache: @unchecked Sendable {
    /// The directory the cache owns.
    public let directory: URL
    let entriesPath: String
    let temporaryPath: String
    /// Whether writes are flushed to the disk (the file before its rename, the directory after).
    let durable: Bool
    let clock: CacheClock

    private let lock = _Lock()
    private let index: Cache<String, Void>
    private let evicted = _EvictedKeys()
    private var records: [String: _DiskRecord] = [:]
    /// Files of entries no longer in the index whose deletion failed (a file made immutable):
    /// tried again at each write, and dropped from here when a set writes the name anew.
    private var undeleted: [String] = []
    private var journal: _DiskJournal
    /// After a rewrite of the journal failed (a folder it cannot be renamed into), the line count
    /// at which the next is tried: twice the count then, so a cache that cannot compact does
    /// O(1) amortised work per write rather than a whole rewrite each time.
    private var compactionRetryLines = 0
    /// Rewrites of the journal tried, for tests.
    private(set) var _compactionAttempts = 0
    /// For tests: the error every flush of the entries' folder (after a rename or a removal) fails with.
    var _directorySyncFault: Int32?
    private var uses: UInt64 = 0
    private var sets: UInt64 = 0
    /// The directory's lock this instance shares, or `nil` when none could be taken.
    private var directoryLock: _DirectoryLock.Identity?

    /// Opens (or creates) the cache in `directory`.
    ///
    /// - Parameters:
    ///   - directory: a directory the cache owns; it is created if needed. A relative path is
    ///     resolved against the current directory once, here.
    ///   - policy: which entries go when a limit is reached.
    ///   - sizeLimit: the most bytes of data kept, or `nil` (or 0) for none. Policies that are not
    ///     ``CachePolicy/supportsCountLimit`` need one.
    ///   - countLimit: the most entries kept, or `nil` (or 0) for none.
    ///   - ageLimit: seconds an entry is kept after it was stored, or `nil` (or NaN, or infinity)
    ///     for ever; 0 or less keeps nothing past its own write, as ``Cache``'s time to live.
    ///   - clock: where the age limit reads the time. Entries keep their time across launches,
    ///     so the clock must count on across launches, as the default wall clock does (not a
    ///     clock of time since boot). An entry stored at a time the clock has not reached again
    ///     (it was set back) is taken as stored now when the cache opens; one stored while the
    ///     clock read no finite number has expired (see ``CacheClock/now``).
    ///   - durable: flush each write to the disk (the file before its rename, the directory
    ///     after), so that an entry whose `setData` returned survives a power loss, not only a
    ///     crash of the process; removals the app asks for are flushed too. On by default. On
    ///     Apple platforms each flush is an `F_FULLFSYNC`, milliseconds on a phone: an image
    ///     cache that can refetch what a power cut loses may turn this off. Off, writes are still
    ///     atomic (a temporary file renamed into place) and survive a process crash, and cost
    ///     what SDWebImage's do.
    /// - Throws: ``DiskCacheError`` when the directory cannot be created or read, or another
    ///   process has it open (`EWOULDBLOCK`), and ``PolicyConfigurationError`` when the policy
    ///   cannot take the limits.
    public init(directory: URL, policy: CachePolicy = .lru, sizeLimit: Int? = nil, countLimit: Int? = nil,
                ageLimit: Double? = nil, clock: CacheClock = .system, durable: Bool = true) throws {
        // A relative path is resolved now, against the current directory, so that a later
        // `chdir` does not move the cache.
        let directory = directory.path.hasPrefix("/") ? directory : URL(fileURLWithPath: directory.path, isDirectory: true).absoluteURL
        self.directory = directory
        entriesPath = directory.appendingPathComponent("entries").path
        temporaryPath = directory.appendingPathComponent("tmp").path
        journal = _DiskJournal(path: directory.appendingPathComponent("journal").path)
        self.durable = durable
        self.clock = clock
        // As with Cache (and NSCache), a limit of 0 or less is none.
        let sizeLimit = _limit(sizeLimit), countLimit = _limit(countLimit)
        if policy == .lru || policy.supportsCountLimit || sizeLimit != nil {
            index = try Cache(validating: policy, costLimit: sizeLimit,
                              countLimit: policy.supportsCountLimit ? countLimit : nil, timeToLive: ageLimit,
                              clock: clock, memoryWarningResponse: .removeAll, observesSystemEvents: false)
        } else {
            throw PolicyConfigurationError.missingLimit(.capacity, policy: policy.rawValue)
        }
        if countLimit != nil && !policy.supportsCountLimit {
            throw PolicyConfigurationError.unsupportedLimit(.countLimit, policy: policy.rawValue)
        }
        let collector = evicted
        index.evictionHandler = { key, _, _ in collector.append(key) }
        try _POSIX.makeDirectory(directory.path)
        directoryLock = try _DirectoryLock.acquire(directory.appendingPathComponent("lock").path)
        try open()
    }

    deinit {
        journal.closeFile()
        _DirectoryLock.release(directoryLock)
        lock.deallocate()
    }

    // MARK: Synchronous API

    /// The data stored under `key`, or `nil` if there is none (or it is older than the age
    /// limit, or its file was damaged).
    ///
    /// Only reading the entry's file can make it throw: what a read writes (the order of use in
    /// the journal, the deletion of expired files) is bookkeeping that a full or read-only disk
    /// must not turn into a failed read.
    public func data(forKey key: String) throws -> Data? {
        let key = Self.canonical(key)
        let found: _DiskRecord? = lock.withLock { () -> _DiskRecord? in
            guard index.value(forKey: key) != nil, var record = records[key] else {
                deleteEvicted()
                return nil
            }
            uses += 1
            record.lastUse = uses
            records[key] = record
            try? journal.append("G \(record.name)\n")
            deleteEvicted()
            // Gets write the journal too, so a session that only reads must compact it as well.
            try? compactJournalIfLong()
            return record
        }
        guard let record = found else { return nil }
        if let entry = try _DiskFile.read(path(record.name)), entry.key == key {
            return entry.data
        }
        // Gone or damaged: drop this entry (unless a newer set replaced it meanwhile).
        lock.withLock {
            guard records[key]?.serial == record.serial else { return }
            try? removeLocked(key)
        }
        return nil
    }

    /// Stores `data` under `key`, replacing what was there, and deletes what the policy evicts to
    /// make room. When it returns `true`, the entry is on the disk.
    ///
    /// - Returns: `false` when the policy refuses the entry, as it refuses one in a ``Cache``: every
    ///   policy one larger than `sizeLimit` (no file is written for it), and LIRS, 2Q and S3-FIFO
    ///   one above their share of the limit (see ``CachePolicy``). Then the key has no entry: like
    ///   every set, a refused one replaces the old value, here by nothing.
    /// - Throws: ``DiskCacheError`` when the file cannot be written; then nothing changed. One
    ///   case differs: when the file is in place but flushing its folder to the disk fails (an I/O
    ///   error after the rename), the new value is stored, counted and read back as any other, a
    ///   process kill does not lose it, and the error says that a power cut might.
    @discardableResult
    public func setData(_ data: Data, forKey key: String) throws -> Bool {
        let (stored, failure) = try _setData(data, forKey: key)
        if let failure { throw failure }
        return stored
    }

    /// ``setData(_:forKey:)-62mvz``'s work: whether the value is stored, and the error to throw
    /// for a set that changed the cache all the same (its folder not flushed after the rename, or
    /// a refused set's old value removed but its file not deleted or the removal not flushed),
    /// which a recorder must record before throwing it. Throws only when nothing changed.
    func _setData(_ data: Data, forKey key: String) throws -> (stored: Bool, failure: DiskCacheError?) {
        let key = Self.canonical(key)
        if let limit = index.costLimit, data.count > limit {
            let failure: DiskCacheError? = lock.withLock {
                do throws(DiskCacheError) { try removeLocked(key) } catch { return error }
                return nil
            }
            return (false, failure)
        }
        let name = _DiskFile.name(forKey: key)
        let bytes = _DiskFile.encode(key: key, data: data)
        let temporary = try writeTemporary(bytes)
        return try lock.withLock { () throws -> (stored: Bool, failure: DiskCacheError?) in
            // A torn journal (a crash mid-line) is rewritten, with the same back-off as a long one.
            try? compactJournal(when: journal.needsRewrite)
            // Announced before the rename: a crash between the rename and the set record leaves
            // the file newer than the journal says, and opening reads the announced files again.
            // Until the rename, a failure leaves everything as it was.
            do { try journal.append("P \(name)\n") } catch {
                unlink(temporary)
                throw error
            }
            let flushFailure: DiskCacheError?
            do { flushFailure = try commit(temporary, bytes: bytes, to: name) } catch {
                // The announcement stays in the journal and would make an opening take the old
                // file back as an entry: a file doomed before (removed, but undeletable) is
                // named again after it, so that the opening still deletes it.
                if undeleted.contains(name) { try? journal.append("X \(name)\n") }
                throw error
            }
            // Stored: from here on nothing fails the set. The announcement above lets an opening
            // find the file should the record below not be written (a full disk), and files
            // whose deletion fails are tried again at the next write.
            undeleted.removeAll { $0 == name }
            sets += 1
            uses += 1
            // Stored while the clock reads no finite time, the entry is as old as any can be:
            // under an age limit it has expired, in memory now and in the journal at a reopen.
            let now = clock.now()
            let created = now.isFinite ? now : -.greatestFiniteMagnitude
            let record = _DiskRecord(name: name, size: data.count, created: created, lastUse: uses, serial: sets)
            records[key] = record
            try? journal.append(_DiskJournal.setLine(key: key, record: record))
            index.setValue((), forKey: key, cost: data.count)
            // A policy may refuse an entry (above its share of the limit): then it must not stay on disk.
            let stored = index.contains(key)
            if !stored { evicted.append(key) }
            deleteEvicted()
            try? compactJournalIfLong()
            return (stored, flushFailure)
        }
    }

    /// Removes the entry for `key`, if any.
    ///
    /// Unless `durable` is off, the removal is flushed to the disk before this returns, so a
    /// power cut cannot bring the entry back (data the app removed, a signed-out user's, must
    /// stay removed). If that flush fails, the entry is removed all the same and the error says
    /// a power cut might bring it back. Evictions are not flushed: an evicted entry that comes
    /// back is still a value the app stored.
    public func removeData(forKey key: String) throws {
        let key = Self.canonical(key)
        try lock.withLock { () throws in try removeLocked(key) }
    }

    /// Removes every entry.
    ///
    /// A file that cannot be deleted (made immutable) does not stop the others; the first such
    /// failure is thrown once all were tried, and those files are tried again at the next write.
    /// Flushed to the disk as ``removeData(forKey:)-97s67`` is.
    public func removeAll() throws {
        try lock.withLock { () throws in
            forgetEveryEntry()
            try _POSIX.makeDirectory(entriesPath)
            var failure: DiskCacheError?
            // Only files: a folder someone put among the entries is not the cache's to delete.
            for name in try _POSIX.list(entriesPath) where !_POSIX.isDirectory(path(name)) {
                do throws(DiskCacheError) { try _POSIX.remove(path(name)) } catch {
                    undeleted.append(name)
                    failure = failure ?? error
                }
            }
            try _POSIX.makeDirectory(temporaryPath)
            // The files left are named, so that an opening deletes them rather than take them
            // for entries (data the app cleared must not come back).
            do throws(DiskCacheError) { try journal.rewrite([], doomed: undeleted, temporaryDirectory: temporaryPath) } catch {
                failure = failure ?? error
            }
            do throws(DiskCacheError) { try flushEntriesFolder() } catch { failure = failure ?? error }
            if let failure { throw failure }
        }
    }

    /// Removes the entries older than the age limit now, rather than when they are next read or
    /// written.
    public func removeExpired() throws {
        try lock.withLock { () throws in
            index.removeExpired()
            defer { try? compactJournalIfLong() }
            if let failure = deleteEvicted() { throw failure }
        }
    }

    /// The total size of the stored data, in bytes.
    public var totalSize: Int { lock.withLock { index.totalCost } }

    /// The number of entries.
    public var count: Int { lock.withLock { index.count } }

    /// Whether there is an entry for `key` (its file is not opened).
    public func contains(_ key: String) -> Bool {
        let key = Self.canonical(key)
        return lock.withLock { records[key] != nil && index.contains(key) }
    }

    // MARK: Internals

    /// `key` in Unicode's canonical composition (NFC). Swift compares strings by canonical
    /// equivalence ("é" is "e" and a combining accent) but a file name hashes bytes, so the two
    /// spellings of one key would get two files, one of them never counted or removed. ASCII keys
    /// (most URLs) are already canonical and are not copied.
    static func canonical(_ key: String) -> String {
        key.utf8.allSatisfy { $0 < 0x80 } ? key : key.precomposedStringWithCanonicalMapping
    }

    private func path(_ name: String) -> String { entriesPath + "/" + name }

    /// Writes `bytes` to a temporary file. If the cache's folders were deleted behind its back
    /// (a "clear caches" tool), they are made again, once.
    private func writeTemporary(_ bytes: [UInt8]) throws(DiskCacheError) -> String {
        do { return try _POSIX.writeTemporary(bytes, in: temporaryPath, sync: durable) } catch {
            guard error.code == ENOENT else { throw error }
            try _POSIX.makeDirectory(temporaryPath)
            return try _POSIX.writeTemporary(bytes, in: temporaryPath, sync: durable)
        }
    }

    /// Renames `temporary` (holding `bytes`) into place as entry `name`, making the entries'
    /// folder again if it was deleted (the failed rename removed the temporary file: it is
    /// written once more).
    /// Renames the written file into place; throws when it is not (nothing changed), and returns
    /// the failure to flush the folder afterwards, if any: the file is in place then.
    private func commit(_ temporary: String, bytes: [UInt8], to name: String) throws(DiskCacheError) -> DiskCacheError? {
        do { try _POSIX.commit(temporary, to: path(name), syncDirectory: false) } catch {
            guard error.code == ENOENT else { throw error }
            // The entries' folder went with every file in it: their entries go too, rather than
            // count against the limits (and answer `contains`) until each is read.
            if !_POSIX.isDirectory(entriesPath) { forgetEveryEntry() }
            try _POSIX.makeDirectory(entriesPath)
            try retakeDirectory()
            try _POSIX.commit(try writeTemporary(bytes), to: path(name), syncDirectory: false)
        }
        do { try flushEntriesFolder() } catch { return error }
        return nil
    }

    /// Forgets every entry (the index, the records, the files waiting to be deleted): for a
    /// removal of all, or when their files went with the folder that held them.
    private func forgetEveryEntry() {
        index.removeAll()
        _ = evicted.take()
        records.removeAll()
        undeleted.removeAll()
    }

    /// After the cache's folders were deleted behind its back and made again: if the lock file
    /// went with them, another process could lock a new one and take the directory for its own,
    /// so the lock is taken again on the new file (throwing `EWOULDBLOCK` if another process has
    /// it: the write then stores nothing), and the journal, gone too, is written anew.
    private func retakeDirectory() throws(DiskCacheError) {
        // The lock file this instance holds, if it is still there, is shared once more and given
        // back below: nothing changes.
        let taken = try _DirectoryLock.acquire(directory.appendingPathComponent("lock").path)
        _DirectoryLock.release(directoryLock)
        directoryLock = taken
        try? compactJournal()
    }

    /// Deletes the files of the entries the index evicted, and those whose deletion failed
    /// before. One that fails does not stop the others: it is kept for the next call, and the
    /// first failure is returned. (The removal's journal record is bookkeeping: if it cannot be
    /// written, opening finds the file gone.)
    @discardableResult
    private func deleteEvicted() -> DiskCacheError? {
        let retries = undeleted
        let names = retries + evicted.take().compactMap { records.removeValue(forKey: $0)?.name }
        undeleted.removeAll()
        var failure: DiskCacheError?
        for name in names {
            do throws(DiskCacheError) { try _POSIX.remove(path(name)) } catch {
                // A retry that fails again is in the journal already.
                if retries.contains(name) { undeleted.append(name) } else { doom(name) }
                failure = failure ?? error
                continue
            }
            try? journal.append("D \(name)\n")
        }
        return failure
    }

    /// Notes that the file `name` is no entry but could not be deleted: it is tried again at each
    /// write, and the journal names it (an `X` record) so that an opening deletes it too rather
    /// than take it for an entry.
    private func doom(_ name: String) {
        if !undeleted.contains(name) { undeleted.append(name) }
        try? journal.append("X \(name)\n")
    }

    private func removeLocked(_ key: String) throws(DiskCacheError) {
        index.removeValue(forKey: key)
        guard let record = records.removeValue(forKey: key) else { return }
        do { try _POSIX.remove(path(record.name)) } catch {
            // Tried again at the next write; this call failed.
            doom(record.name)
            throw error
        }
        try? journal.append("D \(record.name)\n")
        deleteEvicted()
        try? compactJournalIfLong()
        try flushEntriesFolder()
    }

    /// Flushes the entries' folder (`durable` only): after a rename, so that the new file is
    /// there after a power cut; after a removal the app asked for, so that a power cut cannot
    /// undo the unlink (an opening takes a listed entry whose file is gone for removed, whatever
    /// the unsynced journal says).
    private func flushEntriesFolder() throws(DiskCacheError) {
        guard durable else { return }
        if let code = _directorySyncFault { throw DiskCacheError(path: entriesPath, operation: "fsync", code: code) }
        do { try _POSIX.syncDirectory(entriesPath) } catch {
            // The folder was deleted behind the cache's back: no file of it can come back.
            guard error.code == ENOENT && !_POSIX.isDirectory(entriesPath) else { throw error }
        }
    }

    /// Rewrites the journal once its lines outnumber twice the entries by 1,024: the rewrite is
    /// O(entries), so O(1) amortised over the lines written since the last one. A failed rewrite
    /// is tried again only once the journal has doubled (``compactionRetryLines``).
    private func compactJournalIfLong() throws(DiskCacheError) {
        try compactJournal(when: journal.lines > 2 * records.count + 1024)
    }

    /// Rewrites the journal when `due`, unless a rewrite has failed since the journal last
    /// doubled: a rewrite that keeps failing (a full disk, a folder made read-only) is O(entries)
    /// and must not run at every write.
    private func compactJournal(when due: Bool) throws(DiskCacheError) {
        guard due, compactionRetryLines == 0 || journal.lines > compactionRetryLines else { return }
        do throws(DiskCacheError) {
            try compactJournal()
            compactionRetryLines = 0
        } catch {
            compactionRetryLines = max(2 * journal.lines, journal.lines + 1024)
            throw error
        }
    }

    private func compactJournal() throws(DiskCacheError) {
        _compactionAttempts += 1
        let entries = records.map { (key: $0.key, record: $0.value) }.sorted { $0.record.lastUse < $1.record.lastUse }
        try journal.rewrite(entries, doomed: undeleted, temporaryDirectory: temporaryPath)
    }

    /// Reads the journal and the directory, rebuilds the index, deletes what the limits no longer
    /// allow, and writes a compact journal.
    private func open() throws {
        try _POSIX.makeDirectory(entriesPath)
        try _POSIX.makeDirectory(temporaryPath)
        // Temporary files are writes that never committed (one that cannot be deleted is left).
        for name in try _POSIX.list(temporaryPath) { try? _POSIX.remove(temporaryPath + "/" + name) }
        let files = Set(try _POSIX.list(entriesPath))
        // A folder where the journal goes is not the cache's to delete (it may hold someone's
        // files): moved aside, whole, and the index rebuilt from the files.
        if _POSIX.isDirectory(journal.path) {
            let aside = journal.path + "-folder-moved-aside-" + UUID().uuidString
            guard rename(journal.path, aside) == 0 else {
                throw DiskCacheError(path: journal.path, operation: "move the folder in the journal's place to \(aside)", code: errno)
            }
        }
        let replay = try _DiskJournal.replay(journal.path)
        let journaled = replay?.records ?? [:]
        var found: [(key: String, record: _DiskRecord)] = []
        var pending = replay?.pending ?? []
        let doomed = replay?.doomed ?? []
        for (name, entry) in journaled where files.contains(name) {
            // A file whose length is not the one its journal record implies was written after the
            // record (the journal, never synced, lost its tail to a power cut): read like an
            // announced one. One stat per entry, at opening only.
            // A size no file can have (a damaged journal) overflows the sum: read like one too.
            let (length, overflow) = (_DiskFile.headerLength + entry.key.utf8.count).addingReportingOverflow(entry.record.size)
            if overflow || _POSIX.fileSize(path(name)) != length {
                pending.insert(name)
            }
            guard pending.contains(name) else {
                found.append((entry.key, entry.record))
                continue
            }
            // Announced but not recorded: the file may be the new value or the old one (or torn,
            // if a foreign hand was at it); its own header says which, and how large it is.
            // A file that cannot be read is no entry: removed if it can be, and opening goes on.
            guard let file = (try? _DiskFile.read(path(name))) ?? nil, _DiskFile.name(forKey: file.key) == name else {
                try? _POSIX.remove(path(name))
                continue
            }
            var record = entry.record
            record.size = file.data.count
            found.append((file.key, record))
        }
        // A journal that agrees with the directory and ends cleanly is kept and appended to.
        var needsRewrite = replay == nil || replay?.isTorn == true || found.count != journaled.count || !pending.isEmpty
        // Files the journal does not list, newest last, after the journal's entries.
        var unlisted: [(key: String, record: _DiskRecord)] = []
        var stillDoomed: [String] = []
        for name in files where journaled[name] == nil {
            let path = self.path(name)
            // A folder someone put among the entries is not the cache's: left alone.
            if _POSIX.isDirectory(path) { continue }
            needsRewrite = true
            // Removed, evicted or cleared, but its deletion failed: deleted now, never adopted.
            if doomed.contains(name) {
                if (try? _POSIX.remove(path)) == nil { stillDoomed.append(name) }
                continue
            }
            guard name.count == 32, let entry = (try? _DiskFile.read(path)) ?? nil,
                  _DiskFile.name(forKey: entry.key) == name else {
                try? _POSIX.remove(path)
                continue
            }
            // The file's age on the wall clock, carried over to the cache's clock (which an app or
            // a test may replace): a file written an hour ago is an hour old on either.
            let age = _POSIX.modificationTime(path).map { max(0, Date.timeIntervalSinceReferenceDate - $0) } ?? 0
            unlisted.append((entry.key, _DiskRecord(name: name, size: entry.data.count, created: clock.now() - age,
                                                    lastUse: 0, serial: 0)))
        }
        found.sort { $0.record.lastUse < $1.record.lastUse }
        unlisted.sort { $0.record.created < $1.record.created }
        let now = clock.now()
        let ageLimit = index.timeToLive
        lock.withLock {
            undeleted = stillDoomed
            for (key, var record) in found + unlisted {
                // Two files for one key (written before keys were made canonical: two spellings
                // of it): the later one stays.
                if let previous = records[key], previous.name != record.name { undeleted.append(previous.name) }
                // A clock that went back since (the wall clock set back): the entry is as old as
                // now, not younger, so the age limit still ends it.
                record.created = min(record.created, now)
                uses += 1
                sets += 1
                record.lastUse = uses
                record.serial = sets
                records[key] = record
                let remaining = ageLimit.map { record.created + $0 - now }
                // A time that is no finite number (stored or read while the clock was wrong) ends
                // the entry, as it does in memory (see ``CacheClock/now``).
                if let remaining, !(remaining > 0 && remaining.isFinite) {
                    evicted.append(key)
                    continue
                }
                index.setValue((), forKey: key, cost: record.size, timeToLive: remaining ?? .infinity)
                if !index.contains(key) { evicted.append(key) }
            }
            journal.lines = replay?.lines ?? 0
            // A full disk must not keep the cache from opening: the rewrite is tried again at the
            // next write, and files that cannot be deleted at the next write too.
            if needsRewrite || journal.lines > 2 * records.count + 1024 {
                do throws(DiskCacheError) { try compactJournal() } catch { journal.needsRewrite = needsRewrite }
            }
            deleteEvicted()
        }
    }
}

/// The keys a ``DiskCache``'s index evicted, waiting for their files to be deleted. Its own lock:
/// the index reports evictions after releasing its lock but while the disk cache holds its own.
final class _EvictedKeys: @unchecked Sendable {
    private let lock = _Lock()
    private var keys: [String] = []

    deinit { lock.deallocate() }

    func append(_ key: String) { lock.withLock { keys.append(key) } }

    func take() -> [String] {
        lock.withLock {
            defer { keys.removeAll() }
            return keys
        }
    }
}
