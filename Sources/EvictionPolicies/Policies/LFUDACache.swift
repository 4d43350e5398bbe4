// LFUDA: LFU with dynamic aging (Arlitt et al., "Evaluating content management techniques for
// Web proxy caches", ACM SIGMETRICS PER 27(4), 2000), as libCacheSim 0.3.5's LFUDA.c (PyPI
// `libcachesim` 0.3.5, src/libCacheSim/cache/eviction/LFUDA.c). Exact on every golden row.

/// LFU with dynamic aging, in libCacheSim's form: frequencies are bucketed, and the cache age
/// `L` (the frequency of the last evicted bucket) is added to an object's frequency.
///
/// **Rule** (libCacheSim 0.3.5 `LFUDA.c`, whose aging differs from the paper's `K = L + 1`).
/// - **Miss**: the object enters the bucket `L + 1`, newest.
/// - **Hit**: its frequency becomes `f + L` (unchanged while `L` is 0), and it moves to the
///   newest end of that bucket; if it left the bucket `L` empty, `L` first moves up to the
///   lowest non-empty bucket above it (at most the highest frequency seen).
/// - **Evict**: the oldest object of bucket `L` (bucket 1 while `L` ≤ 1); `L` becomes that
///   bucket's frequency, and moves up the same way when the bucket empties.
/// Objects left in a bucket below `L` are never chosen again, as in libCacheSim.
///
/// - Complexity: a hit and an eviction are O(1) expected plus O(log b) to find the next
///   non-empty bucket, b buckets (libCacheSim scans every frequency in between).
public struct LFUDACache<Key: Hashable, Value>: BudgetedPolicy {
    public static var descriptor: PolicyDescriptor {
        PolicyDescriptor(
            name: "lfuda", reproduces: "LFUDA (Arlitt et al., 2000) as libCacheSim 0.3.5 LFUDA.c",
            rule: "evict the oldest object of the lowest live frequency L; a hit adds L to the frequency, a miss enters at L + 1",
            family: .research)
    }

    public var store = SlotArena<Key, Value>()
    /// Buckets by frequency, head newest. A bucket once made stays (libCacheSim's `freq_map`),
    /// because whether it exists decides whether an insert raises ``maxFrequency``.
    @usableFromInline var buckets: [Int64: SlotList] = [1: SlotList()]
    @usableFromInline var frequency = SideTable<Int64>(filling: 0)
    /// `L`, libCacheSim's `min_freq`.
    @usableFromInline var age: Int64 = 0
    @usableFromInline var maxFrequency: Int64 = 0
    /// Frequencies whose bucket became non-empty, lowest first; stale entries are skipped.
    @usableFromInline var live = _FrequencyHeap()
    @usableFromInline var residentCount = 0
    /// The limits and the residents' total cost.
    public var budget: PolicyBudget

    public init(limits: CacheLimits, options: PolicyOptions) throws(PolicyConfigurationError) {
        budget = try PolicyBudget(for: Self.descriptor, limits: limits, options: options)
    }

    @inlinable public var count: Int { residentCount }

    @inlinable public mutating func didInsert(_ slot: Int32) {
        let f = age == Int64.max ? age : age + 1
        if buckets[f] == nil {
            buckets[f] = SlotList()
            maxFrequency = max(maxFrequency, f)
        }
        residentCount += 1
        budget.cost += store.cost(slot)
        frequency[slot] = f
        push(slot, into: f)
    }

    @inlinable public mutating func didHit(_ slot: Int32) {
        let old = frequency[slot]
        // Frequencies grow by L per hit; saturate rather than overflow.
        let f = old > Int64.max - age ? Int64.max : old + age
        frequency[slot] = f
        maxFrequency = max(maxFrequency, f)
        store.unlink(slot, &buckets[old, default: SlotList()])
        if age == old && buckets[old]?.isEmpty == true { raiseAge() }
        push(slot, into: f)
    }

    @inlinable public mutating func victim() -> Int32 {
        var f: Int64 = age <= 1 ? 1 : age
        // libCacheSim dereferences null here when `L` was left on an empty bucket; take the
        // lowest non-empty bucket instead (never reached on the golden traces).
        if buckets[f]?.isEmpty ?? true, let lowest = buckets.filter({ !$0.value.isEmpty }).keys.min() { f = lowest }
        age = f
        return buckets[f]?.tail ?? -1
    }

    @inlinable public mutating func unlink(_ slot: Int32) {
        let f = frequency[slot]
        store.unlink(slot, &buckets[f, default: SlotList()])
        residentCount -= 1
        budget.cost -= store.cost(slot)
        if f == age && buckets[f]?.isEmpty == true { raiseAge() }
    }

    @inlinable public mutating func setCost(_ slot: Int32, _ cost: Int) {
        budget.cost += cost - store.cost(slot)
        store.setCost(slot, cost, in: &buckets[frequency[slot], default: SlotList()])
    }

    @inlinable mutating func push(_ slot: Int32, into f: Int64) {
        if buckets[f]?.isEmpty ?? true { live.push(f) }
        store.pushHead(slot, &buckets[f, default: SlotList()])
    }

    /// `update_min_freq`: `L` moves to the lowest non-empty bucket in (L, highest frequency],
    /// and stays when there is none.
    @inlinable mutating func raiseAge() {
        while let f = live.minimum, f <= maxFrequency {
            if f > age && !(buckets[f]?.isEmpty ?? true) {
                age = f
                return
            }
            live.pop()
        }
    }
}

/// A binary min-heap of frequencies, duplicates allowed: the candidates for LFUDA's next `L`.
@usableFromInline
struct _FrequencyHeap {
    @usableFromInline var items: [Int64] = []
    @inlinable init() {}
    @inlinable var minimum: Int64? { items.first }

    @inlinable mutating func push(_ f: Int64) {
        items.append(f)
        var i = items.count - 1
        while i > 0 && items[(i - 1) / 2] > items[i] {
            items.swapAt(i, (i - 1) / 2)
            i = (i - 1) / 2
        }
    }

    @inlinable mutating func pop() {
        let last = items.removeLast()
        guard !items.isEmpty else { return }
        items[0] = last
        var i = 0
        while true {
            var child = 2 * i + 1
            guard child < items.count else { return }
            if child + 1 < items.count && items[child + 1] < items[child] { child += 1 }
            guard items[child] < items[i] else { return }
            items.swapAt(i, child)
            i = child
        }
    }
}
