// W-TinyLFU as libCacheSim ports it: Einziger, Friedman & Manes, "TinyLFU: A Highly Efficient
// Cache Admission Policy", ACM ToS 13(4), 2017, as libCacheSim 0.3.5's WTinyLFU.c (PyPI
// `libcachesim` 0.3.5, src/libCacheSim/cache/eviction/WTinyLFU.c) with its defaults
// `main-cache=SLRU,window-size=0.01`, its SLRU.c main (`seg-size=1:4`) and its
// dataStructure/minimalIncrementCBF.c frequency sketch. Exact on every golden row.
//
// This is not Caffeine's W-TinyLFU (``WTinyLFUCache``): no doorkeeper, no adaptive window, and a
// window victim that wins against main's victim replaces it at once. What libCacheSim does that
// the paper does not, kept because the golden counts depend on it:
// - The sketch is a counting Bloom filter sized for main's capacity at 0.1 % error
//   (⌈14.38 × entries⌉ counters, 10 hashes) whose `add` increments all of a key's counters,
//   not only the minimal ones, despite its name. Its hashes are the low 32 bits of XXH64 of the
//   8-byte key with seeds 0x12345678 and 0x12344321, combined as a + i·b mod counters in 32 bits.
//   Main's capacity reaches the sketch as a C `int`: from 2^31 bytes it wraps, and a negative
//   entry count gives the smallest filter (20 counters), which saturates at once.
// - Keys enter the sketch when they enter the window, on every hit in main (not in the window)
//   and each time the window's victim is examined; the sketch halves every counter after
//   32 × main's capacity hits in main.
// - Main-cache room is filled first: while main has room, the window's victim moves there
//   without any comparison and the eviction goes on with the next victim.
// - The window is ⌊1 % of the capacity⌋: below 100 objects it is 0 and nothing is ever cached.

import Foundation

/// W-TinyLFU, libCacheSim's port (`wtinylfu`): a 1 % LRU window in front of a segmented LRU
/// (20 % probation, 80 % protected), with a counting Bloom filter deciding whether the window's
/// victim replaces main's.
///
/// **Rule** (libCacheSim 0.3.5 `WTinyLFU.c`).
/// - **Hit** in the window: to the window's head. Hit in main: as SLRU (probation → protected's
///   head, protected over its share demotes its tail to probation's head, probation over its
///   share evicts its tail; protected → its head), then the key is added to the sketch.
/// - **Miss**: an object larger than the window or than probation's share is never inserted.
///   Otherwise *evict* until it fits, then it enters the window's head and the sketch.
/// - **Evict**: with the window empty, main evicts (its lowest non-empty segment's tail).
///   Otherwise the window's tail *v*: if main has room for it, it moves into main (the lowest
///   segment with room, else probation after main evicts) and the eviction goes on; if not, main's
///   victim *m* is compared: estimate(*v*) > estimate(*m*) → *m* is evicted and *v* enters main;
///   otherwise *v* is evicted. Either way *v* is added to the sketch.
///
/// - Complexity: lookups O(1) expected plus 10 sketch counters on a hit in main; an eviction is
///   amortised O(1) plus two sketch estimates. The sketch's decay is O(counters) every
///   32 × main-capacity hits in main.
public struct LibCacheSimWTinyLFUCache<Key: Hashable, Value>: _TinyLFUPolicy {
    public static var descriptor: PolicyDescriptor {
        PolicyDescriptor(
            name: "wtinylfu",
            reproduces: "W-TinyLFU (Einziger et al., ToS 2017) as libCacheSim 0.3.5 WTinyLFU.c (SLRU main 1:4, counting Bloom filter)",
            rule: "an LRU window of 1 % in front of a segmented LRU; the window's victim replaces main's victim when a counting Bloom filter says it is requested more",
            family: .research, aliases: ["tinylfu"],
            parameters: [PolicyParameter("window-size", default: "0.01", "window share of the capacity, truncated, in [0, 1)"),
                         PolicyParameter("main-cache", default: "SLRU", "the main cache: only libCacheSim's default, an SLRU of seg-size 1:4, is provided")])
    }

    @usableFromInline typealias Regions = _TinyLFURegions

    // aux = the region the slot is in.
    public var store = SlotArena<Key, Value>()
    public var lists = _TinyLFURegions()
    @usableFromInline let capacity: Int
    @usableFromInline let windowCapacity: Int
    @usableFromInline let mainCapacity: Int
    @usableFromInline let probationCapacity: Int
    @usableFromInline let protectedCapacity: Int
    @usableFromInline var sketch: _CountingBloomFilter
    /// Hits in main since the sketch last decayed, and how many trigger the decay.
    @usableFromInline var mainHits = 0
    @usableFromInline let decayPeriod: Int

