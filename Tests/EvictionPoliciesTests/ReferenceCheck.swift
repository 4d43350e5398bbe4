import EvictionPolicies
import Testing

/// Differential testing of a policy against a tiny reference model written from the policy's
/// rule with plain arrays (O(n) per operation), on random operation sequences.
enum ReferenceCheck {
    /// The operations a sequence is made of.
    enum Operation: Equatable, CustomStringConvertible {
        /// Cache-aside get: `access(_:cost:orInsert:)`.
        case access(Int, cost: Int)
        /// `insert(_:forKey:cost:)` (replaces a resident key).
        case insert(Int, cost: Int)
        /// `lookup(_:)`.
        case lookup(Int)
        /// `remove(_:)`.
        case remove(Int)

        var key: Int {
            switch self {
            case .access(let k, _), .insert(let k, _), .lookup(let k), .remove(let k): k
            }
        }

        var description: String {
            switch self {
            case .access(let k, let c): "access(\(k), cost \(c))"
            case .insert(let k, let c): "insert(\(k), cost \(c))"
            case .lookup(let k): "lookup(\(k))"
            case .remove(let k): "remove(\(k))"
            }
        }
    }

    /// One resident entry of a reference model.
    struct Entry {
        var key: Int
        var value: Int
        var cost: Int
        /// Policy state: a counter, a visited bit, a frequency, a next-request time.
        var mark: Int64 = 0
        /// Arrival order, for tie-breaks.
        var stamp: Int = 0
    }

    /// What a reference model must answer; the harness drives a model and a policy side by side.
    protocol Model {
        init(capacity: Int, countLimit: Int?, options: [String: String])
        var entries: [Entry] { get }
        /// Returns whether `key` was resident, and the evicted keys in order.
        mutating func access(_ key: Int, cost: Int, value: Int) -> (hit: Bool, evicted: [Int])
        /// Returns the evicted keys in order.
        mutating func insert(_ key: Int, cost: Int, value: Int) -> [Int]
        /// Returns the value if resident.
        mutating func lookup(_ key: Int) -> Int?
        /// Returns the value if resident.
        mutating func remove(_ key: Int) -> Int?
        /// The next-request time for the following operation (offline policies only).
        mutating func noteNextAccess(_ index: Int64)
    }

    /// A random operation sequence and the limits to run it with.
    struct Scenario: CustomStringConvertible {
        var capacity: Int
        var countLimit: Int?
        var operations: [Operation]
        var description: String { "capacity \(capacity), countLimit \(countLimit.map(String.init) ?? "none"), \(operations.count) ops" }
    }

    /// A scenario drawn from `seed`: key space, cost range and limits vary with the seed.
    static func scenario(seed: UInt64, length: Int = 600, countLimits: Bool = true) -> Scenario {
        var random = SeededRandom(seed: seed)
        let keys = Int.random(in: 3...40, using: &random)
        let maxCost = Bool.random(using: &random) ? 1 : Int.random(in: 2...12, using: &random)
        let capacity = Int.random(in: 1...(maxCost * 12), using: &random)
        let countLimit: Int? = countLimits && Int.random(in: 0..<3, using: &random) == 0
            ? Int.random(in: 1...8, using: &random) : nil
        var operations: [Operation] = []
        for _ in 0..<length {
            // Skewed keys so that some are hot: min of two draws.
            let key = min(Int.random(in: 0..<keys, using: &random), Int.random(in: 0..<keys, using: &random))
            // Occasionally larger than the whole capacity, to cover "never inserted".
            let cost = Int.random(in: 0..<40, using: &random) == 0 ? capacity + 1 : Int.random(in: 1...maxCost, using: &random)
            switch Int.random(in: 0..<100, using: &random) {
            case 0..<60: operations.append(.access(key, cost: cost))
            case 60..<75: operations.append(.insert(key, cost: cost))
            case 75..<90: operations.append(.lookup(key))
            default: operations.append(.remove(key))
            }
        }
        return Scenario(capacity: capacity, countLimit: countLimit, operations: operations)
    }

