// MQ: the Multi-Queue algorithm (Zhou, Philbin & Li, "The Multi-Queue replacement algorithm for
// second level buffer caches", USENIX ATC'01), as libCacheSim 0.3.5's MQ.c (PyPI `libcachesim`
// 0.3.5, src/libCacheSim/cache/eviction/MQ.c). Exact on every golden row.

/// Multi-Queue: LRU queues by request count (queue ⌊log₂ count⌋), entries that outlive their
/// lifetime drift down a queue, and a ghost FIFO remembers evicted counts.
///
/// **Rule** (libCacheSim 0.3.5 `MQ.c`; 8 queues, lifetime 10 000, ghost 4 × the capacity).
/// - **Hit**: count + 1; the entry moves to the head of queue min(⌊log₂ count⌋, 7) and expires
///   at `now + lifetime`; then *adjust*.
/// - **Miss**: a key in the ghost leaves it and comes back with its remembered count + 1 (else
///   count 1). Evict until the object fits; it enters its queue's head and expires at
///   `now + lifetime`; then *adjust*.
/// - **Adjust**: `now` += 1; for each queue *k* ≥ 1 in turn, a tail that expired before `now`
///   moves to the head of queue *k* − 1 with a new expiry.
/// - **Evict**: the tail of the lowest non-empty queue; its key and count enter the ghost FIFO,
///   which drops its oldest keys to stay within its size.
/// - **Remove**: a resident leaves its queue; a ghost key leaves the ghost FIFO.
///
/// - Complexity: a hit, an insertion and an eviction are O(queues); lookups O(1) expected.
public struct MQCache<Key: Hashable, Value>: SlotPolicy {
    public static var descriptor: PolicyDescriptor {
        PolicyDescriptor(
            name: "mq", reproduces: "MQ (Zhou et al., USENIX ATC'01) as libCacheSim 0.3.5 MQ.c",
            rule: "LRU queues by log2 of the request count; expired tails drift down one queue; evict the tail of the lowest queue, remembering its count in a ghost FIFO",
            family: .research, aliases: ["multiqueue"],
            parameters: [
                PolicyParameter("queues", default: "8", "number of LRU queues", aliases: ["n-queue"]),
                PolicyParameter("lifetime", default: "10000", "requests an entry may stay unrequested before it drifts down a queue"),
                PolicyParameter("ghost-ratio", default: "4", "ghost FIFO size as a multiple of the capacity, truncated",
                                aliases: ["qout-size-ratio"]),
            ])
    }

    public var store = SlotArena<Key, Value>()
    /// Queue *k* holds counts in [2^k, 2^(k+1)), the last one everything above.
    @usableFromInline var queues: [SlotList]
    /// Each slot's queue and expiry, side by side so that a hit reads one line for both; its
    /// request count is its aux word.
    @usableFromInline var placement = SideTable<_MQPlacement>(filling: _MQPlacement(expiry: 0, queue: 0))
    /// Per queue, an expiry its tail's is at least: the last tail expiry *adjust* read there.
    /// Entries join a queue's head expiring `now + lifetime` and `now` only grows, so a queue is
    /// in expiry order from its tail, and a tail expires no sooner than one read before it.
    /// Why: reading every queue's tail on every request was a cache miss per queue (adjust was
    /// a sixth of the replay); with this it reads one only when that tail may have expired.
    @usableFromInline var tailExpiryFloor: [Int64]
    /// Evicted keys, newest at the head: ghosts in the arena (slots with no value) that keep their
    /// counts in their aux word, marked with ``ghostMark``.
    ///
    /// Why in the arena rather than an arena of its own: an eviction then leaves the key where it
    /// is, and a ghost hit revives it in place, where a separate table took the key out of one
    /// index and filed it in the other each time (four index updates per eviction and revival),
    /// and a miss probed two indexes.
    @usableFromInline var ghostList = SlotList()
    @usableFromInline let ghostCapacity: Int
    @usableFromInline let lifetime: Int64
    @usableFromInline var now: Int64 = 0
    /// The count a ghost hit hands to the insertion that follows it.
    @usableFromInline var revivedCount: UInt32 = 0
    public let capacity: Int
    public var countLimit: Int { .max }

