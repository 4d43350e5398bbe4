@testable import EvictionPolicies
import TestSupport
import Testing

/// libCacheSim's S3FIFO.c (aa0fc40) transcribed onto arrays, newest first. Its counter is the
/// unbounded one libCacheSim keeps (only `MIN(freq, 3)` is ever used in main), so the
/// implementation's saturating 2-bit counter is checked against it rather than copied.
struct S3FIFOModel: ResearchModel {
    let capacity: Int, smallCapacity: Int, mainCapacity: Int, ghostCapacity: Int, threshold: Int
    /// libCacheSim's Dec-2024 rule: until the first eviction, a full small queue sends new objects to main.
    let warmUp: Bool
    var hasEvicted = false
    var small: [Int] = [], main: [Int] = [], ghost: [Int] = []
    var costs: [Int: Int] = [:], ghostCosts: [Int: Int] = [:], freq: [Int: Int] = [:]

    init(capacity: Int, smallRatio: Double = 0.1, ghostRatio: Double = 0.9, threshold: Int = 2, warmUp: Bool = false) {
        self.capacity = capacity
        smallCapacity = Int(Double(capacity) * smallRatio)
        mainCapacity = capacity - smallCapacity
        ghostCapacity = Int(Double(capacity) * ghostRatio)
        self.threshold = threshold
        self.warmUp = warmUp
    }

    var count: Int { small.count + main.count }
    var totalCost: Int { S3FIFOModel.sum(small, costs) + S3FIFOModel.sum(main, costs) }
    func contains(_ key: Int) -> Bool { small.contains(key) || main.contains(key) }
    func cost(of key: Int) -> Int? { costs[key] }
    static func sum(_ keys: [Int], _ costs: [Int: Int]) -> Int { keys.reduce(0) { $0 + costs[$1]! } }

    mutating func access(_ key: Int, cost: Int) -> (hit: Bool, evicted: [Int]) {
        if contains(key) {
            freq[key]! += 1
            return (true, [])
        }
        guard cost <= capacity else { return (false, []) }
        var ghostHit = false
        if let i = ghost.firstIndex(of: key) {
            ghost.remove(at: i)
            ghostCosts[key] = nil
            ghostHit = true
        }
        guard cost <= smallCapacity else { return (false, []) }
        var evicted: [Int] = []
        while totalCost + cost > capacity && count > 0 {
            hasEvicted = true
            if Self.sum(main, costs) > mainCapacity || Self.sum(small, costs) == 0 {
                evictMain(&evicted)
            } else {
                evictSmall(&evicted)
            }
        }
        if ghostHit {
            main.insert(key, at: 0)
        } else if cost < smallCapacity {
            if warmUp && !hasEvicted && Self.sum(small, costs) >= smallCapacity {
                main.insert(key, at: 0)
            } else {
                small.insert(key, at: 0)
            }
        } else {
            return (false, evicted)
        }
        costs[key] = cost
        freq[key] = 0
        return (false, evicted)
    }

    mutating func evictSmall(_ evicted: inout [Int]) {
        while Self.sum(small, costs) > 0 {
            let key = small.removeLast()
            if freq[key]! >= threshold {
                main.insert(key, at: 0)
                freq[key] = 0
                continue
            }
            evicted.append(key)
            let cost = costs.removeValue(forKey: key)!
            freq[key] = nil
            if ghostCapacity > 0 && cost <= ghostCapacity {
                ghost.insert(key, at: 0)
                ghostCosts[key] = cost
                while Self.sum(ghost, ghostCosts) > ghostCapacity { ghostCosts[ghost.removeLast()] = nil }
            }
            return
        }
    }

    mutating func evictMain(_ evicted: inout [Int]) {
        while Self.sum(main, costs) > 0 {
            let key = main.removeLast()
            if freq[key]! >= 1 {
                main.insert(key, at: 0)
                freq[key] = min(freq[key]!, 3) - 1
                continue
            }
            evicted.append(key)
            costs[key] = nil
            freq[key] = nil
            return
        }
    }

