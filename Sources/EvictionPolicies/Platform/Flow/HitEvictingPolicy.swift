/// A ``SlotPolicy`` whose hit rule may evict (segmented LRUs demote on a hit, and the lowest
/// segment evicts): the flow's steps that report a hit hand the rule their observer, so those
/// evictions are reported as a trim pass like any other.
///
/// A conforming policy writes ``hit(_:observer:)`` instead of ``SlotPolicy/didHit(_:)``; the
/// flow's `access`, `lookup` and `replace` call it.
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

    @inlinable
    public mutating func access(_ key: Key, cost: Int, orInsert value: @autoclosure () -> Value,
                                observer: inout some EvictionObserver<Key, Value>) -> Bool {
        let hash = store.hash(key)
        let slot = store.find(key, hash: hash)
        if slot >= 0 {
            hit(slot, observer: &observer)
            return true
        }
        insertNew(value(), forKey: key, hash: hash, cost: max(cost, 0), observer: &observer)
        return false
    }

    @inlinable
    public mutating func lookup(_ key: Key, observer: inout some EvictionObserver<Key, Value>) -> Value? {
        let slot = store.find(key)
        guard slot >= 0, let value = store.value(slot) else { return nil }
        hit(slot, observer: &observer)
        return value
    }

    @inlinable
    public mutating func replace(_ slot: Int32, with value: Value, cost: Int,
                                 observer: inout some EvictionObserver<Key, Value>) {
        guard cost <= capacity else {
            unlink(slot)
            store.release(slot)
            return
        }
        store.setValue(slot, value)
        setCost(slot, cost)
        hit(slot, observer: &observer)
        makeRoom(forCost: 0, count: 0, observer: &observer)
    }
}
