// Exact LRU results at many capacities from one pass: Mattson, Gecsei, Slutz and Traiger,
// "Evaluation techniques for storage hierarchies" (IBM Systems Journal, 1970), with the
// Bennett–Kruskal / Olken idea of a tree over last-access times so each request costs
// O(log N) instead of O(stack depth). libCacheSim's equivalent is profiler/profilerLRU.c.
//
// The rule, with libCacheSim's LRU conventions (our LRUCache): a request for x, whose previous
// request was at time t, hits a cache of capacity C exactly when
//
//     S_C(t) + size(x) <= C   and   size(x) <= C,
//
// where S_C(t) is the total size of the distinct keys requested since t whose size is at most
// C. (Keys larger than C are never inserted, so they take no room.) Proof sketch: LRU evicts
// oldest first, so while x is resident every key requested after it is resident too; if they
// all fit beside x no eviction ever reaches x; if not, x was evicted when the last of them
// came in. With unit sizes this is the classic "stack distance <= C".
//
// The per-capacity filter makes byte-mode LRU with that convention *not* a stack algorithm
// (a bigger cache admits a big object that a smaller one skips), so keys are put in bands by
// the capacities they fit, with one Fenwick tree per band in use; S_C sums the bands that fit
// C. Traces whose objects all fit the smallest capacity (the usual case) use one tree.
//
// Exactness needs what the formula assumes: a key's size never changes (a hit keeps the
// resident size, so with changing sizes the resident size depends on when each cache inserted
// the key), and nothing is removed except by eviction (a delete leaves a hole that a stack
// cannot represent). The profiler checks both as it goes and gives up with a reason
// (`abandonReason`) on the first violation; `compare` then simulates LRU per capacity instead.
// With --ignore-size every size is 1, so only deletes can stop it.
//
// Eviction counts follow: evictions(C) = insertions(C) - residents at the end(C). Trim passes
// (insertions that evict) need the bytes in use just before each insertion: the largest
// suffix of the recency order that fits C, found by one descent of the Fenwick tree.

/// Exact LRU counters at several capacities from one pass over a trace.
///
/// Feed it every batch of the trace with ``apply(_:)``; afterwards ``counters()`` gives, for each
/// capacity, the ``ReplayCounters`` and trim-pass count that replaying `lru` at that capacity
/// (no count limit) produces. See the file comment for the rule and its limits.
public struct LRUStackProfiler {
    /// The capacities, ascending and distinct.
    public let capacities: [Int]
    /// Whether every object counts as size 1.
    public let ignoreSize: Bool
    /// Why the pass cannot be exact (a key changed size, a key was deleted), once that happens;
    /// after it, batches are ignored.
    public private(set) var abandonReason: String?

    private var map = _KeySlotMap()
    // Per key slot.
    private var sizes: ContiguousArray<Int> = []
    private var bands: ContiguousArray<Int32> = []
    private var positions: ContiguousArray<Int> = []          // last access time; 0 = none
    // The time axis: positions 1...axisLength, each owned by at most one key (its last access).
    private var axisLength: Int
    private var owner: ContiguousArray<Int32>
    private var nextPosition = 1
    private var liveKeys = 0
    // Fenwick trees, one per band in use, stored back to back in one array.
    private var fenwick: ContiguousArray<Int> = []
    private var treeBase: [Int]                                // band -> offset, -1 if unused
    private var activeBands: [Int] = []
    private var bandTotals: [Int]
    private var topStep = 1                                    // highest power of two <= axisLength
    // Counts shared by every capacity, and per-capacity counts: exact (`…At`) and as
    // difference arrays over capacity indices (`…Range`) for the one-band fast path.
    private var common = ReplayCounters()
    private var hitsAt: [Int], byteHitsAt: [Int], insertionsAt: [Int], trimsAt: [Int]
    private var hitsRange: [Int], byteHitsRange: [Int], insertionsRange: [Int], trimsRange: [Int]
    private var allUnitSizes = true
    private var rows = 0

