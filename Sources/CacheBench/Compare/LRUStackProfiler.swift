// Exact LRU results at many capacities from one pass: Mattson, Gecsei, Slutz and Traiger,
// "Evaluation techniques for storage hierarchies" (IBM Systems Journal, 1970), with the
// Bennett–Kruskal / Olken idea of a tree over last-access times so that each request costs
// O(log M) instead of O(stack depth). libCacheSim's equivalent is profiler/profilerLRU.c.
//
// The observation behind both modes: every LRU cache, whatever its capacity, orders the keys
// it holds by last access, so all of them are views of ONE recency order of the distinct keys
// requested so far. A cache of capacity C holds a newest part of that order.
//
// Object mode (--ignore-size; every size is 1): the cache holds the C most recently used keys,
// so a request hits exactly when its stack distance (1 + the number of distinct keys requested
// since its previous request) is at most C. The distance comes from a Fenwick tree over a time
// axis with a 1 at each key's last access: the keys requested since time t are the ones whose
// mark lies after t. Hits at all capacities follow from one binary search per request. Trim
// passes and evictions need no more: the cache at C is full (holds C keys) exactly from the
// moment C distinct keys have been seen, and from then on every insertion evicts one key.
//
// Byte mode: libCacheSim's LRU never inserts an object larger than the cache, so a large
// object takes room in a big cache and none in a small one. The held part of the recency order
// is then "the newest keys that fit C, up to C bytes", which is not nested across capacities
// and not a function of a single distance. Instead the profiler keeps, for each capacity, a
// boundary on the shared time axis (the cache holds the keys that fit it at or after the
// boundary) and the bytes in use; an insertion adds its size and moves the boundary forward
// past the oldest keys until the bytes fit. The boundary only moves forward, so the work is
// one sequential scan of the axis per capacity plus O(1) per request and capacity, instead of a
// hash lookup and list surgery per request and capacity when each size is simulated. Hits,
// evictions and trim passes are counted directly, as LRUCache would.
//
// Exactness needs what both views assume: a key's size never changes (LRUCache keeps the size
// it inserted on a hit, so with changing sizes the held size depends on when each cache
// inserted the key), and nothing leaves a cache except by eviction (a delete removes a key from
// some caches and not others, and a smaller cache then has room a stack cannot express). The
// profiler checks both as it goes and gives up with a reason (`abandonReason`) on the first
// violation; `compare` then simulates LRU at each capacity instead. With --ignore-size every
// size is 1, so only deletes can stop it. Events (memory warnings, background, ticks) and time
// do not affect LRU.
//
// The time axis is compacted (live keys renumbered in recency order) whenever it fills, so its
// length stays within a small multiple of the number of distinct keys.

/// Exact LRU counters at several capacities from one pass over a trace.
///
/// Feed it every batch of the trace with ``apply(_:)``; afterwards ``counters()`` gives, for each
/// capacity, the ``ReplayCounters`` and trim-pass count that replaying `lru` at that capacity
/// (no count limit) produces. See the file comment for the method and its limits.
public struct LRUStackProfiler {
    /// The capacities, ascending and distinct.
    public let capacities: [Int]
    /// Whether every object counts as size 1.
    public let ignoreSize: Bool
    /// Why the pass cannot be exact (a key changed size, a key was deleted), once that happens;
    /// after it, batches are ignored.
    public private(set) var abandonReason: String?

    private var map = _KeySlotMap()
    private var keys: ContiguousArray<_KeyState> = []
    // The time axis: positions 1...axisLength, each the last access of at most one key.
    private var axisLength: Int
    private var owner: ContiguousArray<Int32>                  // slot, or -1 when empty
    private var nextPosition = 1
    private var liveKeys = 0                                   // keys on the axis
    // Object mode: a Fenwick tree with a 1 at each key's last access.
    private var fenwick: ContiguousArray<Int> = []
    // Byte mode: the size and band of the key at each position (0 = empty), read sequentially
    // as boundaries advance, and per capacity the boundary, the bytes held and the evictions.
    private var axisSize: ContiguousArray<Int> = []
    private var axisBand: ContiguousArray<Int32> = []
    private var boundary: [Int] = []
    private var used: [Int] = []
    private var evictionsAt: [Int] = []
    private var everyKeyFitsAll = true                         // no key is larger than the smallest capacity
    // Counts shared by every capacity, and per-capacity counts: exact (`…At`) and as difference
    // arrays over capacity indices (`…Range`) where a request affects a run of capacities.
    private var common = ReplayCounters()
    private var hitsAt: [Int], byteHitsAt: [Int], insertionsAt: [Int], trimsAt: [Int]
    private var hitsRange: [Int], byteHitsRange: [Int], insertionsRange: [Int], trimsRange: [Int]
    private var rows = 0

