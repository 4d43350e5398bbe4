/// A policy of the S3-FIFO family (S3-FIFO, S3-FIFO-d, QD-LP, CLOCK-2Q+) over
/// ``_SmallMainGhostLists``: which slots are resident, the hit's count, the update step and the
/// loop that evicts until an object fits are written once here (the count, the total cost and
/// the unlink step in ``_ListSetPolicy``). The policy supplies its rule: which hits count
/// (``counts(hit:aux:)``), the miss (``ArenaPolicy/miss(_:hash:ghost:cost:value:observer:)``)
/// and one call of its library's `evict` (``evictionStep(_:observer:)``).
///
/// A policy still writes ``EvictionPolicy/prefetch(_:_:)`` as `store.prefetch(key, stage)`: a
/// default here would read the arena through the protocol's getter around the key's hashing,
/// which copies it on every request (see ``SlotPolicy``).
///
/// - Complexity: every step here is O(1), plus the eviction steps it runs.
public protocol _SmallMainGhostPolicy: _ListSetPolicy, GhostListPolicy where ListSet == _SmallMainGhostLists {
    /// Whether re-inserting a resident key replaces its value and cost where it is, counts as a
    /// request and then evicts until the cache fits (`true`), or, as libCacheSim's
    /// find-then-insert, keeps the entry as a hit at the same cost and makes a new cost a new
    /// object (`false`, ``GhostListPolicy``'s update).
    static var updatesInPlace: Bool { get }
    /// The hit rule: whether a hit on resident `slot`, whose aux is `aux`, adds one to its counter.
    func counts(hit slot: Int32, aux: UInt32) -> Bool
    /// One call of the library's `evict`: removes at least one resident entry (demoted to the
    /// ghost or evicted), reporting it to `observer` within `pass`. Called only while the cache
    /// holds an entry.
    mutating func evictionStep(_ pass: inout TrimPass, observer: inout some EvictionObserver<Key, Value>)
}

extension _SmallMainGhostPolicy {
    @inlinable @inline(__always)
    public func isResident(_ slot: Int32) -> Bool { _SmallMainGhostLists.isResident(store.aux(slot)) }

    @inlinable @inline(__always)
    public mutating func didHit(_ slot: Int32) { _countHit(slot) }

    /// Adds one to resident `slot`'s counter if ``counts(hit:aux:)`` says the hit counts. O(1).
    @inlinable @inline(__always)
    public mutating func _countHit(_ slot: Int32) {
        let aux = _inPlace { $0.aux(slot) }
        if counts(hit: slot, aux: aux) { _inPlace { $0.setAux(slot, aux &+ 4) } }
    }

    /// The start of a miss in QD-LP, CLOCK-2Q+ and S3-FIFO-d: an object larger than the capacity
    /// or than small's share is refused, then one the admission rule refuses, unless the policy
    /// never asks it (their `*_can_insert`, in that order; ``EvictionPolicy/takesAdmission``);
    /// the key's ghost `slot` (-1 for none) leaves the ghost either way, kept to be revived only if the object fits; then
    /// eviction steps run, within `pass`, until it fits. Returns whether it fits.
    ///
    /// - Complexity: O(1) plus the eviction steps it runs.
    @inlinable
    public mutating func _makeRoom(forMiss slot: Int32, key: Key, cost: Int, _ pass: inout TrimPass,
                                   observer: inout some EvictionObserver<Key, Value>) -> Bool {
        let fits = cost <= lists.shares.capacity && cost <= lists.shares.small
            && (!Self.takesAdmission || observer.admits(key, cost: cost))
        var lists = self.lists
        store.consumeGhost(slot, from: &lists.ghost, keeping: fits)
        self.lists = lists
        guard fits else { return false }
        _evict(toFit: cost, &pass, observer: &observer)
        return true
    }

    /// Runs eviction steps, within `pass`, while an entry is resident and `cost` more would
    /// exceed the capacity (libCacheSim's `while (cache full) evict` before an insert).
    ///
    /// - Complexity: the eviction steps it runs.
    @inlinable
    public mutating func _evict(toFit cost: Int, _ pass: inout TrimPass, observer: inout some EvictionObserver<Key, Value>) {
        while lists.count > 0 && lists.totalCost > lists.shares.capacity - cost {
            evictionStep(&pass, observer: &observer)
        }
    }

    @inlinable
    public mutating func replace(_ slot: Int32, with value: Value, cost: Int,
                                 observer: inout some EvictionObserver<Key, Value>) {
        guard Self.updatesInPlace else {
            _updateAsHitOrNewObject(slot, with: value, cost: cost, observer: &observer)
            return
        }
        var lists = self.lists
        lists.update(slot, value: value, cost: cost, in: &store)
        self.lists = lists
        didHit(slot, observer: &observer)
        var pass = TrimPass(.caller)
        _evict(toFit: 0, &pass, observer: &observer)
        pass.end(&observer)
    }
}
