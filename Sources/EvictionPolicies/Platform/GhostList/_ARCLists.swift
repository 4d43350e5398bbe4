/// The lists and target of the ARC family (ARC, ARCv0, CAR) over one ``SlotArena``: resident
/// T1 (seen once recently) and T2 (seen at least twice), ghost B1 and B2 of the keys they
/// evicted, and p, T1's target size in cost units (a `Double`, as libCacheSim keeps it). A
/// slot's aux holds its list's tag in bits 0–1; CAR keeps its reference bit above. The
/// policies keep only their rule: what a hit does, how a miss makes room, how REPLACE chooses.
@usableFromInline
internal struct _ARCLists {
    @usableFromInline static var t1Tag: UInt32 { 0 }
    @usableFromInline static var t2Tag: UInt32 { 1 }
    @usableFromInline static var b1Tag: UInt32 { 2 }
    @usableFromInline static var b2Tag: UInt32 { 3 }

    @usableFromInline var t1 = SlotList()
    @usableFromInline var t2 = SlotList()
    @usableFromInline var b1 = SlotList()
    @usableFromInline var b2 = SlotList()
    @usableFromInline let capacity: Int
    /// The target size of T1, in cost units.
    @usableFromInline var p: Double = 0

    /// Validates `options` and `limits` for `descriptor`, which must require a capacity.
    init(_ limits: CacheLimits, _ options: PolicyOptions, for descriptor: PolicyDescriptor) throws(PolicyConfigurationError) {
        capacity = try limits._requiredCapacity(for: descriptor, options: options)
    }

    /// Resident entries, T1 and T2.
    @inlinable var count: Int { t1.count + t2.count }
    @inlinable var totalCost: Int { t1.cost + t2.cost }

    @inlinable @inline(__always)
    static func isResident(_ aux: UInt32) -> Bool { aux & 3 <= t2Tag }

    /// Whether an object of `cost` does not fit beside the residents and one can still leave.
    @inlinable @inline(__always)
    func needsRoom(for cost: Int) -> Bool {
        t1.cost + t2.cost + cost > capacity && !(t1.isEmpty && t2.isEmpty)
    }

    /// Takes `slot` out of whichever list holds it. O(1).
    @inlinable
    mutating func unlink<Key, Value>(_ slot: Int32, in store: inout SlotArena<Key, Value>) {
        switch store.aux(slot) & 3 {
        case Self.t1Tag: store.unlink(slot, &t1)
        case Self.t2Tag: store.unlink(slot, &t2)
        case Self.b1Tag: store.unlink(slot, &b1)
        default: store.unlink(slot, &b2)
        }
    }

    /// A ghost hit adapts p: in B1 it grows by `step(|B2|, |B1|)`, up to c; in B2 it shrinks by
    /// `step(|B1|, |B2|)`, down to 0. Sizes are read before the key leaves its list. O(1).
    @inlinable
    mutating func adaptTarget(hitB1: Bool, step: (_ other: Int, _ own: Int) -> Double) {
        if hitB1 {
            let raised = p + step(b2.cost, b1.cost)
            p = raised < Double(capacity) ? raised : Double(capacity)
        } else {
            let lowered = p - step(b1.cost, b2.cost)
            p = lowered > 0 ? lowered : 0
        }
    }

    /// ARC's step, max(`other` / `own`, 1) in `Double`s (ARC.c and ARCv0.c): C's `MAX(x, 1)`
    /// keeps 1 when the quotient is NaN (a ghost list of zero-cost keys).
    @inlinable @inline(__always)
    static func ratioStep(_ other: Int, _ own: Int) -> Double {
        let ratio = Double(other) / Double(own)
        return ratio > 1 ? ratio : 1
    }

    /// Puts `slot`, resident and in no list, at the head of T2 (`toT2`) or T1, its bits clear. O(1).
    @inlinable
    mutating func place<Key, Value>(_ slot: Int32, toT2: Bool, in store: inout SlotArena<Key, Value>) {
        if toT2 { store.pushHead(slot, &t2, tag: Self.t2Tag) } else { store.pushHead(slot, &t1, tag: Self.t1Tag) }
    }

    /// REPLACE's outcome: the LRU end of T1 (`fromT1`) or T2 leaves the cache and its key enters
    /// the head of B1 or B2, which have no bound of their own. O(1).
    @inlinable
    mutating func demoteTail<Key, Value>(fromT1: Bool, _ store: inout SlotArena<Key, Value>, _ pass: inout TrimPass,
                                         observer: inout some EvictionObserver<Key, Value>) {
        if fromT1 {
            let slot = t1.tail
            store.unlink(slot, &t1)
            store.prefetchEviction(of: t1.tail)
            store.demote(slot, to: &b1, limit: .max, tag: Self.b1Tag, pass: &pass, observer: &observer)
        } else {
            let slot = t2.tail
            store.unlink(slot, &t2)
            store.prefetchEviction(of: t2.tail)
            store.demote(slot, to: &b2, limit: .max, tag: Self.b2Tag, pass: &pass, observer: &observer)
        }
    }

    /// Renumbers the four lists' ends after the arena compacted. O(1).
    @inlinable
    mutating func relocate(_ relocation: SlotRelocation) {
        relocation.relocate(&t1)
        relocation.relocate(&t2)
        relocation.relocate(&b1)
        relocation.relocate(&b2)
    }
}
