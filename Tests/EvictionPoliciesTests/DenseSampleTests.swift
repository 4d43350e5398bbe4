@testable import EvictionPolicies
import Testing
import TestSupport

/// `_DenseSample` (Random's and RandomTwo's draws) against obviously correct models: the filed
/// residents as a dictionary of hashes, and libCacheSim's chained table (`chainedHashTableV2.c`)
/// as arrays of chains keyed by the hashes' top bits, drawn as its loop draws. The sample draws
/// by rejection with other random numbers, so its draws are compared with the model's in
/// distribution: each resident's share of many draws, and how far the chains halve.
@Suite struct DenseSampleTests {
    /// A hash whose top `bits` bits are `chain`, the rest random.
    static func hash(chain: UInt64, bits: Int, _ random: inout SeededRandom) -> UInt64 {
        chain << UInt64(64 - bits) | random.next() >> UInt64(bits)
    }

    /// libCacheSim's table with chains by top bits: a draw picks random chains until one is
    /// non-empty, halving the table at the 33rd empty one and at each after it, then a random
    /// resident of the chain.
    struct LiteralModel {
        var bits: Int
        var hashes: [Int32: UInt64] = [:]

        func chain(_ hash: UInt64) -> UInt64 { bits == 0 ? 0 : hash >> UInt64(64 - bits) }
        func members(_ chain: UInt64) -> [Int32] { hashes.filter { self.chain($0.value) == chain }.map(\.key).sorted() }

        mutating func draw(using generator: inout SeededGenerator) -> Int32 {
            var chain = generator.next() % (1 << UInt64(bits))
            var tries = 0
            while members(chain).isEmpty {
                tries += 1
                if tries > 32 && bits > 0 { bits -= 1 }
                chain = generator.next() % (1 << UInt64(bits))
            }
            let slots = members(chain)
            return slots[Int(generator.next() % UInt64(slots.count))]
        }
    }

