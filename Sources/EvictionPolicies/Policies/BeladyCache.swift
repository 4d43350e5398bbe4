// Belady's MIN (L. A. Belady, "A study of replacement algorithms for a virtual-storage computer",
// IBM Systems Journal 5(2), 1966): the offline optimum for unit-size objects; as libCacheSim's
// Belady.c (1a1a11a/libCacheSim @ aa0fc40, `Belady_find`, `Belady_insert`, `Belady_evict`, with the
// binary heap of dataStructure/pqueue.c).
//
// Rule (demand MIN): every miss is inserted. To make room, evict the resident object whose next
// request is farthest in the future — objects never requested again first — until the new object
// fits (cost and count). A hit moves the object's key in the heap to its new next-request time.
// An object larger than the capacity is never inserted. Sizes are only used to decide how much to
// evict, so with variable sizes this is not the byte-optimal policy (that problem is NP-hard).
//
// The future comes from ``noteNextAccess(_:)``, which the replay engine calls before every request
// (descriptor `needsFuture`): the 1-based index of the key's next request, `Int64.max` for none.
// Without it (an app calling `lookup`/`insert` directly) every entry counts as never requested
// again.
//
// Ties: in objects mode only never-again objects can tie, and which of them goes does not change
// the miss count. In bytes mode it does (their sizes differ), so the heap mirrors libCacheSim's
// pqueue step for step: a 1-based max-heap with strict comparisons, `bubble_up` and
// `percolate_down` (right child only when strictly larger), `pop` replacing the root with the last
// element, and a priority change that bubbles up when the new time is later and percolates down
// otherwise. Fed the same sequence of operations, it makes the same choices among ties.

/// The offline optimal cache (Belady's MIN), keyed on each entry's next request.
///
/// - Complexity: lookup, insert, remove and each eviction are O(log n).
public struct BeladyCache<Key: Hashable, Value>: EvictionPolicy {
    public static var descriptor: PolicyDescriptor {
        PolicyDescriptor(
            name: "belady", reproduces: "Belady MIN, offline optimum (libCacheSim Belady.c)",
            rule: "evict the object whose next request is farthest in the future (never-again first); "
                + "every miss is inserted; needs next-access times (oracleGeneral field or a first pass over the trace)",
            family: .research, supportsCountLimit: true, needsFuture: true)
    }

    @usableFromInline var store = SlotArena<Key, Value>()
    /// The max-heap of slots by next request, 1-based: `heap[0]` is a placeholder.
    @usableFromInline var heap: ContiguousArray<Int32> = [-1]
    /// Per slot: the 1-based index of its next request (`Int64.max`: never).
    @usableFromInline var nextRequest: ContiguousArray<Int64> = []
    /// Per slot: its index in `heap`.
    @usableFromInline var heapPosition: ContiguousArray<Int32> = []
    /// What ``noteNextAccess(_:)`` said about the request being handled.
    @usableFromInline var pendingNext: Int64 = .max
    @usableFromInline var residentCost = 0
    @usableFromInline let capacity: Int
    @usableFromInline let countLimit: Int

    public init(limits: CacheLimits, options: PolicyOptions) throws(PolicyConfigurationError) {
        try options.validate(against: Self.descriptor)
        try limits.validate(for: Self.descriptor)
        capacity = limits.capacity ?? .max
        countLimit = limits.countLimit ?? .max
    }

    @inlinable public var count: Int { heap.count - 1 }
    @inlinable public var totalCost: Int { residentCost }

    @inlinable @inline(__always)
    public func prefetch(_ key: Key, _ stage: PrefetchStage) { store.prefetch(key, stage) }

    @inlinable
    public func contains(_ key: Key) -> Bool { store.find(key) >= 0 }

    @inlinable
    public mutating func noteNextAccess(_ index: Int64) { pendingNext = index }

    @inlinable
    public mutating func lookup(_ key: Key, observer: inout some EvictionObserver<Key, Value>) -> Value? {
        let next = takePendingNext()
        let slot = store.find(key)
        guard slot >= 0 else { return nil }
        reschedule(slot, next: next)
        return store.values[Int(slot)]
    }

    @inlinable
    public mutating func access(_ key: Key, cost: Int, orInsert value: @autoclosure () -> Value,
                                observer: inout some EvictionObserver<Key, Value>) -> Bool {
        let next = takePendingNext()
        let slot = store.find(key)
        if slot >= 0 {
            reschedule(slot, next: next)
            return true
        }
        insertNew(value(), forKey: key, cost: cost, next: next, observer: &observer)
        return false
    }

