@testable import EvictionPolicies
import TestSupport
import Testing

@Suite("Slot store and key index")
struct SlotStoreTests {
    @Test("the index agrees with a Set under heavy churn, across growth and backward-shift deletes")
    func churn() {
        var store = SlotArena<UInt64, Void>()
        var list = SlotList()
        var truth: [UInt64: Int32] = [:]
        var rng = SeededRandom(seed: 7)
        for step in 0..<200_000 {
            // Keys collide in their low bits on purpose, so probe runs form and wrap.
            let key = UInt64.random(in: 0..<5_000, using: &rng) << 20
            if let slot = truth[key], Bool.random(using: &rng) {
                store.unlink(slot, &list)
                store.release(slot)
                truth[key] = nil
            } else if truth[key] == nil {
                let slot = store.allocate(key: key, value: (), cost: 1)
                store.pushHead(slot, &list)
                truth[key] = slot
            }
            if step % 997 == 0 {
                for (key, slot) in truth { #expect(store.find(key) == slot) }
                #expect(store.find(UInt64.max) == -1)
            }
        }
        #expect(store.index.count == truth.count)
        #expect(list.count == truth.count)
    }

    @Test("string keys")
    func stringKeys() {
        var store = SlotArena<String, Int>()
        for i in 0..<1_000 { _ = store.allocate(key: "k\(i)", value: i, cost: i) }
        for i in 0..<1_000 { #expect(store.values[Int(store.find("k\(i)"))] == i) }
        #expect(store.find("missing") == -1)
    }

    @Test("the prefetch guess names the key's slot whenever no earlier bucket in its run shares its tag")
    func prefetchCandidate() {
        var store = SlotArena<UInt64, Void>()
        var rng = SeededRandom(seed: 11)
        var slots: [UInt64: Int32] = [:]
        for _ in 0..<20_000 {
            let key = UInt64.random(in: 0..<1_000_000, using: &rng)
            if slots[key] == nil { slots[key] = store.allocate(key: key, value: (), cost: 1) }
        }
        // With 32-bit tags and at most 20,000 keys, a shared tag in one probe run is
        // vanishingly rare: every guess must be right.
        for (key, slot) in slots {
            #expect(store.index.candidate(hash: store.hash(key)) == slot)
            store.prefetch(key, .index)
            store.prefetch(key, .entry)
            store.prefetchEviction(of: slot)
        }
        #expect(store.index.candidate(hash: store.hash(2_000_000)) == -1)
        // Hints for absent keys, and for -1, touch nothing.
        store.prefetch(2_000_000, .entry)
        store.prefetchEviction(of: -1)
        #expect(store.index.count == slots.count)
    }

    @Test("with Void values a freed slot keeps its mark, yet residency, values and the resident listing match a model")
    func voidResidencyMarks() {
        // Void values are marks that a freed slot keeps (no write on release, none on a
        // reallocation that keeps the mark); Int values are cleared as before. Both arenas get
        // the same random mix of resident and ghost allocations, releases and demotions, and
        // must agree with a dictionary of what is resident.
        var marks = SlotArena<UInt64, Void>()
        var cleared = SlotArena<UInt64, Int>()
        var truth: [UInt64: (slot: Int32, resident: Bool)] = [:]
        var rng = SeededRandom(seed: 23)
        for step in 0..<50_000 {
            let key = UInt64.random(in: 0..<2_000, using: &rng)
            if let entry = truth[key] {
                switch Int.random(in: 0..<3, using: &rng) {
                case 0:
                    let released: Void? = marks.release(entry.slot)
                    #expect((released != nil) == entry.resident)
                    #expect((cleared.release(entry.slot) != nil) == entry.resident)
                    truth[key] = nil
                case 1:
                    // A resident becomes a ghost, or a ghost comes back, in place.
                    marks.setValue(entry.slot, entry.resident ? nil : ())
                    cleared.setValue(entry.slot, entry.resident ? nil : Int(key))
                    truth[key] = (entry.slot, !entry.resident)
                default:
                    #expect(marks.isResident(entry.slot) == entry.resident)
                }
            } else {
                let resident = Bool.random(using: &rng)
                let slot = marks.allocate(key: key, value: resident ? () : nil, cost: 1)
                #expect(cleared.allocate(key: key, value: resident ? Int(key) : nil, cost: 1) == slot)
                truth[key] = (slot, resident)
            }
            if step % 499 == 0 {
                for (key, entry) in truth {
                    #expect(marks.find(key) == entry.slot)
                    #expect(marks.isResident(entry.slot) == entry.resident)
                    #expect((marks.value(entry.slot) != nil) == entry.resident)
                    #expect(cleared.value(entry.slot) == (entry.resident ? Int(key) : nil))
                }
                var listed: Set<UInt64> = [], listedCleared: Set<UInt64> = []
                marks.forEachResident { key, _, _ in listed.insert(key) }
                cleared.forEachResident { key, _, _ in listedCleared.insert(key) }
                let expected = Set(truth.filter { $0.value.resident }.keys)
                #expect(listed == expected)
                #expect(listedCleared == expected)
            }
        }
    }
}
