/// The segments of a segmented LRU (SLRU, SLRUv0) over one ``SlotArena``: `n` LRU lists, each
/// with its share of the capacity (⌊capacity / n⌋ each unless the policy takes `seg-size`
/// ratios), segment 0 the lowest. A slot's aux holds its segment. The policies keep only their
/// rule: how a hit promotes and how a segment over its share cools.
@usableFromInline
internal struct _LRUSegments {
    @usableFromInline var lists: [SlotList]
    /// The cost limit.
    @usableFromInline let capacity: Int
    /// Each segment's share of the capacity.
    @usableFromInline let shares: [Int]

    /// Validates `limits` and `options` for `descriptor` and splits the capacity: into `seg-size`
    /// ratios when the descriptor takes that parameter and it is given (`1:4`: segment 0 a
    /// fifth, segment 1 four fifths; libCacheSim SLRU.c's ⌊ratio / sum × capacity⌋ in doubles),
    /// otherwise into `segments` (1–64, default 4) equal shares.
    init(_ limits: CacheLimits, _ options: PolicyOptions, for descriptor: PolicyDescriptor) throws(PolicyConfigurationError) {
        (capacity, _) = try limits.validated(for: descriptor, options: options)
        if let text = options.values["seg-size"], descriptor.parameters.contains(where: { $0.name == "seg-size" }) {
            let parts = text.split(separator: ":", omittingEmptySubsequences: false).map { Int($0) }
            let expected = "1 to 64 positive whole numbers separated by ':' (e.g. 1:4)"
            guard (1...64).contains(parts.count), parts.allSatisfy({ ($0 ?? 0) > 0 && ($0 ?? 0) <= Int(Int32.max) }) else {
                throw .invalidOption("seg-size", value: text, expected: expected)
            }
            let ratios = parts.map { $0 ?? 1 }
            if let n = options.values["segments"], Int(n) != ratios.count {
                throw .invalidOption("segments", value: n, expected: "\(ratios.count), the number of seg-size ratios, or nothing")
            }
            let sum = Double(ratios.reduce(0, +)), whole = Double(capacity)
            let split = ratios.map { Int(Double($0) / sum * whole) }
            guard split.allSatisfy({ $0 > 0 }) else {
                throw .invalidOption("seg-size", value: text, expected: "ratios that give every segment at least one unit of the capacity")
            }
            shares = split
        } else {
            let n = try options.integer("segments", default: 4, in: 1...64)
            shares = Array(repeating: capacity / n, count: n)
        }
        lists = Array(repeating: SlotList(), count: shares.count)
    }

    /// No segments: what a policy's segments are swapped with while they are borrowed.
    /// Inlinable: it runs on every unlink, and as a call across modules it cost a call and the
    /// release of its two empty arrays each time.
    @inlinable init() {
        (lists, capacity, shares) = ([], 0, [])
    }

    /// The policies' `segments` parameter.
    static var parameter: PolicyParameter {
        PolicyParameter("segments", default: "4", "number of LRU segments, each floor(capacity / segments)", aliases: ["n-seg"])
    }

    /// SLRU's `seg-size` parameter.
    static var ratiosParameter: PolicyParameter {
        PolicyParameter("seg-size", default: "none",
                        "segment shares as ratios, lowest first (1:4: a fifth and four fifths), instead of equal ones")
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
    func lowestWithRoom(for cost: Int) -> Int { lists.indices.first { lists[$0].cost + cost <= shares[$0] } ?? 0 }

    @inlinable
    mutating func unlink<Key, Value>(_ slot: Int32, in store: inout SlotArena<Key, Value>) {
        store.unlink(slot, &lists[Int(store.aux(slot))])
    }

    @inlinable
    mutating func setCost<Key, Value>(_ slot: Int32, _ cost: Int, in store: inout SlotArena<Key, Value>) {
        store.setCost(slot, cost, in: &lists[Int(store.aux(slot))])
    }

    /// Renumbers every segment's ends after the arena compacted (an entry's segment is its aux
    /// word, which moves with it). O(n) in the segments.
    @inlinable
    mutating func relocate(_ relocation: SlotRelocation) {
        for segment in lists.indices { relocation.relocate(&lists[segment]) }
    }

    /// Puts `slot`, in no segment, at the head of `segment`. O(1).
    @inlinable
    mutating func place<Key, Value>(_ slot: Int32, in segment: Int, _ store: inout SlotArena<Key, Value>) {
        store.setAux(slot, UInt32(segment))
        store.pushHead(slot, &lists[segment])
    }
}
