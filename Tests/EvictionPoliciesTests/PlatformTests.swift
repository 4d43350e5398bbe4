// Only the public API: what a policy written in another package can use.
import EvictionPolicies
import Testing

/// A policy defined outside the module with the flow's public building blocks: LRU in its rule alone.
struct OutsideLRU<Key: Hashable, Value>: SlotPolicy {
    static var descriptor: PolicyDescriptor {
        PolicyDescriptor(name: "outside-lru", reproduces: "a test", rule: "LRU", family: .research, supportsCountLimit: true)
    }
    var store = SlotArena<Key, Value>()
    var list = SlotList()
    let capacity: Int
    let countLimit: Int
    init(limits: CacheLimits, options: PolicyOptions) throws(PolicyConfigurationError) {
        (capacity, countLimit) = try limits.validated(for: Self.descriptor, options: options)
    }
    var count: Int { list.count }
    var totalCost: Int { list.cost }
    mutating func didHit(_ slot: Int32) { store.moveToHead(slot, &list) }
    mutating func didInsert(_ slot: Int32) { store.pushHead(slot, &list) }
    mutating func victim() -> Int32 { list.tail }
    mutating func unlink(_ slot: Int32) { store.unlink(slot, &list) }
    mutating func setCost(_ slot: Int32, _ cost: Int) { store.setCost(slot, cost, in: &list) }
}

/// ``OutsideLRU`` whose rule knows its victims' hashes, as a random draw's table does, and can be
/// made to give a wrong one or a victim that is no resident.
struct HashKnowingLRU<Key: Hashable, Value>: SlotPolicy {
    static var descriptor: PolicyDescriptor { OutsideLRU<Key, Value>.descriptor }
    var lru: OutsideLRU<Key, Value>
    var store: SlotArena<Key, Value> { get { lru.store } set { lru.store = newValue } }
    /// XORed into the high half of the hash the rule gives (0: the right hash).
    var hashError: UInt64 = 0
    /// Given as the victim instead of the rule's when not nil.
    var madeUpVictim: Int32?
    init(limits: CacheLimits, options: PolicyOptions) throws(PolicyConfigurationError) {
        lru = try OutsideLRU(limits: limits, options: options)
    }
    var capacity: Int { lru.capacity }
    var countLimit: Int { lru.countLimit }
    var count: Int { lru.count }
    var totalCost: Int { lru.totalCost }
    mutating func didHit(_ slot: Int32) { lru.didHit(slot) }
    mutating func didInsert(_ slot: Int32) { lru.didInsert(slot) }
    mutating func victim() -> Int32 { madeUpVictim ?? lru.victim() }
    func knownHash(ofVictim slot: Int32) -> UInt64? {
        if madeUpVictim != nil { return 0 }
        return (store.hash(store.key(slot)) & 0xffff_ffff_0000_0000) ^ hashError << 32
    }
    mutating func unlink(_ slot: Int32) { lru.unlink(slot) }
    mutating func setCost(_ slot: Int32, _ cost: Int) { lru.setCost(slot, cost) }
}

/// Records evictions and trim brackets.
struct Recorder<Key, Value>: EvictionObserver {
    var evicted: [Key] = []
    var passes = 0
    var open = false
    mutating func trimWillBegin(_ kind: TrimKind) { precondition(!open); open = true; passes += 1 }
    mutating func didEvict(_ key: Key, value: Value, cost: Int) { precondition(open); evicted.append(key) }
    mutating func trimDidEnd(_ kind: TrimKind) { precondition(open); open = false }
}

@Suite("Policy platform: the flow and its public building blocks")
struct PlatformTests {
    @Test("a policy written outside the module runs the whole flow: LRU's vector")
    func outsidePolicy() throws {
        var cache = try OutsideLRU<String, Int>(limits: CacheLimits(capacity: 3), options: PolicyOptions())
        var observer = Recorder<String, Int>()
        for (key, value) in [("a", 1), ("b", 2), ("c", 3)] { cache.insert(value, forKey: key, cost: 1, observer: &observer) }
        #expect(cache.lookup("a", observer: &observer) == 1)
        cache.insert(4, forKey: "d", cost: 1, observer: &observer)
        #expect(observer.evicted == ["b"])
        #expect(observer.passes == 1)
        // Too large: never inserted, nothing evicted.
        cache.insert(5, forKey: "e", cost: 4, observer: &observer)
        #expect(!cache.contains("e") && cache.count == 3)
        // Re-inserting a resident key replaces its cost and counts as a use; costs below 0 count as 0.
        cache.insert(6, forKey: "c", cost: 2, observer: &observer)
        #expect(observer.evicted == ["b", "a"])
        #expect(cache.totalCost == 3)
        cache.insert(7, forKey: "f", cost: -5, observer: &observer)
        #expect(cache.totalCost == 3 && cache.count == 3)
        #expect(cache.remove("c", observer: &observer) == 6)
        #expect(observer.evicted == ["b", "a"], "a removal is not an eviction")
        #expect(!(try OutsideLRU<Int, Void>.init(limits: CacheLimits(capacity: 1), options: PolicyOptions())).contains(1))
    }

