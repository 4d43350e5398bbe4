import EvictionPolicies
import Testing

/// One trim pass as a test sees it: who waited for it and the keys it evicted, in order.
struct Pass: Equatable, CustomStringConvertible {
    var kind: TrimKind
    var keys: [Int]
    var description: String { "\(kind == .caller ? "caller" : "deferred")\(keys)" }
}

/// Records passes with their keys and checks the observer contract on the way: passes never
/// nest, every eviction is inside a pass, every pass evicts something, and values belong to keys.
struct PassRecorder: EvictionObserver {
    typealias Key = Int
    typealias Value = Int
    var passes: [Pass] = []
    var open: Pass?
    var contractViolations: [String] = []

    mutating func trimWillBegin(_ kind: TrimKind) {
        if open != nil { contractViolations.append("nested pass") }
        open = Pass(kind: kind, keys: [])
    }

    mutating func didEvict(_ key: Int, value: Int, cost: Int) {
        guard var pass = open else { contractViolations.append("eviction of \(key) outside a pass"); return }
        if value != Self.value(for: key) { contractViolations.append("key \(key) evicted with value \(value)") }
        pass.keys.append(key)
        open = pass
    }

    mutating func trimDidEnd(_ kind: TrimKind) {
        guard let pass = open, pass.kind == kind else { contractViolations.append("unmatched trimDidEnd"); return }
        if pass.keys.isEmpty { contractViolations.append("a \(kind) pass evicted nothing") }
        passes.append(pass)
        open = nil
    }

    /// Returns and clears the passes recorded since the last call.
    mutating func take() -> [Pass] {
        defer { passes.removeAll() }
        return passes
    }

    /// The value tests store under `key`, so a lookup can be checked against its key.
    static func value(for key: Int) -> Int { key &* 10 + 7 }
}

/// An operation of a random sequence.
enum TestOp: CustomStringConvertible {
    case get(Int, cost: Int)
    case lookup(Int)
    case set(Int, cost: Int)
    case delete(Int)
    case event(CacheEvent)
    case advance(Double)

    var description: String {
        switch self {
        case .get(let k, let c): "get \(k) (\(c))"
        case .lookup(let k): "lookup \(k)"
        case .set(let k, let c): "set \(k) (\(c))"
        case .delete(let k): "delete \(k)"
        case .event(let e): e.rawValue
        case .advance(let t): "advance to \(t)"
        }
    }
}

/// A plain, obviously-correct model of a library written from the spec: arrays and dictionaries,
/// O(n) per operation. Every call returns the passes it caused.
protocol ReferenceCache {
    var count: Int { get }
    var totalCost: Int { get }
    /// Cache-aside get: a hit, or an insert of `cost`.
    mutating func get(_ key: Int, cost: Int) -> (hit: Bool, passes: [Pass])
    /// A read that inserts nothing on a miss.
    mutating func lookup(_ key: Int) -> (hit: Bool, passes: [Pass])
    mutating func set(_ key: Int, cost: Int) -> [Pass]
    mutating func delete(_ key: Int) -> (removed: Bool, passes: [Pass])
    mutating func event(_ event: CacheEvent) -> [Pass]
    mutating func advance(to time: Double) -> [Pass]
    /// What the policy's `contains` must answer, when that differs from "a lookup would hit"
    /// (PINMemoryCache's `containsObjectForKey:` ignores its TTL); `nil` for the usual answer.
    func containsAnswer(_ key: Int) -> Bool?
}

extension ReferenceCache {
    mutating func advance(to time: Double) -> [Pass] { [] }
    func containsAnswer(_ key: Int) -> Bool? { nil }
}

/// How random sequences are drawn.
struct OperationMix {
    var keys: Int
    var maxCost: Int
    var events = true
    /// Turns half of the background events into terminate events (an extra draw only when set,
    /// so sequences of mixes without it are unchanged).
    var terminate = false
    /// Largest step of trace time between operations; 0 keeps time still.
    var maxTimeStep = 3.0
    /// Probability of a long jump in time (over several timer ticks).
    var jumpProbability = 0.02

    func make(count: Int, using rng: inout SeededRandom) -> [TestOp] {
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

/// Drives `policy` and `reference` with the same operations and compares, after each one, the
/// hit or miss, the passes (kinds and evicted keys in order), the count and the total cost.
/// Stops at the first difference and records it with the context needed to replay it.
func expectSameDecisions<P: EvictionPolicy, R: ReferenceCache>(
    _ policy: inout P, _ reference: inout R, _ ops: [TestOp], label: String,
    sourceLocation: SourceLocation = #_sourceLocation
) where P.Key == Int, P.Value == Int {
    var recorder = PassRecorder()
    for (index, op) in ops.enumerated() {
        var expected: [Pass] = []
        var mismatch: String?
        switch op {
        case .get(let key, let cost):
            let hit = policy.access(key, cost: cost, orInsert: PassRecorder.value(for: key), observer: &recorder)
            let (referenceHit, passes) = reference.get(key, cost: cost)
            expected = passes
            if hit != referenceHit { mismatch = "hit \(hit), reference \(referenceHit)" }
        case .lookup(let key):
            let resident = policy.contains(key)
            let containsAnswer = reference.containsAnswer(key)
            let value = policy.lookup(key, observer: &recorder)
            let (referenceHit, passes) = reference.lookup(key)
            expected = passes
            if (value != nil) != referenceHit { mismatch = "lookup hit \(value != nil), reference \(referenceHit)" }
            if let value, value != PassRecorder.value(for: key) { mismatch = "lookup returned \(value)" }
            // contains() sees the state before any queued work runs, which lookup may then do.
            if passes.isEmpty && resident != (containsAnswer ?? referenceHit) {
                mismatch = "contains \(resident), reference \(containsAnswer ?? referenceHit)"
            }
        case .set(let key, let cost):
            policy.insert(PassRecorder.value(for: key), forKey: key, cost: cost, observer: &recorder)
            expected = reference.set(key, cost: cost)
        case .delete(let key):
            let removed = policy.remove(key, observer: &recorder)
            let (referenceRemoved, passes) = reference.delete(key)
            expected = passes
            if (removed != nil) != referenceRemoved { mismatch = "removed \(removed != nil), reference \(referenceRemoved)" }
            if let removed, removed != PassRecorder.value(for: key) { mismatch = "remove returned \(removed)" }
        case .event(let event):
            policy.handle(event, observer: &recorder)
            expected = reference.event(event)
        case .advance(let time):
            policy.advance(to: time, observer: &recorder)
            expected = reference.advance(to: time)
        }
        var actual = recorder.take()
        if case .event = op {
            // Which order a "remove everything" empties the cache in is not part of any library's contract.
            actual = actual.map { Pass(kind: $0.kind, keys: $0.keys.sorted()) }
            expected = expected.map { Pass(kind: $0.kind, keys: $0.keys.sorted()) }
        }
        if mismatch == nil, actual != expected { mismatch = "passes \(actual), reference \(expected)" }
        if mismatch == nil, policy.count != reference.count || policy.totalCost != reference.totalCost {
            mismatch = "count \(policy.count) cost \(policy.totalCost), reference count \(reference.count) cost \(reference.totalCost)"
        }
        if mismatch == nil, !recorder.contractViolations.isEmpty {
            mismatch = "observer contract: \(recorder.contractViolations)"
        }
        if let mismatch {
            let context = ops[max(0, index - 8)...index].map(\.description).joined(separator: "; ")
            Issue.record("\(label): operation \(index) (\(op)): \(mismatch). Last operations: \(context)",
                         sourceLocation: sourceLocation)
            return
        }
    }
}
