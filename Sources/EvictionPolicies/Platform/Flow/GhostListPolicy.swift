/// A policy made of several queues over one ``SlotArena``, some holding resident entries and
/// some holding ghosts (keys whose objects left; see ``SlotArena/demote(_:to:limit:tag:pass:observer:)``):
/// 2Q, ARC, S3-FIFO, QD-LP, CLOCK-2Q+. The cache surface is ``ArenaPolicy``'s; the policy
/// supplies its rule:
///
/// - ``ArenaPolicy/isResident(_:)``: whether a slot found in the index is resident or a ghost
///   (by default, whether it holds a value: a demoted ghost's was released).
/// - ``ArenaPolicy/didHit(_:)``: the hit rule.
/// - ``ArenaPolicy/miss(_:hash:ghost:cost:value:observer:)``: the whole miss, with the key's
///   ghost slot (still in its ghost list) or -1: what it refuses, what it evicts or demotes,
///   where the object goes.
/// - ``ArenaPolicy/unlink(_:)``: take a resident or a ghost out of its queue.
///
/// Because the miss is the policy's own, it also keeps the conventions ``SlotPolicy``'s flow
/// keeps for its policies (see 2Q's `miss` for all four):
///
/// - an object larger than the capacity leaves the cache untouched, its ghost included;
/// - it asks `observer.admits(key, cost:)` before it inserts, or an admission policy
///   (`cachebench --admission`) never sees the policy's objects;
/// - it evicts down to the count limit as well as the capacity, when the descriptor says
///   `supportsCountLimit`;
/// - it brackets its evictions with a ``TrimPass`` (``TrimPass/willRemove(_:)`` before each,
///   ``TrimPass/end(_:)`` after), which the trim latency report counts.
///
/// It need not give storage back: ``ArenaPolicy/shrinkStorageIfSparse()`` runs after every
/// removal and trim, where an arena becomes sparse; a miss inserts as many slots as it frees.
/// - ``ArenaPolicy/replace(_:with:cost:observer:)``, optionally: by default the same cost keeps
///   the entry and counts as a hit, and a new cost is a new object: the old one goes (not an
///   eviction) and the new one misses.
public protocol GhostListPolicy: ArenaPolicy {}

extension GhostListPolicy {
    /// By default a slot is resident while it holds a value: a ghost's value was released when
    /// it was demoted. A policy that tags its queues in the slot's aux can answer from the tag.
    /// O(1).
    @inlinable
    public func isResident(_ slot: Int32) -> Bool { store.isResident(slot) }

    @inlinable
    public mutating func replace(_ slot: Int32, with value: Value, cost: Int,
                                 observer: inout some EvictionObserver<Key, Value>) {
        _updateAsHitOrNewObject(slot, with: value, cost: cost, observer: &observer)
    }
}

extension ArenaPolicy {
    /// The update step of a policy whose rule has no word on updates (``GhostListPolicy``'s
    /// default, libCacheSim's find-then-insert): the same cost keeps the entry and counts as a
    /// hit; a new cost is a new object: the old one goes (not an eviction) and the new one misses.
    ///
    /// - Complexity: one hit, or one release and one miss.
    @inlinable
    mutating func _updateAsHitOrNewObject(_ slot: Int32, with value: Value, cost: Int,
                                          observer: inout some EvictionObserver<Key, Value>) {
        guard store.cost(slot) != cost else {
            store.setValue(slot, value)
            didHit(slot, observer: &observer)
            return
        }
        let key = store.key(slot)
        unlink(slot)
        store.release(slot)
        miss(key, hash: store.hash(key), ghost: -1, cost: cost, value: { value }, observer: &observer)
    }
}
