import _CSupport

// LHD: least hit density (Beckmann, Chen and Cidon, "LHD: Improving cache hit rate by maximizing
// hit density", NSDI'18), as libCacheSim 0.3.5's LHD (PyPI `libcachesim` 0.3.5,
// src/libCacheSim/cache/eviction/LHD/lhd.cpp, lhd.hpp and LHD_Interface.cpp, the authors' code
// adapted by libCacheSim): 8 candidates drawn per eviction (32 after 50 reconfigurations), the 8
// most recently admitted low-density objects always considered, 1 % of the capacity for
// explorers, a reconfiguration every 2^20 accesses. libCacheSim's `LHD_init` ignores its
// parameter string; `associativity` and `admission` are its two fields, offered here.

/// A cache that evicts, among a few residents drawn at random, the one with the least expected
/// hits per byte over its expected remaining time in the cache.
///
/// **Rule** (libCacheSim 0.3.5 `lhd.cpp`). Time counts accesses (hits and insertions); an
/// object's *age* is the time since its last access, shifted right by a coarsening (10 bits
/// at first). Its *class* is the log-scaled sum of its last two hit ages.
/// - **Density** of an object: its class's modelled hit density at its age, divided by its
///   size, plus 1 if it is an explorer; the lowest float at the last age (20,000). The model
///   starts as (17 + class) / (age + 1) and is rebuilt every 2^20 accesses from the hits and
///   evictions counted per class and age, decayed by 0.9 (see `_HitDensityClasses`).
/// - **Access** (hit or insertion): a hit counts at the object's old class and age; its hit
///   ages shift (the older is dropped); its time and size are renewed. One draw in 32 makes it
///   an *explorer* (never the cheapest to evict) while the explorer budget, 1 % of the capacity,
///   lasts and fewer than 50 reconfigurations have run. A new object that did not draw to
///   explore and whose density is below the running average of victims' densities joins the
///   ring of the 8 most recently admitted candidates.
/// - **Eviction** (until the new object fits): `associativity` residents are drawn uniformly
///   with replacement (8 until 50 reconfigurations have run; a draw is the high half of the
///   generator's number times the resident count), then the ring's residents are
///   considered; the lowest density goes (the first seen among equals). The victim's density
///   enters the running average (decay 0.9) and its eviction is counted at its class and age.
/// - An object larger than the capacity is never inserted, and a hit keeps the object's size (the
///   research convention; libCacheSim's `LHD_find` gives it the request's, so the two differ on
///   traces where a key's size changes).
///
/// The ring holds slots: a ring member that leaves is forgotten there, where libCacheSim keeps
/// its key and would consider it again if it came back before the ring turned. The draws come
/// from a generator seeded by `seed`.
///
/// - Complexity: lookup, insert and remove O(1) expected; an eviction O(`associativity` +
///   `admission`); every 2^20 accesses a reconfiguration O(16 × 20,000).
public struct LHDCache<Key: Hashable, Value>: SlotPolicy {
    public static var descriptor: PolicyDescriptor {
        PolicyDescriptor(
            name: "lhd", reproduces: "LHD (Beckmann et al., NSDI'18) as libCacheSim 0.3.5 LHD/lhd.cpp",
            rule: "evict the lowest expected hits per byte per remaining lifetime among random candidates and recent low-density admissions",
            family: .research, isDeterministic: false,
            parameters: [
                PolicyParameter("associativity", default: "32", "candidates drawn per eviction once 50 reconfigurations have run (8 before)"),
                PolicyParameter("admission", default: "8", "recently admitted low-density objects always considered"),
                PolicyParameter("seed", default: "1", "seed of the random generator"),
            ])
    }

    @usableFromInline static var accessesPerReconfiguration: Int { 1 << 20 }
    @usableFromInline static var exploreInverseProbability: UInt64 { 32 }
    @usableFromInline static var warmUpReconfigurations: Int { 50 }

    public var store = SlotArena<Key, Value>()
    /// The residents, densely (libCacheSim's `tags` vector): draws index it; a leaving slot's
    /// place is taken by the last one.
    @usableFromInline var residents: ContiguousArray<Int32> = []
    @usableFromInline var position = SideTable<Int32>(filling: -1)
    @usableFromInline var tags = SideTable<_LHDTag>(filling: _LHDTag())
    @usableFromInline var classes = _HitDensityClasses()
    @usableFromInline var recentlyAdmitted: ContiguousArray<Int32>
    @usableFromInline var recentlyAdmittedHead = 0
    @usableFromInline var ewmaVictimDensity: Float = 0
    @usableFromInline var explorerBudget: Int
    @usableFromInline var now: UInt64 = 0
    @usableFromInline var untilReconfiguration = Self.accessesPerReconfiguration
    @usableFromInline var reconfigurations = 0
    @usableFromInline let associativity: Int
    @usableFromInline var generator: SeededGenerator
    @usableFromInline var cost = 0
    public let capacity: Int
    public let countLimit: Int