    /// Creates a profiler for `capacities` (any order; duplicates are merged; all must be > 0).
    public init(capacities: [Int], ignoreSize: Bool) {
        precondition(capacities.allSatisfy { $0 > 0 }, "capacities must be positive")
        self.capacities = Array(Set(capacities)).sorted()
        self.ignoreSize = ignoreSize
        let m = self.capacities.count
        axisLength = 1 << 12
        owner = ContiguousArray(repeating: -1, count: axisLength + 1)
        if ignoreSize {
            fenwick = ContiguousArray(repeating: 0, count: axisLength + 1)
        } else {
            axisSize = ContiguousArray(repeating: 0, count: axisLength + 1)
            axisBand = ContiguousArray(repeating: 0, count: axisLength + 1)
            boundary = Array(repeating: 1, count: m)
            used = Array(repeating: 0, count: m)
            evictionsAt = Array(repeating: 0, count: m)
        }
        hitsAt = Array(repeating: 0, count: m)
        byteHitsAt = hitsAt
        insertionsAt = hitsAt
        trimsAt = hitsAt
        hitsRange = Array(repeating: 0, count: m + 1)
        byteHitsRange = hitsRange
        insertionsRange = hitsRange
        trimsRange = hitsRange
    }

    /// Consumes a batch of requests.
    public mutating func apply(_ batch: [Request]) {
        guard abandonReason == nil else { return }
        for request in batch {
            rows += 1
            switch request.operation {
            case .get, .set:
                guard request.size > 0 else { common.skipped += 1; continue }
                let isGet = request.operation == .get
                if isGet {
                    common.requests += 1
                    common.byteRequests += request.size
                } else {
                    common.sets += 1
                }
                access(request.key, cost: ignoreSize ? 1 : request.size, rowSize: request.size, isGet: isGet)
                if abandonReason != nil { return }
            case .delete:
                common.deletes += 1
                let slot = map.find(request.key)
                if slot >= 0 && keys[Int(slot)].band < capacities.count {
                    // The key as the engine knows it: a number, or the 64-bit hash of a key written as text.
                    abandonReason = "data row \(rows) of the trace deletes key id \(request.key), which LRU at some capacity may hold; a one-pass profile cannot represent removals"
                    return
                }
            case .memoryWarning, .background, .terminate, .tick:
                common.events += 1
            }
        }
    }

    // MARK: One request

    private mutating func access(_ key: UInt64, cost: Int, rowSize: Int, isGet: Bool) {
        if nextPosition > axisLength { compact() }
        var slot = map.find(key)
        let known = slot >= 0
        let band: Int
        if known {
            guard keys[Int(slot)].size == cost else {
                abandonReason = "key id \(key) changes size from \(keys[Int(slot)].size) to \(cost) at data row \(rows) of the trace; LRU keeps the size it inserted, which then differs between capacities"
                return
            }
            band = keys[Int(slot)].band
        } else {
            band = Self.firstIndex(in: capacities, atLeast: cost)
            slot = Int32(keys.count)
            keys.append(_KeyState(size: cost, position: 0, band: band))
            map.insert(key, slot: slot)
        }
        guard band < capacities.count else { return }      // fits no capacity: a miss everywhere, never inserted
        if band > 0 { everyKeyFitsAll = false }
        let previous = known ? keys[Int(slot)].position : 0

        if ignoreSize {
            countObjectMode(previous: previous, rowSize: rowSize, isGet: isGet)
        } else {
            countByteMode(previous: previous, cost: cost, band: band, rowSize: rowSize, isGet: isGet)
        }

        // x becomes the newest key.
        let position = nextPosition
        nextPosition += 1
        if previous > 0 { owner[previous] = -1 } else { liveKeys += 1 }
        owner[position] = slot
        keys[Int(slot)].position = position
        if ignoreSize {
            fenwickMove(from: previous, to: position)
        } else {
            axisSize[previous] = 0                            // position 0 is a scratch cell
            axisSize[position] = cost
            axisBand[position] = Int32(band)
        }
    }

