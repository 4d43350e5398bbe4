@testable import EvictionPolicies
import Testing
import TestSupport

/// `_ChainedSample` against an obviously correct model of libCacheSim's chained hash table
/// (`chainedHashTableV2.c`): buckets as arrays, newest first; a draw picks random buckets until
/// one is non-empty (halving the table after more than 32 empty ones), counts its chain, then
/// walks to a random position; the table doubles before an insert finds more than two objects
/// per bucket. Same operations, same random numbers: the same slots must come out.
@Suite struct ChainedSampleTests {
    struct Model {
        var buckets: [[Int32]]
        var hashes: [Int32: UInt64] = [:]
        var count: Int { hashes.count }

        init(buckets: Int) { self.buckets = Array(repeating: [], count: buckets) }

        mutating func insert(_ slot: Int32, hash: UInt64) {
            if count > buckets.count * 2 { rebuild(buckets.count * 2) }
            hashes[slot] = hash
            buckets[Int(hash % UInt64(buckets.count))].insert(slot, at: 0)
        }

        mutating func remove(_ slot: Int32) {
            guard let hash = hashes.removeValue(forKey: slot) else { return }
            buckets[Int(hash % UInt64(buckets.count))].removeAll { $0 == slot }
        }

        mutating func draw(using generator: inout SeededGenerator) -> Int32 {
            var bucket = Int(generator.next() % UInt64(buckets.count))
            var tries = 0
            while buckets[bucket].isEmpty {
                tries += 1
                if tries > 32 && buckets.count > 1 { rebuild(buckets.count / 2) }
                bucket = Int(generator.next() % UInt64(buckets.count))
            }
            let chain = buckets[bucket]
            return chain[Int(generator.next() % UInt64(chain.count))]
        }

        /// Refiles each old chain from its head, each slot in front of its new bucket.
        mutating func rebuild(_ size: Int) {
            let old = buckets
            buckets = Array(repeating: [], count: size)
            for chain in old {
                for slot in chain { buckets[Int(hashes[slot]! % UInt64(size))].insert(slot, at: 0) }
            }
        }
    }

    @Test("draws, inserts and removals match the chained-table model, through growing and shrinking", arguments: [1, 2, 3, 4])
    func matchesModel(seed: UInt64) throws {
        var random = SeededRandom(seed: seed)
        // The residents as the policies keep them.
        var residents = try _SampledResidents<_ChainedSample>(options: PolicyOptions(["seed": String(seed)]), buckets: 4)
        let index = SlotIndex()
        var model = Model(buckets: 4)
        var drawsB = SeededGenerator(seed: seed)
        var resident: [Int32] = []
        var nextSlot: Int32 = 0
        var hashes: [Int32: UInt64] = [:]
        var sizes: Set<Int> = []
        for step in 0..<20_000 {
            // Phases of growth and of shrinkage, so the table doubles and halves.
            let growing = (step / 2_000) % 2 == 0
            sizes.insert(residents.sample.buckets.count)
            let roll = random.next() % 10
            if resident.isEmpty || roll < (growing ? 6 : 1) {
                // Few hash bits, so chains are long and many buckets stay empty.
                let slot = nextSlot
                nextSlot += 1
                let hash = random.next() % 1024
                hashes[slot] = hash
                residents.insert(slot, hash: hash, index: index)
                model.insert(slot, hash: hash)
                resident.append(slot)
            } else if roll < (growing ? 8 : 4) || resident.count < 2 {
                let drawn = residents.draw(index: index)
                #expect(drawn == model.draw(using: &drawsB))
                #expect(resident.contains(drawn))
            } else {
                let slot = resident.remove(at: Int(random.next() % UInt64(resident.count)))
                residents.remove(slot, hash: hashes[slot]!, index: index)
                model.remove(slot)
            }
            #expect(residents.count == model.count)
            #expect(residents.sample.buckets.count == model.buckets.count)
        }
        #expect(sizes.count >= 4)
    }

    @Test("each bucket keeps its chain's length, first two slots and bitmap bit as the model's chain", arguments: [5, 6])
    func bucketsMirrorChains(seed: UInt64) {
        var random = SeededRandom(seed: seed)
        var sample = _ChainedSample(buckets: 8)
        var model = Model(buckets: 8)
        var generator = SeededGenerator(seed: seed), modelGenerator = generator
        var resident: [Int32] = []
        var hashes: [Int32: UInt64] = [:]
        for step in 0..<6_000 {
            // Up to a few hundred slots in few hash values (chains of ten and more), then down to
            // a handful: heads, seconds and later slots are all removed, and the table resizes.
            let growing = step < 3_000 ? resident.count < 300 : resident.count < 4
            let roll = random.next() % 10
            if resident.isEmpty || (growing && roll < 6) {
                let slot = Int32(step)
                let hash = random.next() % 64
                hashes[slot] = hash
                sample.insert(slot, hash: hash)
                model.insert(slot, hash: hash)
                resident.append(slot)
            } else if roll < 8 {
                let slot = resident.remove(at: Int(random.next() % UInt64(resident.count)))
                sample.remove(slot, hash: hashes[slot] ?? 0)
                model.remove(slot)
            } else {
                #expect(sample.draw(using: &generator) == model.draw(using: &modelGenerator))
            }
        }
        #expect(sample.buckets.count == model.buckets.count)
        for (index, chain) in model.buckets.enumerated() where index < sample.buckets.count {
            let bucket = sample.buckets[index]
            #expect(Int(bucket.length) == chain.count)
            #expect(bucket.head == (chain.first ?? -1))
            #expect(bucket.second == (chain.count > 1 ? chain[1] : -1))
            #expect(sample.isOccupied(index) == !chain.isEmpty)
        }
    }

    @Test("hand-worked: removing a chain's second slot relinks the head to the third; the last empties the bucket")
    func removeSecondOfThree() {
        // One bucket: inserted 0, 1, 2, the chain is 2, 1, 0 (newest first).
        var sample = _ChainedSample(buckets: 1)
        for slot in Int32(0)...2 { sample.insert(slot, hash: 0) }
        #expect(sample.buckets[0].head == 2 && sample.buckets[0].second == 1 && sample.buckets[0].length == 3)
        sample.remove(1, hash: 0)
        #expect(sample.buckets[0].head == 2 && sample.buckets[0].second == 0 && sample.buckets[0].length == 2)
        #expect(sample.links[2].next == 0)
        sample.remove(2, hash: 0)
        #expect(sample.buckets[0].head == 0 && sample.buckets[0].second == -1 && sample.isOccupied(0))
        sample.remove(0, hash: 0)
        #expect(sample.buckets[0].length == 0 && sample.buckets[0].head == -1 && !sample.isOccupied(0))
    }

    @Test("a chain of one is drawn without a division but with the same random number")
    func chainOfOne() {
        var sample = _ChainedSample(buckets: 1)
        sample.insert(7, hash: 0)
        var generator = SeededGenerator(seed: 9), reference = SeededGenerator(seed: 9)
        #expect(sample.draw(using: &generator) == 7)
        _ = (reference.next(), reference.next())
        #expect(generator.next() == reference.next())
    }
}
