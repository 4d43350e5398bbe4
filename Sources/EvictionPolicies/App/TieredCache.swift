import Foundation

/// A memory ``Cache`` in front of a ``DiskCache``, composed as SDWebImage's `SDImageCache` and
/// YYCache compose theirs: a lookup asks memory, then disk, and says which answered; a disk hit
/// is decoded and copied into memory; a store writes both; a removal reaches both.
///
/// ```swift
/// enum ImageError: Error { case encoding, decoding }
///
/// let images = try TieredCache<UIImage>(
///     memory: Cache(policy: .sieve, costLimit: 50 << 20),
///     disk: DiskCache(directory: caches.appendingPathComponent("images"), sizeLimit: 500 << 20),
///     encode: { image in guard let data = image.pngData() else { throw ImageError.encoding }; return data },
///     decode: { data in guard let image = UIImage(data: data) else { throw ImageError.decoding }; return image },
///     memoryCost: { image in Int(image.size.width * image.size.height * image.scale * image.scale) * 4 })
/// if let (image, source) = try await images.value(forKey: url.absoluteString) { … }   // source: .memory or .disk
/// ```
///
/// **Threads.** Every method may be called from any thread. A disk hit is copied into memory only
/// if no store or removal of its key began or ended while it was read and decoded (and none is
/// in progress): a lookup that raced a newer `setValue` or `removeValue` returns what it read
/// but never leaves that older value in memory. Stores and removals of one key reach the disk in
/// the order they reached memory, so once they have all returned both tiers hold the last one's
/// value (a relaunch finds what memory held). The bookkeeping is one lock held around the
/// memory tier's calls (not the disk's or the decoding); the memory tier's eviction handler runs
/// under it and may call this cache again on its own thread. A disk hit found from the handler
/// of a promotion's eviction is returned but not copied into memory (copying it could evict
/// again, without end). Calls made on ``memory`` directly bypass it.
///
/// (The replay engine's two-level model of the same composition is ``TieredModel``.)
public final class TieredCache<Value> {
    /// The memory tier.
    public let memory: Cache<String, Value>
    /// The disk tier.
    public let disk: DiskCache
    // Sendable: the async methods call them on other threads, several at once.
    private let encode: @Sendable (Value) throws -> Data
    private let decode: @Sendable (Data) throws -> Value
    private let memoryCost: @Sendable (Value, Int) -> Int
    /// Whether the app gave the memory cost, so it is known before the value is encoded.
    private let costIsTheAppsOwn: Bool
    /// Guards the stamps below and orders the memory tier's calls with them.
    private let lock = NSRecursiveLock()
    /// Per stripe of keys (by hash): how many stores and removals have begun or ended, and how
    /// many are in progress; `removeAll` counts for every stripe through `epoch` and `clearing`.
    private var changes = [UInt64](repeating: 0, count: 64)
    private var inProgress = [Int](repeating: 0, count: 64)
    /// Per key with a store or removal in progress, the serial number of the last one begun: a
    /// store that fails takes its memory copy back only if no later change of its key began
    /// meanwhile (whose value memory then holds, and must keep).
    private var lastBegun: [String: UInt64] = [:]
    private var serial: UInt64 = 0
    private var epoch: UInt64 = 0
    private var clearing = 0
    /// Whether a disk hit is being copied into memory; read and written under `lock`, so only
    /// the promoting thread (in the memory tier's eviction handler) can see it set.
    private var promoting = false
    /// Per stripe: the disk steps of stores and removals, queued in the order of their memory
    /// steps and run in that order, so the disk sees a key's stores in the order memory saw
    /// them: once they have all returned, both tiers hold the last one's value. Whichever caller
    /// finds no one running a stripe's queue runs it, up to its own step, others' steps included
    /// (see ``inTurn(_:_:)``): no caller waits for one that has not started, so neither a call
    /// from the memory tier's eviction handler nor a pool of threads all waiting can stall it.
    private let diskOrder = NSCondition()
    private var diskSteps = [[_DiskStep]](repeating: [], count: 64)
    private var running = [Bool](repeating: false, count: 64)

