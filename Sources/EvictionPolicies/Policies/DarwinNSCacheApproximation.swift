// nscache-darwin: Apple's NSCache on Darwin, APPROXIMATED from documentation and third-party
// observation; Apple's implementation is not open source. Spec: ``<doc:NSCache>``
// (the "NSCacheDarwinApprox" recommendation); its observations are the test vectors here
// (BaHui/NSCache README: countLimit 5 over keys 1…8 evicts 1, 2, 3; totalCostLimit 10 with eight
// sets of cost 5 evicts 1…6; interleaved cost-0 and cost-1 inserts evict in insertion order).
//
// Rule: one list in insertion order. On set, evict the oldest insertion until the total cost is
// within the cost limit, then until the count is within the count limit; the new entry can go
// too if it alone exceeds the cost limit. Reads never reorder. Re-setting a resident key keeps
// its place (`keep-position-on-reset=true`, the default) or makes it the newest. Entering the
// background removes everything (Darwin purges objects that are not NSDiscardableContent; the
// replay has no discardable objects). A memory warning evicts the oldest fraction of the entries
// (`memory-warning-fraction`, default 1: everything). Those two purges are the system's doing,
// not the caller's, so they are reported as deferred passes. Costs are clamped at 0.
//
// What is not modelled: libcache's own sizing against free memory, and its "recently and
// frequently used" preference, which no public observation shows under explicit limits.

/// Darwin's NSCache, approximated: oldest insertion first under limits, everything purged on
/// entering the background, a configurable fraction on a memory warning.
///
/// - Complexity: lookup, insert and remove are O(1) expected; each eviction is O(1).
public struct DarwinNSCacheApproximation<Key: Hashable, Value>: EvictionPolicy {
    public static var descriptor: PolicyDescriptor {
        PolicyDescriptor(
            name: "nscache-darwin",
            reproduces: "NSCache on Darwin, approximated from Apple's documentation and observations",
            rule: "on set, evict the oldest insertion until within the cost limit, then the count limit; background removes all; memory warning removes the oldest fraction",
            family: .library, isApproximation: true, supportsCountLimit: true, defaultCapacity: .workingSetFraction,
            parameters: [
                PolicyParameter("keep-position-on-reset", default: "true",
                                "re-setting a resident key keeps its insertion position (false: it becomes the newest)"),
                PolicyParameter("memory-warning-fraction", default: "1",
                                "fraction of the entries, oldest first, a memory warning evicts (0 to 1)"),
                PolicyParameter("remove-all-on-background", default: "true",
                                "entering the background removes every entry"),
            ])
    }

    @usableFromInline var store = SlotArena<Key, Value>()
    /// Insertion order: the head is the newest, the tail the oldest and the next to go.
    @usableFromInline var queue = SlotList()
    @usableFromInline let costLimit: Int
    @usableFromInline let countLimit: Int
    @usableFromInline let keepPositionOnReset: Bool
    @usableFromInline let memoryWarningFraction: Double
    @usableFromInline let removeAllOnBackground: Bool

    public init(limits: CacheLimits, options: PolicyOptions) throws(PolicyConfigurationError) {
        try options.validate(against: Self.descriptor)
        try limits.validate(for: Self.descriptor)
        costLimit = limits.capacity ?? .max
        countLimit = limits.countLimit ?? .max
        keepPositionOnReset = try options.bool("keep-position-on-reset", default: true)
        memoryWarningFraction = try options.double("memory-warning-fraction", default: 1, in: 0...1)
        removeAllOnBackground = try options.bool("remove-all-on-background", default: true)
    }

    @inlinable public var count: Int { queue.count }
    @inlinable public var totalCost: Int { queue.cost }

    @inlinable @inline(__always)
    public func prefetch(_ key: Key, _ stage: PrefetchStage) { store.prefetch(key, stage) }

    @inlinable
    public func contains(_ key: Key) -> Bool { store.find(key) >= 0 }

    @inlinable
    public mutating func lookup(_ key: Key, observer: inout some EvictionObserver<Key, Value>) -> Value? {
        let slot = store.find(key)
        return slot >= 0 ? store.values[Int(slot)] : nil
    }

    @inlinable
    public mutating func access(_ key: Key, cost: Int, orInsert value: @autoclosure () -> Value,
                                observer: inout some EvictionObserver<Key, Value>) -> Bool {
        let hash = store.hash(key)
        if store.find(key, hash: hash) >= 0 { return true }
        store.pushHead(store.allocate(key: key, hash: hash, value: value(), cost: max(cost, 0)), &queue)
        purge(observer: &observer)
        return false
    }

    @inlinable
    public mutating func insert(_ value: Value, forKey key: Key, cost: Int,
                                observer: inout some EvictionObserver<Key, Value>) {
        let cost = max(cost, 0)
        let hash = store.hash(key)
        let slot = store.find(key, hash: hash)
        if slot >= 0 {
            store.values[Int(slot)] = value
            store.setCost(slot, cost, in: &queue)
            if !keepPositionOnReset { store.moveToHead(slot, &queue) }
        } else {
            store.pushHead(store.allocate(key: key, hash: hash, value: value, cost: cost), &queue)
        }
        purge(observer: &observer)
    }

    @inlinable
    @discardableResult
    public mutating func remove(_ key: Key, observer: inout some EvictionObserver<Key, Value>) -> Value? {
        return store.remove(key, from: &queue)
    }

    @inlinable
    public mutating func handle(_ event: CacheEvent, observer: inout some EvictionObserver<Key, Value>) {
        let victims: Int
        switch event {
        case .background:
            victims = removeAllOnBackground ? queue.count : 0
        case .memoryWarning:
            victims = Int((Double(queue.count) * memoryWarningFraction).rounded(.up))
        case .terminate:
            victims = 0
        }
        guard victims > 0 && !queue.isEmpty else { return }
        observer.trimWillBegin(.deferred)
        for _ in 0..<min(victims, queue.count) { store.evict(queue.tail, from: &queue, observer: &observer) }
        observer.trimDidEnd(.deferred)
    }

    /// Evicts the oldest insertions until within the cost limit, then the count limit.
    @inlinable
    mutating func purge(observer: inout some EvictionObserver<Key, Value>) {
        guard queue.cost > costLimit || queue.count > countLimit else { return }
        observer.trimWillBegin(.caller)
        while queue.cost > costLimit && !queue.isEmpty { store.evict(queue.tail, from: &queue, observer: &observer) }
        while queue.count > countLimit && !queue.isEmpty { store.evict(queue.tail, from: &queue, observer: &observer) }
        observer.trimDidEnd(.caller)
    }
}
