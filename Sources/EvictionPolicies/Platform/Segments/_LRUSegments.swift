/// The segments of a segmented LRU (SLRU, SLRUv0) over one ``SlotArena``: `n` LRU lists of
/// equal share, ⌊capacity / n⌋ each, segment 0 the lowest. A slot's aux holds its segment. The
/// policies keep only their rule: how a hit promotes and how a segment over its share cools.
@usableFromInline
internal struct _LRUSegments {
    @usableFromInline var lists: [SlotList]
    /// The cost limit.
    @usableFromInline let capacity: Int
    /// Each segment's share of the capacity.
    @usableFromInline let share: Int

    /// Validates `limits` and `options` for `descriptor`, reads the `segments` option (1–64,
    /// default 4) and splits the capacity among them.
    init(_ limits: CacheLimits, _ options: PolicyOptions, for descriptor: PolicyDescriptor) throws(PolicyConfigurationError) {
        (capacity, _) = try limits.validated(for: descriptor, options: options)
        let n = try options.integer("segments", default: 4, in: 1...64)
        lists = Array(repeating: SlotList(), count: n)
        share = capacity / n
    }

    /// No segments: what a policy's segments are swapped with while they are borrowed.
    @usableFromInline init() {
        (lists, capacity, share) = ([], 0, 0)
    }

    /// The policies' `segments` parameter.
    static var parameter: PolicyParameter {
        PolicyParameter("segments", default: "4", "number of LRU segments, each floor(capacity / segments)", aliases: ["n-seg"])
    }

    /// O(n).
    @inlinable var count: Int { lists.reduce(0) { $0 + $1.count } }
    /// O(n).
    @inlinable var totalCost: Int { lists.reduce(0) { $0 + $1.cost } }
    @inlinable var top: Int { lists.count - 1 }

    /// The tail of the lowest non-empty segment, -1 if all are empty. O(n).
    @inlinable var victim: Int32 { lists.first { !$0.isEmpty }?.tail ?? -1 }

    /// The lowest segment with room for `cost` more, or 0 when none has. O(n).
    @inlinable
    func lowestWithRoom(for cost: Int) -> Int { lists.firstIndex { $0.cost + cost <= share } ?? 0 }

    @inlinable
    mutating func unlink<Key, Value>(_ slot: Int32, in store: inout SlotArena<Key, Value>) {
        store.unlink(slot, &lists[Int(store.aux(slot))])
    }

    @inlinable
    mutating func setCost<Key, Value>(_ slot: Int32, _ cost: Int, in store: inout SlotArena<Key, Value>) {
        store.setCost(slot, cost, in: &lists[Int(store.aux(slot))])
    }

    /// Puts `slot`, in no segment, at the head of `segment`. O(1).
    @inlinable
    mutating func place<Key, Value>(_ slot: Int32, in segment: Int, _ store: inout SlotArena<Key, Value>) {
        store.setAux(slot, UInt32(segment))
        store.pushHead(slot, &lists[segment])
    }
}
