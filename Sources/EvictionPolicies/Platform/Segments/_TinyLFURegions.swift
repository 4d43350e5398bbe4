/// The three LRU regions of a W-TinyLFU over one ``SlotArena``: the admission window, and the
/// main cache's probation and protected segments. A slot's aux holds its region's tag. Caffeine's
/// port (``WTinyLFUCache``) and libCacheSim's (``LibCacheSimWTinyLFUCache``) keep only their
/// rule (see ``_TinyLFUPolicy``).
///
/// - Complexity: every operation is O(1).
public struct _TinyLFURegions: _SlotListSet {
    @usableFromInline static var windowTag: UInt32 { 0 }
    @usableFromInline static var probationTag: UInt32 { 1 }
    @usableFromInline static var protectedTag: UInt32 { 2 }

    /// The admission window, an LRU; new objects enter here.
    @usableFromInline var window = SlotList()
    /// Main's probationary LRU: window entries admitted to main, and protected's demotions.
    @usableFromInline var probation = SlotList()
    /// Main's protected LRU: entries hit while in probation.
    @usableFromInline var protected = SlotList()

    @inlinable init() {}

    /// Resident entries, in all three regions.
    @inlinable public var count: Int { window.count + probation.count + protected.count }
    /// Their costs.
    @inlinable public var totalCost: Int { window.cost + probation.cost + protected.cost }
    /// The main cache's cost: probation and protected.
    @inlinable var mainCost: Int { probation.cost + protected.cost }

    /// Takes `slot` out of whichever region holds it. O(1).
    @inlinable
    public mutating func unlink<Key, Value>(_ slot: Int32, in store: inout SlotArena<Key, Value>) {
        switch store.aux(slot) {
        case Self.windowTag: store.unlink(slot, &window)
        case Self.probationTag: store.unlink(slot, &probation)
        default: store.unlink(slot, &protected)
        }
    }

    @inlinable
    public mutating func relocate(_ relocation: SlotRelocation) {
        relocation.relocate(&window)
        relocation.relocate(&probation)
        relocation.relocate(&protected)
    }
}

/// A W-TinyLFU over ``_TinyLFURegions``: the update step (libCacheSim's find-then-insert: a
/// re-insert at the same cost is a hit, at a new cost a new object) and the hit without an
/// observer are written once here (the count, the total cost and the unlink step in
/// ``_ListSetPolicy``). The policy supplies its hit rule, which may evict
/// (``hit(_:observer:)``), and its miss.
///
/// - Complexity: every step here is O(1) plus the policy's own rule.
public protocol _TinyLFUPolicy: _ListSetPolicy where ListSet == _TinyLFURegions {
    /// The hit rule: resident `slot` was requested; any entry it evicts goes to `observer`.
    mutating func hit(_ slot: Int32, observer: inout some EvictionObserver<Key, Value>)
}

extension _TinyLFUPolicy {
    @inlinable @inline(__always)
    public mutating func didHit(_ slot: Int32, observer: inout some EvictionObserver<Key, Value>) {
        hit(slot, observer: &observer)
    }

    /// A hit with no one to tell: evictions still happen, unreported.
    @inlinable
    public mutating func didHit(_ slot: Int32) {
        var ignoring = IgnoringObserver<Key, Value>()
        hit(slot, observer: &ignoring)
    }

    @inlinable
    public mutating func replace(_ slot: Int32, with value: Value, cost: Int,
                                 observer: inout some EvictionObserver<Key, Value>) {
        _updateAsHitOrNewObject(slot, with: value, cost: cost, observer: &observer)
    }
}
