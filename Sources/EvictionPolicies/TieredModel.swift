/// The replay engine's model of a memory cache in front of a disk cache, as SDWebImage's
/// SDImageCache and YYCache's YYCache compose them (<doc:YYCache> and <doc:SDWebImage>); both tiers
/// are policies driven by a trace (`replay --tier`). The real memory and disk cache an app keeps is
/// ``TieredCache``.
///
///
/// - a lookup asks the memory tier, then the disk tier, then reports a miss
///   (SDImageCacheType memory / disk / none);
/// - a disk hit is copied into memory (YYCache's `objectForKey:`, SDImageCache's
///   `_syncDiskToMemoryWithImage:`);
/// - a store writes memory, then disk (SDImageCache `storeImage:…toDisk:YES`, YYCache `setObject:`);
/// - a remove and every event reach both tiers; the tiers evict independently.
///
/// What cost the memory copy gets is the facades' one difference: SDImageCache gives it the
/// image's `sd_memoryCost` (``TierMemoryCost/size``); YYCache's facade writes memory with cost 0
/// (``TierMemoryCost/zero``), which leaves the memory tier's cost limit inert.
///
/// The memory tier is a policy driven directly, with the caller's observer, so its hits run
/// through specialized code. The disk tier is a ``BackingTier``: it owns its own observer and
/// is told the time with each call, so it may sit behind a type-erased wrapper that costs one
/// dynamic call per disk access (a memory miss), not per request.
public struct TieredModel<Memory: EvictionPolicy, Disk: BackingTier>
where Memory.Key == Disk.Key, Memory.Value == Disk.Value {
    /// The tiers' key type.
    public typealias Key = Memory.Key
    /// The tiers' value type.
    public typealias Value = Memory.Value
    /// Where a lookup found its value.
    public typealias Source = TierSource
    /// The cost the memory tier's copies get.
    public typealias MemoryCost = TierMemoryCost

    /// The memory tier.
    public var memory: Memory
    /// The disk tier.
    public var disk: Disk
    /// The cost the memory copies get.
    public let memoryCost: MemoryCost
    /// The time of the last advance, passed to the disk tier with each call.
    @usableFromInline var now: Double = 0
    @usableFromInline var started = false

    /// Creates a two-level cache over two empty tiers.
    public init(memory: Memory, disk: Disk, memoryCost: MemoryCost = .size) {
        self.memory = memory
        self.disk = disk
        self.memoryCost = memoryCost
    }

    /// Moves time forward. The memory tier advances now; the disk tier at its next call (or
    /// ``synchronizeDisk()``), which fires its due timers at their own times all the same, since
    /// nothing reaches the disk in between. The first advance starts both tiers' clocks.
    @inlinable
    public mutating func advance(to time: Double, observer: inout some EvictionObserver<Key, Value>) {
        memory.advance(to: time, observer: &observer)
        if !started {
            started = true
            now = time
            disk.advance(to: time)
        } else if time > now {
            now = time
        }
    }

    /// Brings the disk tier's clock up to date (at the end of a replay, for its last timers).
    @inlinable
    public mutating func synchronizeDisk() {
        disk.advance(to: now)
    }

    /// Looks `key` up in memory, then on disk; a disk hit is copied into memory.
    ///
    /// - Parameters:
    ///   - key: the key to look up.
    ///   - size: the object's size, the memory copy's cost with ``TierMemoryCost/size``.
    ///   - observer: receives both tiers' evictions and trim passes.
    /// - Returns: the value and where it was found, or `nil` on a miss.
    @inlinable
    public mutating func lookup(_ key: Key, size: Int, observer: inout some EvictionObserver<Key, Value>)
        -> (value: Value, source: Source)? {
        if let value = memory.lookup(key, observer: &observer) { return (value, .memory) }
        guard let value = disk.lookup(key, at: now) else { return nil }
        memory.insert(value, forKey: key, cost: memoryCopyCost(size), observer: &observer)
        return (value, .disk)
    }

    /// Cache-aside access: a memory or disk hit, or a miss after which `value` is stored in both.
    ///
    /// - Returns: where the value was found, or `nil` on a miss.
    @inlinable
    public mutating func access(_ key: Key, cost: Int, orInsert value: @autoclosure () -> Value,
                                observer: inout some EvictionObserver<Key, Value>) -> Source? {
        if let found = lookup(key, size: cost, observer: &observer) { return found.source }
        insert(value(), forKey: key, cost: cost, observer: &observer)
        return nil
    }

    /// Stores `value` in memory, then on disk.
    @inlinable
    public mutating func insert(_ value: Value, forKey key: Key, cost: Int, observer: inout some EvictionObserver<Key, Value>) {
        memory.insert(value, forKey: key, cost: memoryCopyCost(cost), observer: &observer)
        disk.insert(value, forKey: key, cost: cost, at: now)
    }

    /// Removes `key` from both tiers; returns the memory tier's value, else the disk's.
    @inlinable
    @discardableResult
    public mutating func remove(_ key: Key, observer: inout some EvictionObserver<Key, Value>) -> Value? {
        let inMemory = memory.remove(key, observer: &observer)
        let onDisk = disk.remove(key, at: now)
        return inMemory ?? onDisk
    }

    /// Delivers an event to the memory tier, then the disk tier.
    @inlinable
    public mutating func handle(_ event: CacheEvent, observer: inout some EvictionObserver<Key, Value>) {
        memory.handle(event, observer: &observer)
        disk.handle(event, at: now)
    }

    @inlinable
    func memoryCopyCost(_ size: Int) -> Int { memoryCost == .size ? size : 0 }
}