    /// Checks every count the sample keeps against the residents `filed` (slot to hash): the
    /// array holds exactly them, each where its place says, and each chain's length and the
    /// occupied chains are those of their hashes' top bits.
    static func expectConsistent(_ sample: _DenseSample, _ filed: [Int32: UInt64], sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(sample.residentCount == filed.count, sourceLocation: sourceLocation)
        #expect(Set(sample.entries.elements.map { $0.slot }) == Set(filed.keys), sourceLocation: sourceLocation)
        for (position, entry) in sample.entries.elements.enumerated() {
            #expect(sample.entries.position(of: entry.slot) == position, sourceLocation: sourceLocation)
            #expect(UInt64(entry.payload) == (filed[entry.slot] ?? 0) >> 32, sourceLocation: sourceLocation)
        }
        var lengths: [Int: Int] = [:]
        for hash in filed.values { lengths[sample.chain(UInt32(truncatingIfNeeded: hash >> 32)), default: 0] += 1 }
        #expect(sample.occupiedChains == lengths.count, sourceLocation: sourceLocation)
        for chain in 0..<sample.chains { #expect(sample.length(chain) == lengths[chain, default: 0], sourceLocation: sourceLocation) }
    }

    @Test("inserts, draws and removals keep the array, the places and the chain lengths exact, through doubling and halving",
          arguments: [1, 2, 3, 4])
    func bookkeeping(seed: UInt64) throws {
        var random = SeededRandom(seed: seed)
        var residents = try _SampledResidents<_DenseSample>(options: PolicyOptions(["seed": String(seed)]), buckets: 4)
        residents.sample.lookAheadResidents = 0
        let index = SlotIndex()
        var filed: [Int32: UInt64] = [:]
        var free: [Int32] = []
        var nextSlot: Int32 = 0
        var sizes: Set<Int> = [residents.sample.chains]
        for step in 0..<4_000 {
            // Phases of growth and of shrinkage, so the chains double and halve.
            let growing = (step / 500) % 2 == 0
            let roll = random.next() % 10
            let chainsBefore = residents.sample.chains
            if filed.isEmpty || roll < (growing ? 6 : 2) {
                // Slots come back as an arena gives them: the last freed first.
                let slot = free.popLast() ?? { defer { nextSlot += 1 }; return nextSlot }()
                // Every fifth hash shares its top 12 bits with others: long chains.
                let hash = step % 5 == 0 ? Self.hash(chain: random.next() % 4, bits: 12, &random) : random.next()
                let doubles = filed.count > chainsBefore * 2
                residents.insert(slot, hash: hash, index: index)
                filed[slot] = hash
                #expect(residents.sample.chains == (doubles ? chainsBefore * 2 : chainsBefore))
            } else if roll < 8 {
                // An eviction: draw, look ahead as the policies do, then remove what was drawn.
                let drawn = residents.draw(index: index)
                #expect(filed[drawn] != nil)
                #expect(residents.sample.chains <= chainsBefore, "a draw only halves")
                if step % 3 != 0 { _ = residents.sample.lookAhead(index: index, generator: residents.generator) }
                if step % 4 != 0, let hash = filed.removeValue(forKey: drawn) {
                    residents.remove(drawn, hash: hash, index: index)
                    free.append(drawn)
                }
            } else {
                // A removal of a resident not just drawn (a delete request).
                let slot = filed.keys.sorted()[Int(random.next() % UInt64(filed.count))]
                let hash = filed.removeValue(forKey: slot) ?? 0
                residents.remove(slot, hash: hash, index: index)
                free.append(slot)
            }
            sizes.insert(residents.sample.chains)
            if step % 50 == 0 || residents.sample.chains != chainsBefore { Self.expectConsistent(residents.sample, filed) }
        }
        #expect(sizes.count >= 4, "the chains doubled and halved: \(sizes.sorted())")
    }

    @Test("draws follow libCacheSim's odds: 1 / (non-empty chains × the chain's length), where a uniform draw would not")
    func odds() {
        // Four chains: lengths 1, 2 and 3 and one empty, so each chain is drawn a third of the
        // time and its residents share that. A quarter of the chains empty: no halving.
        var random = SeededRandom(seed: 5)
        var sample = _DenseSample(chains: 4)
        let index = SlotIndex()
        let chainOf: [Int32: UInt64] = [0: 0, 1: 1, 2: 1, 3: 3, 4: 3, 5: 3]
        for slot in Int32(0)..<6 { sample.insert(slot, hash: Self.hash(chain: chainOf[slot] ?? 0, bits: 2, &random), index: index) }
        var generator = SeededGenerator(seed: 11)
        var drawn = [Int](repeating: 0, count: 6)
        let draws = 90_000
        for _ in 0..<draws { drawn[Int(sample.draw(index: index, using: &generator))] += 1 }
        #expect(sample.chains == 4)
        let expected: [Double] = [1.0 / 3, 1.0 / 6, 1.0 / 6, 1.0 / 9, 1.0 / 9, 1.0 / 9]
        for slot in 0..<6 {
            let p = expected[slot]
            let deviation = (Double(drawn[slot]) - Double(draws) * p) / (Double(draws) * p * (1 - p)).squareRoot()
            #expect(abs(deviation) < 5, "slot \(slot): \(drawn[slot]) of \(draws), expected share \(p)")
        }
    }

    @Test("the chains halve as far as libCacheSim's loop halves them, on average over many seeds")
    func halving() {
        // 24 residents in distinct chains of 2^10: a draw meets 33 empty chains in a row about
        // a third of the time, and then halves again at each further empty one.
        var sampleBits: [Double] = [], modelBits: [Double] = []
        for seed in UInt64(1)...1_500 {
            var random = SeededRandom(seed: seed)
            var sample = _DenseSample(chains: 1 << 10)
            var model = LiteralModel(bits: 10)
            let index = SlotIndex()
            for slot in Int32(0)..<24 {
                let hash = Self.hash(chain: UInt64(slot) * 42 + 7, bits: 10, &random)
                sample.insert(slot, hash: hash, index: index)
                model.hashes[slot] = hash
            }
            var generator = SeededGenerator(seed: seed), modelGenerator = SeededGenerator(seed: seed &+ 1_000_000)
            _ = sample.draw(index: index, using: &generator)
            _ = model.draw(using: &modelGenerator)
            sampleBits.append(Double(sample.bits))
            modelBits.append(Double(model.bits))
        }
        func meanAndVariance(_ xs: [Double]) -> (Double, Double) {
            let mean = xs.reduce(0, +) / Double(xs.count)
            return (mean, xs.map { ($0 - mean) * ($0 - mean) }.reduce(0, +) / Double(xs.count - 1))
        }
        let (sampleMean, sampleVariance) = meanAndVariance(sampleBits)
        let (modelMean, modelVariance) = meanAndVariance(modelBits)
        let error = ((sampleVariance + modelVariance) / Double(sampleBits.count)).squareRoot()
        #expect(modelMean < 9.9 && modelMean > 5, "the model halves often enough to tell: \(modelMean)")
        #expect(abs(sampleMean - modelMean) < 4 * error, "mean log2 chains: sample \(sampleMean), model \(modelMean)")
        let sampleHalved = sampleBits.filter { $0 < 10 }.count, modelHalved = modelBits.filter { $0 < 10 }.count
        #expect(abs(sampleHalved - modelHalved) < 120, "draws that halved: sample \(sampleHalved), model \(modelHalved)")
    }

    @Test("hand-worked: removing a resident moves the last into its place; its chain's length falls, and the last one empties it")
    func removal() {
        var random = SeededRandom(seed: 1)
        var sample = _DenseSample(chains: 2)
        let index = SlotIndex()
        let hashes: [Int32: UInt64] = [7: Self.hash(chain: 0, bits: 1, &random), 8: Self.hash(chain: 1, bits: 1, &random),
                                       9: Self.hash(chain: 1, bits: 1, &random)]
        for slot: Int32 in [7, 8, 9] { sample.insert(slot, hash: hashes[slot] ?? 0, index: index) }
        #expect(sample.entries.elements.map { $0.slot } == [7, 8, 9])
        #expect((sample.length(0), sample.length(1), sample.occupiedChains) == (1, 2, 2))
        sample.remove(7, hash: hashes[7] ?? 0, index: index)
        #expect(sample.entries.elements.map { $0.slot } == [9, 8])
        #expect(sample.entries.position(of: 9) == 0)
        #expect((sample.length(0), sample.length(1), sample.occupiedChains) == (0, 2, 1))
        // One chain left, of two: every draw is one of them, and both come up.
        var generator = SeededGenerator(seed: 3)
        let drawn = Set((0..<64).map { _ in sample.draw(index: index, using: &generator) })
        #expect(drawn == [8, 9])
        sample.remove(8, hash: hashes[8] ?? 0, index: index)
        sample.remove(9, hash: hashes[9] ?? 0, index: index)
        #expect(sample.entries.count == 0)
        #expect((sample.length(1), sample.occupiedChains) == (0, 0))
    }

    @Test("a chain of more than 255 residents (past its byte count) keeps its exact length, and empties when its last one leaves")
    func longChain() {
        var sample = _DenseSample(chains: 1 << 16)
        let index = SlotIndex()
        // One constant hash: every resident in one chain, at every chain count.
        for slot in Int32(0)..<300 { sample.insert(slot, hash: 0, index: index) }
        #expect(sample.length(0) == 300)
        #expect(sample.longChains == [0: 300])
        var generator = SeededGenerator(seed: 2)
        let drawn = Set((0..<2_000).map { _ in sample.draw(index: index, using: &generator) })
        #expect(drawn.count > 250, "a draw takes any of the chain's residents")
        for slot in Int32(0)..<300 {
            sample.remove(slot, hash: 0, index: index)
            #expect(sample.length(0) == 299 - Int(slot))
        }
        #expect(sample.longChains.isEmpty)
        #expect(sample.occupiedChains == 0)
    }

    @Test("a drawn resident's hash is known from its draw (the high half, all the index keeps) for the last two drawn; a slot's known hash is always its own")
    func drawnHash() {
        var random = SeededRandom(seed: 11)
        let index = SlotIndex()
        var sample = _DenseSample(chains: 1 << 6)
        var hashes: [Int32: UInt64] = [:]
        for slot in Int32(0)..<100 {
            hashes[slot] = random.next()
            sample.insert(slot, hash: hashes[slot] ?? 0, index: index)
        }
        var generator = SeededGenerator(seed: 5)
        var previous: Int32 = -1
        for _ in 0..<200 {
            let drawn = sample.draw(index: index, using: &generator)
            let high = { (slot: Int32) in (hashes[slot] ?? 0) & 0xffff_ffff_0000_0000 }
            #expect(sample.drawnHash(drawn) == high(drawn))
            if previous >= 0 { #expect(sample.drawnHash(previous) == high(previous)) }
            // Any other slot: none, or (at the places the last two draws read) its own.
            var known = 0
            for slot in Int32(0)..<100 {
                guard let hash = sample.drawnHash(slot) else { continue }
                #expect(hash == high(slot))
                known += 1
            }
            #expect(known <= 2)
            previous = drawn
        }
        // Once the drawn one leaves, its place holds another resident: no hash for it.
        sample.remove(previous, hash: hashes[previous] ?? 0, index: index)
        #expect(sample.drawnHash(previous) == nil)
    }

    @Test("the look-ahead names the slot the next draw tries first and changes no draw", arguments: [7, 8])
    func lookAhead(seed: UInt64) {
        var random = SeededRandom(seed: seed)
        let index = SlotIndex()
        var looking = _DenseSample(chains: 1 << 9), plain = _DenseSample(chains: 1 << 9)
        looking.lookAheadResidents = 0
        for slot in Int32(0)..<400 {
            let hash = random.next()
            looking.insert(slot, hash: hash, index: index)
            plain.insert(slot, hash: hash, index: index)
        }
        var generatorA = SeededGenerator(seed: seed), generatorB = generatorA
        var foreseen = 0
        var named: Int32 = -1
        for _ in 0..<2_000 {
            let a = looking.draw(index: index, using: &generatorA)
            #expect(a == plain.draw(index: index, using: &generatorB))
            // A draw keeps its first try about two times in three (400 residents in 512 chains).
            if a == named { foreseen += 1 }
            named = looking.lookAhead(index: index, generator: generatorA)
            #expect(named >= 0)
        }
        #expect(foreseen > 1_200, "the named slot was the one drawn \(foreseen) times in 2,000")
    }
}
