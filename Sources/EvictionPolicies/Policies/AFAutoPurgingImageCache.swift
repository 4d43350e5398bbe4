// af-lru: AFNetworking's AFAutoPurgingImageCache.
// Source: AFNetworking/AFNetworking @ d9f589cc2c1f (4.0.1), UIKit+AFNetworking/AFAutoPurgingImageCache.m,
// and its test testThatPrioritizedImagesWithOldestLastAccessDatesAreRemovedDuringPurge.
// Spec: ``<doc:AFNetworking>``; test vectors A1 and A2.
//
// Rule: every entry carries its bytes and a lastAccessDate, set when it is added and on every
// hit; re-adding an identifier replaces the entry with a fresh date. Each add queues a barrier
// block that purges when `usage > memoryCapacity` (strict): it copies every entry, sorts them
// all by lastAccessDate, oldest first, and removes them in that order until the bytes removed
// reach `usage − preferredMemoryUsageAfterPurge`, so at least one entry always goes and usage
// ends at or below the preferred size. The sort is O(n log n) on every purge, as in AF, and is
// what trim-latency measurements of this policy show. A memory warning removes everything
// (`removeAllImages`, a synchronous barrier); entering the background does nothing.
//
// Modelling choices. The purge block is deferred work: it runs at the start of the next
// operation on the cache (a lookup, insert, remove or event), which is when a reader on the
// same thread would observe it (AF's reads queue behind its barriers), and it is reported as a
// deferred trim pass. lastAccessDate is a logical clock with unique, increasing stamps, so the
// sort never meets a tie. Defaults: memoryCapacity 100 MiB, preferred 60 % of the capacity
// (AF's 60 MiB of 100 MiB); `--option preferred=` takes a fraction (0.5) or a size (40MiB).
//
// Odd behaviours kept on purpose: an entry larger than the preferred size flushes the whole
// cache, itself included (A2), because the purge walks on past the older entries to the newest.
// AF only: a preferred size above the capacity makes `usage − preferred` underflow UInt64, so
// the target becomes enormous and every purge empties the cache (AlamofireImage forbids that
// configuration; see AlamofireAutoPurgingImageCache.swift).

/// AFNetworking 4.0.1's `AFAutoPurgingImageCache`: when usage exceeds the capacity, sort every
/// entry by last access and remove the oldest until usage is down to the preferred size.
///
/// - Complexity: lookup, insert and remove are O(1) expected; a purge is O(n log n) for the
///   full sort of the n resident entries.
public struct AFAutoPurgingImageCache<Key: Hashable, Value>: EvictionPolicy {
    /// The library's default memory capacity: 100 MiB.
    public static var libraryCapacity: Int { 100 * 1024 * 1024 }

    public static var descriptor: PolicyDescriptor {
        PolicyDescriptor(
            name: "af-lru",
            reproduces: "AFNetworking 4.0.1 AFAutoPurgingImageCache",
            rule: "when usage exceeds the capacity, sort all entries by last access and remove the oldest until usage is at most the preferred size (deferred barrier); memory warning removes all",
            family: .library, defaultCapacity: .library(libraryCapacity),
            parameters: [
                PolicyParameter("preferred", default: "0.6",
                                "preferredMemoryUsageAfterPurge: a fraction of the capacity (0.6) or a size (60MiB); above the capacity it reproduces AF's underflow"),
            ])
    }

    /// One entry's last-access stamp, gathered into the scratch buffer a purge sorts.
    @usableFromInline
    struct _Stamped {
        @usableFromInline var stamp: UInt64
        @usableFromInline var slot: Int32
        @inlinable init(stamp: UInt64, slot: Int32) {
            self.stamp = stamp
            self.slot = slot
        }
    }

    @usableFromInline var store = SlotArena<Key, Value>()
    /// Every resident entry, in no meaningful order: AF keeps a dictionary, not a list. The
    /// list only lets a purge enumerate the entries, as `cachedImages.allValues` does.
    @usableFromInline var entries = SlotList()
    /// lastAccessDate per slot, as a logical clock.
    @usableFromInline var stamps: ContiguousArray<UInt64> = []
    @usableFromInline var clock: UInt64 = 0
    /// The purge block queued by the last add, which runs at the start of the next operation.
    @usableFromInline var purgePending = false
    /// Reused by every purge, so that only the sort itself may allocate.
    @usableFromInline var scratch: ContiguousArray<_Stamped> = []
    /// `memoryCapacity`, in cost units (bytes in replay).
    public let memoryCapacity: UInt64
    /// `preferredMemoryUsageAfterPurge`.
    public let preferredMemoryUsageAfterPurge: UInt64

    public init(limits: CacheLimits, options: PolicyOptions) throws(PolicyConfigurationError) {
        try options.validate(against: Self.descriptor)
        try limits.validate(for: Self.descriptor)
        let capacity = limits.capacity ?? Self.libraryCapacity
        let preferred = try options.fractionOrSize("preferred", of: capacity, default: Self.sixtyPercent(of: capacity))
        self.init(memoryCapacity: capacity, preferredMemoryUsageAfterPurge: preferred)
    }

