/// The residents drawn as libCacheSim's chained hash table draws them (`hashtable_rand_obj`,
/// chainedHashTableV2.c, 0.3.5: a uniformly random *non-empty bucket*, then a uniformly random
/// object of its chain), with the arena's own key index as the table: a chain is the slots whose
/// hashes share their top bits (see ``SlotIndex/forEachSlot(topBits:equalTo:_:)``), and this type
/// keeps only the number of chains and each chain's length.
///
/// Why not a table of its own (`_ChainedSample`): a random eviction then reads the drawn chain
/// from the index, whose buckets it updates next when the victim leaves, and a new resident's
/// chain is the index bucket its lookup has just read; a separate table cost a cache miss for
/// each of those, and a megabyte or more of memory, at the heart of Random's eviction. It needs
/// every filed slot to be a resident: for policies without ghosts (Random, RandomTwo). Each draw
/// reads the chain's buckets once, which a policy drawing dozens of candidates per eviction (with
/// a small table of its own, as libCacheSim sizes Hyperbolic's) does not want.
///
/// The chain count follows libCacheSim's: 2^16 chains at first (Random's `hashpower - 8`),
/// doubled when there are more than two residents per chain, halved each time a draw has missed
/// more than 32 empty chains. Within a chain, the draw takes the slots in increasing order of
/// their hashes' high 32 bits, a fixed order, so a draw depends only on the residents' hashes and
/// the random numbers, not on which slots they were given (a compaction renumbers them);
/// libCacheSim's order (newest first) gives each position the same chance. Two residents of a
/// chain whose hashes share their high 32 bits (about n²/2^33 pairs among n residents of
/// random hashes) are taken in slot order, the one case where slot numbers matter.
///
/// A draw skips empty chains and a removal learns whether its chain empties from the chain's
/// length (a byte, 64 KB at 2^16 chains), not by reading the chain; and the look-ahead keeps the pick it made for the draw
/// after next, which that draw takes when its chain is unchanged, so most draws read their chain
/// once (see ``lookAhead(index:generator:)``).
///
/// - Complexity: insert and remove O(1) amortised (O(n) when the chain count doubles or
///   halves); draw O(chain length), O(1) expected.
public struct _IndexedSample: _SampleTable {
    /// log2 of the number of chains, at most 32.
    @usableFromInline var bits: Int
    /// Per chain, its number of residents, 255 meaning 255 or more (then a removal counts the
    /// chain again): a draw skips the empty chains, and a removal learns whether its chain
    /// empties, without reading the chain.
    @usableFromInline var lengths: ContiguousArray<UInt8>
    @usableFromInline var count = 0
    /// The next draws, foreseen by ``lookAhead(index:generator:)`` from ``shadow``, with the
    /// picks made for the next two.
    @usableFromInline var foreseen = _ForeseenDraws()
    /// The generator as it will be after the last foreseen draw.
    @usableFromInline var shadow = SeededGenerator(seed: 0)
    /// Whether ``shadow`` must start again from the real generator: at first, and after the
    /// draws went another way than foreseen (a chain emptied or filled meanwhile, or the chains
    /// were recounted).
    @usableFromInline var resync = true
    /// The fewest residents for which ``lookAhead(index:generator:)`` foresees draws (tests set
    /// it lower, to exercise the look-ahead on few residents).
    @usableFromInline var lookAheadResidents = 8_192

    /// No resident, in 2^16 chains.
    public init() { self.init(chains: 1 << 16) }

    /// No resident, in `chains` chains (a power of two, at most 2^32).
    public init(chains: Int) {
        bits = chains.trailingZeroBitCount
        lengths = ContiguousArray(repeating: 0, count: 1 << bits)
    }

    /// The number of chains.
    @inlinable public var chains: Int { 1 << bits }

    /// The chain of a slot whose key hashes to `hash`.
    @inlinable @inline(__always)
    func chain(_ hash: UInt64) -> Int { Int(truncatingIfNeeded: hash >> UInt64(64 - bits)) }

    @inlinable @inline(__always)
    func isOccupied(_ chain: Int) -> Bool { lengths[chain] != 0 }

    /// The residents in `index`, which must all be filed there, as the draws see them.
    @inlinable public var residentCount: Int { count }

