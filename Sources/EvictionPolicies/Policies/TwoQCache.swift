// 2Q: Johnson & Shasha, "2Q: A Low Overhead High Performance Buffer Management Replacement
// Algorithm", VLDB'94 (the full version), exactly as libCacheSim's TwoQ.c at commit aa0fc40
// (2024-10-07), the version of the golden table in Traces/ (where it is called `twoq`).

/// 2Q with a FIFO A1in, a ghost A1out and an LRU Am (Johnson & Shasha, VLDB'94; libCacheSim TwoQ.c at aa0fc40).
///
/// **Rule.** A1in: a FIFO of new objects, floor(25 % of capacity). A1out: a FIFO of keys evicted from
/// A1in, floor(50 % of capacity) in the same cost units. Am: an LRU of the rest, capacity - A1in.
/// - Hit in A1in: nothing moves (the paper's "correlated references"). Hit in Am: move to its head.
/// - Miss on a key in A1out: the key leaves A1out, the cache evicts until the object fits, and
///   the object enters Am through Am's own LRU rules: Am also evicts its LRU until the object fits
///   within Am's capacity (libCacheSim calls `Am->get`).
/// - Any other miss: evict until the object fits, then insert at A1in's head. A1in may run over
///   its share; it is trimmed only by evictions.
/// - Evict (one step): if A1in is over its share, its oldest object leaves and its key enters
///   A1out (which drops its oldest keys to stay within its size; a key larger than A1out is not
///   remembered); otherwise Am's LRU object leaves.
///
/// Quirk kept from aa0fc40: an object larger than A1in is never inserted (`TwoQ_can_insert`), even
/// on an A1out hit, and the A1out entry is still consumed. Below 4 objects A1in is empty and
/// nothing is cached. Where libCacheSim would evict from an empty Am (A1in above half the cache,
/// only with a large ain-ratio), A1in's oldest object goes instead. Objects larger than the whole
/// capacity leave the cache, A1out included, untouched (the project's research convention).
///
/// - Complexity: lookup and remove are O(1) expected; each eviction is O(1).
public struct TwoQCache<Key: Hashable, Value>: GhostListPolicy {
    public static var descriptor: PolicyDescriptor {
        PolicyDescriptor(
            name: "2q",
            reproduces: "2Q (Johnson & Shasha, VLDB'94) as libCacheSim TwoQ.c @ aa0fc40",
            rule: "new objects enter a FIFO A1in; keys evicted from it are remembered in a ghost FIFO A1out, and a miss on such a key admits the object to an LRU Am",
            family: .research, aliases: ["twoq"],
            parameters: [
                PolicyParameter("ain-ratio", default: "0.25", "A1in share of the capacity (libCacheSim Ain-size-ratio), truncated",
                                aliases: ["ain-size-ratio"]),
                PolicyParameter("aout-ratio", default: "0.5", "A1out ghost size as a share of the capacity, in the same units, truncated",
                                aliases: ["aout-size-ratio"]),
            ])
    }

    @usableFromInline static var inTag: UInt32 { 0 }
    @usableFromInline static var mainTag: UInt32 { 1 }
    @usableFromInline static var outTag: UInt32 { 2 }

    // aux = the queue the slot is in.
    public var store = SlotArena<Key, Value>()
    @usableFromInline var a1in = SlotList()
    @usableFromInline var am = SlotList()
    @usableFromInline var a1out = SlotList()
    @usableFromInline let capacity: Int
    @usableFromInline let inCapacity: Int
    @usableFromInline let outCapacity: Int
    @usableFromInline let mainCapacity: Int

    public init(limits: CacheLimits, options: PolicyOptions) throws(PolicyConfigurationError) {
        let capacity = try limits._requiredCapacity(for: Self.descriptor, options: options)
        let inRatio = try options.double("ain-ratio", default: 0.25, in: 0...1)
        let outRatio = try options.double("aout-ratio", default: 0.5, in: 0...100)
        self.capacity = capacity
        inCapacity = _proportion(of: capacity, inRatio)
        outCapacity = _proportion(of: capacity, outRatio)
        mainCapacity = capacity - inCapacity
    }

    @inlinable public var count: Int { a1in.count + am.count }
    @inlinable public var totalCost: Int { a1in.cost + am.cost }

    @inlinable @inline(__always)
    public func prefetch(_ key: Key, _ stage: PrefetchStage) { store.prefetch(key, stage) }

    @inlinable @inline(__always)
    public func isResident(_ slot: Int32) -> Bool { store.aux(slot) != Self.outTag }

    @inlinable
    public mutating func unlink(_ slot: Int32) {
        switch store.aux(slot) {
        case Self.inTag: store.unlink(slot, &a1in)
        case Self.mainTag: store.unlink(slot, &am)
        default: store.unlink(slot, &a1out)
        }
    }

    // MARK: The rule

    @inlinable @inline(__always)
    public mutating func didHit(_ slot: Int32) {
        if store.aux(slot) == Self.mainTag { store.moveToHead(slot, &am) }
    }

    /// libCacheSim's miss path.
    @inlinable
    public mutating func miss(_ key: Key, hash: UInt64, ghost slot: Int32, cost: Int, value: () -> Value,
                              observer: inout some EvictionObserver<Key, Value>) {
        guard cost <= capacity else { return }
        if slot >= 0 { store.unlinkGhost(slot, from: &a1out) }
        // TwoQ_can_insert: A1in's size, then the admissioner (the ghost is consumed either way).
        guard cost <= inCapacity, observer.admits(key, cost: cost) else {
            if slot >= 0 { store.release(slot) }
            return
        }
        var pass = TrimPass(.caller)
        while a1in.cost + am.cost + cost > capacity && !(a1in.isEmpty && am.isEmpty) {
            evictOne(&pass, observer: &observer)
        }
        if slot < 0 {
            store.pushHead(store.allocate(key: key, hash: hash, value: value(), cost: cost), &a1in, tag: Self.inTag)
        } else if cost <= mainCapacity {
            // Am's own get: it keeps within its capacity by evicting its LRU objects.
            while am.cost + cost > mainCapacity && am.tail >= 0 {
                pass.willRemove(&observer)
                store.evict(am.tail, from: &am, observer: &observer)
            }
            store.revive(slot, value: value(), cost: cost)
            store.pushHead(slot, &am, tag: Self.mainTag)
        } else {
            store.release(slot)
        }
        pass.end(&observer)
    }

    /// One call of libCacheSim's `TwoQ_evict`: A1in's oldest object when A1in is over its
    /// share (its key enters A1out), else Am's LRU object.
    @inlinable
    mutating func evictOne(_ pass: inout TrimPass, observer: inout some EvictionObserver<Key, Value>) {
        pass.willRemove(&observer)
        guard a1in.cost > inCapacity || am.isEmpty else {
            store.evict(am.tail, from: &am, observer: &observer)
            return
        }
        let slot = a1in.tail
        guard slot >= 0 else { return }
        store.unlink(slot, &a1in)
        store.demote(slot, to: &a1out, limit: outCapacity, tag: Self.outTag, pass: &pass, observer: &observer)
    }
}

extension TwoQCache: SlotRelocatingPolicy {
    /// Renumbers the ends of A1in, Am and A1out after a compaction.
    @inlinable public mutating func relocateSlots(_ relocation: SlotRelocation) {
        relocation.relocate(&a1in)
        relocation.relocate(&am)
        relocation.relocate(&a1out)
    }
}
