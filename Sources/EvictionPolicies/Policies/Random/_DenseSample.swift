import _CSupport

/// The residents in a dense array, drawn with the odds of libCacheSim's chained hash table
/// (`hashtable_rand_obj`, chainedHashTableV2.c, 0.3.5): a uniformly random *non-empty chain*,
/// then a uniformly random object of it. A resident alone in its chain is drawn three times as
/// often as one of a chain of three.
///
/// **How.** By rejection: a uniformly random resident of the array is kept with probability
/// 1 / (its chain's length), and otherwise another is tried. Each chain is then kept with the
/// same chance (its length times 1 / its length, over the residents), so the kept resident's
/// chain is uniform among the non-empty chains and the resident uniform within it: libCacheSim's
/// odds. A draw takes (residents / non-empty chains) tries on average, about 1.5 at
/// libCacheSim's two residents per chain, each reading one array element and one chain length.
/// A chain is the residents whose hashes share their top bits; the chains are only counted (a
/// byte each), never walked.
///
/// **The chain count follows libCacheSim's**: 2^16 chains at first (Random's `hashpower - 8`),
/// doubled when there are more than two residents per chain before an insert. libCacheSim
/// halves its table when a draw meets more than 32 empty buckets in a row, and again at each
/// further empty one; a draw here halves the chains with those odds (the empty share to the
/// 33rd power, then the empty share), from the generator's numbers, so the chain count moves as
/// libCacheSim's does. Where those odds are below 2^-64 (about a quarter of the chains empty or
/// fewer) it does not ask.
///
/// **Why.** A run's miss ratio depends on the residents' odds (libCacheSim's differ from a
/// uniform draw's by up to 5 % on small looping traces), not on which resident a given random
/// number picks, which no other hash function could reproduce anyway. Walking chains (of the
/// key index, or of a table of links) cost a draw several dependent reads and a sort, and its
/// look-ahead twice that; the array costs a removal one move. Measured on the 10M-request Zipf
/// trace against drawing from chains of the key index: Random about 10 % and RandomTwo about
/// 15 % faster at 256 MiB, 13 % and 21 % at 1 MiB, with 15 % fewer instructions
/// (results/random-dense-2026-12-04-s60.md).
///
/// The draws depend on the hashes, the random numbers and the order in which residents came
/// and went, never on slot numbers, so a compaction changes no draw. Each draw's first try comes
/// from a random number drawn two draws before, so ``lookAhead(index:generator:)`` can load its
/// array element, its slot and its index bucket while the requests in between run.
///
/// - Complexity: insert and remove O(1) amortised (O(n) when the chain count doubles or
///   halves); draw O(residents / non-empty chains) expected, O(1) at libCacheSim's loads.
public struct _DenseSample: _SampleTable {
    /// The residents, each with the high 32 bits of its hash (whose top ``bits`` bits are its
    /// chain), in no meaningful order.
    @usableFromInline var entries = _DenseResidents<UInt32>()
    /// log2 of the number of chains, at most 32.
    @usableFromInline var bits: Int
    /// Per chain, its number of residents, 255 meaning 255 or more (then ``longChains`` has it).
    @usableFromInline var lengths: ContiguousArray<UInt8>
    /// The lengths of the chains of 255 or more (only a weak hash makes them).
    @usableFromInline var longChains: [Int: Int] = [:]
    /// How many chains hold a resident.
    @usableFromInline var occupiedChains = 0
    /// An upper bound of the halving odds (times 2^64) while at least ``halvingFloor`` chains
    /// are occupied (the odds at that many): a draw below it asks the exact odds, and below 1
    /// (odds under 2^-64) a draw does not ask.
    @usableFromInline var halvingBound = 0.0
    /// The occupied chains ``halvingBound`` was worked out for, and the most for which it is
    /// kept (above, it would ask the exact odds too often); `Int.max` and 0 until then.
    @usableFromInline var halvingFloor = Int.max
    @usableFromInline var halvingCeiling = 0
    /// The random numbers of the next two draws' first candidates, drawn ahead so that their
    /// memory can be loaded early (valid once ``hasPending``).
    @usableFromInline var pending: (UInt64, UInt64) = (0, 0)
    @usableFromInline var hasPending = false
    /// The places in ``entries`` of the last two residents drawn, newest first, for their removal.
    @usableFromInline var drawnPositions = (0, 0)
    /// Whether the last draw retried, so that no look-ahead foresaw the resident it drew.
    @usableFromInline var retried = false
    /// The fewest residents for which ``lookAhead(index:generator:)`` loads anything: below it
    /// the array, the counts and the slots stay in the processor's cache.
    @usableFromInline var lookAheadResidents = 8_192

    /// No resident, in 2^16 chains.
    public init() { self.init(chains: 1 << 16) }

