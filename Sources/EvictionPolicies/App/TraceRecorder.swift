import Foundation
#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Writes what an app does with its caches as a CSV trace that `cachebench replay` reads
/// (`timestamp,key,size,op`), so the app's own workload can be replayed against every policy.
///
/// Wrap a cache with ``RecordingCache``, ``RecordingDiskCache`` or ``RecordingTieredCache``
/// and use the wrapper instead; each call is passed on and recorded. Call ``finish()`` to close
/// the trace: it is written beside its destination and renamed into place then, so a trace is
/// either whole or absent. The wrappers go on serving the app after that; what they do then is
/// not recorded (the trace is closed). Nor is anything once a write has failed (a full disk): the
/// trace is lost, the recorder lets go of what it held, and ``finish()`` throws that error.
///
/// Rows follow the replay's cache-aside reading of a trace: a `get` that misses inserts. So a get
/// that misses is held until the app stores the key (the usual pattern: miss, load, store) and is
/// written then, as one `get` row with the stored size; the store itself is not written, because
/// the replayed get already inserted. Stores without a preceding miss are `set` rows, removals
/// `delete`, and memory warnings and background transitions are events. A miss the app never
/// follows with a store (a lookup of something that does not exist) is written with the size last
/// stored under the key, unless the key was removed since (then 1): at ``finish()``, or once more
/// than 4,096 misses await their store, when the older half of them are written (so a long
/// session holds a bounded number; a store that comes after its miss was written is then a `set`
/// row). Sizes are remembered for the last 65,536 keys stored or so: when more are remembered,
/// only those of misses awaiting their store are kept. A miss
/// of a key whose earlier miss still awaits its store (two threads that miss one key at once) is
/// not written: replayed one after the other, it would hit where the app missed. The trace then
/// holds one request fewer for each such miss (6 in 40,000 from four threads, measured), and
/// its replay the app's hits.
///
/// `String` keys are written so that the replay tells apart exactly the keys Swift tells apart: as they
/// are, in Unicode's canonical composition (two spellings of "é" are one `String` and one key);
/// except that a key the replay would read as another (`007` and ` 7` are the number 7 there,
/// spaces around a field are dropped, an empty key is an error, a line feed or NUL byte cannot
/// be in a row) is written as `~` and the hex of its UTF-8 bytes, as is a key that starts with `~`. With `hashingKeys`, every key is
/// written as a 64-bit keyed hash of those bytes instead (the key stays distinct within the
/// trace, but its text does not leave the device).
public final class TraceRecorder: @unchecked Sendable {
    private let lock = _Lock()
    private let destination: URL
    private let partial: URL
    private let descriptor: Int32
    private let clock: CacheClock
    private let start: Double
    private let hashSeed: UInt64?
    private var buffer = ""
    private var pendingMisses: [String: Double] = [:]
    private var lastTime = 0.0
    private var lastSize: [String: Int] = [:]
    private var failure: Error?
    private var finished = false
    /// The most misses awaiting their store; beyond, the older half is written.
    private static let pendingMissLimit = 4_096
    /// The most keys whose last stored size is remembered; beyond, only those of pending misses stay.
    private static let rememberedSizeLimit = 65_536

    /// Starts a trace that ``finish()`` writes to `url`.
    ///
    /// - Parameters:
    ///   - url: the file the trace is written to, atomically, by ``finish()``.
    ///   - clock: the time of each row; the trace starts at 0.
    ///   - salt: (`hashingKeys:`) write each key as a keyed 64-bit hash instead of its text; the key
    ///     (any value) is the salt, so two traces recorded with the same salt name keys alike.
    public init(url: URL, clock: CacheClock = .system, hashingKeys salt: UInt64? = nil) throws {
        destination = url
        partial = url.deletingLastPathComponent().appendingPathComponent("." + url.lastPathComponent + ".partial")
        descriptor = open(partial.path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw DiskCacheError(path: partial.path, operation: "open", code: errno) }
        self.clock = clock
        start = clock.now()
        hashSeed = salt
        buffer = "timestamp,key,size,op\n"
    }

