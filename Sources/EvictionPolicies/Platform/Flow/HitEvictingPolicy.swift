/// A ``SlotPolicy`` whose hit rule may evict (segmented LRUs demote on a hit, and the lowest
/// segment evicts): the flow hands the rule the request's observer, so those evictions are
/// reported as a trim pass like any other.
///
/// A conforming policy writes ``hit(_:observer:)`` instead of ``ArenaPolicy/didHit(_:)``; the
/// flow's `access`, `lookup` and `replace` call it through ``ArenaPolicy/didHit(_:observer:)``.
public protocol HitEvictingPolicy: SlotPolicy {
    /// The hit rule: `slot` was requested and is resident; any entry it evicts goes to `observer`.
    mutating func hit(_ slot: Int32, observer: inout some EvictionObserver<Key, Value>)
}

extension HitEvictingPolicy {
    /// A hit with no one to tell: evictions still happen, unreported.
    @inlinable public mutating func didHit(_ slot: Int32) {
        var ignoring = IgnoringObserver<Key, Value>()
        hit(slot, observer: &ignoring)
    }

    @inlinable @inline(__always)
    public mutating func didHit(_ slot: Int32, observer: inout some EvictionObserver<Key, Value>) {
        hit(slot, observer: &observer)
    }
}