    /// Composes the two tiers.
    ///
    /// - Parameters:
    ///   - memory: the memory tier, asked first.
    ///   - disk: the disk tier, asked on a memory miss; a disk hit is copied into memory.
    ///   - encode: the bytes the disk stores for a value.
    ///   - decode: the value for bytes the disk returns; its error is thrown by the lookup.
    ///   - memoryCost: the memory copy's cost, given the value and its encoded size; the encoded
    ///     size by default.
    ///
    /// The closures are `@Sendable`: the `async` methods call them off the caller's thread,
    /// several at once.
    public init(memory: Cache<String, Value>, disk: DiskCache, encode: @escaping @Sendable (Value) throws -> Data,
                decode: @escaping @Sendable (Data) throws -> Value, memoryCost: (@Sendable (Value) -> Int)? = nil) {
        self.memory = memory
        self.disk = disk
        self.encode = encode
        self.decode = decode
        self.memoryCost = { value, size in memoryCost?(value) ?? size }
        costIsTheAppsOwn = memoryCost != nil
    }

    /// The value for `key` and where it was found, or `nil` when neither tier has it. A disk hit
    /// is copied into memory.
    public func value(forKey key: String) throws -> (value: Value, source: TierSource)? {
        if let value = memory.value(forKey: key) { return (value, .memory) }
        let stripe = Self.stripe(of: key)
        let before = stamp(stripe)
        guard let data = try disk.data(forKey: key) else { return nil }
        let value = try decode(data)
        lock.lock()
        defer { lock.unlock() }
        // Promoted only if nothing about this key changed meanwhile or is still being written:
        // otherwise memory would keep a value older than the disk's, or one the app removed.
        // Nor while this thread is promoting (a lookup from the eviction handler the promotion
        // called): each promotion may evict another entry whose handler promotes it back, and
        // the recursion would not end.
        if before == (epoch, changes[stripe]) && inProgress[stripe] == 0 && clearing == 0 && !promoting {
            promoting = true
            defer { promoting = false }
            memory.setValue(value, forKey: key, cost: memoryCost(value, data.count))
        }
        return (value, .disk)
    }

    /// Stores `value` in memory and, unless `toDisk` is `false`, on disk.
    ///
    /// A memory-only store (`toDisk: false`) removes the key's older value from the disk, in
    /// order with the key's other stores and removals, so that the value it replaced cannot come
    /// back once memory lets the new one go (an eviction, a memory warning, a relaunch).
    ///
    /// The memory copy costs what the initializer's `memoryCost` says; without one, its encoded
    /// size, so a memory-only set encodes the value too (to measure it) and throws what encoding
    /// throws, storing nothing. When the disk write (or a memory-only store's removal from disk)
    /// throws, the memory copy is taken back too, unless a later store or removal of the key has
    /// begun meanwhile (memory then holds that one's outcome, which stays):
    /// the key then reads what the disk still holds, as after a relaunch. A value the disk refuses
    /// without an error (larger than its size limit: ``DiskCache/setData(_:forKey:)-62mvz`` returns
    /// `false`) is kept in memory only, and found there until memory evicts it.
    public func setValue(_ value: Value, forKey key: String, toDisk: Bool = true) throws {
        let disk = self.disk
        let (stripe, step): (Int, _DiskStep)
        if toDisk {
            let data = try encode(value)
            (stripe, step) = begin(key, diskStep: { _ = try disk.setData(data, forKey: key) }) {
                memory.setValue(value, forKey: key, cost: memoryCost(value, data.count))
            }
        } else {
            // The disk's older value goes: it would come back once memory lets this one go.
            let cost = costIsTheAppsOwn ? memoryCost(value, 0) : try encode(value).count
            (stripe, step) = begin(key, diskStep: { try disk.removeData(forKey: key) }) {
                memory.setValue(value, forKey: key, cost: cost)
            }
        }
        defer { end(key, stripe, step) }
        do { try inTurn(stripe, step) } catch {
            // The disk kept what it had: so does the cache, rather than a memory copy that a
            // relaunch would not find.
            takeBack(key, step)
            throw error
        }
    }