    /// No resident, in `chains` chains (a power of two, at most 2^32).
    public init(chains: Int) {
        bits = Swift.min(chains.trailingZeroBitCount, 32)
        lengths = ContiguousArray(repeating: 0, count: 1 << bits)
    }

    /// The number of chains.
    @inlinable public var chains: Int { 1 << bits }

    @inlinable public var residentCount: Int { entries.count }

    /// The chain of a resident whose hash's high 32 bits are `high`.
    @inlinable @inline(__always)
    func chain(_ high: UInt32) -> Int { Int(truncatingIfNeeded: UInt64(high) &>> UInt64(truncatingIfNeeded: 32 - bits)) }

    /// The number of residents in `chain`.
    @inlinable @inline(__always)
    func length(_ chain: Int) -> Int {
        let length = lengths[chain]
        return length == .max ? longChains[chain, default: 255] : Int(length)
    }

    /// Files newly stored `slot`, whose key hashes to `hash`. O(1) amortised.
    @inlinable
    public mutating func insert(_ slot: Int32, hash: UInt64, index: borrowing SlotIndex) {
        let high = UInt32(truncatingIfNeeded: hash >> 32)
        // As libCacheSim: the chains double when, before this insert, there are more than two
        // residents per chain.
        let doubles = entries.count > chains * 2
        entries.append(slot, high)
        if doubles { rebuild(bits: bits + 1) } else { lengthen(chain(high)) }
    }

    /// Forgets filed `slot`, whose key hashes to `hash`. O(1).
    @inlinable
    public mutating func remove(_ slot: Int32, hash: UInt64, index: borrowing SlotIndex) {
        // An eviction removes a slot just drawn, whose place the draw knows: no read of a
        // random resident's place.
        var position = drawnPositions.0
        if !entries.holds(slot, at: position) {
            position = entries.holds(slot, at: drawnPositions.1) ? drawnPositions.1 : entries.position(of: slot)
        }
        shorten(chain(entries[position].payload))
        entries.remove(at: position)
    }

    /// Counts one resident more in `chain`.
    @inlinable @inline(__always)
    mutating func lengthen(_ chain: Int) {
        let length = lengths[chain]
        if length == 0 { occupiedChains += 1 }
        if length < .max - 1 {
            lengths[chain] = length + 1
        } else {
            _lengthenLong(chain)
        }
    }

    /// Counts one resident fewer in `chain`.
    @inlinable @inline(__always)
    mutating func shorten(_ chain: Int) {
        let length = lengths[chain]
        if length == 1 { occupiedChains -= 1 }
        if length < .max {
            lengths[chain] = length - 1
        } else {
            _shortenLong(chain)
        }
    }

    /// Counts one more in a chain of 254 or more.
    @inline(never) @usableFromInline
    mutating func _lengthenLong(_ chain: Int) {
        lengths[chain] = .max
        longChains[chain, default: 254] += 1
    }

    /// Counts one fewer in a chain of 255 or more.
    @inline(never) @usableFromInline
    mutating func _shortenLong(_ chain: Int) {
        let length = longChains[chain, default: 255] - 1
        if length < 255 {
            longChains[chain] = nil
            lengths[chain] = UInt8(length)
        } else {
            longChains[chain] = length
        }
    }

    /// A resident drawn with libCacheSim's odds. There must be one.
    @inlinable @inline(__always)
    public mutating func draw(index: borrowing SlotIndex, using generator: inout SeededGenerator) -> Int32 {
        halveAsLibCacheSimWould(&generator)
        if !hasPending {
            pending = (generator.next(), generator.next())
            hasPending = true
        }
        var random = pending.0
        pending = (pending.1, generator.next())
        retried = false
        while true {
            let position = Self.scale(random, to: entries.count)
            let entry = entries[position]
            let length = length(chain(entry.payload))
            // Kept with odds 1 / length: the chain's length scales a second number below 1.
            if length == 1 || Self.scale(generator.next(), to: length) == 0 {
                drawnPositions = (position, drawnPositions.0)
                // A retry's resident was foreseen by no look-ahead: its eviction would load the
                // key, then (hashed) the index bucket, one miss after the other. The entry holds
                // the hash's high half, all a home bucket needs, so the bucket starts now.
                if lastDrawWasUnforeseen { index.prefetch(hash: UInt64(entry.payload) << 32) }
                return entry.slot
            }
            retried = true
            random = generator.next()
        }
    }

    /// `random` scaled from [0, 2^64) to [0, `n`): the high half of their product.
    @inlinable @inline(__always)
    static func scale(_ random: UInt64, to n: Int) -> Int {
        Int(truncatingIfNeeded: random.multipliedFullWidth(by: UInt64(truncatingIfNeeded: n)).high)
    }

