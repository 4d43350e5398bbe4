// An executable of one's own: a policy defined only here, run through every cachebench command
// (replay, compare, mrc, the regression gate, the charts, sweep, policies) by registering it.
// The "Writing a policy" article of EvictionPolicies walks through it.
//
//     swift run example-policy replay Traces/zipf.csv --policy lip --capacity 100 --ignore-size

import CacheBench
import CacheBenchCommandLine
import EvictionPolicies
import Foundation

/// LIP, the LRU insertion policy (Qureshi et al., ISCA'07): LRU, but a new object enters at the
/// least recently used end, so an object requested once is the next victim unless it is
/// requested again, and a scan cannot flush the cache.
///
/// - Complexity: lookup, insert and remove are O(1) expected; each eviction is O(1).
struct LIPCache<Key: Hashable, Value>: SlotPolicy {
    static var descriptor: PolicyDescriptor {
        PolicyDescriptor(
            name: "lip", reproduces: "LIP (Qureshi et al., ISCA'07)",
            rule: "LRU, but a new object enters at the LRU end; a hit moves it to the head",
            family: .research, supportsCountLimit: true)
    }

    var store = SlotArena<Key, Value>()
    var list = SlotList()           // head: most recently used; tail: the next victim
    let capacity: Int
    let countLimit: Int

    init(limits: CacheLimits, options: PolicyOptions) throws(PolicyConfigurationError) {
        (capacity, countLimit) = try limits.validated(for: Self.descriptor, options: options)
    }

    var count: Int { list.count }
    var totalCost: Int { list.cost }

    mutating func didHit(_ slot: Int32) { store.moveToHead(slot, &list) }
    mutating func didInsert(_ slot: Int32) { store.pushTail(slot, &list) }
    mutating func victim() -> Int32 { list.tail }
    mutating func unlink(_ slot: Int32) { store.unlink(slot, &list) }
    mutating func setCost(_ slot: Int32, _ cost: Int) { store.setCost(slot, cost, in: &list) }
}

exit(CacheBenchCommandLine.main(registry: .standard.adding(LIPCache<UInt64, Void>.self)))