    public init(limits: CacheLimits, options: PolicyOptions) throws(PolicyConfigurationError) {
        try options.validate(against: Self.descriptor)
        try limits.validate(for: Self.descriptor)
        guard let capacity = limits.capacity else { throw .missingLimit(.capacity, policy: Self.descriptor.name) }
        try options.requireOnly("main-cache", "SLRU")
        let windowRatio = try options.double("window-size", default: 0.01, in: 0...0.999_999)
        self.capacity = capacity
        windowCapacity = _proportion(of: capacity, windowRatio)
        mainCapacity = capacity - windowCapacity
        probationCapacity = _proportion(of: mainCapacity, 1.0 / 5.0)
        protectedCapacity = _proportion(of: mainCapacity, 4.0 / 5.0)
        sketch = _CountingBloomFilter(entries: mainCapacity)
        let (period, overflow) = mainCapacity.multipliedReportingOverflow(by: 32)
        decayPeriod = overflow ? .max : period
    }

    @inlinable @inline(__always)
    public func prefetch(_ key: Key, _ stage: PrefetchStage) { store.prefetch(key, stage) }

    // MARK: The rule

    @inlinable
    public mutating func hit(_ slot: Int32, observer: inout some EvictionObserver<Key, Value>) {
        switch store.aux(slot) {
        case Regions.windowTag:
            store.moveToHead(slot, &lists.window)
            return
        case Regions.protectedTag:
            store.moveToHead(slot, &lists.protected)
        default:
            store.unlink(slot, &lists.probation)
            store.setAux(slot, Regions.protectedTag)
            store.pushHead(slot, &lists.protected)
            var pass = TrimPass(.caller)
            while lists.protected.cost > protectedCapacity {
                let tail = lists.protected.tail
                store.unlink(tail, &lists.protected)
                store.setAux(tail, Regions.probationTag)
                store.pushHead(tail, &lists.probation)
                while lists.probation.cost > probationCapacity && !lists.probation.isEmpty {
                    pass.willRemove(&observer)
                    store.evict(lists.probation.tail, from: &lists.probation, observer: &observer)
                }
            }
            pass.end(&observer)
        }
        sketch.add(store.key(slot))
        mainHits += 1
        if mainHits >= decayPeriod {
            mainHits = 0
            sketch.decay()
        }
    }

    /// The object enters the window's head (the policy keeps no ghosts: `ghost` is always -1).
    @inlinable
    public mutating func miss(_ key: Key, hash: UInt64, ghost: Int32, cost: Int, value: () -> Value,
                              observer: inout some EvictionObserver<Key, Value>) {
        // WTinyLFU_can_insert: the admissioner, then the sizes.
        guard observer.admits(key, cost: cost),
              cost <= capacity, cost <= windowCapacity, cost <= mainCapacity, cost <= probationCapacity else { return }
        var pass = TrimPass(.caller)
        while totalCost + cost > capacity && count > 0 { evictionStep(&pass, observer: &observer) }
        let slot = store.allocate(key: key, hash: hash, value: value(), cost: cost)
        store.setAux(slot, Regions.windowTag)
        store.pushHead(slot, &lists.window)
        sketch.add(key)
        pass.end(&observer)
    }

    /// One call of `WTinyLFU_evict`: window victims move into main's free room until one
    /// object actually leaves, the window's victim or main's.
    @inlinable
    mutating func evictionStep(_ pass: inout TrimPass, observer: inout some EvictionObserver<Key, Value>) {
        while true {
            guard lists.window.cost > 0 || (lists.window.count > 0 && lists.mainCost == 0) else {
                evictFromMain(&pass, observer: &observer)
                return
            }
            let candidate = lists.window.tail
            let key = store.key(candidate), cost = store.cost(candidate)
            if lists.mainCost + cost <= mainCapacity {
                store.unlink(candidate, &lists.window)
                enterMain(candidate, &pass, observer: &observer)
                sketch.add(key)
                continue
            }
            let mainVictim = lists.probation.cost > 0 || lists.protected.isEmpty ? lists.probation.tail : lists.protected.tail
            if sketch.estimate(key) > sketch.estimate(store.key(mainVictim)) {
                evictFromMain(&pass, observer: &observer)
                store.unlink(candidate, &lists.window)
                enterMain(candidate, &pass, observer: &observer)
            } else {
                pass.willRemove(&observer)
                store.evict(candidate, from: &lists.window, observer: &observer)
            }
            sketch.add(key)
            return
        }
    }