    @Test("a victim's hash the rule knows takes it out of the index; a wrong one, or a victim that is no resident, ends the pass over the limits rather than corrupting the arena")
    func knownVictimHash() throws {
        var cache = try HashKnowingLRU<String, Int>(limits: CacheLimits(countLimit: 2), options: PolicyOptions())
        var observer = Recorder<String, Int>()
        for (key, value) in [("a", 1), ("b", 2), ("c", 3)] { cache.insert(value, forKey: key, cost: 1, observer: &observer) }
        #expect(observer.evicted == ["a"])
        #expect(!cache.contains("a") && cache.contains("b") && cache.contains("c"))
        // Only the high half counts: the low half of the hash given is never read.
        cache.insert(4, forKey: "d", cost: 1, observer: &observer)
        #expect(observer.evicted == ["a", "b"] && cache.count == 2)

        // A wrong hash finds nothing in the index: no eviction, the entry goes in over the limit.
        cache.hashError = 1
        cache.insert(5, forKey: "e", cost: 1, observer: &observer)
        #expect(observer.evicted == ["a", "b"])
        #expect(cache.count == 3 && cache.contains("c") && cache.contains("d") && cache.contains("e"))
        // So do -1 and a slot number the arena never gave out.
        cache.hashError = 0
        for madeUp: Int32 in [-1, 1 << 19, 1 << 30] {
            cache.madeUpVictim = madeUp
            cache.insert(6, forKey: "f\(madeUp)", cost: 1, observer: &observer)
            #expect(observer.evicted == ["a", "b"])
        }
        #expect(cache.count == 6)
        // With the right hashes again, one pass brings the cache back to its limit, oldest first.
        cache.madeUpVictim = nil
        cache.insert(7, forKey: "g", cost: 1, observer: &observer)
        #expect(observer.evicted == ["a", "b", "c", "d", "e", "f-1", "f524288"])
        #expect(cache.count == 2 && cache.lookup("g", observer: &observer) == 7)
    }

    @Test("the access path hashes once and inserts on a miss")
    func access() throws {
        var cache = try OutsideLRU<UInt64, Void>(limits: CacheLimits(countLimit: 2), options: PolicyOptions())
        var observer = Recorder<UInt64, Void>()
        #expect(!cache.access(1, cost: 1, orInsert: (), observer: &observer))
        #expect(!cache.access(2, cost: 1, orInsert: (), observer: &observer))
        #expect(cache.access(1, cost: 1, orInsert: (), observer: &observer))
        #expect(!cache.access(3, cost: 1, orInsert: (), observer: &observer))
        #expect(observer.evicted == [2])
    }

    @Test("TrimPass brackets a pass only when it removes something")
    func trimPass() {
        var observer = Recorder<Int, Void>()
        TrimPass(.caller).end(&observer)
        #expect(observer.passes == 0)
        var pass = TrimPass(.deferred)
        pass.willRemove(&observer)
        observer.didEvict(1, value: (), cost: 1)
        pass.willRemove(&observer)
        observer.didEvict(2, value: (), cost: 1)
        pass.end(&observer)
        #expect(observer.passes == 1 && !observer.open)
    }