    /// The aux bit that marks a ghost; a resident's count stays below it (at most `Int32.max`).
    @inlinable static var ghostMark: UInt32 { 1 << 31 }

    public init(limits: CacheLimits, options: PolicyOptions) throws(PolicyConfigurationError) {
        (capacity, _) = try limits.validated(for: Self.descriptor, options: options)
        queues = Array(repeating: SlotList(), count: try options.integer("queues", default: 8, in: 1...32))
        tailExpiryFloor = Array(repeating: 0, count: queues.count)
        lifetime = Int64(try options.integer("lifetime", default: 10_000, in: 0...Int(Int32.max)))
        ghostCapacity = _proportion(of: capacity, try options.double("ghost-ratio", default: 4, in: 0...1_000))
    }

    /// Loads the entry's memory ahead (resident or ghost, one index holds both).
    @inlinable @inline(__always)
    public func prefetch(_ key: Key, _ stage: PrefetchStage) {
        let slot = store.prefetch(hash: store.hash(key), stage)
        // A hit unlinks the entry from its queue, which its placement names: load that too.
        if stage == .entry { placement.prefetch(slot) }
    }

    /// A ghost is marked in its aux word, which the lookup's key comparison has just loaded.
    @inlinable @inline(__always)
    public func isResident(_ slot: Int32) -> Bool { store.aux(slot) < Self.ghostMark }

    @inlinable public var count: Int { queues.reduce(0) { $0 + $1.count } }
    @inlinable public var totalCost: Int { queues.reduce(0) { $0 + $1.cost } }

    @inlinable public mutating func didHit(_ slot: Int32) {
        leaveQueue(slot)
        let requests = store.aux(slot)
        if requests < UInt32(Int32.max) { store.setAux(slot, requests + 1) }
        link(slot)
        adjust()
    }

    @inlinable public mutating func didInsert(_ slot: Int32) {
        store.setAux(slot, revivedCount > 0 ? min(revivedCount, UInt32(Int32.max) - 1) + 1 : 1)
        revivedCount = 0
        link(slot)
        adjust()
    }

    @inlinable public mutating func victim() -> Int32 { queues.first { !$0.isEmpty }?.tail ?? -1 }

    /// Takes a resident out of its queue, or a ghost out of the ghost FIFO: a removal forgets a
    /// ghost key, as `MQ_remove` removes the key from Qout as well as from the queues.
    @inlinable public mutating func unlink(_ slot: Int32) {
        if isResident(slot) { leaveQueue(slot) } else { store.unlink(slot, &ghostList) }
    }

    /// Takes resident `slot` out of its queue (a hit's and an eviction's unlink, which need not
    /// ask whether it is a ghost).
    @inlinable mutating func leaveQueue(_ slot: Int32) { store.unlink(slot, &queues[Int(placement[slot].queue)]) }

    @inlinable public mutating func setCost(_ slot: Int32, _ cost: Int) {
        store.setCost(slot, cost, in: &queues[Int(placement[slot].queue)])
    }

    /// The miss step: a ghost hit is consumed (even when the object is then refused) and hands
    /// its count to the insertion, which revives the ghost's slot.
    @inlinable
    public mutating func miss(_ key: Key, hash: UInt64, ghost: Int32, cost: Int, value: () -> Value,
                              observer: inout some EvictionObserver<Key, Value>) {
        if ghost >= 0 {
            revivedCount = store.aux(ghost) & ~Self.ghostMark
            store.unlink(ghost, &ghostList)
        }
        // can_insert (the admissioner) after MQ_find consulted Qout.
        guard observer.admits(key, cost: cost), cost <= capacity else {   // admissioner, then size
            if ghost >= 0 { store.release(ghost) }
            revivedCount = 0
            return
        }
        makeRoom(forCost: cost, count: 1, observer: &observer)
        if ghost >= 0 {
            store.revive(ghost, value: value(), cost: cost)
            didInsert(ghost)
        } else {
            didInsert(store.allocate(key: key, hash: hash, value: value(), cost: cost))
        }
    }

    /// An insertion of a key that is not resident: a miss, which consumes the key's ghost.
    @inlinable
    public mutating func insertNew(_ value: Value, forKey key: Key, hash: UInt64, cost: Int,
                                   observer: inout some EvictionObserver<Key, Value>) {
        miss(key, hash: hash, ghost: store.find(key, hash: hash), cost: cost, value: { value }, observer: &observer)
    }