    /// `SLRU_insert`: the lowest segment with room for the object, else probation after main
    /// evicts until the object fits in main.
    @inlinable
    mutating func enterMain(_ slot: Int32, _ pass: inout TrimPass, observer: inout some EvictionObserver<Key, Value>) {
        let cost = store.cost(slot)
        if lists.probation.cost + cost <= probationCapacity {
            store.setAux(slot, Regions.probationTag)
            store.pushHead(slot, &lists.probation)
        } else if lists.protected.cost + cost <= protectedCapacity {
            store.setAux(slot, Regions.protectedTag)
            store.pushHead(slot, &lists.protected)
        } else {
            while lists.mainCost + cost > mainCapacity && lists.mainCost > 0 { evictFromMain(&pass, observer: &observer) }
            store.setAux(slot, Regions.probationTag)
            store.pushHead(slot, &lists.probation)
        }
    }

    /// `SLRU_evict`: the tail of the lowest non-empty segment leaves.
    @inlinable
    mutating func evictFromMain(_ pass: inout TrimPass, observer: inout some EvictionObserver<Key, Value>) {
        pass.willRemove(&observer)
        if lists.probation.cost > 0 || lists.protected.isEmpty {
            store.evict(lists.probation.tail, from: &lists.probation, observer: &observer)
        } else {
            store.evict(lists.protected.tail, from: &lists.protected, observer: &observer)
        }
    }
}

/// libCacheSim's `minimalIncrementCBF`: a counting Bloom filter for `entries` keys at 0.1 % error
/// whose `add` increments every one of the key's counters. Counters live in an array up to 2²⁴
/// of them and in a hash table of the touched ones beyond (libCacheSim allocates up to 2³¹ for a
/// byte-sized cache, of which a trace touches a few million).
///
/// - Complexity: `add` and `estimate` O(hashes); `decay` O(counters) dense, O(touched) sparse.
@usableFromInline
struct _CountingBloomFilter {
    @usableFromInline let counters: UInt32
    @usableFromInline let hashes: UInt32
    @usableFromInline var dense: ContiguousArray<UInt32>
    @usableFromInline var sparse = _SparseCounters()
    @usableFromInline let isDense: Bool

    @usableFromInline
    init(entries: Int) {
        let bitsPerEntry = -log(0.001) / 0.480453013918201
        let hashes = Int((0.693147180559945 * bitsPerEntry).rounded(.up))
        // libCacheSim passes the main cache's size (an int64_t) as an `int`: above 2^31 it
        // wraps (x86-64), and a negative count gives the smallest filter, 2 × hashes counters.
        let wanted = (bitsPerEntry * Double(Int32(truncatingIfNeeded: entries))).rounded(.up)
        var counters = wanted < Double(Int32.max) ? Int(wanted) : Int(Int32.max)
        if counters < hashes { counters = hashes * 2 }
        self.counters = UInt32(counters)
        self.hashes = UInt32(hashes)
        isDense = counters <= 1 << 24
        dense = isDense ? ContiguousArray(repeating: 0, count: counters) : []
    }

    /// The 64-bit identity libCacheSim hashes: the key's integer value for integer keys.
    @inlinable @inline(__always)
    static func identity(_ key: some Hashable) -> UInt64 {
        if let key = key as? UInt64 { return key }
        if let key = key as? Int { return UInt64(bitPattern: Int64(key)) }
        return UInt64(bitPattern: Int64(key.hashValue))
    }

    /// The smallest of the key's counters.
    @inlinable
    func estimate(_ key: some Hashable) -> UInt32 {
        let (a, b) = Self.seeds(Self.identity(key))
        var minimum = UInt32.max
        for i in 0..<hashes {
            let count = self[(a &+ i &* b) % counters]
            if count < minimum { minimum = count }
        }
        return minimum
    }

    /// Increments every counter of the key.
    @inlinable
    mutating func add(_ key: some Hashable) {
        let (a, b) = Self.seeds(Self.identity(key))
        // Two loops, not one test per counter: with the test inside, the compiler made `dense`
        // unique before the loop even when it is the empty array of a sparse filter, a call to
        // copy it (and release the old one) on every request.
        if isDense {
            for i in 0..<hashes { dense[Int((a &+ i &* b) % counters)] &+= 1 }
        } else {
            for i in 0..<hashes { sparse.increment((a &+ i &* b) % counters) }
        }
    }

    /// Halves every counter.
    @inlinable
    mutating func decay() {
        if isDense {
            for index in dense.indices { dense[index] >>= 1 }
        } else {
            sparse.halve()
        }
    }

    @inlinable
    subscript(_ index: UInt32) -> UInt32 { isDense ? dense[Int(index)] : sparse[index] }

    /// The low 32 bits of XXH64 of the key's 8 little-endian bytes, under libCacheSim's two seeds.
    @inlinable @inline(__always)
    static func seeds(_ identity: UInt64) -> (UInt32, UInt32) {
        (UInt32(truncatingIfNeeded: _xxh64(identity, seed: 0x1234_5678)),
         UInt32(truncatingIfNeeded: _xxh64(identity, seed: 0x1234_4321)))
    }
}

