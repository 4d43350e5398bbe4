// nuke-lru: Nuke's memory cache (`ImageCache`, over its internal `Cache`) up to 13.0.4: strict LRU.
// Source: kean/Nuke tags 12.8.0 and 13.0.0–13.0.4, Sources/Nuke/Caching/Cache.swift and
// ImageCache.swift. Spec: ``<doc:Nuke>``; test vectors NK1 (LRU column) and NK2.
// The CLOCK cache of 13.0.5 and later is nuke-clock (NukeClockCache.swift).
//
// Rule: a map plus a linked list whose first node is the least recently used.
//   - get: an entry whose TTL has passed (`expiration < now`) is removed and the get is a miss;
//     otherwise the node moves to the most-recently-used end (`list.remove; list.append`).
//   - set: a cost of at least `Int(entryCostLimit × costLimit)` (0.1 by default) is silently
//     IGNORED: nothing is stored and the key's old value, if any, stays (NK2). The check is
//     skipped when costLimit > 2_147_483_647 (Int32.max), as in 12.x–13.0.4. Otherwise the old
//     node, if any, is removed and a new one appended at the MRU end, and `_trim()` removes
//     `list.first` while totalCost > costLimit, then while count > countLimit. Synchronous.
//   - TTL (`ttl`, none by default) is checked lazily on get; there is no timer.
//   - memory pressure (DispatchSource .warning/.critical; the trace's memory-warning) removes
//     everything; entering the background trims to 10 % of the cost limit, then to 10 % of the
//     count limit (`Int(Double(limit) * 0.1)`), from the LRU end.
//
// Modelling choices. Time is trace time, set by `advance(to:)`; an expiry is `now + ttl` at the
// set. Nuke marks "never expires" with a timestamp of 0; here it is +infinity, so a trace that
// starts at time 0 cannot collide with it. Removing an expired entry on get, the set's trim and
// the two notification handlers are caller passes (the lock holder waits for them). The
// `ignoredSets` metric counts sets dropped by the entry cost cap.

/// Nuke's memory cache up to 13.0.4 (`ImageCache` over `Cache`, 12.x–13.0.4): LRU with a
/// per-entry cost cap at 10 % of the cost limit, a lazy TTL, removal of everything under memory
/// pressure and a trim to 10 % in the background.
///
/// **Rule.** One list in recency order. A get moves the entry to the most-recently-used end,
/// unless its TTL has passed: then the get removes it and misses. A set costing at least
/// `entry-cost-limit` × the cost limit is ignored (old value kept; no cap above 2^31−1); otherwise
/// the entry is stored (or moved and updated) at the MRU end, its TTL restarts, and the least
/// recently used entry goes while the total cost is above the cost limit, then while the count is
/// above the count limit, as one caller pass. A memory warning removes everything; entering the
/// background trims the same way to 10 % of each limit.
///
/// - Complexity: lookup, insert and remove are O(1) expected; each eviction is O(1).
public struct NukeLRUCache<Key: Hashable, Value>: _NukeCacheModel {
    public static var descriptor: PolicyDescriptor {
        PolicyDescriptor(
            name: "nuke-lru",
            reproduces: "Nuke 12.x–13.0.4 ImageCache / Cache",
            rule: "LRU; a set costing at least 10 % of the cost limit is ignored (old value kept); sync trim to the limits on set; lazy TTL; memory warning removes all; background trims to 10 %",
            family: .library, supportsCountLimit: true, defaultCapacity: .deviceShare,
            parameters: _NukeEntryRules.parameters(entryCostLimitNote: " (0 to 1; skipped above 2^31-1 bytes)"),
            // The entry cap is skipped for a cost limit above Int32.max.
            fixedCostLimitBounds: [Int(Int32.max) + 1])
    }

    public var store = SlotArena<Key, Value>()
    /// The head is the most recently used entry (Nuke's `list.last`), the tail Nuke's `list.first`.
    @usableFromInline var lru = SlotList()
    public var rules: _NukeEntryRules

    public init(limits: CacheLimits, options: PolicyOptions) throws(PolicyConfigurationError) {
        // 12.x–13.0.4: `costLimit > 2_147_483_647 || cost < Int(sanitized * Double(costLimit))`.
        rules = try _NukeEntryRules.configure(Self.descriptor, limits: limits, options: options) {
            costLimit, fraction in costLimit > 2_147_483_647 ? .max : Int(fraction * Double(costLimit))
        }
    }

    @inlinable public var count: Int { lru.count }
    @inlinable public var totalCost: Int { lru.cost }

    @inlinable @inline(__always)
    public func prefetch(_ key: Key, _ stage: PrefetchStage) { store.prefetch(key, stage) }

    @inlinable public mutating func didHit(_ slot: Int32) { store.moveToHead(slot, &lru) }
    @inlinable public mutating func didInsert(_ slot: Int32) {
        store.pushHead(slot, &lru)
        rules.startTTL(slot)
    }
    /// The old node is removed and a new one appended at the MRU end.
    @inlinable public mutating func didReplace(_ slot: Int32, formerCost: Int) {
        store.moveToHead(slot, &lru)
        rules.startTTL(slot)
    }
    @inlinable public mutating func victim() -> Int32 { lru.tail }
    @inlinable public mutating func unlink(_ slot: Int32) { store.unlink(slot, &lru) }
    @inlinable public mutating func setCost(_ slot: Int32, _ cost: Int) { store.setCost(slot, cost, in: &lru) }

    @inlinable
    public mutating func removeAll(observer: inout some EvictionObserver<Key, Value>) {
        store.evictAll(from: &lru, as: .caller, observer: &observer)
    }
}

extension NukeLRUCache: SlotRelocatingPolicy {
    /// Renumbers the list's ends and the expiry times after a compaction.
    @inlinable public mutating func relocateSlots(_ relocation: SlotRelocation) {
        relocation.relocate(&lru)
        rules.expiry.relocate(relocation)
    }
}
