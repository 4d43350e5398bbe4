// W-TinyLFU: Einziger, Friedman & Manes, "TinyLFU: A Highly Efficient Cache Admission Policy",
// ACM TOS 2017, as Caffeine's simulator runs it (ben-manes/caffeine @ ccef9554,
// simulator/.../policy/sketch/WindowTinyLfuPolicy.java with admission/TinyLfu.java and
// admission/countmin4/{CountMin4,PeriodicResetCountMin4}.java, defaults from reference.conf).
// libCacheSim's WTinyLFU.c is a different, simplified port (a counting Bloom filter, no window
// LRU hits in the sketch): that one is `wtinylfu` (alias `tinylfu`, libCacheSim's names), in
// LibCacheSimWTinyLFUCache.swift; this one is `caffeine-wtinylfu`. Nothing in the golden table
// checks this policy.

/// W-TinyLFU as in Caffeine's simulator: a 1 % window LRU, a segmented main LRU, and admission
/// to main by a 4-bit count-min frequency sketch.
///
/// **Rule.** A window LRU (capacity - floor(0.99 × capacity), so 1 %, at least 1) in front of a
/// segmented main LRU: probation and protected (floor(80 % of main)). Every access (hit or miss)
/// is counted in a frequency sketch.
/// - Miss: insert at the window's MRU end, then evict.
/// - Hit in the window: move to its MRU end. Hit in probation: move to protected's MRU end (an
///   entry heavier than protected stays at probation's MRU end), then demote protected's LRU
///   entries to probation's MRU end while protected is over its size. Hit in protected: move to
///   its MRU end.
/// - Evict: while the window is over its size, its LRU entries move to probation's MRU end; the
///   first one moved is the candidate. While the cache is over capacity, the candidate competes
///   with probation's LRU entry (the victim): the candidate is admitted (the victim leaves, and
///   the next moved entry becomes the candidate) iff freq(candidate) > freq(victim), or, with
///   jitter on, freq(candidate) >= 6 and a draw from java.util.Random(1033096058) is < 1/128
///   (Caffeine's defence against hash flooding); otherwise the candidate leaves. With no
///   candidate left the window's LRU entries are tried; with no victim left, protected's then the
///   window's. Jitter is ON by default, with Caffeine's fixed seed, so runs are deterministic and
///   equal to Caffeine's simulator; `jitter=false` turns it off.
/// - Sketch: count-min with 4-bit counters, depth 4, 16 counters per 64-bit word, table =
///   ceilPow2(counters-multiplier × size) words; Caffeine's hashes (Long.hashCode, spread, 4
///   seeds); after 10 × table-size additions every counter is halved and the addition count
///   becomes (additions - odd counters / 4) / 2. No doorkeeper, no conservative update. The table
///   stops growing at 2^26 words (Caffeine: 2^30 - 1), which only matters above 67 M entries.
///
/// **Sizes.** With unit costs (objects) the sketch is sized to the capacity up front, as Caffeine's
/// unweighted simulator does. With weighted entries (bytes) the entry count is unknown, so, as
/// Caffeine's weighted simulator does, the sketch is created once the cache is half full, sized
/// to the entry count then, and regrown (forgetting its counts) when the entry count outgrows
/// it; accesses before that are not counted. `weighted=auto` picks by the first object's cost.
/// Departures from Caffeine, for the project's research conventions: a hit does not change an
/// entry's weight, and an object larger than the capacity is neither inserted nor counted.
///
/// - Complexity: lookup, insert and remove are O(1) expected; a sketch reset is O(table size)
///   every 10 × table-size additions, so amortized O(1).
public struct WTinyLFUCache<Key: Hashable, Value>: _TinyLFUPolicy {
    public static var descriptor: PolicyDescriptor {
        PolicyDescriptor(
            name: "caffeine-wtinylfu",
            reproduces: "W-TinyLFU (Einziger, Friedman & Manes, TOS'17) as Caffeine's simulator WindowTinyLfuPolicy @ ccef9554 (periodic-reset CountMin4, jitter with seed 1033096058)",
            rule: "a 1 % LRU window feeds a segmented LRU main; a window evictee enters main only if a count-min sketch says it is more frequent than main's victim",
            family: .research,
            parameters: [
                PolicyParameter("window-ratio", default: "0.01", "window share of the capacity (Caffeine percent-main = 1 - this)"),
                PolicyParameter("protected-ratio", default: "0.8", "protected share of the main region (Caffeine percent-main-protected)"),
                PolicyParameter("counters-multiplier", default: "1.0", "sketch counters per entry the cache can hold"),
                PolicyParameter("jitter", default: "true", "admit a warm, rejected candidate at random (Caffeine's hash-flooding defence)"),
                PolicyParameter("jitter-threshold", default: "6", "lowest candidate frequency eligible for jitter"),
                PolicyParameter("jitter-probability", default: "0.0078125", "probability of a jitter admission"),
                PolicyParameter("seed", default: "1033096058", "java.util.Random seed for jitter (Caffeine's random-seed)"),
                PolicyParameter("weighted", default: "auto", "size the sketch by capacity (false), by entry count as Caffeine's weighted simulator (true), or by the first object's cost (auto)"),
            ])
    }