    /// Halves the chains as often as libCacheSim's draw would before it meets a non-empty
    /// bucket: the first time when its first 33 tries all meet empty buckets, then each time its
    /// next try does.
    ///
    /// A bound of the odds, worked out again only when the occupied chains move a sixteenth away
    /// from the count it was worked out for, settles almost every draw: below 2^-64 (about a
    /// quarter of the chains empty or fewer) nothing is asked, else one random number is, and
    /// the exact odds (33 multiplications) only when it falls below the bound, about as rarely as
    /// a halving. The same number then decides, so the chains halve with exactly the odds.
    @inlinable @inline(__always)
    mutating func halveAsLibCacheSimWould(_ generator: inout SeededGenerator) {
        if occupiedChains < halvingFloor || occupiedChains > halvingCeiling { _boundHalvingOdds() }
        guard halvingBound >= 1 else { return }
        let random = Double(generator.next())
        if random < halvingBound && random < Self.emptyOdds(occupied: occupiedChains, bits: bits, power: 33) * 0x1p64 {
            _halve(&generator)
        }
    }

    /// Bounds the halving odds for the occupied chains within a sixteenth of their count now.
    @inline(never) @usableFromInline
    mutating func _boundHalvingOdds() {
        halvingFloor = occupiedChains - occupiedChains / 16
        halvingCeiling = occupiedChains + occupiedChains / 16 + 1
        halvingBound = Self.emptyOdds(occupied: halvingFloor, bits: bits, power: 33) * 0x1p64
    }

    /// Halves the chains, then again while libCacheSim's next try would meet an empty bucket.
    @inline(never) @usableFromInline
    mutating func _halve(_ generator: inout SeededGenerator) {
        repeat {
            rebuild(bits: bits - 1)
        } while bits > 0 && Double(generator.next()) < Self.emptyOdds(occupied: occupiedChains, bits: bits, power: 1) * 0x1p64
    }

    /// The chance that `power` random chains of 2^`bits` are all empty when `occupied` are not.
    @usableFromInline
    static func emptyOdds(occupied: Int, bits: Int, power: Int) -> Double {
        let empty = Double((1 << bits) - occupied) / Double(1 << bits)
        var odds = 1.0
        for _ in 0..<power { odds *= empty }
        return odds
    }

    /// After a retry, and while the look-ahead runs (from ``lookAheadResidents`` residents);
    /// a smaller table stays in the processor's cache.
    @inlinable public var lastDrawWasUnforeseen: Bool { retried && entries.count >= lookAheadResidents }

    /// The slot the next draw will probably try first, for prefetching, or -1. Loads that
    /// draw's count and index bucket, and the array element of the draw after it.
    ///
    /// Why: a try reads a random array element, then its chain's count, and the eviction then
    /// reads the resident's slot and its index bucket, each a cache miss once the residents
    /// outgrow the processor's cache. The first try's random number is known two draws ahead,
    /// and the residents' count hardly moves meanwhile (an eviction and an insert), so those
    /// loads can start early. The loads may be wasted, the draws are never wrong.
    @inlinable @inline(__always)
    public mutating func lookAhead(index: borrowing SlotIndex, generator: SeededGenerator) -> Int32 {
        guard hasPending, entries.count > 0, entries.count >= lookAheadResidents else { return -1 }
        entries.prefetch(at: Self.scale(pending.1, to: entries.count))
        let next = entries[Self.scale(pending.0, to: entries.count)]
        lengths.withUnsafeBufferPointer { lengths in
            if let base = lengths.baseAddress { _cs_prefetch(base + chain(next.payload)) }
        }
        index.prefetch(hash: UInt64(next.payload) << 32)
        return next.slot
    }

    /// The high half of `slot`'s hash, as its entry holds it, if it is at the place of one of the
    /// last two drawn (so for both of those), else `nil`. O(1): both entries were just read.
    @inlinable @inline(__always)
    public func drawnHash(_ slot: Int32) -> UInt64? {
        if entries.holds(slot, at: drawnPositions.0) { return UInt64(entries[drawnPositions.0].payload) << 32 }
        if entries.holds(slot, at: drawnPositions.1) { return UInt64(entries[drawnPositions.1].payload) << 32 }
        return nil
    }

    /// Renumbers the residents after the arena compacted; each keeps its place in the array, so
    /// the draws stay the same. O(n).
    @inlinable
    public mutating func relocate(_ relocation: SlotRelocation) { entries.relocate(relocation) }

    /// Recounts the chains for 2^`bits` chains. O(n + chains).
    // Out of line: it runs a few times per run.
    @inline(never) @usableFromInline
    mutating func rebuild(bits newBits: Int) {
        bits = Swift.min(Swift.max(newBits, 0), 32)
        lengths = ContiguousArray(repeating: 0, count: 1 << bits)
        longChains = [:]
        occupiedChains = 0
        halvingFloor = .max
        for position in 0..<entries.count { lengthen(chain(entries[position].payload)) }
    }
}
