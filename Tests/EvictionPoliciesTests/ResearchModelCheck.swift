@testable import EvictionPolicies
import Testing

/// A slow, obviously-correct model of a research policy over `Int` keys: plain arrays and
/// dictionaries, O(n) per operation, written from the paper or libCacheSim's code.
protocol ResearchModel {
    /// A cache-aside get: whether the key was resident, and the keys evicted, in order.
    mutating func access(_ key: Int, cost: Int) -> (hit: Bool, evicted: [Int])
    /// An explicit remove (not an eviction); returns what it evicted as a side effect, if anything.
    mutating func remove(_ key: Int) -> [Int]
    func contains(_ key: Int) -> Bool
    /// The remembered cost of a resident key.
    func cost(of key: Int) -> Int?
    var count: Int { get }
    var totalCost: Int { get }
}

extension ResearchModel {
    /// `insert`: a resident key with the same cost is a hit; with another cost it is removed
    /// and admitted again; any other key is admitted.
    mutating func insert(_ key: Int, cost newCost: Int) -> [Int] {
        var evicted: [Int] = []
        if contains(key) {
            if cost(of: key) == newCost { return access(key, cost: newCost).evicted }
            evicted = remove(key)
        }
        return evicted + access(key, cost: newCost).evicted
    }

    /// `lookup`: a hit if resident, otherwise nothing happens.
    mutating func lookup(_ key: Int) -> (hit: Bool, evicted: [Int]) {
        guard contains(key), let cost = cost(of: key) else { return (false, []) }
        return access(key, cost: cost)
    }
}

/// Drives a policy and its model with the same random operations and compares every answer.
enum ResearchModelCheck {
    struct Workload {
        var steps = 4_000
        var keySpace = 40
        /// Costs are drawn from 1...maxCost.
        var maxCost = 1
        /// Whether to mix in insert, lookup and remove calls besides cache-aside accesses.
        var mixedOperations = true
        /// Whether eviction order matters (false compares the evicted keys as sets).
        var ordered = true
    }

    static func run<P: EvictionPolicy, M: ResearchModel>(
        _ policy: inout P, _ model: inout M, workload: Workload, seed: UInt64, label: String
    ) where P.Key == Int, P.Value == Void {
        var rng = SeededRandom(seed: seed)
        var observer = RecordingObserver<Int, Void>()
        for step in 0..<workload.steps {
            let key = Int.random(in: 0..<workload.keySpace, using: &rng)
            let cost = Int.random(in: 1...max(1, workload.maxCost), using: &rng)
            let op = workload.mixedOperations ? Int.random(in: 0..<20, using: &rng) : 0
            let context = "\(label) seed \(seed) step \(step) key \(key) cost \(cost)"
            var expected: [Int]
            switch op {
            case 0..<15:
                let hit = policy.access(key, cost: cost, orInsert: (), observer: &observer)
                let answer = model.access(key, cost: cost)
                #expect(hit == answer.hit, "access: \(context)")
                expected = answer.evicted
            case 15..<17:
                policy.insert((), forKey: key, cost: cost, observer: &observer)
                expected = model.insert(key, cost: cost)
            case 17..<19:
                let found = policy.lookup(key, observer: &observer) != nil
                let answer = model.lookup(key)
                #expect(found == answer.hit, "lookup: \(context)")
                expected = answer.evicted
            default:
                policy.remove(key, observer: &observer)
                expected = model.remove(key)
            }
            var evicted = observer.take()
            if !workload.ordered {
                evicted.sort()
                expected.sort()
            }
            #expect(evicted == expected, "evictions: \(context)")
            #expect(policy.contains(key) == model.contains(key), "contains: \(context)")
            #expect(policy.count == model.count, "count: \(context)")
            #expect(policy.totalCost == model.totalCost, "totalCost: \(context)")
            // One divergence makes every later step differ: stop at the first.
            if evicted != expected || policy.count != model.count || policy.totalCost != model.totalCost { return }
        }
        #expect(observer.openPass == nil, "\(label): a trim pass was left open")
    }
}

/// The keys of `list`, newest (head) first.
func listKeys<Value>(_ list: SlotList, _ store: SlotArena<Int, Value>) -> [Int] {
    var keys: [Int] = []
    var slot = list.head
    while slot >= 0 {
        keys.append(store.key(slot))
        slot = store.next(slot)
    }
    return keys
}

/// Sum of `cost` over `keys`.
func sumCost(_ keys: [Int], _ cost: [Int: Int]) -> Int {
    keys.reduce(0) { $0 + (cost[$1] ?? 0) }
}