    @inlinable
    public mutating func insert(_ value: Value, forKey key: Key, cost: Int,
                                observer: inout some EvictionObserver<Key, Value>) {
        let next = takePendingNext()
        let cost = max(cost, 0)
        let slot = store.find(key)
        if slot >= 0 {
            guard cost <= capacity else { remove(key, observer: &observer); return }
            store.values[Int(slot)] = value
            residentCost += cost - store.cost(slot)
            store.slots[Int(slot)].cost = cost
            reschedule(slot, next: next)
            makeRoom(forCost: 0, count: 0, observer: &observer)
        } else {
            insertNew(value, forKey: key, cost: cost, next: next, observer: &observer)
        }
    }

    @inlinable
    @discardableResult
    public mutating func remove(_ key: Key, observer: inout some EvictionObserver<Key, Value>) -> Value? {
        let slot = store.find(key)
        guard slot >= 0 else { return nil }
        residentCost -= store.cost(slot)
        removeFromHeap(slot)
        return store.release(slot)
    }

    /// The next-request time for the current call; later calls default to "never" until told again.
    @inlinable @inline(__always)
    mutating func takePendingNext() -> Int64 {
        defer { pendingNext = .max }
        return pendingNext
    }

    @inlinable
    mutating func insertNew(_ value: Value, forKey key: Key, cost: Int, next: Int64,
                            observer: inout some EvictionObserver<Key, Value>) {
        guard cost <= capacity else { return }
        makeRoom(forCost: cost, count: 1, observer: &observer)
        let slot = store.allocate(key: key, value: value, cost: cost)
        if Int(slot) >= nextRequest.count {
            nextRequest.append(contentsOf: repeatElement(0, count: Int(slot) + 1 - nextRequest.count))
            heapPosition.append(contentsOf: repeatElement(0, count: Int(slot) + 1 - heapPosition.count))
        }
        nextRequest[Int(slot)] = next
        residentCost += cost
        heap.append(slot)
        bubbleUp(heap.count - 1)
    }

    /// Evicts the farthest next request until `cost` more and `count` more entries fit.
    @inlinable
    mutating func makeRoom(forCost cost: Int, count extra: Int, observer: inout some EvictionObserver<Key, Value>) {
        guard residentCost > capacity - cost || count > countLimit - extra else { return }
        observer.trimWillBegin(.caller)
        while heap.count > 1 && (residentCost > capacity - cost || count > countLimit - extra) {
            let victim = heap[1]
            let last = heap.removeLast()
            if heap.count > 1 {
                heap[1] = last
                percolateDown(1)
            }
            let key = store.key(victim), victimCost = store.cost(victim)
            residentCost -= victimCost
            if let value = store.release(victim) { observer.didEvict(key, value: value, cost: victimCost) }
        }
        observer.trimDidEnd(.caller)
    }

    // MARK: Heap (libCacheSim pqueue.c order)

    /// A hit: the entry's next request moves; later times rise toward the root.
    @inlinable
    mutating func reschedule(_ slot: Int32, next: Int64) {
        let old = nextRequest[Int(slot)]
        nextRequest[Int(slot)] = next
        let position = Int(heapPosition[Int(slot)])
        if old < next { bubbleUp(position) } else { percolateDown(position) }
    }

    @inlinable
    mutating func removeFromHeap(_ slot: Int32) {
        let position = Int(heapPosition[Int(slot)])
        let last = heap.removeLast()
        guard position < heap.count else { return }     // it was the last element
        heap[position] = last
        if nextRequest[Int(slot)] < nextRequest[Int(last)] { bubbleUp(position) } else { percolateDown(position) }
    }

    @inlinable
    mutating func bubbleUp(_ start: Int) {
        var i = start
        let moving = heap[i]
        let priority = nextRequest[Int(moving)]
        while i > 1 && nextRequest[Int(heap[i >> 1])] < priority {
            heap[i] = heap[i >> 1]
            heapPosition[Int(heap[i])] = Int32(truncatingIfNeeded: i)
            i >>= 1
        }
        heap[i] = moving
        heapPosition[Int(moving)] = Int32(truncatingIfNeeded: i)
    }

    /// The larger child of `i` (the right one only when strictly larger), or 0 for a leaf.
    @inlinable @inline(__always)
    func largerChild(_ i: Int) -> Int {
        let left = i << 1
        guard left < heap.count else { return 0 }
        if left + 1 < heap.count && nextRequest[Int(heap[left])] < nextRequest[Int(heap[left + 1])] { return left + 1 }
        return left
    }

    @inlinable
    mutating func percolateDown(_ start: Int) {
        var i = start
        let moving = heap[i]
        let priority = nextRequest[Int(moving)]
        while true {
            let child = largerChild(i)
            guard child != 0 && priority < nextRequest[Int(heap[child])] else { break }
            heap[i] = heap[child]
            heapPosition[Int(heap[i])] = Int32(truncatingIfNeeded: i)
            i = child
        }
        heap[i] = moving
        heapPosition[Int(moving)] = Int32(truncatingIfNeeded: i)
    }
}