    mutating func remove(_ key: Int) -> [Int] {
        small.removeAll { $0 == key }
        main.removeAll { $0 == key }
        ghost.removeAll { $0 == key }
        costs[key] = nil
        ghostCosts[key] = nil
        freq[key] = nil
        return []
    }
}

@Suite("S3-FIFO (libCacheSim aa0fc40, S3-FIFOv0)")
struct S3FIFOCacheTests {
    typealias Cache = S3FIFOv0Cache<Int, Void>

    func access(_ cache: inout Cache, _ key: Int, cost: Int = 1, _ observer: inout EvictionRecorder<Int, Void>) -> Bool {
        cache.access(key, cost: cost, orInsert: (), observer: &observer)
    }

    @Test("queue sizes: small = floor(10 %), main = the rest, ghost = floor(90 %)")
    func sizes() throws {
        let cache = try Cache.make(capacity: 25)
        #expect(cache.lists.shares.small == 2 && cache.lists.shares.main == 23 && cache.lists.shares.ghost == 22)
        let other = try Cache.make(capacity: 1000, options: ["small-ratio": "0.25", "ghost-ratio": "0.5"])
        #expect(other.lists.shares.small == 250 && other.lists.shares.main == 750 && other.lists.shares.ghost == 500)
        // A share of 0 or 1 leaves a queue no room at any capacity (libCacheSim refuses it), for
        // every policy of the family.
        for ratio in ["0", "1", "0.0", "1e0"] {
            for make in [{ _ = try Cache.make(capacity: 1000, options: ["small-ratio": ratio]) },
                         { _ = try QDLPCache<Int, Void>.make(capacity: 1000, options: ["small-ratio": ratio]) },
                         { _ = try Clock2QPlusCache<Int, Void>.make(capacity: 1000, options: ["small-ratio": ratio]) },
                         { _ = try S3FIFOdCache<Int, Void>.make(capacity: 1000, options: ["small-ratio": ratio]) }] as [() throws -> Void] {
                #expect { try make() } throws: { "\($0)".contains("above 0 and below 1") }
            }
        }
    }