    /// Creates a profiler for `capacities` (any order; duplicates are merged; all must be > 0).
    public init(capacities: [Int], ignoreSize: Bool) {
        precondition(capacities.allSatisfy { $0 > 0 }, "capacities must be positive")
        self.capacities = Array(Set(capacities)).sorted()
        self.ignoreSize = ignoreSize
        let m = self.capacities.count
        axisLength = 1 << 12
        owner = ContiguousArray(repeating: -1, count: axisLength + 1)
        treeBase = Array(repeating: -1, count: m + 1)
        bandTotals = Array(repeating: 0, count: m + 1)
        hitsAt = Array(repeating: 0, count: m)
        byteHitsAt = hitsAt
        insertionsAt = hitsAt
        trimsAt = hitsAt
        hitsRange = Array(repeating: 0, count: m + 1)
        byteHitsRange = hitsRange
        insertionsRange = hitsRange
        trimsRange = hitsRange
        topStep = Self.highestPowerOfTwo(atMost: axisLength)
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
                if slot >= 0 && Int(bands[Int(slot)]) < capacities.count {
                    abandonReason = "request \(rows) deletes key \(request.key), which LRU at some capacity holds; a stack pass cannot represent removals"
                    return
                }
            case .memoryWarning, .background, .tick:
                common.events += 1
            }
        }
    }

    // MARK: One request

    private mutating func access(_ key: UInt64, cost: Int, rowSize: Int, isGet: Bool) {
        if nextPosition > axisLength { compact() }
        let m = capacities.count
        var slot = map.find(key)
        let known = slot >= 0
        let band: Int
        if known {
            guard sizes[Int(slot)] == cost else {
                abandonReason = "key \(key) changes size from \(sizes[Int(slot)]) to \(cost) at request \(rows); LRU keeps the size it inserted, which differs per capacity"
                return
            }
            band = Int(bands[Int(slot)])
        } else {
            band = Self.firstIndex(in: capacities, atLeast: cost)
            slot = Int32(sizes.count)
            sizes.append(cost)
            bands.append(Int32(band))
            positions.append(0)
            map.insert(key, slot: slot)
            if cost != 1 { allUnitSizes = false }
        }
        guard band < m else { return }              // fits no capacity: a miss everywhere, never inserted
        let previous = positions[Int(slot)]

        if activeBands.count == 1 && activeBands[0] == band || activeBands.isEmpty {
            // One band in use (the usual case): S is the same for every capacity that x fits, so the
            // capacities where x hits are a suffix of the list.
            var firstHit = m
            if known {
                let base = treeBase[band]
                let newer = bandTotals[band] - prefix(base, previous)
                firstHit = max(band, Self.firstIndex(in: capacities, atLeast: newer + cost))
            }
            if isGet && firstHit < m {
                hitsRange[firstHit] += 1
                byteHitsRange[firstHit] += rowSize
            }
            if band < firstHit {
                insertionsRange[band] += 1
                insertionsRange[firstHit] -= 1
                countTrimsOneBand(band: band, below: firstHit, cost: cost)
            }
        } else {
            var newer = 0, total = 0, next = 0
            for j in 0..<m {
                while next < activeBands.count && activeBands[next] <= j {
                    let k = activeBands[next]
                    total += bandTotals[k]
                    newer += bandTotals[k] - (known ? prefix(treeBase[k], previous) : 0)
                    next += 1
                }
                guard j >= band else { continue }
                if known && newer + cost <= capacities[j] {
                    if isGet {
                        hitsAt[j] += 1
                        byteHitsAt[j] += rowSize
                    }
                } else {
                    insertionsAt[j] += 1
                    if total + cost > capacities[j] && usedBytes(atCapacity: j, total: total) + cost > capacities[j] {
                        trimsAt[j] += 1
                    }
                }
            }
        }

        // Move x to the newest position.
        if treeBase[band] < 0 { activate(band) }
        let base = treeBase[band]
        if known {
            add(base, previous, -cost)
            owner[previous] = -1
        } else {
            liveKeys += 1
            bandTotals[band] += cost
        }
        let position = nextPosition
        nextPosition += 1
        add(base, position, cost)
        owner[position] = slot
        positions[Int(slot)] = position
    }

    /// Counts the trim passes of an insertion at capacities `band..<below` when one band is in use.
    private mutating func countTrimsOneBand(band: Int, below: Int, cost: Int) {
        if allUnitSizes {
            // Unit sizes: the cache at capacity C holds min(C, keys seen) objects, so an insertion
            // evicts exactly when C <= keys seen (x's own stale entry included).
            let full = Self.firstIndex(in: capacities, atLeast: liveKeys + 1)
            let end = min(below, full)
            if band < end {
                trimsRange[band] += 1
                trimsRange[end] -= 1
            }
            return
        }
        let total = bandTotals[band]
        var j = band
        while j < below && total + cost > capacities[j] {
            if usedBytes(atCapacity: j, total: total) + cost > capacities[j] { trimsAt[j] += 1 }
            j += 1
        }
    }

    /// The bytes LRU at `capacities[j]` holds now: the largest suffix of the recency order, over
    /// keys that fit, whose sum is at most the capacity. `total` is the sum over those keys.
    private func usedBytes(atCapacity j: Int, total: Int) -> Int {
        let capacity = capacities[j]
        if total <= capacity { return total }
        // Smallest q with prefix(q) >= total - capacity; then the resident suffix starts after q.
        let target = total - capacity
        var position = 0
        var remaining = target
        var step = topStep
        while step > 0 {
            let candidate = position + step
            if candidate <= axisLength {
                var weight = 0
                for k in activeBands where k <= j { weight += fenwick[treeBase[k] + candidate] }
                if weight < remaining {
                    position = candidate
                    remaining -= weight
                }
            }
            step >>= 1
        }
        let q = position + 1
        var prefixQ = target - remaining
        if q <= axisLength {
            let slot = owner[q]
            if slot >= 0 && Int(bands[Int(slot)]) <= j { prefixQ += sizes[Int(slot)] }
        }
        return total - prefixQ
    }

    // MARK: Fenwick trees

    @inline(__always)
    private func prefix(_ base: Int, _ position: Int) -> Int {
        var sum = 0
        var i = position
        while i > 0 {
            sum += fenwick[base + i]
            i &= i - 1
        }
        return sum
    }

    @inline(__always)
    private mutating func add(_ base: Int, _ position: Int, _ delta: Int) {
        var i = position
        while i <= axisLength {
            fenwick[base + i] += delta
            i += i & -i
        }
    }

    private mutating func activate(_ band: Int) {
        treeBase[band] = fenwick.count
        fenwick.append(contentsOf: repeatElement(0, count: axisLength + 1))
        activeBands.append(band)
        activeBands.sort()
    }

    /// Renumbers the live keys 1...n in recency order and rebuilds the trees, so the time axis
    /// stays proportional to the number of keys rather than of requests.
    private mutating func compact() {
        let newLength = max(axisLength, Self.nextPowerOfTwo(atLeast: 2 * liveKeys + 1024))
        var newOwner = ContiguousArray<Int32>(repeating: -1, count: newLength + 1)
        var renumbered = 0
        for p in 1..<nextPosition {
            let slot = owner[p]
            guard slot >= 0 else { continue }
            renumbered += 1
            newOwner[renumbered] = slot
            positions[Int(slot)] = renumbered
        }
        axisLength = newLength
        owner = newOwner
        nextPosition = renumbered + 1
        topStep = Self.highestPowerOfTwo(atMost: axisLength)
        var newTrees = ContiguousArray<Int>(repeating: 0, count: activeBands.count * (axisLength + 1))
        for (i, band) in activeBands.enumerated() { treeBase[band] = i * (axisLength + 1) }
        for p in 1..<nextPosition {
            let slot = Int(owner[p])
            newTrees[treeBase[Int(bands[slot])] + p] = sizes[slot]
        }
        // Linear-time Fenwick construction: push each node's sum to its parent.
        for band in activeBands {
            let base = treeBase[band]
            for i in 1...axisLength {
                let parent = i + (i & -i)
                if parent <= axisLength { newTrees[base + parent] += newTrees[base + i] }
            }
        }
        fenwick = newTrees
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
        let residents = residentCounts()
        return (0..<m).map { j in
            var counters = common
            counters.hits = hits[j]
            counters.byteHits = byteHits[j]
            counters.evictions = insertions[j] - residents[j]
            return (capacities[j], counters, trims[j])
        }
    }

    /// How many keys LRU at each capacity holds at the end: walking from the newest key, every
    /// key that fits is resident until the running size passes the capacity.
    private func residentCounts() -> [Int] {
        let m = capacities.count
        var counts = Array(repeating: 0, count: m)
        var sums = Array(repeating: 0, count: m)
        var open = Array(repeating: true, count: m)
        var remaining = m
        var p = nextPosition - 1
        while p >= 1 && remaining > 0 {
            let slot = owner[p]
            p -= 1
            guard slot >= 0 else { continue }
            let size = sizes[Int(slot)]
            for j in Int(bands[Int(slot)])..<m where open[j] {
                sums[j] += size
                if sums[j] <= capacities[j] { counts[j] += 1 } else { open[j] = false; remaining -= 1 }
            }
        }
        return counts
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

    static func highestPowerOfTwo(atMost value: Int) -> Int { 1 << (Int.bitWidth - 1 - value.leadingZeroBitCount) }

    static func nextPowerOfTwo(atLeast value: Int) -> Int {
        value <= 1 ? 1 : 1 << (Int.bitWidth - (value - 1).leadingZeroBitCount)
    }
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