    /// Counts newly filed `slot`, whose key hashes to `hash`; `index` holds it already. O(1)
    /// amortised.
    @inlinable
    public mutating func insert(_ slot: Int32, hash: UInt64, index: borrowing SlotIndex) {
        // As libCacheSim: the chains double when, before this insert, there are more than two
        // residents per chain.
        if count > chains * 2 {
            rebuild(bits: bits + 1, index: index)
        } else {
            let chain = self.chain(hash)
            if lengths[chain] != .max { lengths[chain] += 1 }
            forget(chain)
        }
        count += 1
    }

    /// Forgets `slot`, whose key hashes to `hash`; `index` holds it still. O(1), or O(chain
    /// length) for a chain of 255 or more.
    @inlinable
    public mutating func remove(_ slot: Int32, hash: UInt64, index: borrowing SlotIndex) {
        count -= 1
        let chain = self.chain(hash)
        forget(chain)
        var length = lengths[chain]
        if length == .max {
            var others = 0
            index.forEachSlot(topBits: bits, equalTo: UInt64(chain)) { if $0 != slot { others += 1 } }
            length = UInt8(Swift.min(others, Int(UInt8.max)))
        } else {
            length -= 1
        }
        lengths[chain] = length
    }

    /// Drops the picks the look-ahead made in `chain`, whose residents change.
    @inlinable @inline(__always)
    mutating func forget(_ chain: Int) { foreseen.forgetPicks(in: chain) }

    /// A resident drawn as libCacheSim draws one. There must be one.
    @inlinable @inline(__always)
    public mutating func draw(index: borrowing SlotIndex, using generator: inout SeededGenerator) -> Int32 {
        var chain = randomChain(&generator)
        var misses = 0
        while !isOccupied(chain) {
            misses += 1
            if misses > 32 && bits > 0 { rebuild(bits: bits - 1, index: index) }
            chain = randomChain(&generator)
        }
        // Drawn even for a chain of one, so the generator's sequence stays libCacheSim's.
        let position = generator.next()
        let foreseen = self.foreseen.removeFirst()
        if foreseen.chain == chain && foreseen.position == position {
            // The same chain, unchanged since it was picked, and the same position: the same pick.
            if foreseen.slot >= 0 {
                assert(foreseen.slot == Self.pick(position, index: index, bits: bits, chain: UInt64(chain)))
                return foreseen.slot
            }
        } else {
            self.foreseen.removeAll()
            resync = true
        }
        return Self.pick(position, index: index, bits: bits, chain: UInt64(chain))
    }

    /// The slot the draw after next will probably take, read from its chain now; -1 when that
    /// draw cannot be foreseen (it would halve the chains first). Called after each draw with
    /// the generator as it is then.
    ///
    /// Why: a draw waits for its chain's buckets and then for the victim's slot, two cache misses
    /// one after the other, and nothing a draw needs to choose its chain changes between draws but
    /// which chains are empty (the generator's numbers do not depend on the residents). So a
    /// second generator (``shadow``) runs ``_ForeseenDraws/capacity`` draws ahead of the real one: each call
    /// foresees one draw more and asks for its chain's buckets, then reads the chain of the draw
    /// after next, which was asked for two draws ago, picks its slot, keeps the pick for that
    /// draw and returns the slot to be asked for. By the time they are drawn, two evictions'
    /// worth of requests have hidden both misses (one eviction's were too few to hide a miss from
    /// memory). A draw takes the kept pick only if it meets the same chain and position and the
    /// chain has not changed since (``forget(_:)``); when the draws go another way (a chain
    /// emptied or filled meanwhile), the shadow starts again from the real generator. The loads
    /// may be wasted, the draws are never wrong.
    ///
    /// Below ``lookAheadResidents`` residents it does nothing: the chains, the index and the
    /// slots then stay in the processor's cache, so there is no miss to hide and foreseeing
    /// draws only doubles their work (Random at a 1 MiB cache, about 200 residents, replayed the
    /// 10M-request Zipf trace in 1.70 s with it and 1.40 s without). Draws foreseen before are
    /// still taken, as always only when they come true.
    @inlinable @inline(__always)
    public mutating func lookAhead(index: borrowing SlotIndex, generator: SeededGenerator) -> Int32 {
        guard count >= lookAheadResidents else { return -1 }
        if resync {
            shadow = generator
            resync = false
        }
        while foreseen.count < _ForeseenDraws.capacity {
            // A draw that would halve the chains first is not foreseen; the real draws go
            // another way there, and the shadow starts again after them.
            guard let chain = nextChain(&shadow) else { break }
            foreseen.append(_ForeseenDraw(chain: chain, position: shadow.next()))
            index.prefetch(topBits: bits, group: UInt64(chain))
        }
        guard foreseen.count >= 2 else { return -1 }
        var afterNext = foreseen[1]
        if afterNext.slot < 0 {
            afterNext.slot = Self.pick(afterNext.position, index: index, bits: bits, chain: UInt64(afterNext.chain))
            foreseen[1] = afterNext
        }
        return afterNext.slot
    }