    @usableFromInline typealias Regions = _TinyLFURegions

    /// How the sketch is sized.
    @usableFromInline enum Weighting { case undecided, unweighted, weighted }

    // aux = the region the slot is in; the window holds up to `maxWindow`, protected `maxProtected`.
    public var store = SlotArena<Key, Value>()
    public var lists = _TinyLFURegions()
    @usableFromInline let capacity: Int
    @usableFromInline let maxWindow: Int
    @usableFromInline let maxProtected: Int
    @usableFromInline var sketch: _CountMin4
    @usableFromInline var hasSketch = false
    @usableFromInline var weighting: Weighting
    @usableFromInline let countersMultiplier: Double
    @usableFromInline let jitterThreshold: Int
    @usableFromInline let jitterProbability: Double
    @usableFromInline var random: _JavaRandom

    public init(limits: CacheLimits, options: PolicyOptions) throws(PolicyConfigurationError) {
        let capacity = try limits._requiredCapacity(for: Self.descriptor, options: options)
        let windowRatio = try options.double("window-ratio", default: 0.01, in: 0...1)
        let protectedRatio = try options.double("protected-ratio", default: 0.8, in: 0...1)
        countersMultiplier = try options.double("counters-multiplier", default: 1.0, in: 0...64)
        let jitter = try options.bool("jitter", default: true)
        let threshold = try options.integer("jitter-threshold", default: 6, in: 0...16)
        jitterProbability = try options.double("jitter-probability", default: 0.0078125, in: 0...1)
        let seed = try options.integer("seed", default: 1_033_096_058)
        switch options.string("weighted", default: "auto").lowercased() {
        case "auto": weighting = .undecided
        case "true", "yes", "1", "on": weighting = .weighted
        case "false", "no", "0", "off": weighting = .unweighted
        case let other: throw PolicyConfigurationError.invalidOption("weighted", value: other, expected: "auto, true or false")
        }
        self.capacity = capacity
        let maxMain = _proportion(of: capacity, 1 - windowRatio)
        maxWindow = capacity - maxMain
        maxProtected = _proportion(of: maxMain, protectedRatio)
        // Without jitter Caffeine sets the threshold to Integer.MAX_VALUE: never eligible.
        jitterThreshold = jitter ? threshold : .max
        random = _JavaRandom(seed: Int64(seed))
        sketch = _CountMin4()
    }

    @inlinable @inline(__always)
    public func prefetch(_ key: Key, _ stage: PrefetchStage) { store.prefetch(key, stage) }

    /// The sketch's estimate of `key`'s frequency (0–15), for tests and reports.
    public func frequency(of key: Key) -> Int {
        hasSketch ? sketch.frequency(Self.javaLong(key)) : 0
    }

    // MARK: The rule

    /// Caffeine's `Long` view of a key, which its sketch hashes.
    @inlinable @inline(__always)
    static func javaLong(_ key: Key) -> Int64 {
        if Key.self == UInt64.self { return Int64(bitPattern: unsafeBitCast(key, to: UInt64.self)) }
        if Key.self == Int.self { return Int64(unsafeBitCast(key, to: Int.self)) }
        return Int64(key.hashValue)
    }

