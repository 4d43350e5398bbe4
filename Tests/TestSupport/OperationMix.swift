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
