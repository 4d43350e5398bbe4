import EvictionPolicies

/// How the library models' random sequences are drawn: every kind of call, background events
/// and steps of trace time.
public struct OperationMix {
    public var keys: Int
    public var maxCost: Int
    public var events = true
    /// Turns half of the background events into terminate events (an extra draw only when set,
    /// so sequences of mixes without it are unchanged).
    public var terminate = false
    /// Largest step of trace time between operations; 0 keeps time still.
    public var maxTimeStep = 3.0
    /// Probability of a long jump in time (over several timer ticks).
    public var jumpProbability = 0.02

    public init(keys: Int, maxCost: Int, events: Bool = true, terminate: Bool = false,
                maxTimeStep: Double = 3.0, jumpProbability: Double = 0.02) {
        self.keys = keys
        self.maxCost = maxCost
        self.events = events
        self.terminate = terminate
        self.maxTimeStep = maxTimeStep
        self.jumpProbability = jumpProbability
    }

    public func make(count: Int, using rng: inout SeededRandom) -> [TestOp] {
        var ops: [TestOp] = []
        var time = 0.0
        ops.append(.advance(0))
        for _ in 0..<count {
            let roll = Int.random(in: 0..<100, using: &rng)
            let key = Int.random(in: 0..<keys, using: &rng)
            let cost = Int.random(in: 0...maxCost, using: &rng)
            switch roll {
            case 0..<37: ops.append(.get(key, cost: cost))
            case 37..<45: ops.append(.lookup(key))
            case 45..<70: ops.append(.set(key, cost: cost))
            case 70..<78: ops.append(.delete(key))
            case 78..<81 where events: ops.append(.event(.memoryWarning))
            case 81..<83 where events:
                let terminates = terminate && Bool.random(using: &rng)
                ops.append(.event(terminates ? .terminate : .background))
            default:
                if maxTimeStep > 0 {
                    let jump = Double.random(in: 0..<1, using: &rng) < jumpProbability
                    time += jump ? Double.random(in: 10...60, using: &rng)
                                 : (Double.random(in: 0...maxTimeStep, using: &rng) * 4).rounded() / 4
                    ops.append(.advance(time))
                } else {
                    ops.append(.get(key, cost: cost))
                }
            }
        }
        return ops
    }
}

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