/// Where a ``TieredModel`` lookup found its value: `SDImageCacheType`'s memory and disk.
public enum TierSource: String, Sendable, Hashable {
    /// The memory tier.
    case memory
    /// The disk tier; the value has been copied into memory.
    case disk
}

/// The cost a ``TieredModel``'s memory copies get.
public enum TierMemoryCost: String, Sendable, Hashable, CaseIterable {
    /// The object's size, as SDImageCache does (`sd_memoryCost`).
    case size
    /// Zero, as YYCache's facade does for stores and promotions alike.
    case zero
}

/// The lower tier of a ``TieredModel``: a cache that owns its observer and is told the time
/// with each call, so that nothing reaches it between its own operations.
public protocol BackingTier<Key, Value> {
    /// The type of keys.
    associatedtype Key: Hashable
    /// The type of values.
    associatedtype Value
    /// Looks `key` up at `time`, recording the access.
    mutating func lookup(_ key: Key, at time: Double) -> Value?
    /// Stores `value` at `time`.
    mutating func insert(_ value: Value, forKey key: Key, cost: Int, at time: Double)
    /// Removes `key` at `time`; not an eviction.
    @discardableResult
    mutating func remove(_ key: Key, at time: Double) -> Value?
    /// Delivers an event at `time`.
    mutating func handle(_ event: CacheEvent, at time: Double)
    /// Moves time forward to `time`, firing due timers.
    mutating func advance(to time: Double)
}

/// A policy with the observer that receives its evictions: the usual ``BackingTier``.
public struct ObservedTier<Policy: EvictionPolicy, Observer: EvictionObserver>: BackingTier
where Observer.Key == Policy.Key, Observer.Value == Policy.Value {
    /// The disk cache.
    public var policy: Policy
    /// What sees its evictions and trim passes.
    public var observer: Observer

    /// Wraps `policy`, reporting to `observer`.
    public init(_ policy: Policy, observer: Observer) {
        self.policy = policy
        self.observer = observer
    }

    @inlinable
    public mutating func lookup(_ key: Policy.Key, at time: Double) -> Policy.Value? {
        policy.advance(to: time, observer: &observer)
        return policy.lookup(key, observer: &observer)
    }

    @inlinable
    public mutating func insert(_ value: Policy.Value, forKey key: Policy.Key, cost: Int, at time: Double) {
        policy.advance(to: time, observer: &observer)
        policy.insert(value, forKey: key, cost: cost, observer: &observer)
    }

    @inlinable
    @discardableResult
    public mutating func remove(_ key: Policy.Key, at time: Double) -> Policy.Value? {
        policy.advance(to: time, observer: &observer)
        return policy.remove(key, observer: &observer)
    }

    @inlinable
    public mutating func handle(_ event: CacheEvent, at time: Double) {
        policy.advance(to: time, observer: &observer)
        policy.handle(event, observer: &observer)
    }

    @inlinable
    public mutating func advance(to time: Double) {
        policy.advance(to: time, observer: &observer)
    }
}
