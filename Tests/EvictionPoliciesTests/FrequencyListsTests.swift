@testable import EvictionPolicies
import Testing
import TestSupport

/// LeCaR's and Cacheus's groups of entries by frequency, against a model that keeps each slot's
/// frequency and the moment it reached it: the lowest group's oldest and newest are the slots of
/// the lowest frequency that reached it first and last.
@Suite("Frequency groups (LeCaR, Cacheus)")
struct FrequencyListsTests {
    struct Model {
        var entries: [Int32: (frequency: Int, reached: Int)] = [:]
        var clock = 0
        mutating func set(_ slot: Int32, _ frequency: Int) { clock += 1; entries[slot] = (frequency, clock) }
        var lowest: [(slot: Int32, reached: Int)] {
            guard let f = entries.values.map(\.frequency).min() else { return [] }
            return entries.filter { $0.value.frequency == f }.map { ($0.key, $0.value.reached) }.sorted { $0.reached < $1.reached }
        }
    }

    @Test("insert at any frequency, increment, remove: the lowest group's ends and every frequency match the model",
          arguments: [1, 2, 3, 4, 5, 6] as [UInt64])
    func differential(seed: UInt64) {
        var rng = SeededRandom(seed: seed)
        var lists = _FrequencyLists()
        var model = Model()
        let slots = Int32(Int.random(in: 4...60, using: &rng))
        for step in 0..<20_000 {
            let slot = Int32.random(in: 0..<slots, using: &rng)
            if let entry = model.entries[slot] {
                if Int.random(in: 0..<4, using: &rng) == 0 {
                    lists.remove(slot)
                    model.entries[slot] = nil
                } else {
                    lists.increment(slot)
                    model.set(slot, entry.frequency + 1)
                }
            } else {
                // Mostly at 1 (LeCaR); sometimes higher (Cacheus's revived keys).
                let f = Int.random(in: 0..<3, using: &rng) == 0 ? Int.random(in: 1...12, using: &rng) : 1
                lists.insert(slot, frequency: f)
                model.set(slot, f)
            }
            let lowest = model.lowest
            #expect(lists.oldestOfLowest == (lowest.first?.slot ?? -1), "step \(step)")
            #expect(lists.newestOfLowest == (lowest.last?.slot ?? -1), "step \(step)")
            if step % 97 == 0 {
                for s in 0..<slots { #expect(lists.frequency(of: s) == (model.entries[s]?.frequency ?? 0), "step \(step) slot \(s)") }
            }
        }
        // Records are reused: no more than one per distinct frequency in use at the worst moment, plus the entries.
        #expect(lists.groups.records.count <= Int(slots) + 2)
    }

    @Test("one very hot entry among others: the groups stay as few as the frequencies in use")
    func hotKey() {
        var lists = _FrequencyLists()
        for slot: Int32 in 0..<4 { lists.insert(slot) }
        for _ in 0..<200_000 { lists.increment(0) }
        #expect(lists.frequency(of: 0) == 200_001)
        #expect(lists.groups.records.count <= 3, "a group per frequency reached would be 200,001")
        #expect(lists.oldestOfLowest == 1 && lists.newestOfLowest == 3)
        for slot: Int32 in 1..<4 { lists.remove(slot) }
        #expect(lists.oldestOfLowest == 0 && lists.newestOfLowest == 0)
        lists.remove(0)
        #expect(lists.oldestOfLowest == -1 && lists.groups.lowest == -1)
    }
}
