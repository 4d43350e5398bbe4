/// The three queues of the S3-FIFO family over one ``SlotArena``: a small FIFO, a main queue
/// and a ghost FIFO of keys the small FIFO demoted. A slot's aux holds its queue's tag in bits
/// 0–1 and the policy's counter above. The policies keep only their rule: what a hit counts,
/// where a miss goes, and how main renews its tail (see ``_SmallMainGhostPolicy``).
///
/// - Complexity: every operation is O(1), plus O(1) per entry an eviction step moves or drops.
public struct _SmallMainGhostLists: _SlotListSet {
    @usableFromInline static var smallTag: UInt32 { 0 }
    @usableFromInline static var mainTag: UInt32 { 1 }
    @usableFromInline static var ghostTag: UInt32 { 2 }

    @usableFromInline var small = SlotList()
    @usableFromInline var main = SlotList()
    @usableFromInline var ghost = SlotList()
    @usableFromInline var shares: _SmallMainGhostShares

    @inlinable init(_ shares: _SmallMainGhostShares) { self.shares = shares }

    /// Resident entries, small and main.
    @inlinable public var count: Int { small.count + main.count }
    /// Their costs.
    @inlinable public var totalCost: Int { small.cost + main.cost }

    /// The counter above a slot's tag.
    @inlinable @inline(__always)
    static func counter(_ aux: UInt32) -> UInt32 { aux >> 2 }

    @inlinable @inline(__always)
    static func isResident(_ aux: UInt32) -> Bool { aux & 3 != ghostTag }

    @inlinable @inline(__always)
    static func isSmall(_ aux: UInt32) -> Bool { aux & 3 == smallTag }

    /// Takes `slot` out of whichever queue holds it. O(1).
    @inlinable
    public mutating func unlink<Key, Value>(_ slot: Int32, in store: inout SlotArena<Key, Value>) {
        switch store.aux(slot) & 3 {
        case Self.smallTag: store.unlink(slot, &small)
        case Self.mainTag: store.unlink(slot, &main)
        default: store.unlink(slot, &ghost)
        }
    }

    /// Re-inserting resident `slot`: its value and cost change in place, in the queue it is in. O(1).
    @inlinable
    mutating func update<Key, Value>(_ slot: Int32, value: Value, cost: Int, in store: inout SlotArena<Key, Value>) {
        store.setValue(slot, value)
        if Self.isSmall(store.aux(slot)) { store.setCost(slot, cost, in: &small) } else { store.setCost(slot, cost, in: &main) }
    }

    /// The small FIFO's eviction step: from its tail, entries counted at least `threshold`
    /// times move to main's head (counter 0) and the scan goes on; the first other one is
    /// demoted to the ghost FIFO (which keeps within its share), which ends the step. The scan
    /// also ends when small's cost reaches 0 if `whileCostRemains` (S3-FIFO's loop), else when
    /// small is empty.
    ///
    /// - Complexity: O(1) per entry moved.
    @inlinable
    mutating func evictFromSmall<Key, Value>(_ store: inout SlotArena<Key, Value>, whileCostRemains: Bool,
                                             _ pass: inout TrimPass, observer: inout some EvictionObserver<Key, Value>) {
        while !small.isEmpty && (small.cost > 0 || !whileCostRemains) {
            let slot = small.tail
            store.unlink(slot, &small)
            if Self.counter(store.aux(slot)) >= shares.threshold {
                store.pushHead(slot, &main, tag: Self.mainTag)
                continue
            }
            store.demote(slot, to: &ghost, limit: shares.ghost, tag: Self.ghostTag, pass: &pass, observer: &observer)
            return
        }
    }

    /// Demotes small's tail to the ghost FIFO (QD-LP's quick demotion). O(1) plus the ghosts dropped.
    @inlinable
    mutating func demoteSmallTail<Key, Value>(_ store: inout SlotArena<Key, Value>, _ pass: inout TrimPass,
                                              observer: inout some EvictionObserver<Key, Value>) {
        let slot = small.tail
        store.unlink(slot, &small)
        store.demote(slot, to: &ghost, limit: shares.ghost, tag: Self.ghostTag, pass: &pass, observer: &observer)
    }

    /// Main's CLOCK: while `renewing` gives the tail's counter a new value, the tail goes back to
    /// the head with it; the first tail it answers `nil` for leaves the cache. Main must not be
    /// empty. O(1) per entry renewed.
    @inlinable
    mutating func evictFromMain<Key, Value>(_ store: inout SlotArena<Key, Value>, _ pass: inout TrimPass,
                                            observer: inout some EvictionObserver<Key, Value>,
                                            renewing: (UInt32) -> UInt32?) {
        let slot = mainVictim(&store, renewing: renewing)
        pass.willRemove(&observer)
        store.evict(slot, from: &main, observer: &observer)
    }

    /// Main's CLOCK hand without the eviction: renews tails as ``evictFromMain(_:_:observer:renewing:)``
    /// does and returns the first it answers `nil` for, still at main's tail. O(1) per entry renewed.
    @inlinable
    mutating func mainVictim<Key, Value>(_ store: inout SlotArena<Key, Value>, renewing: (UInt32) -> UInt32?) -> Int32 {
        store.clockVictim(in: &main) { aux in renewing(Self.counter(aux)).map { Self.mainTag | $0 << 2 } }
    }

    /// A 2-bit CLOCK's renewal (libCacheSim `Clock` with `n-bit-counter=2`, QD-LP's and
    /// S3-FIFO-d's main): a counter ≥ 1 goes back to the head one lower; 0 leaves.
    @inlinable @inline(__always)
    static func decrementing(_ counter: UInt32) -> UInt32? { counter >= 1 ? counter - 1 : nil }

    /// Main's own insert of an object of `cost` (QD-LP's and S3-FIFO-d's main cache `get`):
    /// refused when larger than main's share; otherwise main's 2-bit CLOCK evicts until it fits.
    /// Returns whether it fits. O(1) per entry renewed or evicted.
    @inlinable
    mutating func makeRoomInMain<Key, Value>(for cost: Int, _ store: inout SlotArena<Key, Value>, _ pass: inout TrimPass,
                                             observer: inout some EvictionObserver<Key, Value>) -> Bool {
        guard cost <= shares.main else { return false }
        while !main.isEmpty && main.cost + cost > shares.main {
            evictFromMain(&store, &pass, observer: &observer, renewing: Self.decrementing)
        }
        return true
    }

    /// A ghost hit: the key's ghost slot becomes resident at main's head. O(1).
    @inlinable
    mutating func reviveInMain<Key, Value>(_ slot: Int32, value: Value, cost: Int, in store: inout SlotArena<Key, Value>) {
        store.revive(slot, value: value, cost: cost)
        store.pushHead(slot, &main, tag: Self.mainTag)
    }

    @inlinable
    public mutating func relocate(_ relocation: SlotRelocation) {
        relocation.relocate(&small)
        relocation.relocate(&main)
        relocation.relocate(&ghost)
    }
}