    /// Removes `key` from both tiers.
    public func removeValue(forKey key: String) throws {
        let disk = self.disk
        let (stripe, step) = begin(key, diskStep: { try disk.removeData(forKey: key) }) { memory.removeValue(forKey: key) }
        defer { end(key, stripe, step) }
        try inTurn(stripe, step)
    }

    /// Empties both tiers. A store that runs meanwhile may be kept on disk, but is then not in
    /// memory: memory never holds what the disk does not.
    public func removeAll() throws {
        lock.lock()
        epoch &+= 1
        clearing += 1
        memory.removeAll()
        lock.unlock()
        defer {
            // Memory is emptied again: a store whose memory step came after the first emptying
            // may have written the disk before the disk was emptied, and memory would keep what
            // a relaunch does not find.
            lock.lock()
            memory.removeAll()
            epoch &+= 1
            clearing -= 1
            lock.unlock()
        }
        try disk.removeAll()
    }

    // MARK: Ordering lookups with stores

    /// The stripe of the per-key bookkeeping `key` falls in.
    private static func stripe(of key: String) -> Int {
        var hasher = Hasher()
        hasher.combine(key)
        return hasher.finalize() & 63
    }

    /// What has changed so far for keys of `stripe`.
    private func stamp(_ stripe: Int) -> (UInt64, UInt64) {
        lock.lock()
        defer { lock.unlock() }
        return (epoch, changes[stripe])
    }

    /// Takes back the memory copy of a store whose disk step failed, as one change, unless a
    /// later store or removal of `key` has begun since (its memory step came after this one's).
    private func takeBack(_ key: String, _ step: _DiskStep) {
        let stripe = Self.stripe(of: key)
        lock.lock()
        defer { lock.unlock() }
        changes[stripe] &+= 1
        if lastBegun[key] == step.serial { memory.removeValue(forKey: key) }
    }

    /// Begins a store or removal of `key`: counts it, queues its disk step behind the stripe's
    /// earlier ones, runs its memory step under the lock (where the memory tier's eviction
    /// handler may call this cache again: its steps queue after this one), and returns the
    /// stripe for ``end(_:_:_:)`` and the step for ``inTurn(_:_:)``, which must follow exactly once.
    private func begin(_ key: String, diskStep: @escaping () throws -> Void, memoryStep: () -> Void) -> (stripe: Int, step: _DiskStep) {
        let stripe = Self.stripe(of: key)
        let step = _DiskStep(diskStep)
        lock.lock()
        defer { lock.unlock() }
        changes[stripe] &+= 1
        inProgress[stripe] += 1
        serial &+= 1
        step.serial = serial
        lastBegun[key] = serial
        diskOrder.lock()
        diskSteps[stripe].append(step)
        diskOrder.unlock()
        memoryStep()
        return (stripe, step)
    }

    /// Returns once `step` has run, after every step queued before it in its stripe, and throws
    /// what it threw. The caller runs the stripe's queue itself, up to its own step, unless
    /// another caller is running it already; then it waits for that one, and takes over if that
    /// one stops (its own step done) before reaching this one. Stores of different stripes do
    /// not wait for each other.
    private func inTurn(_ stripe: Int, _ step: _DiskStep) throws {
        diskOrder.lock()
        while step.outcome == nil {
            guard !running[stripe] else {
                diskOrder.wait()
                continue
            }
            running[stripe] = true
            while step.outcome == nil, !diskSteps[stripe].isEmpty {
                let next = diskSteps[stripe].removeFirst()
                diskOrder.unlock()
                let outcome = Result { try next.run() }
                diskOrder.lock()
                next.outcome = outcome
            }
            running[stripe] = false
            diskOrder.broadcast()
        }
        let outcome = step.outcome
        diskOrder.unlock()
        try outcome?.get()
    }