    deinit {
        // Released without finish(): the trace was never written, and its partial file goes too.
        if !finished {
            close(descriptor)
            unlink(partial.path)
        }
        lock.deallocate()
    }

    /// Records a lookup and whether it hit; `size` is the value's cost when it did (`nil`: the
    /// size last stored under the key).
    public func recordGet(_ key: String, hit: Bool, size: Int? = nil) {
        lock.withLock {
            guard isRecording else { return }
            if hit {
                let size = size ?? lastSize[key] ?? 1
                lastSize[key] = size
                row(now(), key, size, "get")
            } else if pendingMisses[key] == nil {
                pendingMisses[key] = now()
                if pendingMisses.count > Self.pendingMissLimit { flushOldestMisses(pendingMisses.count / 2) }
            }
        }
    }

    /// Records a store of `size` bytes (or cost units).
    public func recordSet(_ key: String, size: Int) {
        lock.withLock {
            guard isRecording else { return }
            lastSize[key] = size
            if lastSize.count > Self.rememberedSizeLimit { lastSize = lastSize.filter { pendingMisses[$0.key] != nil } }
            if let time = pendingMisses.removeValue(forKey: key) {
                row(time, key, size, "get")
            } else {
                row(now(), key, size, "set")
            }
        }
    }

    /// Records a removal.
    public func recordDelete(_ key: String) {
        lock.withLock {
            guard isRecording else { return }
            flushMiss(key)
            // A deleted key's size is not needed again (a later hit follows a set), and kept, it
            // grew with every key the session ever deleted.
            lastSize[key] = nil
            row(now(), key, 0, "delete")
        }
    }

    /// Records a memory warning or a background transition.
    public func recordEvent(_ event: CacheEvent) { recordKeyless(event.rawValue) }

    /// Records a `tick` row, which is no request: the moment a cache's clock
    /// started, from which a replay's library model runs its timers, as the cache's did.
    public func recordTick() { recordKeyless("tick") }

    /// A row of `op` with no key and no size, now.
    private func recordKeyless(_ op: String) {
        lock.withLock {
            guard isRecording else { return }
            buffer += "\(format(now())),,,\(op)\n"
            flushIfLarge()
        }
    }

    /// Writes the rest of the trace and moves it into place.
    ///
    /// - Throws: the first error writing the trace met, at this call and any later one.
    public func finish() throws {
        try lock.withLock {
            // A second call says again that the trace was lost, rather than seem to succeed.
            guard !finished else { if let failure { throw failure }; return }
            finished = true
            flushOldestMisses(pendingMisses.count)
            recordFailure { try write() }
            if failure == nil, !_POSIX.flushToDisk(descriptor) { failure = DiskCacheError(path: partial.path, operation: "fsync", code: errno) }
            if close(descriptor) != 0, failure == nil { failure = DiskCacheError(path: partial.path, operation: "close", code: errno) }
            if let failure {
                unlink(partial.path)
                throw failure
            }
            // rename(2) replaces an existing trace atomically.
            do { try _POSIX.commit(partial.path, to: destination.path, syncDirectory: true) } catch {
                failure = error
                throw error
            }
        }
    }

    // MARK: Internals (called with the lock held)

    /// The bytes written but not yet flushed, for tests.
    var _bufferedByteCount: Int { lock.withLock { buffer.utf8.count } }

    /// Whether calls are still recorded: not after ``finish()``, nor after a write failed (a
    /// full disk). The trace is then lost (``finish()`` throws), so nothing more is kept: kept,
    /// the rows grew the buffer without bound, and each one tried to write it all again.
    private var isRecording: Bool { !finished && failure == nil }

    /// The row time: seconds since the start, never going back, and the last one again when the
    /// clock reads no finite time after the start (an app's clock gone wrong: NaN, ±∞, earlier),
    /// so that every row's time is a number the replay reads and the rows stay in order.
    private func now() -> Double {
        let time = clock.now() - start
        if time.isFinite && time > lastTime { lastTime = time }
        return lastTime
    }

    private func format(_ time: Double) -> String { String(format: "%.6f", time) }