    @inlinable @inline(__always)
    mutating func record(_ key: Key) {
        if hasSketch { sketch.increment(Self.javaLong(key)) }
    }

    /// onWindowHit, onProbationHit, onProtectedHit; then the cache evicts as after any access.
    @inlinable
    public mutating func hit(_ slot: Int32, observer: inout some EvictionObserver<Key, Value>) {
        record(store.key(slot))
        switch store.aux(slot) {
        case Regions.windowTag:
            store.moveToHead(slot, &lists.window)
        case Regions.probationTag:
            if store.cost(slot) > maxProtected {
                store.moveToHead(slot, &lists.probation)
            } else {
                store.unlink(slot, &lists.probation)
                store.pushHead(slot, &lists.protected, tag: Regions.protectedTag)
                demoteProtected()
            }
        default:
            store.moveToHead(slot, &lists.protected)
            demoteProtected()
        }
        evict(observer: &observer)
    }

    /// onMiss: the object enters the window's MRU end and is counted.
    @inlinable
    public mutating func miss(_ key: Key, hash: UInt64, ghost: Int32, cost: Int, value: () -> Value,
                              observer: inout some EvictionObserver<Key, Value>) {
        guard cost <= capacity else { return }
        if weighting == .undecided { weighting = cost == 1 ? .unweighted : .weighted }
        if weighting == .unweighted && !hasSketch {
            sketch = _CountMin4(maximumSize: capacity, multiplier: countersMultiplier)
            hasSketch = true
        }
        record(key)
        store.pushHead(store.allocate(key: key, hash: hash, value: value(), cost: cost), &lists.window, tag: Regions.windowTag)
        evict(observer: &observer)
    }

    /// Takes `slot` out of its region, frees it and reports it to `observer`. O(1) expected.
    @inlinable
    mutating func evictEntry(_ slot: Int32, observer: inout some EvictionObserver<Key, Value>) {
        lists.unlink(slot, in: &store)
        let key = store.key(slot)
        let cost = store.cost(slot)
        if let value = store.release(slot) { observer.didEvict(key, value: value, cost: cost) }
    }

    @inlinable
    mutating func demoteProtected() {
        while lists.protected.cost > maxProtected && lists.protected.tail >= 0 {
            let slot = lists.protected.tail
            store.unlink(slot, &lists.protected)
            store.pushHead(slot, &lists.probation, tag: Regions.probationTag)
        }
    }

    // MARK: Eviction

    @inlinable
    mutating func evict(observer: inout some EvictionObserver<Key, Value>) {
        if weighting == .weighted && totalCost >= capacity >> 1 {
            if !hasSketch {
                sketch = _CountMin4(maximumSize: count, multiplier: countersMultiplier)
                hasSketch = true
            }
            sketch.ensureCapacity(count, multiplier: countersMultiplier)
        }
        guard lists.window.cost > maxWindow || totalCost > capacity else { return }
        evictFromMain(candidate: evictFromWindow(), observer: &observer)
    }

    /// Moves the window's LRU entries to probation's MRU end while the window is over its size.
    /// - Returns: the first entry moved, or -1.
    @inlinable
    mutating func evictFromWindow() -> Int32 {
        var first: Int32 = -1
        while lists.window.cost > maxWindow && lists.window.tail >= 0 {
            let slot = lists.window.tail
            store.unlink(slot, &lists.window)
            store.pushHead(slot, &lists.probation, tag: Regions.probationTag)
            if first < 0 { first = slot }
        }
        return first
    }