    /// Ends what ``begin(_:diskStep:memoryStep:)`` began for `key`, its disk step done (or failed).
    private func end(_ key: String, _ stripe: Int, _ step: _DiskStep) {
        lock.lock()
        defer { lock.unlock() }
        changes[stripe] &+= 1
        inProgress[stripe] -= 1
        // The key is forgotten by the last change begun; an earlier one's end leaves it.
        if lastBegun[key] == step.serial { lastBegun[key] = nil }
    }
}

extension TieredCache where Value == Data {
    /// Composes two tiers of `Data`, stored as they are.
    public convenience init(memory: Cache<String, Data>, disk: DiskCache) {
        self.init(memory: memory, disk: disk, encode: { $0 }, decode: { $0 })
    }
}

/// Sendable when its values are: the tiers and the bookkeeping are locked, and values cross
/// threads only as the memory tier's do.
extension TieredCache: @unchecked Sendable where Value: Sendable {}

extension TieredCache where Value: Sendable {
    /// The value for `key` and where it was found, with the disk read and the decoding off the
    /// caller's thread.
    public func value(forKey key: String) async throws -> (value: Value, source: TierSource)? {
        if let value = memory.value(forKey: key) { return (value, .memory) }
        return try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global(qos: .utility).async {
                continuation.resume(with: Result { try self.value(forKey: key) })
            }
        }
    }

    /// Stores `value` in memory, then encodes it and writes it to disk off the caller's thread.
    /// When encoding or the disk write throws, neither tier keeps the value, as with
    /// ``setValue(_:forKey:toDisk:)``.
    ///
    /// With a `memoryCost` (the initializer's), the memory copy is stored at once, before this
    /// call suspends, so a lookup right after it finds the value in memory. Without one, its cost
    /// is the encoded size, so it is stored once encoded, off the caller's thread.
    public func setValue(_ value: Value, forKey key: String) async throws {
        guard costIsTheAppsOwn else {
            return try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, Error>) in
                DispatchQueue.global(qos: .utility).async {
                    continuation.resume(with: Result { try self.setValue(value, forKey: key) })
                }
            }
        }
        // The memory copy now; the store stays in progress (no lookup promotes an older disk
        // value of its key) until the disk holds the new one. Its disk step encodes the value
        // and writes it, on whichever thread runs the stripe's queue (a step takes no lock: the
        // thread running it may be one that waits for this cache's lock).
        let (encode, disk) = (self.encode, self.disk)
        let diskStep = { _ = try disk.setData(try encode(value), forKey: key) }
        let (stripe, step) = begin(key, diskStep: diskStep) { memory.setValue(value, forKey: key, cost: memoryCost(value, 0)) }
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, Error>) in
            DispatchQueue.global(qos: .utility).async {
                let result = Result { try self.inTurn(stripe, step) }
                if case .failure = result {
                    // As the synchronous set: a value that cannot be encoded or written is stored
                    // in neither tier, so the memory copy made above is taken back (the store is
                    // still in progress, so no lookup has promoted anything meanwhile).
                    self.takeBack(key, step)
                }
                self.end(key, stripe, step)
                continuation.resume(with: result)
            }
        }
    }
}

/// A store's or removal's disk step, queued until its turn; `outcome` is set, under
/// ``TieredCache``'s queue lock, once it has run (on its caller's thread or another's).
/// Unchecked: `outcome` is only touched under that lock, and `run` captures only what may cross
/// threads (the encoded bytes and the disk; a value only where `Value` is `Sendable`).
private final class _DiskStep: @unchecked Sendable {
    let run: () throws -> Void
    var outcome: Result<Void, Error>?
    /// The change's number among all begun (see ``TieredCache``'s `lastBegun`), set under its lock.
    var serial: UInt64 = 0

    init(_ run: @escaping () throws -> Void) { self.run = run }
}

/// The name ``TieredCache`` had before it took the name the replay engine's model had (now
/// ``TieredModel``).
@available(*, deprecated, renamed: "TieredCache")
public typealias MemoryAndDiskCache = TieredCache
