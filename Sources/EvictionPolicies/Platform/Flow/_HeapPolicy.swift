/// A heap of a policy's resident slots, as ``IndexedMinHeap`` and ``PQueueMaxHeap`` are: what
/// ``_HeapPolicy`` needs of it.
public protocol _ResidentHeap {
    /// The number of slots in the heap. O(1).
    var count: Int { get }
    /// Takes `slot`, which must be in the heap, out of it. O(log n).
    mutating func remove(_ slot: Int32)
}

extension IndexedMinHeap: _ResidentHeap {}
extension PQueueMaxHeap: _ResidentHeap {}

/// A ``BudgetedPolicy`` whose residents are exactly the slots of a heap ordered by the policy's
/// priority (GDSF's, Belady's next request): the limits, the count and the unlink step are
/// written once here. The policy supplies its priorities (hit and insert rules, which add the
/// resident's cost to ``PolicyBudget/cost`` and file it in the heap) and its victim, the heap's top.
///
/// - Complexity: ``count`` O(1); the unlink step O(log n).
public protocol _HeapPolicy: BudgetedPolicy {
    /// The heap type.
    associatedtype Heap: _ResidentHeap
    /// The residents by priority.
    var heap: Heap { get set }
    /// A policy with `budget` and nothing resident.
    init(budget: PolicyBudget)
}

extension _HeapPolicy {
    public init(limits: CacheLimits, options: PolicyOptions) throws(PolicyConfigurationError) {
        self.init(budget: try PolicyBudget(for: Self.descriptor, limits: limits, options: options))
    }

    @inlinable public var count: Int { heap.count }

    @inlinable public mutating func unlink(_ slot: Int32) {
        heap.remove(slot)
        budget.cost -= _inPlace { $0.cost(slot) }
    }
}