    public init(limits: CacheLimits, options: PolicyOptions) throws(PolicyConfigurationError) {
        (capacity, countLimit) = try limits.validated(for: Self.descriptor, options: options)
        associativity = try options.integer("associativity", default: 32, in: 1...1_000_000)
        let admission = try options.integer("admission", default: 8, in: 1...1_000_000)
        recentlyAdmitted = ContiguousArray(repeating: -1, count: admission)
        explorerBudget = Int(Double(capacity) * 0.01)
        generator = SeededGenerator(seed: UInt64(bitPattern: Int64(try options.integer("seed", default: 1))))
    }

    @inlinable public var count: Int { residents.count }
    @inlinable public var totalCost: Int { cost }

    /// The arena's hints, and at the entry stage the tag of the slot the key probably has: a hit
    /// reads it at once, and 53 000 tags are beyond the second-level cache.
    @inlinable @inline(__always)
    public func prefetch(_ key: Key, _ stage: PrefetchStage) {
        let slot = store.prefetch(key, stage)
        if stage == .entry { tags.prefetch(slot) }
    }

    @inlinable public mutating func didHit(_ slot: Int32) {
        var tag = tags[slot]
        let age = classes.age(now: now, stamp: tag.stamp)
        classes.recordHit(hitAges: tag.hitAges, age: age)
        if tag.explorer { explorerBudget &+= tag.size }
        tag.lastLastHitAge = tag.lastHitAge
        tag.lastHitAge = UInt32(age)
        access(slot, &tag, isNew: false)
    }

    @inlinable public mutating func didInsert(_ slot: Int32) {
        position[slot] = Int32(residents.count)
        residents.append(slot)
        cost += store.cost(slot)
        var tag = _LHDTag()
        tag.lastLastHitAge = UInt32(_HitDensityClasses.maximumAge)
        access(slot, &tag, isNew: true)
    }

    /// libCacheSim's `update`, after the hit or insertion bookkeeping: renews the time and
    /// size, draws an explorer, files a new low-density object as a candidate, and counts the
    /// access toward the next reconfiguration.
    @inlinable
    mutating func access(_ slot: Int32, _ tag: inout _LHDTag, isNew: Bool) {
        tag.stamp = now
        tag.size = store.cost(slot)
        let explore = generator.next() % Self.exploreInverseProbability == 0
        if explore && explorerBudget > 0 && reconfigurations < Self.warmUpReconfigurations {
            tag.explorer = true
            explorerBudget &-= tag.size
        } else {
            tag.explorer = false
        }
        tags[slot] = tag
        if isNew && !explore && density(tag) < ewmaVictimDensity {
            recentlyAdmitted[recentlyAdmittedHead % recentlyAdmitted.count] = slot
            recentlyAdmittedHead = (recentlyAdmittedHead + 1) % recentlyAdmitted.count
        }
        now += 1
        untilReconfiguration -= 1
        if untilReconfiguration == 0 {
            classes.reconfigure(residents: residents.count, reconfigurations: reconfigurations)
            untilReconfiguration = Self.accessesPerReconfiguration
            reconfigurations += 1
        }
    }

    /// The expected hits per unit of size of `tag`'s object from now on.
    @inlinable
    func density(_ tag: _LHDTag) -> Float {
        let age = classes.age(now: now, stamp: tag.stamp)
        if age == _HitDensityClasses.maximumAge - 1 { return -Float.greatestFiniteMagnitude }
        var density = classes.density(hitAges: tag.hitAges, age: age) / Float(tag.size)
        if tag.explorer { density += 1 }
        return density
    }

    /// libCacheSim's `rank` and `replaced`: the least dense of the drawn residents and of the
    /// recent low-density admissions. The flow evicts the answer at once, so its eviction is
    /// counted here (a removal by the caller is not an eviction and is not counted).
    ///
    /// The draws are made 32 at a time (`drawCandidates`) and each one's tag is asked for before
    /// any is scored, as the ring's tags are: each is a cache miss, and scored as drawn they came
    /// one after another (half of the replay). The draws do not depend on the scores, so the
    /// choice is the same.
    @inlinable public mutating func victim() -> Int32 {
        var victim: Int32 = -1
        var lowest = Float.greatestFiniteMagnitude
        var draws = reconfigurations > Self.warmUpReconfigurations ? associativity : 8
        let n = UInt64(residents.count)
        // By index, not `for … in`: iterating the array copies it, and the copy's reference
        // count is an atomic operation (a full barrier) on every eviction.
        for i in recentlyAdmitted.indices where recentlyAdmitted[i] >= 0 { tags.prefetch(recentlyAdmitted[i]) }
        withUnsafeTemporaryAllocation(of: Int32.self, capacity: 32) { drawn in
            while draws > 0 {
                let count = Swift.min(draws, drawn.count)
                draws -= count
                // Mutable access, though nothing is written: it checks that the arrays are
                // unique, where a read-only one retained them (an atomic operation, a full
                // barrier that made the draws' cache misses wait instead of overlapping).
                var generator = self.generator
                residents.withUnsafeMutableBufferPointer { residents in
                    tags.storage.withUnsafeMutableBufferPointer { tags in
                        Self.drawCandidates(into: drawn, count: count, among: n, residents: UnsafeBufferPointer(residents),
                                            tags: UnsafeBufferPointer(tags), generator: &generator)
                    }
                }
                self.generator = generator
                for slot in drawn[..<count] where slot >= 0 {
                    let d = density(tags[slot])
                    if d < lowest { victim = slot; lowest = d }
                }
            }
        }
        for i in recentlyAdmitted.indices where recentlyAdmitted[i] >= 0 {
            let slot = recentlyAdmitted[i]
            let d = density(tags[slot])
            if d < lowest { victim = slot; lowest = d }
        }
        if victim < 0 { victim = residents[0] }
        ewmaVictimDensity = _HitDensityClasses.decay * ewmaVictimDensity + (1 - _HitDensityClasses.decay) * lowest
        let tag = tags[victim]
        classes.recordEviction(hitAges: tag.hitAges, age: classes.age(now: now, stamp: tag.stamp))
        if tag.explorer { explorerBudget &+= tag.size }
        return victim
    }

