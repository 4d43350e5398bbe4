import EvictionPolicies
import Testing

/// The differential harness every policy test uses: drives `policy` and `model` with the same
/// operations and compares, after each one, the hit or miss, the value a lookup or remove returns,
/// the trim passes (kinds and evicted keys in order), the count, the total cost, the observer
/// contract and, for models that know it, which keys are resident.
///
/// Every write stores a value no other write stores (the operation's index), so a lookup, remove or
/// eviction that hands back another key's value is caught even when the hit/miss agrees, and, for
/// models that say ``ReferenceModel/keepsLatestValue``, one that hands back a replaced value.
/// Stops at the first difference and records it with the operations that led there.
///
/// - Parameters:
///   - limits: when given, the policy must stay within them after every operation.
///   - nextAccesses: next-request times fed to both sides before each operation (offline policies).
///   - orderedEvictions: `false` compares each pass's keys as a set.
public func expectSameDecisions<P: EvictionPolicy, M: ReferenceModel>(
    _ policy: inout P, _ model: inout M, _ ops: [TestOp], label: String,
    limits: (capacity: Int, countLimit: Int?)? = nil, nextAccesses: [Int64]? = nil, orderedEvictions: Bool = true,
    sourceLocation: SourceLocation = #_sourceLocation
) where P.Key == Int, P.Value == Int {
    var recorder = EvictionRecorder<Int, Int>()
    var stored: [Int: Int] = [:]     // the value last written under each key
    var keyOfValue: [Int: Int] = [:] // the key each value was written under
    func wrongValue(_ value: Int, _ key: Int) -> String? {
        if M.keepsLatestValue ? value == stored[key] : keyOfValue[value] == key { return nil }
        return "value \(value) for key \(key), last stored \(stored[key].map(String.init) ?? "none")"
    }
    for (index, op) in ops.enumerated() {
        if let nextAccesses {
            policy.noteNextAccess(nextAccesses[index])
            model.noteNextAccess(nextAccesses[index])
        }
        var expected: [Pass] = []
        var mismatch: String?
        switch op {
        case .get(let key, let cost):
            let hit = policy.access(key, cost: cost, orInsert: index, observer: &recorder)
            let (modelHit, passes) = model.get(key, cost: cost)
            if !hit { (stored[key], keyOfValue[index]) = (index, key) }
            expected = passes
            if hit != modelHit { mismatch = "hit \(hit), reference \(modelHit)" }
        case .lookup(let key):
            let resident = policy.contains(key)
            let containsAnswer = model.containsAnswer(key)
            let value = policy.lookup(key, observer: &recorder)
            let (modelHit, passes) = model.lookup(key)
            expected = passes
            if (value != nil) != modelHit { mismatch = "lookup hit \(value != nil), reference \(modelHit)" }
            if let value, let wrong = wrongValue(value, key) { mismatch = "lookup returned \(wrong)" }
            // contains() sees the state before any queued work runs, which lookup may then do.
            if passes.isEmpty && resident != (containsAnswer ?? modelHit) {
                mismatch = "contains \(resident), reference \(containsAnswer ?? modelHit)"
            }
        case .set(let key, let cost):
            policy.insert(index, forKey: key, cost: cost, observer: &recorder)
            (stored[key], keyOfValue[index]) = (index, key)
            expected = model.set(key, cost: cost)
        case .delete(let key):
            let removed = policy.remove(key, observer: &recorder)
            let (modelRemoved, passes) = model.delete(key)
            expected = passes
            if (removed != nil) != modelRemoved { mismatch = "removed \(removed != nil), reference \(modelRemoved)" }
            if let removed, let wrong = wrongValue(removed, key) { mismatch = "remove returned \(wrong)" }
        case .event(let event):
            policy.handle(event, observer: &recorder)
            expected = model.event(event)
        case .advance(let time):
            policy.advance(to: time, observer: &recorder)
            expected = model.advance(to: time)
        }
        let recorded = recorder.takePasses()
        for pass in recorded {
            for (key, value) in zip(pass.keys, pass.values) {
                if let wrong = wrongValue(value, key) { mismatch = mismatch ?? "evicted \(wrong)" }
            }
        }
        var actual = recorded.map { Pass(kind: $0.kind, keys: $0.keys) }
        // Which order a "remove everything" empties the cache in is not part of any library's contract.
        var unordered = !orderedEvictions
        if case .event = op { unordered = true }
        if unordered {
            actual = actual.map { Pass(kind: $0.kind, keys: $0.keys.sorted()) }
            expected = expected.map { Pass(kind: $0.kind, keys: $0.keys.sorted()) }
        }
        if mismatch == nil, actual != expected { mismatch = "passes \(actual), reference \(expected)" }
        if mismatch == nil, policy.count != model.count || policy.totalCost != model.totalCost {
            mismatch = "count \(policy.count) cost \(policy.totalCost), reference count \(model.count) cost \(model.totalCost)"
        }
        if mismatch == nil, !recorder.contractViolations.isEmpty {
            mismatch = "observer contract: \(recorder.contractViolations)"
        }
        if mismatch == nil, let key = op.key, let resident = model.residency(of: key), policy.contains(key) != resident {
            mismatch = "contains(\(key)) \(!resident), reference \(resident)"
        }
        if mismatch == nil, let limits {
            if policy.totalCost > limits.capacity { mismatch = "total cost \(policy.totalCost) over capacity \(limits.capacity)" }
            if let countLimit = limits.countLimit, policy.count > countLimit {
                mismatch = "count \(policy.count) over count limit \(countLimit)"
            }
        }
        if let mismatch {
            let context = ops[max(0, index - 8)...index].map(\.description).joined(separator: "; ")
            Issue.record("\(label): operation \(index) (\(op)): \(mismatch). Last operations: \(context)",
                         sourceLocation: sourceLocation)
            return
        }
    }
    for key in stored.keys.sorted() {
        if let resident = model.residency(of: key), policy.contains(key) != resident {
            Issue.record("\(label): at the end contains(\(key)) is \(!resident), reference \(resident)",
                         sourceLocation: sourceLocation)
            return
        }
    }
    #expect(recorder.openPass == nil, "\(label): a trim pass was left open", sourceLocation: sourceLocation)
}

/// Runs `scenario` on a fresh `P` and `model` with ``expectSameDecisions(_:_:_:label:limits:nextAccesses:orderedEvictions:sourceLocation:)``,
/// holding the policy to the scenario's limits after every operation.
public func expectSameDecisions<P: EvictionPolicy, M: ReferenceModel>(
    _ type: P.Type, _ model: M, _ scenario: Scenario, options: [String: String] = [:],
    nextAccesses: [Int64]? = nil, label: String, sourceLocation: SourceLocation = #_sourceLocation
) throws where P.Key == Int, P.Value == Int {
    var policy = try P.make(capacity: scenario.capacity, countLimit: scenario.countLimit, options: options)
    var model = model
    expectSameDecisions(&policy, &model, scenario.operations, label: "\(label) [\(scenario)]",
                        limits: (scenario.capacity, scenario.countLimit), nextAccesses: nextAccesses,
                        sourceLocation: sourceLocation)
}