    /// Unit sizes: the stack distance decides every capacity at once.
    private mutating func countObjectMode(previous: Int, rowSize: Int, isGet: Bool) {
        let m = capacities.count
        var firstHit = m
        if previous > 0 {
            let distance = liveKeys - fenwickPrefix(previous) + 1
            firstHit = Self.firstIndex(in: capacities, atLeast: distance)
        }
        if isGet && firstHit < m {
            hitsRange[firstHit] += 1
            byteHitsRange[firstHit] += rowSize
        }
        guard firstHit > 0 else { return }
        insertionsRange[0] += 1
        insertionsRange[firstHit] -= 1
        // The cache at C is full once it has seen C keys; x's own earlier request counts, since a
        // miss on a known key means it was evicted from a full cache.
        let full = min(firstHit, Self.firstIndex(in: capacities, atLeast: liveKeys + 1))
        if full > 0 {
            trimsRange[0] += 1
            trimsRange[full] -= 1
        }
    }

    /// Sizes: each capacity's boundary decides whether x is held there.
    private mutating func countByteMode(previous: Int, cost: Int, band: Int, rowSize: Int, isGet: Bool) {
        let m = capacities.count
        if everyKeyFitsAll {
            // Held sets are nested (a bigger cache holds a newer-first superset), so the capacities
            // that hold x are a suffix of the list.
            var firstHit = m
            if previous > 0 {
                var low = 0, high = m
                while low < high {
                    let mid = (low + high) / 2
                    if previous >= boundary[mid] { high = mid } else { low = mid + 1 }
                }
                firstHit = low
            }
            if isGet && firstHit < m {
                hitsRange[firstHit] += 1
                byteHitsRange[firstHit] += rowSize
            }
            for j in 0..<firstHit { insert(cost, at: j) }
        } else {
            for j in band..<m {
                if previous > 0 && previous >= boundary[j] {
                    if isGet {
                        hitsAt[j] += 1
                        byteHitsAt[j] += rowSize
                    }
                } else {
                    insert(cost, at: j)
                }
            }
        }
    }

    /// LRU at capacity `j` inserts `cost` bytes: evict the oldest held keys until it fits.
    @inline(__always)
    private mutating func insert(_ cost: Int, at j: Int) {
        insertionsAt[j] += 1
        let capacity = capacities[j]
        used[j] += cost
        guard used[j] > capacity else { return }
        trimsAt[j] += 1
        var p = boundary[j]
        var bytes = used[j]
        var evicted = 0
        let filter = !everyKeyFitsAll
        while bytes > capacity {
            let size = axisSize[p]
            if size > 0 && (!filter || Int(axisBand[p]) <= j) {
                bytes -= size
                evicted += 1
            }
            p += 1
        }
        boundary[j] = p
        used[j] = bytes
        evictionsAt[j] += evicted
    }

    // MARK: Fenwick tree (object mode)

    @inline(__always)
    private func fenwickPrefix(_ position: Int) -> Int {
        fenwick.withUnsafeBufferPointer { tree in
            var sum = 0
            var i = position
            while i > 0 {
                sum &+= tree[i]
                i &= i &- 1
            }
            return sum
        }
    }

    /// Moves a key's mark from `from` (0 for none) to `to`, with one uniqueness check.
    @inline(__always)
    private mutating func fenwickMove(from: Int, to: Int) {
        let length = axisLength
        fenwick.withUnsafeMutableBufferPointer { tree in
            var i = from
            if i > 0 {
                while i <= length {
                    tree[i] &-= 1
                    i &+= i & -i
                }
            }
            i = to
            while i <= length {
                tree[i] &+= 1
                i &+= i & -i
            }
        }
    }

    // MARK: Compaction

    /// Renumbers the live keys 1...n in recency order, so the time axis stays proportional to the
    /// number of keys rather than of requests, and rebuilds what is indexed by position.
    private mutating func compact() {
        let newLength = max(axisLength, Self.nextPowerOfTwo(atLeast: 2 * liveKeys + 1024))
        var newOwner = ContiguousArray<Int32>(repeating: -1, count: newLength + 1)
        var oldLive: [Int] = []
        oldLive.reserveCapacity(liveKeys)
        for p in 1..<nextPosition where owner[p] >= 0 {
            oldLive.append(p)
            let slot = owner[p]
            newOwner[oldLive.count] = slot
            keys[Int(slot)].position = oldLive.count
        }
        axisLength = newLength
        owner = newOwner
        nextPosition = oldLive.count + 1
        if ignoreSize {
            // Linear-time construction: each node passes its sum to its parent.
            var tree = ContiguousArray<Int>(repeating: 0, count: newLength + 1)
            for p in 1..<nextPosition { tree[p] = 1 }
            for i in 1...newLength {
                let parent = i + (i & -i)
                if parent <= newLength { tree[parent] += tree[i] }
            }
            fenwick = tree
        } else {
            var sizes = ContiguousArray<Int>(repeating: 0, count: newLength + 1)
            var bands = ContiguousArray<Int32>(repeating: 0, count: newLength + 1)
            for p in 1..<nextPosition {
                let state = keys[Int(owner[p])]
                sizes[p] = state.size
                bands[p] = Int32(state.band)
            }
            axisSize = sizes
            axisBand = bands
            // A boundary moves to the first live key at or after it.
            for j in boundary.indices {
                boundary[j] = Self.firstIndex(in: oldLive, atLeast: boundary[j]) + 1
            }
        }
    }