    /// Next-request times for `operations` with no ties: the 1-based index of the next access,
    /// insert or lookup of the same key, or for none a distinct time past the end.
    static func distinctNextAccesses(_ operations: [Operation]) -> [Int64] {
        var next = [Int64](repeating: 0, count: operations.count)
        var following: [Int: Int64] = [:]
        for i in operations.indices.reversed() {
            let key = operations[i].key
            next[i] = following[key] ?? Int64(operations.count + 1 + i)
            if case .remove = operations[i] { continue }
            following[key] = Int64(i + 1)
        }
        return next
    }

    /// Runs `scenario` on a fresh `P` and a fresh `M`, comparing every answer, eviction, count,
    /// total cost and trim pass. Fails the test at the first difference, naming the operation.
    static func compare<P: EvictionPolicy, M: Model>(_ policy: P.Type, _ model: M.Type, _ scenario: Scenario,
                                                     options: [String: String] = [:], nextAccesses: [Int64]? = nil,
                                                     sourceLocation: SourceLocation = #_sourceLocation) throws
    where P.Key == Int, P.Value == Int {
        var cache = try P.make(capacity: scenario.capacity, countLimit: scenario.countLimit, options: options)
        var reference = M(capacity: scenario.capacity, countLimit: scenario.countLimit, options: options)
        var observer = RecordingObserver<Int, Int>()
        for (index, operation) in scenario.operations.enumerated() {
            if let nextAccesses {
                cache.noteNextAccess(nextAccesses[index])
                reference.noteNextAccess(nextAccesses[index])
            }
            let passesBefore = observer.passes.count
            let context = "op \(index) \(operation) [\(scenario)]"
            var expectedEvictions: [Int] = []
            switch operation {
            case .access(let key, let cost):
                let hit = cache.access(key, cost: cost, orInsert: index, observer: &observer)
                let expected = reference.access(key, cost: cost, value: index)
                expectedEvictions = expected.evicted
                #expect(hit == expected.hit, "hit/miss differs at \(context)", sourceLocation: sourceLocation)
            case .insert(let key, let cost):
                cache.insert(index, forKey: key, cost: cost, observer: &observer)
                expectedEvictions = reference.insert(key, cost: cost, value: index)
            case .lookup(let key):
                let value = cache.lookup(key, observer: &observer)
                #expect(value == reference.lookup(key), "lookup differs at \(context)", sourceLocation: sourceLocation)
            case .remove(let key):
                let value = cache.remove(key, observer: &observer)
                #expect(value == reference.remove(key), "remove differs at \(context)", sourceLocation: sourceLocation)
            }
            let evicted = observer.take()
            #expect(evicted == expectedEvictions, "evicted keys differ at \(context)", sourceLocation: sourceLocation)
            #expect(observer.passes.count - passesBefore == (evicted.isEmpty ? 0 : 1),
                    "a trim pass must be reported exactly when something is evicted, at \(context)",
                    sourceLocation: sourceLocation)
            #expect(cache.count == reference.entries.count, "count differs at \(context)", sourceLocation: sourceLocation)
            #expect(cache.totalCost == reference.entries.reduce(0) { $0 + $1.cost },
                    "totalCost differs at \(context)", sourceLocation: sourceLocation)
            #expect(cache.totalCost <= scenario.capacity, "over capacity at \(context)", sourceLocation: sourceLocation)
            if let limit = scenario.countLimit {
                #expect(cache.count <= limit, "over count limit at \(context)", sourceLocation: sourceLocation)
            }
            if evicted != expectedEvictions || cache.count != reference.entries.count { return }
        }
        for entry in reference.entries {
            #expect(cache.contains(entry.key), "\(entry.key) should be resident at the end", sourceLocation: sourceLocation)
        }
    }
}

extension ReferenceCheck.Model {
    mutating func noteNextAccess(_ index: Int64) {}
}