    /// Fills `drawn[0..<count]` with residents drawn uniformly from the first `n` (-1 when there
    /// are none) and asks for each one's tag.
    ///
    /// On raw buffers: `tags.prefetch` called here, in a closure that held `self`, copied the
    /// tag table for each draw, and the copy's reference count (an atomic operation, a full
    /// barrier) made every draw wait for the one before it: the draws' cache misses came one
    /// after another instead of together (45 % of the victim search).
    @inlinable @inline(__always)
    static func drawCandidates(into drawn: UnsafeMutableBufferPointer<Int32>, count: Int, among n: UInt64,
                               residents: UnsafeBufferPointer<Int32>, tags: UnsafeBufferPointer<_LHDTag>,
                               generator: inout SeededGenerator) {
        guard n > 0, let residentBase = residents.baseAddress else {
            for i in 0..<count { drawn[i] = -1 }   // no residents: nothing to draw
            return
        }
        // The positions first, each asked for as drawn, so that the residents' cache misses
        // overlap; then the residents, each one's tag asked for.
        for i in 0..<count {
            // A uniform position from the high half of a 128-bit product: a multiply, where
            // `% n` was a 64-bit division (tens of cycles, 32 per eviction).
            let position = Int(truncatingIfNeeded: generator.next().multipliedFullWidth(by: n).high)
            drawn[i] = Int32(truncatingIfNeeded: position)
            _cs_prefetch(residentBase + position)
        }
        for i in 0..<count {
            let slot = residents[Int(drawn[i])]
            drawn[i] = slot
            if slot >= 0, Int(slot) < tags.count, let tagBase = tags.baseAddress { _cs_prefetch(tagBase + Int(slot)) }
        }
    }

    @inlinable public mutating func unlink(_ slot: Int32) {
        let at = Int(position[slot])
        let last = residents.removeLast()
        if last != slot {
            residents[at] = last
            position[last] = Int32(at)
        }
        position[slot] = -1
        cost -= store.cost(slot)
        for i in recentlyAdmitted.indices where recentlyAdmitted[i] == slot { recentlyAdmitted[i] = -1 }
    }

    @inlinable public mutating func setCost(_ slot: Int32, _ cost: Int) {
        store.setCost(slot, cost, adjusting: &self.cost)
    }
}

/// What LHD keeps per object (libCacheSim's `Tag`).
///
/// Why the hit ages are 32 bits: they are coarsened ages, below `_HitDensityClasses.maximumAge`
/// (20,000), and the tag then fits 32 bytes, so it never straddles two cache lines (at 40 bytes
/// one tag in five did, two misses for one eviction candidate).
@usableFromInline
struct _LHDTag {
    /// The access time of its last access.
    @usableFromInline var stamp: UInt64 = 0
    /// Its size when last accessed (a `Float` in libCacheSim, converted where the density divides by it).
    @usableFromInline var size = 0
    @usableFromInline var lastHitAge: UInt32 = 0
    @usableFromInline var lastLastHitAge: UInt32 = 0
    @usableFromInline var explorer = false

    @inlinable init() {}

    /// The sum its class is drawn from.
    @inlinable var hitAges: UInt64 { UInt64(lastHitAge) &+ UInt64(lastLastHitAge) }
}

extension LHDCache: SlotRelocatingPolicy {
    /// Renumbers the residents drawn from, the recent admissions and the per-slot positions and
    /// tags after a compaction (a draw picks a position among the residents, not a slot number,
    /// so the draws stay the same), and gives back the residents' spare room.
    @inlinable public mutating func relocateSlots(_ relocation: SlotRelocation) {
        for i in residents.indices { residents[i] = relocation[residents[i]] }
        residents._giveBackSpareRoom()
        for i in recentlyAdmitted.indices { recentlyAdmitted[i] = relocation[recentlyAdmitted[i]] }
        position.relocate(relocation)
        tags.relocate(relocation)
    }
}
