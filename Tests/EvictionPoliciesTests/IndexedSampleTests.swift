@testable import EvictionPolicies
import Testing
import TestSupport

/// `SlotIndex.forEachSlot(topBits:equalTo:_:)` and `_IndexedSample` (Random's and RandomTwo's
/// draws, made from the arena's key index) against obviously correct models: a list of the filed
/// (hash, slot) pairs filtered by their top bits, and libCacheSim's chained table as arrays of
/// chains keyed by the hashes' top bits.
@Suite struct IndexedSampleTests {
    /// Hashes with few distinct top bits and few distinct high halves, so that chains are long,
    /// index clusters long, and the table wraps around its end.
    static func clusteredHash(_ random: inout SeededRandom) -> UInt64 {
        (random.next() % 64) << 58 | (random.next() % 4) << 32 | random.next() % 1_000
    }

    @Test("a group's slots are exactly the filed slots with those top bits, at every group size, through growth and removals",
          arguments: [1, 2, 3])
    func groupsMatchFiledSlots(seed: UInt64) {
        var random = SeededRandom(seed: seed)
        var index = SlotIndex()
        var filed: [(hash: UInt64, slot: Int32)] = []
        for step in 0..<3_000 {
            if filed.isEmpty || random.next() % 3 != 0 {
                let hash = step % 2 == 0 ? Self.clusteredHash(&random) : random.next()
                let slot = Int32(step)
                index.insert(hash: hash, slot: slot)
                filed.append((hash, slot))
            } else {
                let (hash, slot) = filed.remove(at: Int(random.next() % UInt64(filed.count)))
                index.remove(hash: hash, slot: slot)
            }
            guard step % 97 == 0 else { continue }
            for bits in [0, 1, 3, 6, 9, 14, 20, 32] {
                for _ in 0..<4 {
                    let pick = filed[Int(random.next() % UInt64(filed.count))].hash
                    let group = bits == 0 ? 0 : pick >> UInt64(64 - bits)
                    var found: [Int32] = []
                    index.forEachSlot(topBits: bits, equalTo: group) { found.append($0) }
                    let expected = filed.filter { bits == 0 || $0.hash >> UInt64(64 - bits) == group }.map(\.slot)
                    #expect(found.sorted() == expected.sorted(), "bits \(bits), group \(group)")
                }
            }
            var highs: [UInt32] = []
            index.forEachHashHigh { highs.append($0) }
            #expect(highs.sorted() == filed.map { UInt32($0.hash >> 32) }.sorted())
        }
    }

    /// libCacheSim's table with chains by top bits: a draw picks random chains until one is
    /// non-empty (halving after more than 32 empty ones), then a random position of the chain in
    /// increasing order of the hashes' high 32 bits (slot order among equals); the chains double before an insert finds more than two residents
    /// per chain.
    struct Model {
        var bits: Int
        var hashes: [Int32: UInt64] = [:]
        var count: Int { hashes.count }
        var chains: Int { 1 << bits }

        func chain(_ hash: UInt64) -> UInt64 { bits == 0 ? 0 : hash >> UInt64(64 - bits) }
        /// The chain's slots in the draw's order: by their hash's high 32 bits, then by number.
        func members(_ chain: UInt64) -> [Int32] {
            hashes.filter { self.chain($0.value) == chain }
                .sorted { ($0.value >> 32, $0.key) < ($1.value >> 32, $1.key) }.map(\.key)
        }

        mutating func insert(_ slot: Int32, hash: UInt64) {
            if count > chains * 2 { bits += 1 }
            hashes[slot] = hash
        }

        mutating func draw(using generator: inout SeededGenerator) -> Int32 {
            var chain = generator.next() % UInt64(chains)
            var tries = 0
            while members(chain).isEmpty {
                tries += 1
                if tries > 32 && bits > 0 { bits -= 1 }
                chain = generator.next() % UInt64(chains)
            }
            let slots = members(chain)
            return slots[Int(generator.next() % UInt64(slots.count))]
        }
    }

