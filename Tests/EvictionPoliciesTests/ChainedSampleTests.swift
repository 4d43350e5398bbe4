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
        var residents = try _SampledResidents(options: PolicyOptions(["seed": String(seed)]), buckets: 4)
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
                residents.insert(slot, hash: hash)
                model.insert(slot, hash: hash)
                resident.append(slot)
            } else if roll < (growing ? 8 : 4) || resident.count < 2 {
                let drawn = residents.draw()
                #expect(drawn == model.draw(using: &drawsB))
                #expect(resident.contains(drawn))
            } else {
                let slot = resident.remove(at: Int(random.next() % UInt64(resident.count)))
                residents.remove(slot, hash: hashes[slot]!)
                model.remove(slot)
            }
            #expect(residents.count == model.count)
            #expect(residents.sample.buckets.count == model.buckets.count)
        }
        #expect(sizes.count >= 4)
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