    // MARK: Results

    /// The counters and trim-pass count at each capacity, in ascending capacity order.
    ///
    /// Meaningful only when ``abandonReason`` is `nil`.
    public func counters() -> [(capacity: Int, counters: ReplayCounters, trimPasses: Int)] {
        let m = capacities.count
        var hits = hitsAt, byteHits = byteHitsAt, insertions = insertionsAt, trims = trimsAt
        var running = (0, 0, 0, 0)
        for j in 0..<m {
            running.0 += hitsRange[j]
            running.1 += byteHitsRange[j]
            running.2 += insertionsRange[j]
            running.3 += trimsRange[j]
            hits[j] += running.0
            byteHits[j] += running.1
            insertions[j] += running.2
            trims[j] += running.3
        }
        return (0..<m).map { j in
            var counters = common
            counters.hits = hits[j]
            counters.byteHits = byteHits[j]
            // Object mode: whatever was inserted and is not held at the end (min(C, keys)) was evicted.
            counters.evictions = ignoreSize ? insertions[j] - min(capacities[j], liveKeys) : evictionsAt[j]
            return (capacities[j], counters, trims[j])
        }
    }

    // MARK: Helpers

    /// The first index of `sorted` whose value is >= `value`, or `sorted.count`.
    static func firstIndex(in sorted: [Int], atLeast value: Int) -> Int {
        var low = 0, high = sorted.count
        while low < high {
            let mid = (low + high) / 2
            if sorted[mid] < value { low = mid + 1 } else { high = mid }
        }
        return low
    }

    static func nextPowerOfTwo(atLeast value: Int) -> Int {
        value <= 1 ? 1 : 1 << (Int.bitWidth - (value - 1).leadingZeroBitCount)
    }
}

/// What the profiler keeps per key.
struct _KeyState {
    /// The key's size (1 with `--ignore-size`).
    var size: Int
    /// The time of its last request on the compacted axis; 0 when it has none (fits no capacity).
    var position: Int
    /// How many capacities are smaller than the key: it fits capacities `band...`.
    var band: Int
}

/// An open-addressing map from 64-bit keys to slot numbers: one multiply per probe, no Hasher.
struct _KeySlotMap {
    private var keys: ContiguousArray<UInt64>
    private var slots: ContiguousArray<Int32>
    private var shift: Int
    private var count = 0

    init() {
        keys = ContiguousArray(repeating: 0, count: 1 << 12)
        slots = ContiguousArray(repeating: -1, count: 1 << 12)
        shift = 64 - 12
    }

    @inline(__always)
    private func home(_ key: UInt64) -> Int { Int(truncatingIfNeeded: (key &* 0x9e37_79b9_7f4a_7c15) >> UInt64(shift)) }

    /// The slot of `key`, or -1.
    func find(_ key: UInt64) -> Int32 {
        let mask = slots.count - 1
        var i = home(key)
        while true {
            let slot = slots[i]
            if slot < 0 { return -1 }
            if keys[i] == key { return slot }
            i = (i + 1) & mask
        }
    }

    /// Adds `key`, which must be absent.
    mutating func insert(_ key: UInt64, slot: Int32) {
        if (count + 1) * 2 > slots.count { grow() }
        let mask = slots.count - 1
        var i = home(key)
        while slots[i] >= 0 { i = (i + 1) & mask }
        keys[i] = key
        slots[i] = slot
        count += 1
    }

    private mutating func grow() {
        let oldKeys = keys, oldSlots = slots
        keys = ContiguousArray(repeating: 0, count: oldSlots.count * 2)
        slots = ContiguousArray(repeating: -1, count: oldSlots.count * 2)
        shift -= 1
        let mask = slots.count - 1
        for (key, slot) in zip(oldKeys, oldSlots) where slot >= 0 {
            var i = home(key)
            while slots[i] >= 0 { i = (i + 1) & mask }
            keys[i] = key
            slots[i] = slot
        }
    }
}
