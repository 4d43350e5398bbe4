// nuke-clock: Nuke's memory cache (`ImageCache`, over its internal `Cache`) from 13.0.5 on:
// CLOCK / second chance (commit a01bcfb3 "Switch to CLOCK LRU in Cache"; in 13.0.5, 13.1.0, 13.2.0).
// Source: kean/Nuke @ c4fc70af4ca5 (13.2.0+61), Sources/Nuke/Caching/Cache.swift and ImageCache.swift.
// Spec: ``<doc:Nuke>``; test vectors NK1 (CLOCK column) and NK2.
// The strict LRU of 13.0.4 and earlier is nuke-lru (NukeLRUCache.swift).
//
// Rule: a map plus a linked list whose first node is the next candidate, and a reference bit
// per entry.
//   - get: an entry whose TTL has passed (`expirationTimestamp < now`) is removed and the get is
//     a miss; otherwise the entry's reference bit is set. Nothing moves.
//   - set: a cost of at least `entryMaxCost = Int(clamp(entryCostLimit, 0…1) × costLimit)`
//     (precomputed, .max when the product reaches Int.max; 0.1 by default) is silently
//     IGNORED: nothing is stored and the key's old value, if any, stays (NK2). From 13.0.5 the
//     check always applies. A set of a resident key reuses its node in place (new value, cost
//     and expiry) and sets its reference bit; a new key is appended at the end, unreferenced.
//     Then `_trim()`: nothing when within both limits; otherwise the CLOCK sweep to the cost
//     limit, then to the count limit: while over, take `list.first`; if referenced, clear the
//     bit and move it to the end (second chance); else remove it. Synchronous.
//   - memory pressure (the trace's memory-warning) removes everything; entering the background
//     runs the same sweep to 10 % of the cost limit, then 10 % of the count limit.
//
// NK1: countLimit 3; set a, b, c; get a, b, c; set d. The sweep clears and rotates a, b and c,
// then meets d, new and unreferenced, and evicts it: {a, b, c} stay.
//
// Modelling choices as in nuke-lru: trace time, +infinity for "never expires", caller passes,
// and the `ignoredSets` metric. A sweep that only clears bits evicts nothing and reports nothing,
// but a sweep starts only when a limit is exceeded, so it always evicts at least one entry.

/// Nuke's memory cache from 13.0.5 (`ImageCache` over `Cache`, 13.0.5–13.2): CLOCK (second
/// chance) with a per-entry cost cap at 10 % of the cost limit, a lazy TTL, removal of everything
/// under memory pressure and a sweep to 10 % in the background.
///
/// **Rule.** One list in insertion order and a reference bit per entry. A get sets the bit (nothing
/// moves), unless the entry's TTL has passed: then the get removes it and misses. A set costing at
/// least `entry-cost-limit` × the cost limit is ignored (old value kept). A set of a resident key
/// updates it in place and sets its bit; a new key is appended, unreferenced; its TTL restarts.
/// Then, while the total cost is above the cost limit, then while the count is above the count
/// limit, the sweep takes the oldest entry: referenced, it loses its bit and moves to the newest
/// end (a second chance); otherwise it is evicted. One caller pass. A memory warning removes
/// everything; entering the background sweeps the same way to 10 % of each limit.
///
/// - Complexity: lookup, insert and remove are O(1) expected; a trim is O(k + r) for k evictions
///   and r second chances, and each entry gets at most one second chance per trim.
public struct NukeClockCache<Key: Hashable, Value>: _NukeCacheModel {
    public static var descriptor: PolicyDescriptor {
        PolicyDescriptor(
            name: "nuke-clock",
            reproduces: "Nuke 13.0.5 and later ImageCache / Cache, CLOCK",
            rule: "CLOCK second chance: get sets a reference bit, the sweep spares referenced entries once; a set costing at least 10 % of the cost limit is ignored; sync trim on set; lazy TTL; memory warning removes all; background sweeps to 10 %",
            family: .library, supportsCountLimit: true, defaultCapacity: .deviceShare,
            parameters: _NukeEntryRules.parameters(entryCostLimitNote: " (0 to 1)"))
    }

    public var store = SlotArena<Key, Value>()
    /// The head is Nuke's `list.last` (newest), the tail Nuke's `list.first` (next candidate).
    /// A slot's `aux` is its reference bit.
    @usableFromInline var clock = SlotList()
    public var rules: _NukeEntryRules

    public init(limits: CacheLimits, options: PolicyOptions) throws(PolicyConfigurationError) {
        // `recomputeEntryMaxCost()`: from 13.0.5 the cap always applies.
        rules = try _NukeEntryRules.configure(Self.descriptor, limits: limits, options: options) {
            costLimit, fraction in fraction * Double(costLimit) >= Double(Int.max) ? .max : Int(fraction * Double(costLimit))
        }
    }

    @inlinable public var count: Int { clock.count }
    @inlinable public var totalCost: Int { clock.cost }

    @inlinable @inline(__always)
    public func prefetch(_ key: Key, _ stage: PrefetchStage) { store.prefetch(key, stage) }

    @inlinable public mutating func didHit(_ slot: Int32) { store.setAux(slot, 1) }
    @inlinable public mutating func didInsert(_ slot: Int32) {
        store.pushHead(slot, &clock)
        rules.startTTL(slot)
    }
    /// The node is reused in place; an update counts as a use.
    @inlinable public mutating func didReplace(_ slot: Int32, formerCost: Int) {
        store.setAux(slot, 1)
        rules.startTTL(slot)
    }

    /// The sweep's next victim: referenced entries at the old end lose their bit and move to the
    /// new end until an unreferenced one is there.
    @inlinable
    public mutating func victim() -> Int32 {
        while store.aux(clock.tail) != 0 {
            let candidate = clock.tail
            store.setAux(candidate, 0)
            store.moveToHead(candidate, &clock)
        }
        return clock.tail
    }

    @inlinable public mutating func unlink(_ slot: Int32) { store.unlink(slot, &clock) }
    @inlinable public mutating func setCost(_ slot: Int32, _ cost: Int) { store.setCost(slot, cost, in: &clock) }

    @inlinable
    public mutating func removeAll(observer: inout some EvictionObserver<Key, Value>) {
        store.evictAll(from: &clock, as: .caller, observer: &observer)
    }
}

extension NukeClockCache: SlotRelocatingPolicy {
    /// Renumbers the clock's ends and the expiry times after a compaction (the reference bits
    /// move with their slots).
    @inlinable public mutating func relocateSlots(_ relocation: SlotRelocation) {
        relocation.relocate(&clock)
        rules.expiry.relocate(relocation)
    }
}