    /// Creates a cache with explicit sizes, unchecked, as AF's designated initializer does.
    @usableFromInline
    init(memoryCapacity: Int, preferredMemoryUsageAfterPurge: Int) {
        self.memoryCapacity = UInt64(max(memoryCapacity, 0))
        self.preferredMemoryUsageAfterPurge = UInt64(max(preferredMemoryUsageAfterPurge, 0))
    }

    /// 60 % of `capacity`, exactly (100 MiB gives AF's 60 MiB, 100 MB gives AlamofireImage's 60 MB).
    @usableFromInline
    static func sixtyPercent(of capacity: Int) -> Int { capacity / 100 * 60 + capacity % 100 * 60 / 100 }

    @inlinable public var count: Int { entries.count }
    /// `currentMemoryUsage`. Between an add and the next operation it may exceed the capacity,
    /// as it does in AF until the queued purge block runs.
    @inlinable public var totalCost: Int { entries.cost }

    @inlinable @inline(__always)
    public func prefetch(_ key: Key, _ stage: PrefetchStage) { store.prefetch(key, stage) }

    @inlinable
    public func contains(_ key: Key) -> Bool { store.find(key) >= 0 }

    /// `imageWithIdentifier:`: runs after the queued barriers, then stamps the entry.
    @inlinable
    public mutating func lookup(_ key: Key, observer: inout some EvictionObserver<Key, Value>) -> Value? {
        runQueuedPurge(observer: &observer)
        let slot = store.find(key)
        guard slot >= 0 else { return nil }
        touch(slot)
        return store.values[Int(slot)]
    }

    @inlinable
    public mutating func access(_ key: Key, cost: Int, orInsert value: @autoclosure () -> Value,
                                observer: inout some EvictionObserver<Key, Value>) -> Bool {
        runQueuedPurge(observer: &observer)
        let slot = store.find(key)
        if slot >= 0 {
            touch(slot)
            return true
        }
        add(value(), forKey: key, cost: cost)
        return false
    }

    /// `addImage:withIdentifier:`: the insert block, then the purge block queued behind it.
    @inlinable
    public mutating func insert(_ value: Value, forKey key: Key, cost: Int,
                                observer: inout some EvictionObserver<Key, Value>) {
        runQueuedPurge(observer: &observer)
        add(value, forKey: key, cost: cost)
    }

    /// `removeImageWithIdentifier:`: not an eviction.
    @inlinable
    @discardableResult
    public mutating func remove(_ key: Key, observer: inout some EvictionObserver<Key, Value>) -> Value? {
        runQueuedPurge(observer: &observer)
        return store.remove(key, from: &entries)
    }

    /// A memory warning calls `removeAllImages` (a synchronous barrier); background does nothing.
    @inlinable
    public mutating func handle(_ event: CacheEvent, observer: inout some EvictionObserver<Key, Value>) {
        runQueuedPurge(observer: &observer)
        guard event == .memoryWarning else { return }
        store.evictAll(from: &entries, as: .caller, newestFirst: true, observer: &observer)
    }

    /// The insert block: a new entry with a fresh date replaces any previous one.
    @inlinable
    mutating func add(_ value: Value, forKey key: Key, cost: Int) {
        let cost = max(cost, 0)
        let hash = store.hash(key)
        var slot = store.find(key, hash: hash)
        if slot >= 0 {
            store.values[Int(slot)] = value
            store.setCost(slot, cost, in: &entries)
        } else {
            slot = store.allocate(key: key, hash: hash, value: value, cost: cost)
            store.pushHead(slot, &entries)
            while stamps.count <= Int(slot) { stamps.append(0) }
        }
        touch(slot)
        purgePending = true
    }

    @inlinable @inline(__always)
    mutating func touch(_ slot: Int32) {
        clock &+= 1
        stamps[Int(slot)] = clock
    }

    @inlinable @inline(__always)
    mutating func runQueuedPurge(observer: inout some EvictionObserver<Key, Value>) {
        guard purgePending else { return }
        purgePending = false
        purge(observer: &observer)
    }

    /// The purge block, reported as one deferred pass that includes the copy and the sort.
    @inlinable
    mutating func purge(observer: inout some EvictionObserver<Key, Value>) {
        let usage = UInt64(entries.cost)
        guard usage > memoryCapacity else { return }
        observer.trimWillBegin(.deferred)
        // AF computes this in UInt64: a preferred size above the usage wraps around (AF only).
        let bytesToPurge = usage &- preferredMemoryUsageAfterPurge
        scratch.removeAll(keepingCapacity: true)
        var slot = entries.head
        while slot >= 0 {
            scratch.append(_Stamped(stamp: stamps[Int(slot)], slot: slot))
            slot = store.next(slot)
        }
        scratch.sort { $0.stamp < $1.stamp }
        var bytesPurged: UInt64 = 0
        var i = 0
        while i < scratch.count {
            let victim = scratch[i].slot
            bytesPurged &+= UInt64(store.cost(victim))
            store.evict(victim, from: &entries, observer: &observer)
            if bytesPurged >= bytesToPurge { break }
            i += 1
        }
        observer.trimDidEnd(.deferred)
    }
}