    /// Evicts as the flow does, keeping each victim's key and count as a ghost.
    @inlinable
    public mutating func makeRoom(forCost cost: Int, count extra: Int,
                                  observer: inout some EvictionObserver<Key, Value>) {
        var pass = TrimPass(.caller)
        while count > 0 && totalCost > capacity - cost {
            pass.willRemove(&observer)
            let slot = victim()
            // The next victim is usually the newer neighbour; its unlink reads its slot and
            // its placement.
            let newer = store.prev(slot)
            placement.prefetch(newer)
            if newer >= 0 { store.prefetchSlot(store.prev(newer)) }
            leaveQueue(slot)
            let victimCost = store.cost(slot)
            if let value = store.value(slot) { observer.didEvict(store.key(slot), value: value, cost: victimCost) }
            remember(slot, cost: victimCost)
        }
        pass.end(&observer)
    }

    /// Keeps `slot`, an evicted entry in no queue, as the newest ghost, dropping the oldest
    /// ghosts to stay within the ghost FIFO's size; a key costlier than that size is forgotten.
    @inlinable mutating func remember(_ slot: Int32, cost: Int) {
        guard cost <= ghostCapacity else {
            store.release(slot)
            return
        }
        let ghosts = ghostList.count
        store.trimGhosts(&ghostList, toCost: ghostCapacity - cost)
        // The next ghost to drop is the new oldest: start loading its index bucket and the
        // ghost after it, as an eviction does for its successor.
        if ghostList.count < ghosts { store.prefetchEviction(of: ghostList.tail) }
        store.setValue(slot, nil)
        store.setAux(slot, store.aux(slot) | Self.ghostMark)
        store.pushHead(slot, &ghostList)
    }

    /// Puts `slot` at the head of the queue its count belongs to, expiring `lifetime` from now.
    @inlinable mutating func link(_ slot: Int32) {
        var requests = store.aux(slot)
        var queue = 0
        while requests > 1 && queue < queues.count - 1 {
            requests >>= 1
            queue += 1
        }
        place(slot, in: queue)
    }

    @inlinable mutating func place(_ slot: Int32, in queue: Int) {
        placement[slot] = _MQPlacement(expiry: now + lifetime, queue: UInt8(truncatingIfNeeded: queue))
        store.pushHead(slot, &queues[queue])
    }

    /// `MQ_adjust`: time advances, and each queue's expired tail drifts down one queue.
    @inlinable mutating func adjust() {
        now += 1
        for k in queues.indices.dropFirst() where tailExpiryFloor[k] < now {
            let tail = queues[k].tail
            guard tail >= 0 else { continue }
            let expiry = placement[tail].expiry
            tailExpiryFloor[k] = expiry
            if expiry < now {
                // The next request reads the new tail's expiry, often expired too: load it now.
                // Its slot is in cache (the unlink just wrote its link), and if it drifts too
                // its unlink will write its own newer neighbour's: load that one and its
                // placement as well, a drift ahead.
                let newer = store.prev(tail)
                store.unlink(tail, &queues[k])
                place(tail, in: k - 1)
                placement.prefetch(newer)
                if newer >= 0 {
                    let next = store.prev(newer)
                    store.prefetchSlot(next)
                    placement.prefetch(next)
                }
            }
        }
    }
}

extension MQCache: SlotRelocatingPolicy {
    /// Renumbers the queues' and the ghost FIFO's ends and moves each entry's placement after a
    /// compaction (its request count is its aux word, which moves with it).
    @inlinable public mutating func relocateSlots(_ relocation: SlotRelocation) {
        for queue in queues.indices { relocation.relocate(&queues[queue]) }
        relocation.relocate(&ghostList)
        placement.relocate(relocation)
    }
}

/// Where an MQ entry is: its queue, and the virtual time after which it drifts down one.
@usableFromInline
struct _MQPlacement {
    @usableFromInline var expiry: Int64
    @usableFromInline var queue: UInt8

    @inlinable init(expiry: Int64, queue: UInt8) {
        self.expiry = expiry
        self.queue = queue
    }
}
