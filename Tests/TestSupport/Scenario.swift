/// A research scenario: limits and a sequence of gets, sets, lookups and removes, no events and no time.
public struct Scenario: CustomStringConvertible {
    public var capacity: Int
    public var countLimit: Int?
    public var operations: [TestOp]

    public var description: String {
        "capacity \(capacity), countLimit \(countLimit.map(String.init) ?? "none"), \(operations.count) ops"
    }

    /// A scenario drawn from `seed`: key space, cost range and limits vary with the seed; keys are
    /// skewed so some are hot, and one cost in 40 exceeds the capacity (never inserted).
    public static func drawn(seed: UInt64, length: Int = 600, countLimits: Bool = true) -> Scenario {
        var random = SeededRandom(seed: seed)
        let keys = Int.random(in: 3...40, using: &random)
        let maxCost = Bool.random(using: &random) ? 1 : Int.random(in: 2...12, using: &random)
        let capacity = Int.random(in: 1...(maxCost * 12), using: &random)
        let countLimit: Int? = countLimits && Int.random(in: 0..<3, using: &random) == 0
            ? Int.random(in: 1...8, using: &random) : nil
        var operations: [TestOp] = []
        for _ in 0..<length {
            let key = min(Int.random(in: 0..<keys, using: &random), Int.random(in: 0..<keys, using: &random))
            let cost = Int.random(in: 0..<40, using: &random) == 0 ? capacity + 1 : Int.random(in: 1...maxCost, using: &random)
            switch Int.random(in: 0..<100, using: &random) {
            case 0..<60: operations.append(.get(key, cost: cost))
            case 60..<75: operations.append(.set(key, cost: cost))
            case 75..<90: operations.append(.lookup(key))
            default: operations.append(.delete(key))
            }
        }
        return Scenario(capacity: capacity, countLimit: countLimit, operations: operations)
    }

    /// `steps` uniform draws over `keySpace` keys with costs in `1...maxCost`: with
    /// `mixedOperations`, three quarters gets and the rest sets, lookups and removes; otherwise gets only.
    public static func uniform(steps: Int = 4_000, keySpace: Int, maxCost: Int = 1, mixedOperations: Bool = true,
                               seed: UInt64) -> [TestOp] {
        var rng = SeededRandom(seed: seed)
        return (0..<steps).map { _ in
            let key = Int.random(in: 0..<keySpace, using: &rng)
            let cost = Int.random(in: 1...max(1, maxCost), using: &rng)
            switch mixedOperations ? Int.random(in: 0..<20, using: &rng) : 0 {
            case 0..<15: return .get(key, cost: cost)
            case 15..<17: return .set(key, cost: cost)
            case 17..<19: return .lookup(key)
            default: return .delete(key)
            }
        }
    }
}