    /// The chain a draw with `generator` takes, or `nil` if it would miss more than 32 empty
    /// chains (and halve the chains first).
    @inlinable @inline(__always)
    func nextChain(_ generator: inout SeededGenerator) -> Int? {
        for _ in 0...32 {
            let chain = randomChain(&generator)
            if isOccupied(chain) { return chain }
        }
        return nil
    }

    /// A chain drawn uniformly from the generator's next number, as libCacheSim masks it.
    @inlinable @inline(__always)
    func randomChain(_ generator: inout SeededGenerator) -> Int {
        Int(UInt32(truncatingIfNeeded: generator.next()) & UInt32(truncatingIfNeeded: chains - 1))
    }

    /// The `position % n`-th of the n slots of `chain`, which must hold one, in the order of their
    /// hashes' high 32 bits (then of slot numbers). Up to 16 slots are sorted on the stack; a
    /// longer chain (a key type with a weak hash) is read again into an array.
    @inlinable @inline(__always)
    static func pick(_ position: UInt64, index: borrowing SlotIndex, bits: Int, chain: UInt64) -> Int32 {
        withUnsafeTemporaryAllocation(of: UInt64.self, capacity: 16) { buffer -> Int32 in
            var n = 0
            index.forEachSlotAndHashHigh(topBits: bits, equalTo: chain) { slot, high in
                if n < 16 { buffer[n] = _orderKey(slot, high) }
                n += 1
            }
            if n <= 1 { return n == 1 ? _slot(buffer[0]) : -1 }
            let k = Int(truncatingIfNeeded: n & (n - 1) == 0 ? position & UInt64(n - 1) : position % UInt64(n))
            if n > 16 { return _pickLong(k, index: index, bits: bits, chain: chain) }
            let keys = UnsafeMutableBufferPointer(rebasing: buffer[..<n])
            // Insertion sort: chains hold one to a few slots.
            for i in 1..<n {
                let key = keys[i]
                var j = i
                while j > 0 && keys[j - 1] > key {
                    keys[j] = keys[j - 1]
                    j -= 1
                }
                keys[j] = key
            }
            return _slot(keys[k])
        }
    }

    /// A slot's place in its chain's order: its hash's high 32 bits, then its number.
    @inlinable @inline(__always)
    static func _orderKey(_ slot: Int32, _ high: UInt32) -> UInt64 { UInt64(high) << 32 | UInt64(UInt32(bitPattern: slot)) }

    /// The slot of an order key.
    @inlinable @inline(__always)
    static func _slot(_ key: UInt64) -> Int32 { Int32(bitPattern: UInt32(truncatingIfNeeded: key)) }

    /// The `k`-th slot, in the draw's order, of a chain of more than 16.
    @inline(never) @usableFromInline
    static func _pickLong(_ k: Int, index: borrowing SlotIndex, bits: Int, chain: UInt64) -> Int32 {
        var keys: [UInt64] = []
        index.forEachSlotAndHashHigh(topBits: bits, equalTo: chain) { keys.append(_orderKey($0, $1)) }
        return _slot(keys.sorted()[k])
    }

    /// Renumbers the slots the look-ahead picked. The chains, their lengths and the order of a
    /// chain's slots follow the hashes, which a compaction does not change, so every foreseen
    /// draw stays as it was. O(1).
    @inlinable
    public mutating func relocate(_ relocation: SlotRelocation) {
        foreseen.relocatePicks(relocation)
    }

    /// Recounts the non-empty chains for 2^`bits` chains from the slots filed in `index`.
    // Out of line: it runs a few times per run.
    @inline(never) @usableFromInline
    mutating func rebuild(bits newBits: Int, index: borrowing SlotIndex) {
        bits = Swift.min(newBits, 32)
        lengths = ContiguousArray(repeating: 0, count: 1 << bits)
        foreseen.removeAll()
        resync = true
        let shift = UInt32(32 - bits)
        index.forEachHashHigh { high in
            let chain = Int(high >> shift)
            if lengths[chain] != .max { lengths[chain] += 1 }
        }
    }
}
