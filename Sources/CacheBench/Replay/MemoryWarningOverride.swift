import EvictionPolicies

/// What a replay does on a `memory-warning` row in place of the policy's own reaction alone: what
/// a ``Cache`` whose ``MemoryWarningResponse`` is `response` does, so that a session
/// ``RecordingCache`` recorded replays with the hits the app saw.
///
/// The policy first reacts as it always does (a library model as its library; a research policy
/// not at all, libCacheSim's convention), then the response applies, as in ``Cache/handle(_:)``:
/// - ``MemoryWarningResponse/removeAll``: every entry is evicted and the policy starts again,
///   empty (ghost lists and counters included), keeping only its clock: a library model's timer
///   keeps its beat (``EvictionPolicy/continueClock(of:)``);
/// - ``MemoryWarningResponse/trim(toFraction:)``: the fraction of the entries and of their cost
///   stays (rounded down; none left is a removal of all): a policy that names its victims evicts
///   them in its order (``EvictionPolicy/evictVictims(downToCount:cost:observer:)``); the others
///   lose the keys set longest ago first, which the replay tracks only when this applies;
/// - ``MemoryWarningResponse/ignore``: nothing more.
public struct MemoryWarningOverride: Sendable {
    /// The response applied after the policy's own reaction.
    public var response: MemoryWarningResponse
    /// The limits and options a policy that starts again is made with.
    @usableFromInline var limits = CacheLimits(capacity: nil, countLimit: nil)
    @usableFromInline var options = PolicyOptions()

    /// An override with `response`.
    public init(_ response: MemoryWarningResponse) { self.response = response }

    /// The same, for a policy made with `limits` and `options`.
    func forPolicy(limits: CacheLimits, options: PolicyOptions) -> MemoryWarningOverride {
        var copy = self
        copy.limits = limits
        copy.options = options
        return copy
    }

    /// Whether the replay must remember the order of sets for `Policy`: a trim of a policy that
    /// names no victims.
    func tracksSets<Policy: EvictionPolicy>(for _: Policy.Type) -> Bool {
        guard case .trim = response else { return false }
        return !(Policy.self is any SlotPolicy.Type)
    }

    /// `policy` answers a memory warning as a ``Cache`` with this response would.
    @usableFromInline
    func respond<Policy: EvictionPolicy>(_ policy: inout Policy, sets: inout _SetOrder, observer: inout _TimingObserver)
    where Policy.Key == UInt64, Policy.Value == Void {
        guard let kept = response.kept(fromCount: policy.count, totalCost: policy.totalCost) else { return }
        guard kept.count > 0 else {
            _removeAll(&policy, sets: &sets, observer: &observer)
            return
        }
        if policy.evictVictims(downToCount: kept.count, cost: kept.cost, observer: &observer) { return }
        for key in sets.keysOldestFirst() {
            if policy.count <= kept.count && policy.totalCost <= kept.cost { break }
            // Only residents: removing a key that left would also drop it from a ghost list.
            guard policy.contains(key) else { continue }
            if policy.remove(key, observer: &observer) != nil { observer.evictions += 1 }
        }
    }

    /// Every entry counted as evicted, then a new, empty policy.
    private func _removeAll<Policy: EvictionPolicy>(_ policy: inout Policy, sets: inout _SetOrder,
                                                    observer: inout _TimingObserver)
    where Policy.Key == UInt64, Policy.Value == Void {
        observer.evictions += policy.count
        if var fresh = try? Policy(limits: limits, options: options) {
            fresh.continueClock(of: policy)
            policy = fresh
        }
        sets.removeAll()
    }
}

/// The order in which keys were last set (a get that missed inserts, so it counts), for a
/// memory-warning trim of a policy that names no victims.
///
/// - Complexity: ``note(_:)`` O(1) expected; ``keysOldestFirst()`` O(n log n).
@usableFromInline
struct _SetOrder: Sendable {
    @usableFromInline var serials: [UInt64: UInt64] = [:]
    @usableFromInline var next: UInt64 = 0

    @inlinable init() {}

    @inlinable
    mutating func note(_ key: UInt64) {
        next &+= 1
        serials[key] = next
    }

    func keysOldestFirst() -> [UInt64] { serials.sorted { $0.value < $1.value }.map(\.key) }

    mutating func removeAll() { serials.removeAll() }
}