    /// Evicts until the cache fits, letting the sketch choose between candidate and victim.
    @inlinable
    mutating func evictFromMain(candidate first: Int32, observer: inout some EvictionObserver<Key, Value>) {
        var candidate = first
        var searchedWindow = false
        var victimRegion = Regions.probationTag
        var victim = lists.probation.tail
        var pass = TrimPass(.caller)
        defer { pass.end(&observer) }
        while totalCost > capacity {
            if candidate < 0 && !searchedWindow {
                candidate = lists.window.tail
                searchedWindow = true
            }
            if candidate < 0 && victim < 0 {
                if victimRegion == Regions.probationTag {
                    victimRegion = Regions.protectedTag
                    victim = lists.protected.tail
                    continue
                } else if victimRegion == Regions.protectedTag {
                    victimRegion = Regions.windowTag
                    victim = lists.window.tail
                    continue
                }
                break
            }
            pass.willRemove(&observer)
            // Which of the two leaves: the one present, the candidate if both are the same entry,
            // else the loser of TinyLFU's admission; the survivor's newer neighbour is next.
            let evictCandidate: Bool
            if victim < 0 || candidate < 0 {
                evictCandidate = victim < 0
            } else if candidate == victim {
                victim = store.prev(victim)
                evictEntry(candidate, observer: &observer)
                candidate = -1
                continue
            } else {
                evictCandidate = !admits(candidate: store.key(candidate), victim: store.key(victim))
            }
            if evictCandidate {
                let evicted = candidate
                candidate = store.prev(candidate)
                evictEntry(evicted, observer: &observer)
            } else {
                let evicted = victim
                victim = store.prev(victim)
                evictEntry(evicted, observer: &observer)
                if candidate >= 0 { candidate = store.prev(candidate) }
            }
        }
    }

    /// TinyLfu.admit: frequency, then jitter.
    @inlinable
    mutating func admits(candidate: Key, victim: Key) -> Bool {
        let victimFrequency = hasSketch ? sketch.frequency(Self.javaLong(victim)) : 0
        let candidateFrequency = hasSketch ? sketch.frequency(Self.javaLong(candidate)) : 0
        if candidateFrequency > victimFrequency { return true }
        return candidateFrequency >= jitterThreshold && Double(random.nextFloat()) < jitterProbability
    }
}

/// Caffeine's simulator sketch `PeriodicResetCountMin4` (count-min, 4-bit counters, depth 4,
/// periodic halving), bit for bit, with Java's `int` and `long` arithmetic.
@usableFromInline
internal struct _CountMin4 {
    @usableFromInline static var resetMask: UInt64 { 0x7777_7777_7777_7777 }
    @usableFromInline static var oneMask: UInt64 { 0x1111_1111_1111_1111 }
    @usableFromInline static var maximumWords: Int { 1 << 26 }

    /// The counters, in memory that is occupied only where written (see ``_ZeroedWords``).
    @usableFromInline var table = _ZeroedWords(count: 0)
    @usableFromInline var tableMask: Int = 0
    @usableFromInline var additions: Int32 = 0
    @usableFromInline var period: Int32 = 10

    /// An empty placeholder; the policy builds the real sketch once it knows its size.
    @inlinable init() {}

    @inlinable
    init(maximumSize: Int, multiplier: Double) {
        ensureCapacity(maximumSize, multiplier: multiplier)
    }

    /// Grows the table (forgetting all counts) if it has fewer counters than `maximumSize` needs.
    @inlinable
    mutating func ensureCapacity(_ maximumSize: Int, multiplier: Double) {
        // Caffeine caps the table at 2^30 - 1 words (8 GiB); we stop at 2^26 words (512 MiB), so a
        // huge capacity in objects cannot exhaust memory. Only caches of over 67 M entries differ.
        let counters = multiplier * Double(max(maximumSize, 0))
        let maximum = counters >= Double(Self.maximumWords) ? Self.maximumWords : Int(counters)
        if table.isEmpty || table.count < maximum {
            var length = 1
            while length < maximum { length <<= 1 }
            table = _ZeroedWords(count: length)
            tableMask = max(0, length - 1)
        }
        // Java: `period = (maximumSize == 0) ? 10 : (10 * table.length)`, an int that may wrap.
        period = maximumSize == 0 ? 10 : Int32(truncatingIfNeeded: 10 &* table.count)
        if period <= 0 { period = .max }
    }

    @inlinable @inline(__always)
    static func spread(_ value: Int32) -> Int32 {
        var x = UInt32(bitPattern: value)
        x = ((x >> 16) ^ x) &* 0x45d_9f3b
        x = ((x >> 16) ^ x) &* 0x45d_9f3b
        return Int32(bitPattern: (x >> 16) ^ x)
    }