    @Test("draws, inserts and removals match the top-bits chained-table model, through doubling and halving", arguments: [1, 2, 3, 4])
    func matchesModel(seed: UInt64) throws {
        var random = SeededRandom(seed: seed)
        var residents = try _SampledResidents<_IndexedSample>(options: PolicyOptions(["seed": String(seed)]), buckets: 4)
        residents.sample.lookAheadResidents = 0
        var index = SlotIndex()
        var model = Model(bits: 2)
        var modelDraws = SeededGenerator(seed: seed)
        var resident: [Int32] = []
        var nextSlot: Int32 = 0
        var sizes: Set<Int> = []
        for step in 0..<6_000 {
            // Phases of growth and of shrinkage, so the chains double and halve.
            let growing = (step / 600) % 2 == 0
            sizes.insert(residents.sample.chains)
            let roll = random.next() % 10
            if resident.isEmpty || roll < (growing ? 6 : 1) {
                let slot = nextSlot
                nextSlot += 1
                let hash = step % 3 == 0 ? Self.clusteredHash(&random) : random.next()
                index.insert(hash: hash, slot: slot)
                residents.insert(slot, hash: hash, index: index)
                model.insert(slot, hash: hash)
                resident.append(slot)
            } else if roll < (growing ? 8 : 4) || resident.count < 2 {
                let drawn = residents.draw(index: index)
                #expect(drawn == model.draw(using: &modelDraws))
                #expect(resident.contains(drawn))
                // As the policies do after each draw, most of the time: the look-ahead's kept
                // picks, taken by later draws, must not change what they draw.
                if step % 4 != 0 { _ = residents.sample.lookAhead(index: index, generator: residents.generator) }
            } else {
                let slot = resident.remove(at: Int(random.next() % UInt64(resident.count)))
                let hash = model.hashes.removeValue(forKey: slot) ?? 0
                residents.remove(slot, hash: hash, index: index)
                index.remove(hash: hash, slot: slot)
            }
            #expect(residents.count == model.count)
            #expect(residents.sample.chains == model.chains)
            // The lengths say exactly which chains are non-empty.
            if step % 200 == 0 {
                for chain in 0..<min(model.chains, 4_096) {
                    #expect(residents.sample.isOccupied(chain) == !model.members(UInt64(chain)).isEmpty)
                }
            }
        }
        #expect(sizes.count >= 4)
    }

    @Test("hand-worked: one chain of three slots draws them in hash order (slot order among equal high bits) by position; the last removal empties it")
    func oneChain() throws {
        // One chain (2^0): every resident is in it, drawn by position modulo 3 among 4 and 12
        // (high hash bits 0, so in slot order) and then 9 (high bits 0x8000_0000).
        var sample = _IndexedSample(chains: 1)
        var index = SlotIndex()
        for (slot, hash) in [(Int32(12), UInt64(7)), (9, 1 << 63), (4, 99)] {
            index.insert(hash: hash, slot: slot)
            sample.insert(slot, hash: hash, index: index)
        }
        var generator = SeededGenerator(seed: 3), reference = generator
        _ = reference.next()   // the chain
        let position = reference.next()
        #expect(sample.draw(index: index, using: &generator) == [Int32(4), 12, 9][Int(position % 3)])
        for (slot, hash) in [(Int32(12), UInt64(7)), (9, 1 << 63)] {
            sample.remove(slot, hash: hash, index: index)
            index.remove(hash: hash, slot: slot)
            #expect(sample.isOccupied(0))
        }
        sample.remove(4, hash: 99, index: index)
        index.remove(hash: 99, slot: 4)
        #expect(!sample.isOccupied(0) && sample.residentCount == 0)
    }

    /// `count` slots with random hashes, filed in an index and in a sample of `chains` chains
    /// whose look-ahead runs at any size.
    static func filled(_ count: Int, chains: Int, seed: UInt64) -> (index: SlotIndex, sample: _IndexedSample, hashes: [Int32: UInt64]) {
        var random = SeededRandom(seed: seed)
        var index = SlotIndex()
        var sample = _IndexedSample(chains: chains)
        sample.lookAheadResidents = 0
        var hashes: [Int32: UInt64] = [:]
        for slot in Int32(0)..<Int32(count) {
            let hash = random.next()
            hashes[slot] = hash
            index.insert(hash: hash, slot: slot)
            sample.insert(slot, hash: hash, index: index)
        }
        return (index, sample, hashes)
    }

