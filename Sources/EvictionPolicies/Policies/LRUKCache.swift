// LRU-K: O'Neil, O'Neil & Weikum, "The LRU-K page replacement algorithm for database disk
// buffering", SIGMOD'93, as libCacheSim 0.3.5's cpp/LRU_K.cpp (`lru-k`; PyPI `libcachesim`
// 0.3.5, src/libCacheSim/cache/eviction/cpp/LRU_K.cpp). Exact on every golden row.

/// LRU-K: evict the object whose K-th most recent request is oldest; objects requested fewer
/// than K times go first, oldest insertion first.
///
/// **Rule** (libCacheSim 0.3.5 `LRU_K.cpp`, K = 2 by default). Each object remembers the times
/// of its last K requests (the request counter). While it has fewer than K, it waits in a FIFO
/// in insertion order; at its K-th request it moves to a heap keyed by its K-th most recent
/// request time, re-keyed on every later request. A miss evicts the FIFO's oldest while the FIFO
/// is not empty, else the heap's lowest key, until the object fits.
///
/// - Complexity: a hit is O(log n); an insertion O(1) (O(log n) when K = 1); an eviction O(log n).
public struct LRUKCache<Key: Hashable, Value>: BudgetedPolicy {
    public static var descriptor: PolicyDescriptor {
        PolicyDescriptor(
            name: "lru-k", reproduces: "LRU-K (O'Neil et al., SIGMOD'93) as libCacheSim 0.3.5 cpp/LRU_K.cpp",
            rule: "evict objects with fewer than K requests first (oldest insertion first), then the oldest K-th most recent request",
            family: .research, supportsCountLimit: true,
            parameters: [PolicyParameter("k", default: "2", "how many requests back the eviction key looks")])
    }

    public var store = SlotArena<Key, Value>()
    /// Objects with fewer than K requests, head newest.
    @usableFromInline var young = SlotList()
    /// Objects with K requests or more, by their K-th most recent request time.
    @usableFromInline var heap = IndexedMinHeap()
    /// The last K request times of each slot, K per slot, as a ring; the slot's aux counts its requests.
    @usableFromInline var history: ContiguousArray<Int64> = []
    @usableFromInline let k: Int
    /// The request counter (libCacheSim's `n_req`).
    @usableFromInline var now: Int64 = 0
    /// The limits and the residents' total cost.
    public var budget: PolicyBudget

    public init(limits: CacheLimits, options: PolicyOptions) throws(PolicyConfigurationError) {
        budget = try PolicyBudget(for: Self.descriptor, limits: limits, options: options)
        k = try options.integer("k", default: 2, in: 1...64)
    }

    @inlinable public var count: Int { young.count + heap.count }

    @inlinable public mutating func didInsert(_ slot: Int32) {
        now += 1
        budget.cost += store.cost(slot)
        store.setAux(slot, 0)
        let kth = record(slot)
        if k == 1 { heap.insert(slot, priority: Double(kth), tie: 0) } else { store.pushHead(slot, &young) }
    }

    @inlinable public mutating func didHit(_ slot: Int32) {
        now += 1
        let kth = record(slot)
        if heap.contains(slot) {
            heap.update(slot, priority: Double(kth), tie: 0)
        } else if Int(store.aux(slot)) >= k {
            store.unlink(slot, &young)
            heap.insert(slot, priority: Double(kth), tie: 0)
        }
    }

    @inlinable public mutating func victim() -> Int32 { young.isEmpty ? heap.minimum : young.tail }

    @inlinable public mutating func unlink(_ slot: Int32) {
        if heap.contains(slot) { heap.remove(slot) } else { store.unlink(slot, &young) }
        budget.cost -= store.cost(slot)
    }

    @inlinable public mutating func setCost(_ slot: Int32, _ cost: Int) {
        budget.cost += cost - store.cost(slot)
        if heap.contains(slot) { store.setCost(slot, cost) } else { store.setCost(slot, cost, in: &young) }
    }

    /// Appends the current time to `slot`'s history and returns the oldest time it keeps (the
    /// K-th most recent once it has K).
    @inlinable mutating func record(_ slot: Int32) -> Int64 {
        let base = Int(slot) * k
        if history.count < base + k { history.append(contentsOf: repeatElement(0, count: base + k - history.count)) }
        let n = Int(store.aux(slot))
        history[base + n % k] = now
        // The count stays in [K, 2K) once it reaches K, which keeps the ring position (count mod K).
        store.setAux(slot, UInt32(truncatingIfNeeded: n + 1 >= 2 * k ? n + 1 - k : n + 1))
        let kept = min(n + 1, k)
        return history[base + (n + 1 - kept) % k]
    }
}

extension LRUKCache: SlotRelocatingPolicy {
    /// Renumbers the young list's ends and the heap's slots after a compaction, and moves each
    /// moved slot's K request times with it, giving back the times of the slots that are gone.
    @inlinable public mutating func relocateSlots(_ relocation: SlotRelocation) {
        relocation.relocate(&young)
        heap.relocate(relocation)
        relocation.forEachMove { from, to in
            let source = Int(from) * k, target = Int(to) * k
            guard source + k <= history.count, target + k <= history.count else { return }
            for i in 0..<k { history[target + i] = history[source + i] }
        }
        let kept = relocation.slotCount * k
        if history.count > kept { history = ContiguousArray(history[..<kept]) }
    }
}