    /// The number of misses awaiting their store and of remembered sizes, for tests.
    var _heldCounts: (pendingMisses: Int, sizes: Int) { lock.withLock { (pendingMisses.count, lastSize.count) } }

    /// Writes the `count` oldest pending misses, oldest first (ties in key order, so that a trace
    /// does not depend on the dictionary's order). O(n log n) in the pending misses, once per
    /// n / 2 misses.
    private func flushOldestMisses(_ count: Int) {
        let oldest = pendingMisses.sorted { ($0.value, $0.key) < ($1.value, $1.key) }.prefix(count)
        for (key, _) in oldest { flushMiss(key) }
    }

    private func flushMiss(_ key: String) {
        guard let time = pendingMisses.removeValue(forKey: key) else { return }
        row(time, key, lastSize[key] ?? 1, "get")
    }

    /// One row. A size of 0 is written as 1: the replay skips rows of size 0 (replay traces of
    /// caches whose costs are all 0 with `--ignore-size`). A size above 2^53 is written as 2^53,
    /// the most a cost counts for (``CacheLimits/clampedCost(_:)``) and the most a trace's size
    /// may be.
    private func row(_ time: Double, _ key: String, _ size: Int, _ op: String) {
        buffer += "\(format(time)),\(field(key)),\(max(CacheLimits.clampedCost(size), 1)),\(op)\n"
        flushIfLarge()
    }

    /// Writes the buffer out once it holds 64 KiB; the first error is kept for ``finish()``.
    private func flushIfLarge() {
        if buffer.utf8.count > 1 << 16 { recordFailure { try write() } }
    }

    private func recordFailure(_ body: () throws -> Void) {
        do { try body() } catch {
            if failure == nil { failure = error }
            buffer = ""
            pendingMisses = [:]
            lastSize = [:]
        }
    }

    private func write() throws {
        guard !buffer.isEmpty else { return }
        try _POSIX.writeAll(Array(buffer.utf8), to: descriptor, path: partial.path)
        buffer = ""
    }

    /// The key as a CSV field: its keyed hash, its text (quoted when it needs to be), or `~` and
    /// its hex when the replay would read its text as another key (see the type's documentation).
    private func field(_ key: String) -> String {
        let key = DiskCache.canonical(key)
        if let hashSeed {
            var hash = hashSeed ^ 0xcbf2_9ce4_8422_2325
            for byte in key.utf8 { hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01b3 }
            return String(_mix64(hash))
        }
        if Self.replayReadsAsAnother(key) {
            return "~" + key.utf8.map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined()
        }
        // Bytes, not characters: a comma or quote followed by a combining mark is one Character
        // that equals neither, but the replay splits and unquotes bytes.
        guard key.utf8.contains(where: { $0 == 0x2C || $0 == 0x22 || $0 == 0x0A || $0 == 0x0D }) else { return key }
        var quoted: [UInt8] = [0x22]
        for byte in key.utf8 {
            quoted.append(byte)
            if byte == 0x22 { quoted.append(0x22) }
        }
        quoted.append(0x22)
        return String(decoding: quoted, as: UTF8.self)
    }

    /// Whether the replay's CSV reading of `key`'s text is not `key` itself: empty, spaces or
    /// tabs at either end (dropped), a number written other than canonically (`007`: the
    /// number 7), the `~` that starts escaped keys, or a line feed or NUL byte (the replay reads
    /// one row per line and refuses NUL, so such a key would make the whole trace unreadable).
    static func replayReadsAsAnother(_ key: String) -> Bool {
        let bytes = Array(key.utf8)
        guard let first = bytes.first, let last = bytes.last else { return true }
        if first == 0x20 || first == 0x09 || last == 0x20 || last == 0x09 || first == UInt8(ascii: "~") { return true }
        if bytes.contains(where: { $0 == 0x0A || $0 == 0x00 }) { return true }
        return bytes.count > 1 && first == UInt8(ascii: "0") && bytes.allSatisfy { $0 >= 0x30 && $0 <= 0x39 }
    }
}
