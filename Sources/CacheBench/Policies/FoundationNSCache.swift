// foundation-nscache: the platform's real Foundation `NSCache`, driven through the policy
// protocol. On Linux that is swift-corelibs-foundation's NSCache, so its decisions must equal
// `nscache` (CorelibsNSCache.swift, the NSCache article of the EvictionPolicies documentation, test vectors N1–N5) request for
// request; a test checks that on every trace in Traces/ and on random operation sequences. This
// is the model's check against the real thing. On Darwin it is Apple's closed implementation
// (§2.2), whose behaviour is neither documented nor deterministic.
//
// Rule: whatever NSCache does. Each key is an `NSObject` wrapper (`hash`/`isEqual:` from the
// key), each entry an object holding the key, the value and the cost; a hit is
// `object(forKey:) != nil`; an insert is `setObject(_:forKey:cost:)` with the trace's cost;
// limits are `totalCostLimit` (the capacity) and `countLimit`, 0 meaning none; evictions are
// reported from `NSCacheDelegate.cache(_:willEvictObject:)`.
//
// Unlike every other policy, this one necessarily allocates objects per entry and per request:
// it is the real NSCache, and NSCache stores class instances. The struct holds a reference to
// the NSCache, so copies of a `FoundationNSCache` share one cache. NSCache exposes neither its
// count nor its total cost; both are tracked here from the inserts, removals and the delegate's
// evictions. A pass is announced before `setObject` when the new totals exceed a limit, which
// guarantees an eviction, so its timing covers NSCache's own purge loop.

import EvictionPolicies
import Foundation

/// The platform's Foundation `NSCache` behind the policy protocol (on Linux, swift-corelibs-foundation).
///
/// - Complexity: whatever NSCache's is; on Linux, insert is O(n) for its cost-sorted list.
public struct FoundationNSCache<Key: Hashable, Value>: EvictionPolicy {
    public static var descriptor: PolicyDescriptor {
        PolicyDescriptor(
            name: "foundation-nscache",
            reproduces: "the running platform's Foundation NSCache (on Linux, swift-corelibs-foundation)",
            rule: "the real NSCache with totalCostLimit = capacity and countLimit; on Linux it decides exactly as nscache",
            family: .library, supportsCountLimit: true, defaultCapacity: .workingSetFraction)
    }

    /// A key as NSCache wants it: an object whose `hash` and `isEqual:` come from the key.
    final class KeyBox: NSObject {
        let key: Key
        init(_ key: Key) { self.key = key }
        override var hash: Int { key.hashValue }
        override func isEqual(_ object: Any?) -> Bool {
            guard let other = object as? KeyBox else { return false }
            return other.key == key
        }
    }

    /// A cached object: the value with the key and cost it was stored under.
    final class Entry {
        let key: Key
        let value: Value
        let cost: Int
        init(key: Key, value: Value, cost: Int) {
            self.key = key
            self.value = value
            self.cost = cost
        }
    }

    /// Collects the objects NSCache is about to evict, in order, during one `setObject` call.
    final class EvictionCollector: NSObject, NSCacheDelegate {
        var victims: [Entry] = []
        func cache(_ cache: NSCache<AnyObject, AnyObject>, willEvictObject obj: Any) {
            if let entry = obj as? Entry { victims.append(entry) }
        }
    }

    let cache = NSCache<KeyBox, Entry>()
    /// NSCache's delegate is weak; the struct keeps it alive.
    let collector = EvictionCollector()
    public private(set) var count = 0
    public private(set) var totalCost = 0

    public init(limits: CacheLimits, options: PolicyOptions) throws(PolicyConfigurationError) {
        try options.validate(against: Self.descriptor)
        try limits.validate(for: Self.descriptor)
        cache.totalCostLimit = limits.capacity ?? 0
        cache.countLimit = limits.countLimit ?? 0
        cache.delegate = collector
    }

    public func contains(_ key: Key) -> Bool { cache.object(forKey: KeyBox(key)) != nil }

    public mutating func lookup(_ key: Key, observer: inout some EvictionObserver<Key, Value>) -> Value? {
        cache.object(forKey: KeyBox(key))?.value
    }

    public mutating func insert(_ value: Value, forKey key: Key, cost: Int,
                                observer: inout some EvictionObserver<Key, Value>) {
        let cost = max(cost, 0)
        let box = KeyBox(key)
        let previous = cache.object(forKey: box)
        let newCount = count + (previous == nil ? 1 : 0)
        let newCost = totalCost - (previous?.cost ?? 0) + cost
        let purges = (cache.totalCostLimit > 0 && newCost > cache.totalCostLimit)
            || (cache.countLimit > 0 && newCount > cache.countLimit)
        if purges { observer.trimWillBegin(.caller) }
        cache.setObject(Entry(key: key, value: value, cost: cost), forKey: box, cost: cost)
        count = newCount
        totalCost = newCost
        let victims = collector.victims
        collector.victims.removeAll(keepingCapacity: true)
        // Should NSCache ever evict when the totals did not predict it, still report a whole pass.
        if !purges && !victims.isEmpty { observer.trimWillBegin(.caller) }
        for entry in victims {
            count -= 1
            totalCost -= entry.cost
            observer.didEvict(entry.key, value: entry.value, cost: entry.cost)
        }
        if purges || !victims.isEmpty { observer.trimDidEnd(.caller) }
    }

    @discardableResult
    public mutating func remove(_ key: Key, observer: inout some EvictionObserver<Key, Value>) -> Value? {
        let box = KeyBox(key)
        guard let entry = cache.object(forKey: box) else { return nil }
        cache.removeObject(forKey: box)
        count -= 1
        totalCost -= entry.cost
        return entry.value
    }
}
