import EvictionPolicies
import Testing

/// The one eviction recorder of the tests: it keeps every eviction and trim pass, in order, and
/// checks the observer contract on the way (passes never nest, every eviction is inside a pass,
/// every `trimDidEnd` matches its `trimWillBegin`, every pass evicts something).
///
/// A broken bracket is recorded as a test issue at once; a pass that evicted nothing is only
/// listed in ``contractViolations``, for the tests that hold a policy to it.
public struct EvictionRecorder<Key, Value>: EvictionObserver {
    /// One closed trim pass: its kind and what it evicted, in order.
    public struct PassRecord {
        public var kind: TrimKind
        public var keys: [Key] = []
        public var values: [Value] = []
        public var costs: [Int] = []
    }

    /// Keys evicted since the last ``take()``, in order.
    public var evicted: [Key] = []
    /// Their costs, index for index.
    public var evictedCosts: [Int] = []
    /// The kind of every pass closed since the recorder was made, in order (``take()`` keeps them).
    public var passes: [TrimKind] = []
    /// Passes closed since the last ``takePasses()``, with their evictions.
    public var closedPasses: [PassRecord] = []
    /// The pass in progress, if any.
    public var openPass: PassRecord?
    /// Every breach of the observer contract seen so far.
    public var contractViolations: [String] = []

    public init() {}

    public mutating func trimWillBegin(_ kind: TrimKind) {
        if openPass != nil { violation("a \(kind) pass began inside another pass", isIssue: true) }
        openPass = PassRecord(kind: kind)
    }

    public mutating func didEvict(_ key: Key, value: Value, cost: Int) {
        evicted.append(key)
        evictedCosts.append(cost)
        guard openPass != nil else { violation("eviction of \(key) outside a pass", isIssue: true); return }
        openPass?.keys.append(key)
        openPass?.values.append(value)
        openPass?.costs.append(cost)
    }

    public mutating func trimDidEnd(_ kind: TrimKind) {
        guard let pass = openPass, pass.kind == kind else {
            violation("trimDidEnd(\(kind)) does not match trimWillBegin", isIssue: true)
            return
        }
        if pass.keys.isEmpty { violation("a \(kind) pass evicted nothing", isIssue: false) }
        passes.append(kind)
        closedPasses.append(pass)
        openPass = nil
    }

    /// Returns and clears the keys evicted since the last call.
    public mutating func take() -> [Key] {
        defer { evicted.removeAll(); evictedCosts.removeAll() }
        return evicted
    }

    /// Returns and clears the passes closed since the last call.
    public mutating func takePasses() -> [PassRecord] {
        defer { closedPasses.removeAll() }
        return closedPasses
    }

    /// Forgets every eviction and pass recorded so far (not the contract violations), keeping the
    /// storage, for long runs that compare call by call.
    public mutating func clear() {
        evicted.removeAll(keepingCapacity: true)
        evictedCosts.removeAll(keepingCapacity: true)
        passes.removeAll(keepingCapacity: true)
        closedPasses.removeAll(keepingCapacity: true)
    }

    private mutating func violation(_ message: String, isIssue: Bool) {
        contractViolations.append(message)
        if isIssue { Issue.record("observer contract: \(message)") }
    }
}