    @Test("IndexedMinHeap agrees with a sorted reference, ties broken by the older tie value")
    func heap() {
        var heap = IndexedMinHeap()
        var reference: [Int32: (Double, Int64)] = [:]
        var generator = SeededGenerator(seed: 42)
        func referenceMinimum() -> Int32? {
            reference.min { a, b in a.value.0 == b.value.0 ? a.value.1 < b.value.1 : a.value.0 < b.value.0 }?.key
        }
        for tick in Int64(1)...20_000 {
            // Few distinct priorities, so ties are common.
            let priority = Double(generator.next() % 8)
            let slot = Int32(generator.next() % 300)
            switch generator.next() % 4 {
            case 0, 1:
                if reference[slot] == nil { heap.insert(slot, priority: priority, tie: tick) } else {
                    heap.update(slot, priority: priority, tie: tick)
                }
                reference[slot] = (priority, tick)
            case 2:
                heap.remove(slot)
                reference[slot] = nil
            default:
                guard let expected = referenceMinimum() else { #expect(heap.isEmpty); continue }
                let popped = heap.popMinimum()
                #expect(popped.slot == expected)
                #expect(popped.priority == reference[expected]?.0)
                reference[expected] = nil
            }
            #expect(heap.count == reference.count)
            #expect(heap.minimum == (referenceMinimum() ?? -1))
            if let (priority, tie) = reference[slot] {
                #expect(heap.priority(of: slot) == priority && heap.tie(of: slot) == tie)
            }
        }
    }

    @Test("SideTable reads its fill where nothing was written and grows on write")
    func sideTable() {
        var table = SideTable<Int>(filling: -7)
        #expect(table[1000] == -7)
        table[5] = 3
        #expect(table[5] == 3 && table[4] == -7 && table[6] == -7)
        table.removeAll()
        #expect(table[5] == -7)
    }

    @Test("ResidentSample draws only what it holds, and everything it holds")
    func residentSample() {
        var sample = ResidentSample()
        var generator = SeededGenerator(seed: 3)
        for slot in Int32(0)..<10 { sample.insert(slot) }
        sample.remove(3)
        sample.remove(9)
        sample.remove(3)
        #expect(sample.count == 8)
        var seen = Set<Int32>()
        for _ in 0..<2_000 { seen.insert(sample.randomElement(using: &generator)) }
        #expect(seen == Set([0, 1, 2, 4, 5, 6, 7, 8]))
    }

    @Test("ResidentSample follows a compaction: it holds the renumbered residents and draws them as it would have")
    func residentSampleRelocates() throws {
        var arena = SlotArena<Int, Int>()
        var sample = ResidentSample()
        var slots: [Int: Int32] = [:]
        for key in 0..<400 {
            let slot = arena.allocate(key: key, value: key, cost: 1)
            slots[key] = slot
            sample.insert(slot)
        }
        // A purge of all but every tenth key leaves the arena sparse.
        for key in 0..<400 where key % 10 != 0 {
            let slot = try #require(slots[key])
            sample.remove(slot)
            _ = arena.release(slot)
        }
        var before = sample, generator = SeededGenerator(seed: 9), same = generator
        let drawnBefore = (0..<200).map { _ in arena.key(before.randomElement(using: &generator)) }
        let compacted = arena.compactIfSparse()
        let relocation = try #require(compacted)
        sample.relocate(relocation)
        #expect(sample.count == 40)
        // The same draws, by key: each slot kept its place in the sample.
        #expect((0..<200).map { _ in arena.key(sample.randomElement(using: &same)) } == drawnBefore)
        var seen = Set<Int>()
        for _ in 0..<4_000 { seen.insert(arena.key(sample.randomElement(using: &generator))) }
        #expect(seen == Set(stride(from: 0, to: 400, by: 10)))
        // Removal still finds each renumbered slot.
        for key in stride(from: 0, to: 400, by: 20) { sample.remove(arena.find(key)) }
        #expect(sample.count == 20)
        before = sample
        for _ in 0..<1_000 { #expect(arena.key(before.randomElement(using: &generator)) % 20 == 10) }
    }

    @Test("SeededGenerator repeats its sequence for a seed and differs between seeds")
    func generator() {
        var a = SeededGenerator(seed: 1), b = SeededGenerator(seed: 1), c = SeededGenerator(seed: 2)
        let first = (0..<8).map { _ in a.next() }
        #expect(first == (0..<8).map { _ in b.next() })
        #expect(first != (0..<8).map { _ in c.next() })
        #expect(Set(first).count == 8)
    }
}

/// A key that counts its live instances, to see the arena release keys.
final class CountedKey: Hashable, @unchecked Sendable {
    nonisolated(unsafe) static var live = 0
    let id: Int
    init(_ id: Int) { self.id = id; CountedKey.live += 1 }
    deinit { CountedKey.live -= 1 }
    static func == (a: CountedKey, b: CountedKey) -> Bool { a.id == b.id }
    func hash(into hasher: inout Hasher) { hasher.combine(id) }
}

@Suite("SlotArena releases what it removes", .serialized)
struct SlotArenaReleaseTests {
    @Test("a removed entry's key and value are released; an emptied arena gives its storage back")
    func release() {
        let before = CountedKey.live
        var arena = SlotArena<CountedKey, CountedKey>()
        var list = SlotList()
        for id in 0..<100 {
            arena.pushHead(arena.allocate(key: CountedKey(id), value: CountedKey(-id), cost: 1), &list)
        }
        #expect(CountedKey.live == before + 200)
        // Remove half: their keys and values go, but for the one key kept as the placeholder.
        for id in 50..<100 { arena.remove(CountedKey(id), from: &list) }
        #expect(CountedKey.live == before + 100)
        #expect(arena.slotCapacity == 100)
        for id in 0..<50 { arena.remove(CountedKey(id), from: &list) }
        #expect(arena.slotCapacity == 0, "an empty arena gives its storage back")
        #expect(CountedKey.live == before)
    }
}