    @inlinable @inline(__always)
    static func seed(_ i: Int) -> UInt64 {
        switch i {
        case 0: return 0xc3a5_c85c_97cb_3127
        case 1: return 0xb492_b66f_be98_f273
        case 2: return 0x9ae1_6a3b_2f90_404f
        default: return 0xcbf2_9ce4_8422_2325
        }
    }

    @inlinable @inline(__always)
    func indexOf(_ item: Int32, _ i: Int) -> Int {
        let seed = Self.seed(i)
        var hash = (UInt64(bitPattern: Int64(item)) &+ seed) &* seed
        hash &+= hash >> 32
        return Int(Int32(truncatingIfNeeded: hash)) & tableMask
    }

    /// `Long.hashCode`, then `spread`.
    @inlinable @inline(__always)
    static func itemHash(_ e: Int64) -> Int32 {
        let bits = UInt64(bitPattern: e)
        return spread(Int32(truncatingIfNeeded: bits ^ (bits >> 32)))
    }

    @inlinable
    func frequency(_ e: Int64) -> Int {
        let hash = Self.itemHash(e)
        let start = Int(hash & 3) << 2
        var frequency = Int.max
        for i in 0..<4 {
            let count = Int((table[indexOf(hash, i)] >> UInt64((start + i) << 2)) & 0xf)
            frequency = min(frequency, count)
        }
        return frequency
    }

    @inlinable
    mutating func increment(_ e: Int64) {
        let hash = Self.itemHash(e)
        let start = Int(hash & 3) << 2
        let index0 = indexOf(hash, 0), index1 = indexOf(hash, 1)
        let index2 = indexOf(hash, 2), index3 = indexOf(hash, 3)
        // A copy of the policy shares the words until one of them writes.
        if !isKnownUniquelyReferenced(&table) { table = table.copy() }
        var added = incrementAt(index0, start)
        added = incrementAt(index1, start + 1) || added
        added = incrementAt(index2, start + 2) || added
        added = incrementAt(index3, start + 3) || added
        if added { tryReset() }
    }

    @inlinable @inline(__always)
    mutating func incrementAt(_ i: Int, _ j: Int) -> Bool {
        let offset = UInt64(j << 2)
        let mask: UInt64 = 0xf << offset
        guard table[i] & mask != mask else { return false }
        table[i] &+= 1 << offset
        return true
    }

    @inlinable
    mutating func tryReset() {
        additions &+= 1
        guard additions == period else { return }
        var count: Int32 = 0
        for i in table.indices {
            count &+= Int32(truncatingIfNeeded: (table[i] & Self.oneMask).nonzeroBitCount)
            table[i] = (table[i] >> 1) & Self.resetMask
        }
        additions = Int32(bitPattern: UInt32(bitPattern: additions &- (count >> 2)) >> 1)
    }
}

/// `java.util.Random`: the 48-bit linear congruential generator, so jitter draws match Caffeine's.
@usableFromInline
internal struct _JavaRandom {
    @usableFromInline var seed: UInt64

    @inlinable
    init(seed: Int64) {
        self.seed = (UInt64(bitPattern: seed) ^ 0x5_DEEC_E66D) & ((1 << 48) - 1)
    }

    @inlinable
    mutating func next(_ bits: Int) -> Int32 {
        seed = (seed &* 0x5_DEEC_E66D &+ 0xB) & ((1 << 48) - 1)
        return Int32(truncatingIfNeeded: Int64(bitPattern: seed) >> (48 - bits))
    }

    /// `nextFloat()`: 24 random bits over 2^24.
    @inlinable
    mutating func nextFloat() -> Float {
        Float(next(24)) / Float(1 << 24)
    }
}

extension WTinyLFUCache: SlotRelocatingPolicy {
    /// Renumbers the ends of the window, probation and protected LRUs after a compaction.
    @inlinable public mutating func relocateSlots(_ relocation: SlotRelocation) {
        lists.relocate(relocation)
    }
}
