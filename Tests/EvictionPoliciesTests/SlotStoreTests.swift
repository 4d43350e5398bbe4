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
}
