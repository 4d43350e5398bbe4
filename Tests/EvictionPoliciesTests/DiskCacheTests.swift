@testable import EvictionPolicies
import Foundation
import Testing
import TestSupport

@Suite("DiskCache and TieredCache")
struct DiskCacheTests {
    func temporaryDirectory() -> URL {
        scratchDirectory.appendingPathComponent("disk-cache-\(UUID().uuidString)")
    }

    func bytes(_ n: Int, _ size: Int) -> Data { Data((0..<size).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ n) }) }

    @Test("stores, finds, replaces and removes; survives reopening with sizes and order")
    func basics() throws {
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        do {
            let cache = try DiskCache(directory: directory, sizeLimit: 1_000)
            try cache.setData(bytes(1, 300), forKey: "a")
            try cache.setData(bytes(2, 300), forKey: "b")
            try cache.setData(bytes(3, 100), forKey: "a")       // replaces
            #expect(try cache.data(forKey: "a") == bytes(3, 100))
            #expect(cache.totalSize == 400 && cache.count == 2)
            try cache.removeData(forKey: "b")
            #expect(try cache.data(forKey: "b") == nil && cache.totalSize == 100)
            try cache.setData(bytes(4, 500), forKey: "c")
            _ = try cache.data(forKey: "a")                    // a is now the most recent
        }
        let reopened = try DiskCache(directory: directory, sizeLimit: 1_000)
        #expect(reopened.count == 2 && reopened.totalSize == 600)
        try reopened.setData(bytes(5, 450), forKey: "d")        // LRU: c goes, a stays
        #expect(try reopened.data(forKey: "c") == nil && reopened.contains("a") && reopened.totalSize == 550)
        let files = try FileManager.default.contentsOfDirectory(atPath: directory.appendingPathComponent("entries").path)
        #expect(files.count == 2, "evicted entries' files are deleted")
    }

    /// Whether a `flock` of the directory's lock file on a descriptor of its own (as another
    /// process would take it) succeeds; released at once if it does.
    func lockIsFree(_ directory: URL) -> Bool {
        let descriptor = open(directory.appendingPathComponent("lock").path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        return flock(descriptor, LOCK_EX | LOCK_NB) == 0
    }

    @Test("the directory is locked against other processes while an instance lives; one process's instances share it")
    func directoryLock() throws {
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        var cache: DiskCache? = try DiskCache(directory: directory)
        try cache?.setData(bytes(1, 10), forKey: "a")
        #expect(!lockIsFree(directory), "an open cache holds its directory's lock")
        // Reopening by assignment opens the new instance while the old one lives.
        cache = try DiskCache(directory: directory)
        #expect(try cache?.data(forKey: "a") == bytes(1, 10))
        #expect(!lockIsFree(directory), "the lock stays while an instance lives")
        cache = nil
        #expect(lockIsFree(directory), "the last instance releases the lock")

        // Another holder (a descriptor of its own, as another process's): opening is refused,
        // with the error's code, and touches nothing; once released, the cache opens.
        let other = open(directory.appendingPathComponent("lock").path, O_RDWR | O_CLOEXEC)
        #expect(flock(other, LOCK_EX | LOCK_NB) == 0)
        #expect(throws: DiskCacheError.self) { try DiskCache(directory: directory) }
        do { _ = try DiskCache(directory: directory) } catch let error as DiskCacheError {
            #expect(error.code == EWOULDBLOCK && error.path.hasSuffix("/lock"))
        }
        close(other)
        let reopened = try DiskCache(directory: directory)
        #expect(try reopened.data(forKey: "a") == bytes(1, 10))

        // An opening that fails after taking the lock (a file where the entries' folder goes)
        // gives it back.
        let blocked = temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: blocked) }
        try FileManager.default.createDirectory(at: blocked, withIntermediateDirectories: true)
        try Data("x".utf8).write(to: blocked.appendingPathComponent("entries"))
        #expect(throws: DiskCacheError.self) { try DiskCache(directory: blocked) }
        #expect(lockIsFree(blocked), "a failed opening keeps no lock")
    }

    @Test("a folder that cannot be written to still opens, unlocked, for reading")
    func directoryLockOnReadOnlyFolder() throws {
        // Root ignores permissions; chattr's immutable flag stops even root.
        let directory = temporaryDirectory()
        defer { thawAndRemove(directory) }
        do {
            let cache = try DiskCache(directory: directory)
            try cache.setData(bytes(2, 10), forKey: "b")
        }
        try? FileManager.default.removeItem(at: directory.appendingPathComponent("lock"))
        guard chattr("+i", directory.path) else { return }
        let cache = try DiskCache(directory: directory)
        #expect(try cache.data(forKey: "b") == bytes(2, 10))
    }

    @Test("count limit and a policy by choice; an entry larger than the limit is not kept")
    func limits() throws {
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let cache = try DiskCache(directory: directory, policy: .fifo, sizeLimit: 10_000, countLimit: 3)
        for n in 0..<5 { try cache.setData(bytes(n, 10), forKey: "k\(n)") }
        #expect(cache.count == 3 && !cache.contains("k0") && !cache.contains("k1"))
        #expect(try cache.setData(bytes(9, 20_000), forKey: "huge") == false)
        #expect(try cache.data(forKey: "huge") == nil && cache.count == 3)
        let files = try FileManager.default.contentsOfDirectory(atPath: directory.appendingPathComponent("entries").path)
        #expect(files.count == 3)
        try cache.removeAll()
        #expect(cache.count == 0 && cache.totalSize == 0)
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.appendingPathComponent("entries").path).isEmpty)
    }

    @Test("a set the policy refuses returns false and leaves the key without an entry, on disk too, for every policy")
    func refusedSets() throws {
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        for policy in [CachePolicy.lru, .lirs, .s3fifo, .twoQueue] {
            let folder = directory.appendingPathComponent(policy.rawValue)
            let cache = try DiskCache(directory: folder, policy: policy, sizeLimit: 100_000)
            #expect(try cache.setData(Data("old".utf8), forKey: "k"))
            #expect(try cache.setData(Data("old".utf8), forKey: "other"))
            // Larger than the limit: refused by every policy before any file is written.
            #expect(try cache.setData(bytes(1, 100_001), forKey: "k") == false, "\(policy)")
            #expect(try cache.data(forKey: "k") == nil && !cache.contains("k") && cache.contains("other"), "\(policy)")
            // Above the policy's own share (LIRS 1 %, S3-FIFO 10 %, 2Q 25 %): refused after writing.
            #expect(try cache.setData(Data("old".utf8), forKey: "k"))
            let share = policy == .lirs ? 5_000 : policy == .s3fifo ? 20_000 : policy == .twoQueue ? 30_000 : nil
            if let share {
                #expect(try cache.setData(bytes(2, share), forKey: "k") == false, "\(policy)")
                #expect(try cache.data(forKey: "k") == nil && !cache.contains("k"), "\(policy)")
            }
            let files = try FileManager.default.contentsOfDirectory(atPath: folder.appendingPathComponent("entries").path)
            #expect(files.count == cache.count, "\(policy): no file stays for a refused entry")
            // Reopened, the refused key stays absent and what was kept is kept.
            let reopened = try DiskCache(directory: folder, policy: policy, sizeLimit: 100_000)
            #expect(try reopened.data(forKey: "other") == Data("old".utf8) && !reopened.contains("k") || share == nil, "\(policy)")
        }
    }

    @Test("the async Codable methods take a value that is not Sendable: it is encoded and decoded on the caller's thread")
    func asyncStoreOfAValueNotSendable() async throws {
        final class Settings: Codable { var volume = 7 }   // a class of mutable state: not Sendable
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let disk = try DiskCache(directory: directory)
        #expect(try await disk.setValue(Settings(), forKey: "settings"))
        let read: Settings? = try await disk.value(Settings.self, forKey: "settings")
        #expect(read?.volume == 7)
    }

    @Test("a relative directory is resolved once, at opening")
    func relativeDirectory() throws {
        let cache = try DiskCache(directory: URL(string: "relative-\(UUID().uuidString)")!)
        defer { try? FileManager.default.removeItem(at: cache.directory) }
        #expect(cache.directory.path.hasPrefix("/"))
        #expect(cache.directory.path.hasPrefix(FileManager.default.currentDirectoryPath))
    }

    @Test("concurrent stores of one key through the tiered cache leave both tiers with one value, sync and async")
    func concurrentStoresAgree() async throws {
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let disk = try DiskCache(directory: directory, durable: false)
        for round in 0..<20 {
            var cost: (@Sendable (String) -> Int)?
            if round % 2 == 1 { cost = { (value: String) -> Int in value.utf8.count } }
            let tiers = TieredCache<String>(memory: Cache(costLimit: 1 << 20, observesSystemEvents: false), disk: disk,
                                            encode: { Data($0.utf8) }, decode: { String(decoding: $0, as: UTF8.self) },
                                            memoryCost: cost)
            if round < 10 {
                DispatchQueue.concurrentPerform(iterations: 16) { i in try? tiers.setValue("v\(i)", forKey: "same") }
            } else {
                try await withThrowingTaskGroup(of: Void.self) { group in
                    for i in 0..<16 { group.addTask { try await tiers.setValue("v\(i)", forKey: "same") } }
                    try await group.waitForAll()
                }
            }
            let inMemory = tiers.memory.value(forKey: "same")
            let onDisk = try await disk.data(forKey: "same").map { String(decoding: $0, as: UTF8.self) }
            #expect(inMemory != nil && inMemory == onDisk, "round \(round): memory \(inMemory ?? "nil"), disk \(onDisk ?? "nil")")
        }
    }

    @Test("the memory tier's eviction handler may call the tiered cache again, on the same thread")
    func handlerCallsBack() throws {
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let disk = try DiskCache(directory: directory, durable: false)
        let tiers = TieredCache<Data>(memory: Cache(policy: .lru, countLimit: 4, observesSystemEvents: false), disk: disk)
        // Each memory eviction removes its key from the disk too: a store whose memory step
        // evicts then queues a removal behind its own disk write, in the same stripe for 1 in 64.
        tiers.memory.evictionHandler = { [weak tiers] key, _, _ in try? tiers?.removeValue(forKey: key) }
        let done = DispatchSemaphore(value: 0)
        let thread = Thread {
            for i in 0..<400 { try? tiers.setValue(Data([UInt8(truncatingIfNeeded: i)]), forKey: "k\(i)") }
            done.signal()
        }
        thread.start()
        #expect(done.wait(timeout: .now() + 60) == .success, "a call from the eviction handler waited for the call it was made in")
        #expect(disk.count == 4 && tiers.memory.count == 4)
        for i in 396..<400 { #expect(try disk.data(forKey: "k\(i)") == Data([UInt8(truncatingIfNeeded: i)])) }
    }

    @Test("a memory-only store takes the key's older value off the disk: it never comes back once memory lets the new one go")
    func memoryOnlyStoreReplacesTheDisksValue() throws {
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let disk = try DiskCache(directory: directory, durable: false)
        for appsCost in [false, true] {
            var cost: (@Sendable (Data) -> Int)?
            if appsCost { cost = { (data: Data) -> Int in data.count } }
            let tiers = TieredCache<Data>(memory: Cache(countLimit: 2, observesSystemEvents: false), disk: disk,
                                          encode: { $0 }, decode: { $0 }, memoryCost: cost)
            try tiers.setValue(Data("v1".utf8), forKey: "a")
            try tiers.setValue(Data("v2".utf8), forKey: "a", toDisk: false)
            #expect(try tiers.value(forKey: "a")?.value == Data("v2".utf8))
            // Memory lets v2 go (an eviction, a memory warning): v1 must not be found in its place.
            tiers.memory.handle(.memoryWarning)
            #expect(try tiers.value(forKey: "a") == nil, "app's cost: \(appsCost)")
            #expect(try disk.data(forKey: "a") == nil)
            try tiers.setValue(Data("v3".utf8), forKey: "a", toDisk: false)
            try tiers.setValue(Data("x".utf8), forKey: "x")
            try tiers.setValue(Data("y".utf8), forKey: "y")
            #expect(try tiers.value(forKey: "a") == nil)
            try tiers.removeAll()
        }
    }

    @Test("an eviction handler that reads through the tiered cache gets the disk's value without promoting it again")
    func handlerReadsBack() throws {
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let disk = try DiskCache(directory: directory, durable: false)
        let tiers = TieredCache<Data>(memory: Cache(policy: .lru, countLimit: 2, observesSystemEvents: false), disk: disk)
        for key in ["a", "b", "c"] { try disk.setData(Data(key.utf8), forKey: key) }
        // "Is it still on disk?": each promotion evicted another key, whose handler promoted it
        // back, evicting the next, until the stack overflowed.
        let found = Locked([String: Data]())
        tiers.memory.evictionHandler = { [weak tiers] key, _, _ in
            if let (value, source) = try? tiers?.value(forKey: key) {
                #expect(source == .disk)
                found.update { $0[key] = value }
            }
        }
        let done = DispatchSemaphore(value: 0)
        let thread = Thread {
            for key in ["a", "b", "c", "a", "b", "c"] { _ = try? tiers.value(forKey: key) }
            done.signal()
        }
        thread.stackSize = 1 << 20
        thread.start()
        #expect(done.wait(timeout: .now() + 60) == .success)
        #expect(found.value == ["a": Data("a".utf8), "b": Data("b".utf8), "c": Data("c".utf8)])
        #expect(tiers.memory.count == 2)
    }

    @Test("hundreds of async stores with the app's memory cost finish, however the pool runs their disk steps")
    func manyAsyncStores() async throws {
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let disk = try DiskCache(directory: directory, durable: false)
        let tiers = TieredCache<Data>(memory: Cache(policy: .lru, observesSystemEvents: false), disk: disk,
                                      encode: { $0 }, decode: { $0 }, memoryCost: { $0.count })
        // Each disk step waits for the earlier ones of its stripe; when pool threads blocked on
        // those waits, the blocks holding the earlier steps never started (500 stores: ~290 done).
        let finished = try await withThrowingTaskGroup(of: Int.self) { group in
            for t in 0..<500 { group.addTask { try await tiers.setValue(Data([UInt8(truncatingIfNeeded: t)]), forKey: t % 2 == 0 ? "same" : "k\(t % 40)"); return 1 } }
            return try await group.reduce(0, +)
        }
        #expect(finished == 500)
        let onDisk = try await disk.data(forKey: "same")
        #expect(onDisk != nil && tiers.memory.value(forKey: "same") == onDisk)
    }

    @Test("a store racing removeAll never leaves memory holding what the disk does not")
    func storeRacingRemoveAll() throws {
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let disk = try DiskCache(directory: directory, durable: false)
        let tiers = TieredCache<Data>(memory: Cache(policy: .lru, observesSystemEvents: false), disk: disk)
        var disagreements = 0
        for round in 0..<600 {
            let value = Data([UInt8(truncatingIfNeeded: round)])
            DispatchQueue.concurrentPerform(iterations: 2) { i in
                if i == 0 { try? tiers.removeAll() } else { try? tiers.setValue(value, forKey: "k") }
            }
            if let inMemory = tiers.memory.value(forKey: "k"), try disk.data(forKey: "k") != inMemory { disagreements += 1 }
        }
        #expect(disagreements == 0)
    }

    @Test("age limit on a clock the test moves, across a reopen")
    func ageLimit() throws {
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let time = ManualTime()
        time.seconds = 1_000
        let cache = try DiskCache(directory: directory, ageLimit: 60, clock: time.clock)
        try cache.setData(bytes(1, 10), forKey: "old")
        time.seconds = 1_030
        try cache.setData(bytes(2, 10), forKey: "new")
        time.seconds = 1_061
        #expect(try cache.data(forKey: "old") == nil)
        #expect(try cache.data(forKey: "new") == bytes(2, 10))
        time.seconds = 1_089
        let reopened = try DiskCache(directory: directory, ageLimit: 60, clock: time.clock)
        #expect(reopened.contains("new"))
        time.seconds = 1_091
        try reopened.removeExpired()
        #expect(reopened.count == 0)
    }

    @Test("an entry stored while the clock reads no finite time expires at once, in memory and across a reopen")
    func ageLimitOnAWrongClock() throws {
        for wrong in [Double.nan, .infinity, -.infinity] {
            let directory = temporaryDirectory()
            defer { try? FileManager.default.removeItem(at: directory) }
            let time = ManualTime()
            time.seconds = 1_000
            try DiskCache(directory: directory, ageLimit: 60, clock: time.clock).setData(bytes(1, 10), forKey: "kept")
            let cache = try DiskCache(directory: directory, ageLimit: 60, clock: time.clock)
            time.seconds = wrong
            try cache.setData(bytes(2, 10), forKey: "wrong")
            time.seconds = 1_010
            #expect(try cache.data(forKey: "wrong") == nil, "stored at \(wrong)")
            #expect(try cache.data(forKey: "kept") == bytes(1, 10))
            time.seconds = wrong
            try cache.setData(bytes(3, 10), forKey: "reopened")
            time.seconds = 1_020
            let reopened = try DiskCache(directory: directory, ageLimit: 60, clock: time.clock)
            #expect(!reopened.contains("reopened"), "stored at \(wrong), then reopened")
            #expect(reopened.contains("kept"))
            time.seconds = 1_061
            try reopened.removeExpired()
            #expect(reopened.count == 0)
        }
    }

    @Test("a missing or corrupt journal is rebuilt from the files; damaged files are never returned")
    func rebuild() throws {
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let entries = directory.appendingPathComponent("entries")
        let journal = directory.appendingPathComponent("journal")
        do {
            let cache = try DiskCache(directory: directory)
            for n in 0..<20 { try cache.setData(bytes(n, 100 + n), forKey: "key \(n)") }
        }
        try FileManager.default.removeItem(at: journal)
        var reopened = try DiskCache(directory: directory)
        #expect(reopened.count == 20 && reopened.totalSize == (0..<20).reduce(0) { $0 + 100 + $1 })
        try Data("S this is not a journal\nG\n".utf8).write(to: journal)
        reopened = try DiskCache(directory: directory)
        #expect(reopened.count == 20)
        // Damage: flip a byte in one file, cut another short, and drop a foreign file in.
        let names = try FileManager.default.contentsOfDirectory(atPath: entries.path).sorted()
        var flipped = try Data(contentsOf: entries.appendingPathComponent(names[0]))
        flipped[flipped.count - 1] ^= 0xFF
        try flipped.write(to: entries.appendingPathComponent(names[0]))
        let cut = try Data(contentsOf: entries.appendingPathComponent(names[1]))
        try cut.prefix(cut.count - 3).write(to: entries.appendingPathComponent(names[1]))
        try Data("junk".utf8).write(to: entries.appendingPathComponent("not-an-entry"))
        var found = 0
        for n in 0..<20 {
            if let data = try reopened.data(forKey: "key \(n)") {
                #expect(data == bytes(n, 100 + n))
                found += 1
            }
        }
        #expect(found == 18 && reopened.count == 18)
        try FileManager.default.removeItem(at: journal)
        reopened = try DiskCache(directory: directory)
        #expect(reopened.count == 18)
        #expect(!FileManager.default.fileExists(atPath: entries.appendingPathComponent("not-an-entry").path))
    }

    @Test("a session that only reads keeps the journal compact: gets append to it, and it is rewritten as sets would")
    func readOnlyJournalStaysBounded() throws {
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let journal = directory.appendingPathComponent("journal")
        let cache = try DiskCache(directory: directory)
        for n in 0..<10 { try cache.setData(bytes(n, 10), forKey: "k\(n)") }
        for n in 0..<20_000 { _ = try cache.data(forKey: "k\(n % 10)") }
        // At most 2 × 10 + 1,024 lines before a rewrite: well under 100 KB, not 700 KB.
        let size = try #require(try FileManager.default.attributesOfItem(atPath: journal.path)[.size] as? Int)
        #expect(size < 100_000, "journal of \(size) bytes for 10 entries")
        // The order the gets made survives the rewrite: k9 was used last, k0 … k8 before it.
        let reopened = try DiskCache(directory: directory, countLimit: 10)
        #expect(reopened.count == 10)
        try reopened.setData(bytes(99, 10), forKey: "new")
        #expect(!reopened.contains("k0") && reopened.contains("k9"))
    }

    @Test("two spellings of one key (é, and e with a combining accent) are one entry and one file")
    func canonicallyEqualKeys() throws {
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let composed = "caf\u{E9}", decomposed = "cafe\u{301}"
        #expect(composed == decomposed && Array(composed.utf8) != Array(decomposed.utf8))
        do {
            let cache = try DiskCache(directory: directory, sizeLimit: 1_500)
            try cache.setData(bytes(1, 1_000), forKey: composed)
            try cache.setData(bytes(2, 1_000), forKey: decomposed)   // replaces: within the limit
            #expect(cache.count == 1 && cache.totalSize == 1_000)
            #expect(try cache.data(forKey: composed) == bytes(2, 1_000))
            #expect(try FileManager.default.contentsOfDirectory(atPath: directory.appendingPathComponent("entries").path).count == 1)
            try cache.removeData(forKey: composed)
            #expect(cache.count == 0 && !cache.contains(decomposed))
            #expect(try FileManager.default.contentsOfDirectory(atPath: directory.appendingPathComponent("entries").path).isEmpty)
        }
        let reopened = try DiskCache(directory: directory, sizeLimit: 1_500)
        #expect(try reopened.data(forKey: composed) == nil)
        #expect(try reopened.data(forKey: decomposed) == nil)
    }

    @Test("a key that begins with a byte order mark keeps it: read back, after a reopen, and with the journal rebuilt from the files")
    func byteOrderMarkKey() throws {
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        // Foundation's UTF-8 decoding drops a leading U+FEFF: the entry's key read back from its
        // file was another key, and the first read removed the entry as foreign.
        let keys = ["\u{FEFF}logo.png", "\u{FEFF}", "logo.png", "a\u{FEFF}b"]
        do {
            let cache = try DiskCache(directory: directory)
            for (n, key) in keys.enumerated() { try cache.setData(bytes(n + 1, 100 + n), forKey: key) }
            for (n, key) in keys.enumerated() { #expect(try cache.data(forKey: key) == bytes(n + 1, 100 + n), "\(Array(key.utf8))") }
            #expect(cache.count == keys.count)
        }
        do {
            // The journal's records are trusted: none names a key it cannot read.
            let reopened = try DiskCache(directory: directory)
            #expect(reopened.count == keys.count)
            for (n, key) in keys.enumerated() { #expect(try reopened.data(forKey: key) == bytes(n + 1, 100 + n), "\(Array(key.utf8))") }
        }
        try FileManager.default.removeItem(at: directory.appendingPathComponent("journal"))
        let rebuilt = try DiskCache(directory: directory)
        #expect(rebuilt.count == keys.count)
        for (n, key) in keys.enumerated() { #expect(try rebuilt.data(forKey: key) == bytes(n + 1, 100 + n), "\(Array(key.utf8))") }
    }

    @Test("a set interrupted between its rename and its journal record: reopening reads the file's size")
    func interruptedSet() throws {
        let directory = temporaryDirectory(), other = temporaryDirectory()
        defer { for folder in [directory, other] { try? FileManager.default.removeItem(at: folder) } }
        do { try DiskCache(directory: directory, sizeLimit: 10_000).setData(bytes(1, 100), forKey: "k") }
        // The state a kill leaves after the new file's rename and before its set record: the
        // announcement in the journal, the new file in place, the old size in the set record.
        do { try DiskCache(directory: other).setData(bytes(2, 9_000), forKey: "k") }
        let file = try onlyEntryFile(directory)
        try FileManager.default.removeItem(at: file)
        try FileManager.default.copyItem(at: try onlyEntryFile(other), to: file)
        let journal = try FileHandle(forWritingTo: directory.appendingPathComponent("journal"))
        try journal.seekToEnd()
        try journal.write(contentsOf: Data("P \(file.lastPathComponent)\n".utf8))
        try journal.close()
        let reopened = try DiskCache(directory: directory, sizeLimit: 10_000)
        #expect(reopened.totalSize == 9_000 && reopened.count == 1)
        #expect(try reopened.data(forKey: "k") == bytes(2, 9_000))
        // The limit holds from there: 9,000 + 2 × 1,000 does not fit in 10,000.
        for n in 0..<2 { try reopened.setData(bytes(3 + n, 1_000), forKey: "n\(n)") }
        #expect(reopened.totalSize <= 10_000)
        let onDisk = try FileManager.default.contentsOfDirectory(atPath: directory.appendingPathComponent("entries").path).count
        #expect(onDisk == reopened.count)
    }

    @Test("a journal that lost its tail (a power cut) is not trusted for sizes the files contradict")
    func journalLostItsTail() throws {
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        do {
            let cache = try DiskCache(directory: directory, sizeLimit: 1_000)
            try cache.setData(bytes(1, 100), forKey: "a")
            try cache.setData(bytes(2, 900), forKey: "a")
        }
        // Keep the journal up to its first set record: the file holds 900 bytes, the record says 100.
        let journalURL = directory.appendingPathComponent("journal")
        let text = try String(contentsOf: journalURL, encoding: .utf8)
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        let firstSet = try #require(lines.firstIndex { $0.hasPrefix("S ") })
        try (lines[...firstSet].joined(separator: "\n") + "\n").write(to: journalURL, atomically: false, encoding: .utf8)
        let reopened = try DiskCache(directory: directory, sizeLimit: 1_000)
        #expect(reopened.totalSize == 900)
        #expect(try reopened.data(forKey: "a") == bytes(2, 900))
        try reopened.setData(bytes(3, 800), forKey: "b")
        #expect(reopened.totalSize <= 1_000 && !reopened.contains("a"))
    }

    /// A set record whose size no file can have (near `Int.max`, or any size the file
    /// contradicts) is read from the file instead, at every opening: no trap, the value intact.
    @Test("a journal whose sizes overflow is read from the files, not trusted and not a crash")
    func journalSizesOverflow() throws {
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        try DiskCache(directory: directory).setData(bytes(1, 5), forKey: "k")
        let journalURL = directory.appendingPathComponent("journal")
        for size in [Int.max, Int.max - 7, 9_223_372_036_854_775_800] {
            let text = try String(contentsOf: journalURL, encoding: .utf8)
                .replacingOccurrences(of: #"S (\S+) \d+ "#, with: "S $1 \(size) ", options: .regularExpression)
            #expect(text.contains(" \(size) "))
            try text.write(to: journalURL, atomically: true, encoding: .utf8)
            let reopened = try DiskCache(directory: directory)
            #expect(reopened.totalSize == 5)
            #expect(try reopened.data(forKey: "k") == bytes(1, 5))
        }
    }

    @Test("a folder in the journal's place is moved aside with what it holds, and the index rebuilt from the files")
    func folderAsJournal() throws {
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        do { try DiskCache(directory: directory).setData(bytes(1, 50), forKey: "k") }
        let journal = directory.appendingPathComponent("journal")
        try FileManager.default.removeItem(at: journal)
        try FileManager.default.createDirectory(at: journal.appendingPathComponent("inside"), withIntermediateDirectories: true)
        let reopened = try DiskCache(directory: directory)
        #expect(try reopened.data(forKey: "k") == bytes(1, 50) && reopened.totalSize == 50)
        var isFolder: ObjCBool = true
        #expect(FileManager.default.fileExists(atPath: journal.path, isDirectory: &isFolder) && !isFolder.boolValue)
        let aside = try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.hasPrefix("journal-folder-moved-aside-") }
        #expect(aside.count == 1 && FileManager.default.fileExists(atPath: directory.appendingPathComponent(aside[0] + "/inside").path))
    }

    @Test("a lookup that raced a newer store or a removal never leaves the older value in memory")
    func tieredLookupRacingAStore() throws {
        for removing in [false, true] {
            let directory = temporaryDirectory()
            defer { try? FileManager.default.removeItem(at: directory) }
            let decoding = DispatchSemaphore(value: 0), entered = DispatchSemaphore(value: 0)
            let slow = Locked(false)
            let tiers = TieredCache<String>(memory: Cache(costLimit: 1_000, observesSystemEvents: false),
                                            disk: try DiskCache(directory: directory),
                                            encode: { Data($0.utf8) },
                                            decode: { data in
                                                if slow.value { entered.signal(); decoding.wait() }
                                                return String(decoding: data, as: UTF8.self)
                                            },
                                            memoryCost: { $0.utf8.count })
            try tiers.setValue("v1", forKey: "r")
            tiers.memory.removeAll()
            slow.update { $0 = true }
            let reader = DispatchGroup()
            DispatchQueue.global().async(group: reader) {
                // A disk hit, decoded slowly: it read v1.
                #expect((try? tiers.value(forKey: "r"))??.value == "v1")
            }
            entered.wait()
            slow.update { $0 = false }
            if removing { try tiers.removeValue(forKey: "r") } else { try tiers.setValue("v2", forKey: "r") }
            decoding.signal()
            reader.wait()
            let after = try tiers.value(forKey: "r")
            if removing {
                #expect(after == nil && !tiers.memory.contains("r"))
            } else {
                #expect(after?.value == "v2")
            }
        }
    }

    @Test("limits of 0 or less are none, as Cache's: a policy that needs a size limit throws instead of trapping")
    func zeroLimits() throws {
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        for limit in [0, -1] {
            #expect(throws: PolicyConfigurationError.self) { try DiskCache(directory: directory, policy: .s3fifo, sizeLimit: limit) }
            let unlimited = try DiskCache(directory: directory, sizeLimit: limit, countLimit: limit)
            try unlimited.setData(bytes(1, 10), forKey: "a")
            #expect(unlimited.count == 1)
        }
    }

    /// The one entry file in `directory`'s entries folder.
    func onlyEntryFile(_ directory: URL) throws -> URL {
        let entries = directory.appendingPathComponent("entries")
        let names = try FileManager.default.contentsOfDirectory(atPath: entries.path)
        try #require(names.count == 1)
        return entries.appendingPathComponent(names[0])
    }

    @Test("the eight-lane checksum catches a changed byte in every lane, in the tail, and a torn tail of zeros",
          arguments: [0, 8, 16, 24, 32, 40, 48, 56, 64 * 1000 + 8 * 5, 1 << 20 - 70, 1 << 20 + 12])
    func checksumLanes(_ position: Int) throws {
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let value = bytes(7, 1 << 20 + 13)          // 1 MiB and a 13-byte tail past the last 64-byte round
        let cache = try DiskCache(directory: directory)
        try cache.setData(value, forKey: "image")
        #expect(try cache.data(forKey: "image") == value)
        let file = try onlyEntryFile(directory)
        let intact = try Data(contentsOf: file)
        let dataStart = intact.count - value.count
        var damaged = intact
        damaged[dataStart + position] ^= 0x01
        try damaged.write(to: file)
        #expect(try DiskCache(directory: directory).data(forKey: "image") == nil, "a flipped bit at \(position)")
        // A torn write: the length is right but the last 4 KiB never reached the disk.
        var torn = intact
        torn.replaceSubrange((torn.count - 4096)..., with: Data(count: 4096))
        try torn.write(to: file)
        #expect(try DiskCache(directory: directory).data(forKey: "image") == nil, "a zero tail")
    }

    @Test("a file in the version 1 format (one-chain checksum) written before the upgrade is still read")
    func readsVersion1() throws {
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let value = bytes(3, 5_000 + 5)
        try DiskCache(directory: directory).setData(value, forKey: "old")
        // Rewrite the file as version 1 wrote it: version byte 1 and version 1's checksum.
        func mix(_ value: UInt64) -> UInt64 {
            var x = value
            x ^= x >> 33
            x &*= 0xff51_afd7_ed55_8ccd
            x ^= x >> 33
            x &*= 0xc4ce_b9fe_1a85_ec53
            return x ^ (x >> 33)
        }
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in "old".utf8 { hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01b3 }
        var offset = 0
        while offset + 8 <= value.count {
            let word = (0..<8).reduce(UInt64(0)) { $0 | UInt64(value[offset + $1]) << (8 * $1) }
            hash = (hash ^ word) &* 0x0000_0100_0000_01b3
            hash ^= hash >> 29
            offset += 8
        }
        while offset < value.count {
            hash = (hash ^ UInt64(value[offset])) &* 0x0000_0100_0000_01b3
            offset += 1
        }
        let sum = mix(hash)
        let file = try onlyEntryFile(directory)
        var bytes = try Data(contentsOf: file)
        bytes[4] = 1
        for i in 0..<8 { bytes[17 + i] = UInt8(truncatingIfNeeded: sum >> (8 * i)) }
        try bytes.write(to: file)
        #expect(try DiskCache(directory: directory).data(forKey: "old") == value)
        bytes[bytes.count - 1] ^= 0x80
        try bytes.write(to: file)
        #expect(try DiskCache(directory: directory).data(forKey: "old") == nil)
    }

    @Test("folders deleted behind its back are made again; a folder among the entries is left alone")
    func foldersChangedOutside() throws {
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let entries = directory.appendingPathComponent("entries")
        let cache = try DiskCache(directory: directory)
        try cache.setData(bytes(1, 50), forKey: "a")
        try FileManager.default.removeItem(at: entries)
        try FileManager.default.removeItem(at: directory.appendingPathComponent("tmp"))
        #expect(try cache.data(forKey: "a") == nil)
        try cache.setData(bytes(2, 60), forKey: "b")
        #expect(try cache.data(forKey: "b") == bytes(2, 60))

        let stray = entries.appendingPathComponent("not-ours")
        try FileManager.default.createDirectory(at: stray, withIntermediateDirectories: true)
        try FileManager.default.removeItem(at: directory.appendingPathComponent("journal"))
        let reopened = try DiskCache(directory: directory)
        #expect(try reopened.data(forKey: "b") == bytes(2, 60) && reopened.count == 1)
        try reopened.removeAll()
        #expect(reopened.count == 0 && FileManager.default.fileExists(atPath: stray.path))
    }

    @Test("entries whose files went with a deleted directory are forgotten by the next write, and a removal meanwhile does not throw")
    func deletedDirectoryForgetsItsEntries() throws {
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let cache = try DiskCache(directory: directory, countLimit: 3)
        for i in 0..<3 { try cache.setData(bytes(i, 100), forKey: "k\(i)") }
        try FileManager.default.removeItem(at: directory)
        // Nothing can come back: removing needs no flush of a folder that is gone.
        try cache.removeData(forKey: "k0")
        try cache.setData(bytes(9, 100), forKey: "new")
        // Before, k1 and k2 still counted (3 entries, 300 bytes, contains true) with no file,
        // pushing real entries out under the count limit.
        #expect(cache.count == 1 && cache.totalSize == 100 && !cache.contains("k2") && cache.contains("new"))
        for i in 0..<2 { try cache.setData(bytes(i, 100), forKey: "more\(i)") }
        #expect(cache.count == 3 && cache.contains("new"), "three real entries fit the count limit of 3")
        let reopened = try DiskCache(directory: directory, countLimit: 3)
        #expect(reopened.count == 3 && reopened.totalSize == 300)
    }

    @Test("a directory deleted behind its back is made again with its lock and journal: no other process can take it meanwhile")
    func directoryDeletedOutside() throws {
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let cache = try DiskCache(directory: directory)
        try cache.setData(bytes(1, 50), forKey: "a")
        try FileManager.default.removeItem(at: directory)
        #expect(try cache.data(forKey: "a") == nil)
        try cache.setData(bytes(2, 60), forKey: "b")
        #expect(try cache.data(forKey: "b") == bytes(2, 60))
        #expect(!lockIsFree(directory), "the new lock file is held, as the deleted one was")
        #expect(FileManager.default.fileExists(atPath: directory.appendingPathComponent("journal").path))
        try cache.setData(bytes(3, 70), forKey: "c")
        let reopened = try DiskCache(directory: directory)
        #expect(try reopened.data(forKey: "b") == bytes(2, 60) && reopened.data(forKey: "c") == bytes(3, 70))
        #expect(reopened.count == 2 && !reopened.contains("a"))

        // Another process took the remade directory first: the write is refused and stores nothing.
        let other = temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: other) }
        let refused = try DiskCache(directory: other)
        try refused.setData(bytes(4, 10), forKey: "d")
        try FileManager.default.removeItem(at: other)
        try FileManager.default.createDirectory(at: other, withIntermediateDirectories: true)
        let holder = open(other.appendingPathComponent("lock").path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        defer { close(holder) }
        #expect(flock(holder, LOCK_EX | LOCK_NB) == 0)
        do {
            try refused.setData(bytes(5, 10), forKey: "e")
            Issue.record("a write into a directory another process locked was not refused")
        } catch let error as DiskCacheError {
            #expect(error.code == EWOULDBLOCK)
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: other.appendingPathComponent("entries").path).isEmpty)
    }

    @Test("a folder in an entry file's place, or among the temporary files, is left alone: the cache opens and the other entries stay")
    func folderInAnEntrysPlace() throws {
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let cache = try DiskCache(directory: directory)
        try cache.setData(bytes(1, 50), forKey: "a")
        let fileOfA = try onlyEntryFile(directory)
        try cache.setData(bytes(2, 60), forKey: "b")
        try FileManager.default.removeItem(at: fileOfA)
        try FileManager.default.createDirectory(at: fileOfA, withIntermediateDirectories: false)
        let strayTemporary = directory.appendingPathComponent("tmp/not-ours")
        try FileManager.default.createDirectory(at: strayTemporary, withIntermediateDirectories: true)
        // The open cache: the folder is no value, and removing the key leaves it be.
        #expect(try cache.data(forKey: "a") == nil)
        #expect(try cache.data(forKey: "b") == bytes(2, 60))
        try cache.removeData(forKey: "a")
        // Relaunched, with the journal still listing "a" and without a journal.
        try cache.setData(bytes(1, 50), forKey: "a-again")
        for dropJournal in [false, true] {
            if dropJournal { try FileManager.default.removeItem(at: directory.appendingPathComponent("journal")) }
            let reopened = try DiskCache(directory: directory)
            #expect(try reopened.data(forKey: "a") == nil)
            #expect(try reopened.data(forKey: "b") == bytes(2, 60) && reopened.count == 2)
            try reopened.removeData(forKey: "a")
        }
        #expect(FileManager.default.fileExists(atPath: fileOfA.path) && FileManager.default.fileExists(atPath: strayTemporary.path))
    }

    @Test("a FIFO, a symbolic-link loop or a link in an entry's place: reads and opening neither hang nor fail, and the file goes")
    func strangeFilesAmongTheEntries() throws {
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let done = DispatchSemaphore(value: 0)
        let outcome = AppEvictionLog<String>()
        let thread = Thread {
            do {
                let cache = try DiskCache(directory: directory)
                try cache.setData(self.bytes(1, 50), forKey: "fifo")
                let fileOfFIFO = try self.onlyEntryFile(directory)
                try cache.setData(self.bytes(2, 60), forKey: "b")
                try FileManager.default.removeItem(at: fileOfFIFO)
                guard mkfifo(fileOfFIFO.path, 0o644) == 0 else { outcome.append("mkfifo failed", .event); done.signal(); return }
                outcome.append("read \(try cache.data(forKey: "fifo") == nil)", .event)
                outcome.append("gone \(!FileManager.default.fileExists(atPath: fileOfFIFO.path))", .event)
                // Strange files under entry names, found by an opening.
                let entries = directory.appendingPathComponent("entries")
                try FileManager.default.createSymbolicLink(atPath: entries.path + "/0123456789abcdef0123456789abcdef",
                                                           withDestinationPath: "0123456789abcdef0123456789abcdef")
                try FileManager.default.createSymbolicLink(atPath: entries.path + "/fedcba9876543210fedcba9876543210",
                                                           withDestinationPath: "/etc/hostname")
                _ = mkfifo(entries.path + "/00112233445566778899aabbccddeeff", 0o644)
                let reopened = try DiskCache(directory: directory)
                outcome.append("reopened \(try reopened.data(forKey: "b") == self.bytes(2, 60) && reopened.count == 1)", .event)
                outcome.append("left \(try FileManager.default.contentsOfDirectory(atPath: entries.path).count)", .event)
            } catch {
                outcome.append("error \(error)", .event)
            }
            done.signal()
        }
        thread.start()
        #expect(done.wait(timeout: .now() + 20) == .success, "a read or an opening waited on a FIFO")
        #expect(outcome.keys == ["read true", "gone true", "reopened true", "left 1"], "\(outcome.keys)")
        // The link's target is untouched.
        #expect(FileManager.default.fileExists(atPath: "/etc/hostname") || !FileManager.default.fileExists(atPath: "/etc"))
    }

    /// Lifts the immutable flag a test set on `directory`, then removes it.
    func thawAndRemove(_ directory: URL) {
        _ = chattr("-i", directory.path)
        try? FileManager.default.removeItem(at: directory)
    }

    /// Runs `chattr` on `path`; `false` where it cannot (not root, a file system without the flag).
    func chattr(_ flag: String, _ path: String) -> Bool {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/chattr")
        process.arguments = [flag, path]
        process.standardError = FileHandle.nullDevice
        guard (try? process.run()) != nil else { return false }
        process.waitUntilExit()
        return process.terminationStatus == 0
    }

    @Test("files that cannot be deleted (immutable) do not stop the other evictions or fail the set; they go at a later write")
    func undeletableFiles() throws {
        let directory = temporaryDirectory()
        let cache = try DiskCache(directory: directory, sizeLimit: 30)
        try cache.setData(bytes(0, 10), forKey: "a0")
        let stuck = try onlyEntryFile(directory)
        defer {
            _ = chattr("-i", stuck.path)
            try? FileManager.default.removeItem(at: directory)
        }
        try cache.setData(bytes(1, 10), forKey: "a1")
        try cache.setData(bytes(2, 10), forKey: "a2")
        guard chattr("+i", stuck.path) else { return }   // no immutable flag here: nothing to check
        let entries = directory.appendingPathComponent("entries").path
        // The set evicts all three; a0's file stays, the others go, and the set stands.
        try cache.setData(bytes(3, 30), forKey: "big")
        #expect(try cache.data(forKey: "big") == bytes(3, 30) && cache.count == 1 && cache.totalSize == 30)
        #expect(try FileManager.default.contentsOfDirectory(atPath: entries).count == 2)
        try cache.setData(bytes(4, 5), forKey: "small")
        _ = chattr("-i", stuck.path)
        try cache.setData(bytes(5, 5), forKey: "other")
        #expect(try FileManager.default.contentsOfDirectory(atPath: entries).count == cache.count, "the stuck file goes at the next write")
    }

    @Test("a file that could not be deleted (cleared, removed or evicted) is no entry after a relaunch with no write between",
          arguments: ["removeAll", "removeData", "evict", "removeAll, then a set that fails", "removeData, then a set that fails"])
    func undeletedFilesStayGone(how: String) throws {
        let directory = temporaryDirectory()
        var cache: DiskCache? = try DiskCache(directory: directory, sizeLimit: 30)
        try cache?.setData(Data("secret".utf8), forKey: "a")
        let stuck = try onlyEntryFile(directory)
        defer {
            _ = chattr("-i", stuck.path)
            try? FileManager.default.removeItem(at: directory)
        }
        guard chattr("+i", stuck.path) else { return }   // no immutable flag here: nothing to check
        switch how {
        case "removeAll", "removeAll, then a set that fails": #expect(throws: DiskCacheError.self) { try cache?.removeAll() }
        case "removeData", "removeData, then a set that fails": #expect(throws: DiskCacheError.self) { try cache?.removeData(forKey: "a") }
        default: try cache?.setData(bytes(1, 30), forKey: "big")   // evicts "a", whose file stays
        }
        if how.hasSuffix("a set that fails") {
            // The set announces the file in the journal, then cannot rename over the immutable
            // one: the announcement must not make the next opening take the old file back.
            #expect(throws: DiskCacheError.self) { try cache?.setData(Data("new".utf8), forKey: "a") }
            #expect(try cache?.data(forKey: "a") == nil)
        }
        #expect(cache?.contains("a") == false)
        cache = nil
        // Still undeletable at the next opening: not taken for an entry, and deleted once it can be.
        var reopened = try DiskCache(directory: directory, sizeLimit: 30)
        #expect(try reopened.data(forKey: "a") == nil && !reopened.contains("a"), "\(how)")
        _ = chattr("-i", stuck.path)
        reopened = try DiskCache(directory: directory, sizeLimit: 30)
        #expect(try reopened.data(forKey: "a") == nil && !FileManager.default.fileExists(atPath: stuck.path), "\(how)")
        #expect(reopened.count == (how == "evict" ? 1 : 0))
    }

    @Test("a journal that cannot be written: reads still answer, a set throws and stores nothing, and no temporary file is left; the tiered cache takes its memory copy back")
    func unwritableJournal() throws {
        let directory = temporaryDirectory()
        let journal = directory.appendingPathComponent("journal").path
        defer {
            _ = chattr("-i", journal)
            try? FileManager.default.removeItem(at: directory)
        }
        try DiskCache(directory: directory).setData(bytes(1, 40), forKey: "k")
        // Frozen between launches: the next instance cannot open it for writing.
        guard chattr("+i", journal) else { return }
        let disk = try DiskCache(directory: directory)
        let tiers = TieredCache<Data>(memory: Cache(costLimit: 1 << 20, observesSystemEvents: false), disk: disk)
        for _ in 0..<50 { #expect(try disk.data(forKey: "k") == bytes(1, 40)) }
        #expect(throws: DiskCacheError.self) { try disk.setData(self.bytes(2, 40), forKey: "k") }
        #expect(try disk.data(forKey: "k") == bytes(1, 40))
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.appendingPathComponent("tmp").path).isEmpty)
        #expect(throws: DiskCacheError.self) { try tiers.setValue(self.bytes(3, 40), forKey: "k") }
        #expect(try tiers.value(forKey: "k")?.value == bytes(1, 40))
    }

    @Test("a torn journal that cannot be rewritten (its folder frozen) is retried as the journal doubles, not at every write")
    func tornJournalRewriteBacksOff() throws {
        let directory = temporaryDirectory()
        defer { thawAndRemove(directory) }
        do {
            let disk = try DiskCache(directory: directory)
            for i in 0..<200 { try disk.setData(bytes(i, 16), forKey: "k\(i)") }
        }
        // A crash mid-line, then a folder where no new journal can be renamed into place.
        let journal = try FileHandle(forWritingTo: directory.appendingPathComponent("journal"))
        try journal.seekToEnd()
        try journal.write(contentsOf: Data("S torn".utf8))
        try journal.close()
        guard chattr("+i", directory.path) else { return }   // no immutable flag here: nothing to check
        let disk = try DiskCache(directory: directory)
        for i in 0..<300 { try disk.setData(bytes(7, 16), forKey: "n\(i)") }
        #expect(disk._compactionAttempts <= 2, "\(disk._compactionAttempts) rewrites of a 200-entry journal for 300 writes")
        #expect(disk.count == 500)
        #expect(try disk.data(forKey: "k5") == bytes(5, 16))
    }

    @Test("a set whose file is renamed into place but whose folder cannot be flushed: stored and counted, and the error says so")
    func folderFlushFailsAfterTheRename() throws {
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let disk = try DiskCache(directory: directory)
        try disk.setData(bytes(1, 40), forKey: "k")
        disk._directorySyncFault = EIO
        #expect(throws: DiskCacheError.self) { try disk.setData(self.bytes(2, 50), forKey: "k") }
        #expect(throws: DiskCacheError.self) { try disk.setData(self.bytes(3, 60), forKey: "new") }
        // What is on the disk is what the cache reports: both values, counted against the limits.
        #expect(try disk.data(forKey: "k") == bytes(2, 50) && disk.data(forKey: "new") == bytes(3, 60))
        #expect(disk.count == 2 && disk.totalSize == 110)
        disk._directorySyncFault = nil
        let reopened = try DiskCache(directory: directory)
        #expect(try reopened.data(forKey: "k") == bytes(2, 50) && reopened.data(forKey: "new") == bytes(3, 60))
        #expect(reopened.count == 2 && reopened.totalSize == 110)
    }

    @Test("a removal is flushed to the disk when durable: a failed flush throws, and the entry is removed all the same")
    func removalsAreFlushed() throws {
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        do {
            let disk = try DiskCache(directory: directory)
            for key in ["a", "b", "c"] { try disk.setData(bytes(1, 40), forKey: key) }
            disk._directorySyncFault = EIO
            #expect(throws: DiskCacheError.self) { try disk.removeData(forKey: "a") }
            #expect(try disk.data(forKey: "a") == nil && disk.count == 2 && disk.totalSize == 80)
            #expect(throws: DiskCacheError.self) { try disk.removeAll() }
            #expect(disk.count == 0 && disk.totalSize == 0)
            disk._directorySyncFault = nil
        }
        #expect(try DiskCache(directory: directory).count == 0)
        // Not durable: nothing is flushed, so the same fault is never met.
        let quick = try DiskCache(directory: directory, durable: false)
        try quick.setData(bytes(2, 40), forKey: "d")
        quick._directorySyncFault = EIO
        try quick.removeData(forKey: "d")
        try quick.removeAll()
        #expect(quick.count == 0)
    }

    @Test("a clock set back between launches: an entry is taken as stored at the opening, so the age limit still ends it")
    func clockSetBack() throws {
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let time = ManualTime()
        time.seconds = 1_000_000
        try DiskCache(directory: directory, ageLimit: 60, clock: time.clock).setData(bytes(1, 10), forKey: "k")
        time.seconds = 500_000
        let reopened = try DiskCache(directory: directory, ageLimit: 60, clock: time.clock)
        #expect(try reopened.data(forKey: "k") == bytes(1, 10))
        time.seconds = 500_061
        #expect(try reopened.data(forKey: "k") == nil)
    }

    @Test("a policy that cannot take the limits throws from DiskCache's initializer, LIRS below 3 bytes included")
    func limitsThePolicyRefuses() throws {
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        for limit in [1, 2] {
            #expect(throws: PolicyConfigurationError.self) { try DiskCache(directory: directory, policy: .lirs, sizeLimit: limit) }
        }
        #expect(throws: PolicyConfigurationError.self) { try DiskCache(directory: directory, policy: .arc, sizeLimit: 100, countLimit: 2) }
        let smallest = try DiskCache(directory: directory, policy: .lirs, sizeLimit: 3)
        try smallest.setData(Data([7]), forKey: "a")
        #expect(smallest.count == 1)
    }

    @Test("an index rebuilt from the files keeps their age on a replaced clock")
    func rebuiltAgesOnAReplacedClock() throws {
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let time = ManualTime()
        time.seconds = 1_000
        do {
            let cache = try DiskCache(directory: directory, ageLimit: 50, clock: time.clock)
            try cache.setData(bytes(1, 10), forKey: "old")
            try cache.setData(bytes(2, 10), forKey: "new")
        }
        // The journal is lost; the files say "old" was written 100 s ago, "new" just now.
        let entries = directory.appendingPathComponent("entries")
        let names = try FileManager.default.contentsOfDirectory(atPath: entries.path)
        let old = try #require(names.first { name in
            (try? Data(contentsOf: entries.appendingPathComponent(name)))?.range(of: Data("old".utf8)) != nil
        })
        try FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSinceNow: -100)],
                                              ofItemAtPath: entries.appendingPathComponent(old).path)
        try FileManager.default.removeItem(at: directory.appendingPathComponent("journal"))
        let reopened = try DiskCache(directory: directory, ageLimit: 50, clock: time.clock)
        #expect(try reopened.data(forKey: "old") == nil)
        #expect(try reopened.data(forKey: "new") == bytes(2, 10))
    }

    @Test("async and Codable forms")
    func asyncAndCodable() async throws {
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        struct Profile: Codable, Equatable, Sendable { var name: String; var age: Int }
        let cache = try DiskCache(directory: directory)
        try await cache.setData(bytes(1, 64), forKey: "a")
        #expect(try await cache.data(forKey: "a") == bytes(1, 64))
        try await cache.setValue(Profile(name: "Ada", age: 36), forKey: "profile")
        #expect(try await cache.value(Profile.self, forKey: "profile") == Profile(name: "Ada", age: 36))
        try await cache.removeData(forKey: "a")
        #expect(try await cache.data(forKey: "a") == nil)
    }

    @Test("memory in front of disk: reports memory, disk or none and promotes disk hits")
    func tiers() throws {
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let memory = Cache<String, Data>(countLimit: 2, observesSystemEvents: false)
        let tiers = TieredCache(memory: memory, disk: try DiskCache(directory: directory))
        for n in 0..<3 { try tiers.setValue(bytes(n, 10), forKey: "k\(n)") }
        #expect(try tiers.value(forKey: "k2")?.source == .memory)
        #expect(try tiers.value(forKey: "k0")?.source == .disk)      // evicted from memory, on disk
        #expect(try tiers.value(forKey: "k0")?.source == .memory)    // promoted
        #expect(try tiers.value(forKey: "none") == nil)
        try tiers.removeValue(forKey: "k0")
        #expect(try tiers.value(forKey: "k0") == nil)
        memory.handle(.memoryWarning)
        let relaunched = TieredCache(memory: Cache<String, Data>(observesSystemEvents: false),
                                            disk: try DiskCache(directory: directory))
        #expect(try relaunched.value(forKey: "k1")?.value == bytes(1, 10))
    }

    @Test("a memory-only set costs the encoded size by default, as a set to both tiers does, so the memory limit holds")
    func memoryOnlySetCost() throws {
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let memory = Cache<String, Data>(costLimit: 1_000, observesSystemEvents: false)
        let tiers = TieredCache(memory: memory, disk: try DiskCache(directory: directory))
        for n in 0..<200 { try tiers.setValue(bytes(n, 100), forKey: "k\(n)", toDisk: false) }
        #expect(memory.count == 10 && memory.totalCost == 1_000)
        #expect(tiers.disk.count == 0)
        // The app's own cost still decides when it gives one.
        let counted = Cache<String, Data>(costLimit: 1_000, observesSystemEvents: false)
        let ownCost = TieredCache(memory: counted, disk: try DiskCache(directory: directory), encode: { $0 }, decode: { $0 },
                                  memoryCost: { _ in 250 })
        for n in 0..<10 { try ownCost.setValue(bytes(n, 100), forKey: "k\(n)", toDisk: false) }
        #expect(counted.count == 4 && counted.totalCost == 1_000)
    }

    @Test("async set with the app's memory cost: memory holds the value before the disk write ends")
    func asyncSetReachesMemoryAtOnce() async throws {
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let encoding = DispatchSemaphore(value: 0)
        let tiers = TieredCache<Data>(memory: Cache(costLimit: 1 << 20, observesSystemEvents: false),
                                      disk: try DiskCache(directory: directory),
                                      encode: { data in encoding.wait(); return data }, decode: { $0 },
                                      memoryCost: { $0.count })
        let write = Task { try await tiers.setValue(bytes(7, 100), forKey: "k") }
        // The encoder is still blocked: the value is in memory, not yet on disk.
        for _ in 0..<1_000 where !tiers.memory.contains("k") { try await Task.sleep(nanoseconds: 1_000_000) }
        #expect(tiers.memory["k"] == bytes(7, 100))
        #expect(try await tiers.disk.data(forKey: "k") == nil)
        encoding.signal()
        try await write.value
        #expect(try await tiers.disk.data(forKey: "k") == bytes(7, 100))
        #expect(try await tiers.value(forKey: "k")?.source == .memory)
    }

    @Test("a value that cannot be encoded is stored in neither tier, by the synchronous and the async set alike", arguments: [false, true])
    func encodingFailureStoresNothing(appCost: Bool) async throws {
        struct Refused: Error {}
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let encode: @Sendable (String) throws -> Data = { text in
            guard text != "bad" else { throw Refused() }
            return Data(text.utf8)
        }
        let decode: @Sendable (Data) throws -> String = { String(decoding: $0, as: UTF8.self) }
        let memory = Cache<String, String>(costLimit: 1 << 20, observesSystemEvents: false)
        let disk = try DiskCache(directory: directory)
        let tiers = appCost
            ? TieredCache<String>(memory: memory, disk: disk, encode: encode, decode: decode, memoryCost: { $0.utf8.count })
            : TieredCache<String>(memory: memory, disk: disk, encode: encode, decode: decode)
        // `toDisk:` names the synchronous set (an async context would pick the async one).
        try tiers.setValue("good", forKey: "g", toDisk: true)
        #expect(throws: Refused.self) { try tiers.setValue("bad", forKey: "s", toDisk: true) }
        await #expect(throws: Refused.self) { try await tiers.setValue("bad", forKey: "a") }
        for key in ["s", "a"] {
            let onDisk = try await disk.data(forKey: key)
            #expect(!tiers.memory.contains(key) && onDisk == nil, "\(key)")
            #expect(try await tiers.value(forKey: key) == nil)
        }
        #expect(try await tiers.value(forKey: "g")?.value == "good")
    }

    @Test("a store that fails takes back its own memory copy, not that of a later store of the key", arguments: [false, true])
    func failedStoreKeepsALaterOne(laterToDisk: Bool) async throws {
        struct Refused: Error {}
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let encoding = DispatchSemaphore(value: 0)
        let encode: @Sendable (String) throws -> Data = { text in
            guard text == "bad" else { return Data(text.utf8) }
            encoding.wait()
            throw Refused()
        }
        let tiers = TieredCache<String>(memory: Cache(costLimit: 1 << 20, observesSystemEvents: false),
                                        disk: try DiskCache(directory: directory), encode: encode,
                                        decode: { String(decoding: $0, as: UTF8.self) }, memoryCost: { _ in 1 })
        // The async store's memory step is done, its encoding waits: then a later store of the
        // key begins (its disk step queues behind), and only then does the encoding fail.
        let failing = Task { try await tiers.setValue("bad", forKey: "k") }
        for _ in 0..<1_000 where tiers.memory["k"] != "bad" { try await Task.sleep(nanoseconds: 1_000_000) }
        let later = Thread { try? tiers.setValue("good", forKey: "k", toDisk: laterToDisk) }
        later.start()
        for _ in 0..<1_000 where tiers.memory["k"] != "good" { try await Task.sleep(nanoseconds: 1_000_000) }
        encoding.signal()
        await #expect(throws: Refused.self) { try await failing.value }
        for _ in 0..<1_000 where !later.isFinished { try await Task.sleep(nanoseconds: 1_000_000) }
        // The later store's value stays in memory (before, the failure removed it, and a
        // memory-only store had removed the disk's copy: the value was lost from both tiers).
        let found = try await tiers.value(forKey: "k")
        #expect(found?.value == "good" && found?.source == .memory, "\(String(describing: found))")
        #expect(try await tiers.disk.data(forKey: "k") == (laterToDisk ? Data("good".utf8) : nil))
    }

    @Test("eight threads read and write one disk cache")
    func threads() throws {
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let cache = try DiskCache(directory: directory, sizeLimit: 20_000, durable: false)
        DispatchQueue.concurrentPerform(iterations: 8) { thread in
            for i in 0..<60 {
                let n = (thread * 7 + i) % 40
                do {
                    if let data = try cache.data(forKey: "k\(n)") { precondition(data == bytes(n, 500 + n)) } else {
                        try cache.setData(bytes(n, 500 + n), forKey: "k\(n)")
                    }
                    if i % 9 == 0 { try cache.removeData(forKey: "k\((n + 1) % 40)") }
                } catch {
                    Issue.record("\(error)")
                }
            }
        }
        #expect(cache.totalSize <= 20_000)
        let files = try FileManager.default.contentsOfDirectory(atPath: directory.appendingPathComponent("entries").path)
        #expect(files.count == cache.count)
    }
}

@Suite("Parent paths, as NSString's deletingLastPathComponent but safe on one character")
struct ParentPathTests {
    @Test("vectors")
    func vectors() {
        let cases: [(String, String)] = [
            ("S", ""), (".", ""), ("ab", ""), ("a/b", "a"), ("q/run1", "q"), ("/tmp/x.tiff", "/tmp"), ("/tmp/lock/", "/tmp"),
            ("/tmp/", "/"), ("/", "/"), ("/a", "/"), ("a//b", "a"), ("./a", "."), ("a/b/", "a"), ("", ""), ("é/ü", "é"),
        ]
        for (path, parent) in cases { #expect(_parentPath(path) == parent, "\(path)") }
    }
}