    @Test("the look-ahead names the slot the draw after next takes while the residents stay the same", arguments: [7, 8])
    func lookAheadForesees(seed: UInt64) {
        var (index, sample, hashes) = Self.filled(3_000, chains: 1 << 10, seed: seed)
        var generator = SeededGenerator(seed: seed)
        var foreseen = 0
        for step in 0..<500 {
            // The look-ahead names the draw after next.
            let predicted = sample.lookAhead(index: index, generator: generator)
            var copy = sample, copyGenerator = generator
            _ = copy.draw(index: index, using: &copyGenerator)
            let afterNext = copy.draw(index: index, using: &copyGenerator)
            // With nothing changed in between, a foreseeable draw is foreseen exactly.
            if predicted >= 0 { #expect(predicted == afterNext); foreseen += 1 }
            let drawn = sample.draw(index: index, using: &generator)
            if step % 2 == 0, let hash = hashes.removeValue(forKey: drawn) {
                // An eviction between draws: the next look-ahead sees the residents as they are.
                sample.remove(drawn, hash: hash, index: index)
                index.remove(hash: hash, slot: drawn)
            }
        }
        #expect(foreseen > 400)
    }

    @Test("below its resident threshold the look-ahead foresees nothing, and the draws are the same either way")
    func lookAheadThreshold() {
        var (index, looking, hashes) = Self.filled(1_000, chains: 1 << 10, seed: 9)
        var plain = looking
        plain.lookAheadResidents = _IndexedSample().lookAheadResidents   // the default, above 1,000
        var plainGenerator = SeededGenerator(seed: 9), lookingGenerator = plainGenerator
        var foreseen = 0
        for _ in 0..<300 {
            #expect(plain.lookAhead(index: index, generator: plainGenerator) == -1)
            if looking.lookAhead(index: index, generator: lookingGenerator) >= 0 { foreseen += 1 }
            let drawn = plain.draw(index: index, using: &plainGenerator)
            #expect(looking.draw(index: index, using: &lookingGenerator) == drawn)
            if let hash = hashes.removeValue(forKey: drawn) {
                plain.remove(drawn, hash: hash, index: index)
                looking.remove(drawn, hash: hash, index: index)
                index.remove(hash: hash, slot: drawn)
            }
        }
        #expect(foreseen > 250)
    }

    @Test("the look-ahead's picks follow a compaction: the draws after it are those of a sample that foresaw nothing",
          arguments: [1, 2, 3, 4, 5, 6] as [UInt64])
    func picksFollowCompaction(seed: UInt64) {
        let slots = 400
        var (index, sample, hashes) = Self.filled(slots, chains: 1 << 6, seed: seed)
        var generator = SeededGenerator(seed: seed)
        // Draws with the look-ahead, so that the next draws hold picks.
        for _ in 0..<3 {
            _ = sample.draw(index: index, using: &generator)
            _ = sample.lookAhead(index: index, generator: generator)
        }
        let picked = (0..<sample.foreseen.count).compactMap { sample.foreseen[$0].slot >= 0 ? sample.foreseen[$0].slot : nil }
        #expect(!picked.isEmpty, "the look-ahead picked nothing")
        let pickedChains = Set((0..<sample.foreseen.count).map { sample.foreseen[$0].chain })
        // Free three quarters of the slots, none in a chain a foreseen draw takes (which would
        // drop its pick), so that the picked slots move.
        var free = [Bool](repeating: false, count: slots)
        for slot in Int32(0)..<Int32(slots) where slot % 4 != 3 && !pickedChains.contains(sample.chain(hashes[slot] ?? 0)) {
            let hash = hashes.removeValue(forKey: slot) ?? 0
            sample.remove(slot, hash: hash, index: index)
            index.remove(hash: hash, slot: slot)
            free[Int(slot)] = true
        }
        let relocation = SlotRelocation(compacting: slots, keeping: hashes.count) { free[$0] }
        #expect(picked.contains { relocation[$0] != $0 }, "no picked slot moved")
        index.relocate(relocation)
        sample.relocate(relocation)
        var blind = sample
        blind.foreseen.removeAll()
        blind.resync = true
        blind.lookAheadResidents = .max
        var blindGenerator = generator
        for _ in 0..<6 {
            let drawn = sample.draw(index: index, using: &generator)
            #expect(drawn == blind.draw(index: index, using: &blindGenerator))
            _ = sample.lookAhead(index: index, generator: generator)
        }
    }

    @Test("a chain longer than the stack buffer (a constant hash) is drawn from all of its slots")
    func longChain() {
        var sample = _IndexedSample(chains: 1 << 16)
        var index = SlotIndex()
        for slot in Int32(0)..<40 {
            index.insert(hash: 5, slot: slot)
            sample.insert(slot, hash: 5, index: index)
        }
        var generator = SeededGenerator(seed: 11)
        var seen: Set<Int32> = []
        for _ in 0..<2_000 { seen.insert(sample.draw(index: index, using: &generator)) }
        #expect(seen == Set(0..<40))
    }

    @Test("a chain of more than 255 residents (past its byte count) empties exactly when its last one leaves")
    func chainPastItsCount() {
        var sample = _IndexedSample(chains: 1 << 16)
        sample.lookAheadResidents = 0
        var index = SlotIndex()
        // Two hashes in one chain at any chain count (the same top 32 bits), one in another.
        let hashes: [UInt64] = [0xABCD_1234_0000_0001, 0xABCD_1234_0000_0002]
        for slot in Int32(0)..<300 {
            index.insert(hash: hashes[Int(slot) % 2], slot: slot)
            sample.insert(slot, hash: hashes[Int(slot) % 2], index: index)
        }
        index.insert(hash: 0x1234_0000_0000_0000, slot: 300)
        sample.insert(300, hash: 0x1234_0000_0000_0000, index: index)
        var generator = SeededGenerator(seed: 5)
        for slot in Int32(0)..<300 {
            // Draws halve the chains (two of 2^16 are occupied): the chain is recomputed each time.
            #expect(sample.isOccupied(sample.chain(hashes[0])), "after \(slot) removals")
            // Draws between removals take only residents.
            let drawn = sample.draw(index: index, using: &generator)
            #expect(drawn == 300 || drawn >= slot)
            _ = sample.lookAhead(index: index, generator: generator)
            sample.remove(slot, hash: hashes[Int(slot) % 2], index: index)
            index.remove(hash: hashes[Int(slot) % 2], slot: slot)
        }
        #expect(!sample.isOccupied(sample.chain(hashes[0])))
        #expect(sample.isOccupied(sample.chain(0x1234_0000_0000_0000)) && sample.residentCount == 1)
    }
}