/// The touched counters of a large counting Bloom filter: an open-addressing table of 64-bit
/// words, the counter's index + 1 in the high half and its value in the low half (0: an empty
/// word), probed linearly from a multiplicative hash. A counter not in the table is 0.
///
/// Why not a `Dictionary`: the sketch reads or bumps ten counters per request, and a dictionary
/// hashed each index with SipHash and kept keys and values apart, two cache misses a counter;
/// here a counter is one word. That was half of W-TinyLFU's replay in byte mode.
///
/// - Complexity: `subscript` and `increment` O(1) expected (at most half the words are used);
///   `halve` O(words).
@usableFromInline
struct _SparseCounters {
    @usableFromInline var words: ContiguousArray<UInt64>
    @usableFromInline var used = 0

    @usableFromInline
    init(capacity: Int = 1 << 12) { words = ContiguousArray(repeating: 0, count: capacity) }

    /// Where the probe for `tag` (an index + 1) starts.
    @inlinable @inline(__always)
    func start(_ tag: UInt64) -> Int { Int(truncatingIfNeeded: (tag &* 0x9E37_79B9_7F4A_7C15) >> 32) & (words.count - 1) }

    /// The counter at `index` (below 2³¹).
    @inlinable
    subscript(_ index: UInt32) -> UInt32 {
        let tag = UInt64(index) &+ 1
        var i = start(tag)
        while true {
            let word = words[i]
            if word == 0 { return 0 }
            if word >> 32 == tag { return UInt32(truncatingIfNeeded: word) }
            i = (i &+ 1) & (words.count - 1)
        }
    }

    /// Adds 1 to the counter at `index` (below 2³¹), wrapping as a `UInt32` does.
    @inlinable
    mutating func increment(_ index: UInt32) {
        let tag = UInt64(index) &+ 1
        var i = start(tag)
        while true {
            let word = words[i]
            if word == 0 {
                words[i] = tag << 32 | 1
                used += 1
                if used * 2 > words.count { rehash(capacity: words.count * 2, halving: false) }
                return
            }
            if word >> 32 == tag {
                words[i] = tag << 32 | UInt64(UInt32(truncatingIfNeeded: word) &+ 1)
                return
            }
            i = (i &+ 1) & (words.count - 1)
        }
    }

    /// Halves every counter; those that reach 0 leave the table.
    @usableFromInline
    mutating func halve() { rehash(capacity: words.count, halving: true) }

    /// Refiles every counter in a table of `capacity` words (a power of two), halved if asked.
    @usableFromInline
    mutating func rehash(capacity: Int, halving: Bool) {
        let old = words
        words = ContiguousArray(repeating: 0, count: capacity)
        used = 0
        for word in old where word != 0 {
            let value = halving ? UInt32(truncatingIfNeeded: word) >> 1 : UInt32(truncatingIfNeeded: word)
            guard value != 0 else { continue }
            let tag = word >> 32
            var i = start(tag)
            while words[i] != 0 { i = (i &+ 1) & (capacity - 1) }
            words[i] = tag << 32 | UInt64(value)
            used += 1
        }
    }
}

/// XXH64 (Yann Collet's xxHash, 64-bit) of one 8-byte little-endian word, from the algorithm's
/// specification: the short-input path (no stripes), one 8-byte lane, then the avalanche.
@inlinable @inline(__always)
func _xxh64(_ word: UInt64, seed: UInt64) -> UInt64 {
    let prime1: UInt64 = 0x9E37_79B1_85EB_CA87, prime2: UInt64 = 0xC2B2_AE3D_27D4_EB4F
    let prime3: UInt64 = 0x1656_67B1_9E37_79F9, prime4: UInt64 = 0x85EB_CA77_C2B2_AE63
    let prime5: UInt64 = 0x27D4_EB2F_1656_67C5
    func rotateLeft(_ x: UInt64, _ r: UInt64) -> UInt64 { (x << r) | (x >> (64 - r)) }
    var hash = seed &+ prime5 &+ 8
    let lane = rotateLeft(word &* prime2, 31) &* prime1
    hash ^= lane
    hash = rotateLeft(hash, 27) &* prime1 &+ prime4
    hash ^= hash >> 33
    hash = hash &* prime2
    hash ^= hash >> 29
    hash = hash &* prime3
    hash ^= hash >> 32
    return hash
}

extension LibCacheSimWTinyLFUCache: SlotRelocatingPolicy {
    /// Renumbers the ends of the window, probation and protected LRUs after a compaction.
    @inlinable public mutating func relocateSlots(_ relocation: SlotRelocation) {
        lists.relocate(relocation)
    }
}