    // Capacity 4 with small-ratio 0.5: small 2, main 2, ghost floor(3.6) = 3. Lists newest first.
    @Test("S1: one-hit objects leave through the ghost; a ghost hit goes straight to main")
    func ghostReadmission() throws {
        var cache = try Cache.make(capacity: 4, options: ["small-ratio": "0.5"])
        var observer = EvictionRecorder<Int, Void>()
        for key in 1...4 { #expect(!access(&cache, key, &observer)) }  // small [4 3 2 1]: S may exceed its share
        #expect(observer.take().isEmpty)
        _ = access(&cache, 5, &observer)            // full: small's tail 1 (freq 0) → ghost; small [5 4 3 2]
        #expect(observer.take() == [1])
        _ = access(&cache, 1, &observer)            // ghost hit: 2 → ghost, 1 → main
        #expect(observer.take() == [2])
        #expect(listKeys(cache.lists.small, cache.store) == [5, 4, 3])
        #expect(listKeys(cache.lists.main, cache.store) == [1])
        #expect(listKeys(cache.lists.ghost, cache.store) == [2])
        #expect(access(&cache, 3, &observer) && access(&cache, 3, &observer))   // freq(3) = 2
        _ = access(&cache, 6, &observer)            // small's tail 3 has freq 2 → main; then 4 → ghost
        #expect(observer.take() == [4])
        #expect(listKeys(cache.lists.small, cache.store) == [6, 5])
        #expect(listKeys(cache.lists.main, cache.store) == [3, 1])
        _ = access(&cache, 7, &observer)            // 5 → ghost [5 4 2]
        _ = access(&cache, 8, &observer)            // 6 → ghost [6 5 4 2] → over 3: 2 is forgotten
        #expect(observer.take() == [5, 6])
        #expect(listKeys(cache.lists.ghost, cache.store) == [6, 5, 4])
        _ = access(&cache, 2, &observer)            // 2 was forgotten: an ordinary miss into small; 7 → ghost
        #expect(observer.take() == [7])
        #expect(listKeys(cache.lists.small, cache.store) == [2, 8])
        #expect(listKeys(cache.lists.ghost, cache.store) == [7, 6, 5])
        #expect(cache.count == 4 && cache.totalCost == 4)
    }

    // Capacity 4, small-ratio 0.5, threshold 1: small 2, main 2, ghost 3.
    @Test("S2: main is a 2-bit CLOCK: freq >= 1 goes back to the head with min(freq, 3) - 1")
    func mainClock() throws {
        var cache = try Cache.make(capacity: 4, options: ["small-ratio": "0.5", "move-to-main-threshold": "1"])
        var observer = EvictionRecorder<Int, Void>()
        for key in 1...4 { _ = access(&cache, key, &observer) }   // small [4 3 2 1]
        #expect(access(&cache, 1, &observer) && access(&cache, 2, &observer))
        _ = access(&cache, 5, &observer)            // 1, 2 (freq 1) → main [2 1]; 3 → ghost
        #expect(observer.take() == [3])
        #expect(listKeys(cache.lists.main, cache.store) == [2, 1])
        #expect(access(&cache, 1, &observer))       // freq(1) = 1 in main
        _ = access(&cache, 6, &observer)            // main at its share (2): small's 4 → ghost
        _ = access(&cache, 7, &observer)            // 5 → ghost
        #expect(observer.take() == [4, 5])
        #expect(access(&cache, 6, &observer))       // freq(6) = 1
        _ = access(&cache, 8, &observer)            // 6 → main [6 2 1] (over its share), 7 → ghost
        #expect(observer.take() == [7])
        #expect(listKeys(cache.lists.main, cache.store) == [6, 2, 1])
        _ = access(&cache, 9, &observer)            // main over share: 1 (freq 1) → head with 0; 2 (freq 0) goes
        #expect(observer.take() == [2])
        #expect(listKeys(cache.lists.main, cache.store) == [1, 6])
        #expect(cache.store.aux(cache.store.find(1)) >> 2 == 0)
        _ = access(&cache, 10, &observer)           // main back at its share: small's 8 → ghost
        #expect(observer.take() == [8])
    }

    @Test("S5: warm-up=true (libCacheSim Dec 2024): before the first eviction a full small queue sends new objects to main")
    func warmUp() throws {
        var cache = try Cache.make(capacity: 4, options: ["small-ratio": "0.5", "warm-up": "true"])
        var observer = EvictionRecorder<Int, Void>()
        for key in 1...4 { _ = access(&cache, key, &observer) }   // small holds 2; then 3 and 4 go to main
        #expect(listKeys(cache.lists.small, cache.store) == [2, 1] && listKeys(cache.lists.main, cache.store) == [4, 3])
        _ = access(&cache, 5, &observer)            // main at its share, small's 1 → ghost; evictions have begun
        #expect(observer.take() == [1])
        _ = access(&cache, 6, &observer)            // small [5 2] is full again, but 6 now goes to small: 2 → ghost
        #expect(observer.take() == [2])
        #expect(listKeys(cache.lists.small, cache.store) == [6, 5] && listKeys(cache.lists.main, cache.store) == [4, 3])
    }

    @Test("S3: below 20 objects the small queue holds at most one object, so nothing is ever cached")
    func tinyCachesCacheNothing() throws {
        var cache = try Cache.make(capacity: 19)
        var observer = EvictionRecorder<Int, Void>()
        for key in [1, 1, 2, 2, 1] { #expect(!access(&cache, key, &observer)) }
        #expect(cache.count == 0)
        var bigger = try Cache.make(capacity: 20)
        #expect(!access(&bigger, 1, &observer) && access(&bigger, 1, &observer))
    }

    @Test("S4: cost equal to the small queue evicts, then is not inserted; larger is refused before evicting")
    func smallQueueQuirk() throws {
        var cache = try Cache.make(capacity: 100)              // small 10
        var observer = EvictionRecorder<Int, Void>()
        for key in 1...20 { _ = access(&cache, key, cost: 5, &observer) }
        #expect(cache.totalCost == 100 && observer.evicted.isEmpty)
        _ = access(&cache, 99, cost: 11, &observer)           // > small: refused, nothing evicted
        #expect(observer.take().isEmpty && !cache.contains(99))
        _ = access(&cache, 99, cost: 10, &observer)           // == small: 1 and 2 leave to make room...
        #expect(observer.take() == [1, 2])
        #expect(!cache.contains(99) && cache.count == 18)      // ...and 99 is still not inserted
        _ = access(&cache, 1, cost: 11, &observer)            // ghost hit, then refused: the ghost entry is spent
        #expect(!cache.contains(1) && listKeys(cache.lists.ghost, cache.store) == [2])
        _ = access(&cache, 98, cost: 101, &observer)          // larger than the cache: untouched
        #expect(cache.count == 18 && observer.evicted.isEmpty)
    }

    @Test("insert of a resident key with its cost is a use; with another cost it is re-admitted")
    func insertSemantics() throws {
        var cache = try S3FIFOv0Cache<Int, String>.make(capacity: 100)
        var observer = EvictionRecorder<Int, String>()
        cache.insert("a", forKey: 1, cost: 5, observer: &observer)
        cache.insert("b", forKey: 1, cost: 5, observer: &observer)
        #expect(cache.value(forKey: 1) == "b")
        #expect(cache.store.aux(cache.store.find(1)) >> 2 == 2)   // the insert and the lookup counted
        cache.insert("c", forKey: 1, cost: 7, observer: &observer)
        #expect(cache.totalCost == 7 && cache.store.aux(cache.store.find(1)) >> 2 == 0)
        #expect(cache.removeValue(forKey: 1) == "c" && cache.count == 0 && observer.evicted.isEmpty)
    }

    @Test("rejects bad options and a missing capacity")
    func configuration() {
        #expect(throws: PolicyConfigurationError.self) { try Cache.make(capacity: 10, options: ["small-ratio": "1.5"]) }
        #expect(throws: PolicyConfigurationError.self) { try Cache.make(capacity: 10, options: ["move-to-main-threshold": "x"]) }
        #expect(throws: PolicyConfigurationError.self) { try Cache.make() }
        #expect(Cache.descriptor.parameters.map(\.name) == ["small-ratio", "ghost-ratio", "move-to-main-threshold", "warm-up"])
    }

    @Test("matches the array model of libCacheSim's S3FIFO.c on random sequences", arguments: [1, 2, 3, 4, 5, 6, 7, 8] as [UInt64])
    func differential(seed: UInt64) throws {
        var rng = SeededRandom(seed: seed &* 7919)
        let capacity = Int.random(in: 4...120, using: &rng)
        let smallRatio = [0.1, 0.25, 0.5].randomElement(using: &rng)!
        let ghostRatio = [0.0, 0.5, 0.9, 2.0].randomElement(using: &rng)!
        let threshold = Int.random(in: 0...4, using: &rng)
        let warmUp = Bool.random(using: &rng)
        let bytes = seed % 2 == 0
        var cache = try S3FIFOCache<Int, Int>.make(capacity: capacity, options: [
            "small-ratio": "\(smallRatio)", "ghost-ratio": "\(ghostRatio)", "move-to-main-threshold": "\(threshold)",
            "warm-up": "\(warmUp)"])
        var model = S3FIFOModel(capacity: capacity, smallRatio: smallRatio, ghostRatio: ghostRatio, threshold: threshold,
                                warmUp: warmUp)
        let operations = Scenario.uniform(keySpace: Int.random(in: 8...3 * capacity, using: &rng), maxCost: bytes ? max(1, capacity / 6) : 1, seed: seed)
        expectSameDecisions(&cache, &model, operations, label: "s3fifo c=\(capacity) seed \(seed)")
    }
}
