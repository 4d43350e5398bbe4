/// A policy's validated limits and the running total cost of its residents, for a policy that
/// keeps its entries in no ``SlotList`` (a heap, a random sample), so nothing else sums their
/// costs.
///
/// - Complexity: every operation is O(1).
@frozen
public struct PolicyBudget: Sendable {
    /// The cost limit, ``CacheLimits/maximumCapacity`` (2^60) for none.
    public let capacity: Int
    /// The count limit, `Int.max` for none.
    public let countLimit: Int
    /// The sum of the residents' costs.
    public var cost = 0

    /// The limits of a policy described by `descriptor`, validated once with `options`
    /// (``CacheLimits/validated(for:options:)``), and no cost spent.
    @inlinable
    public init(for descriptor: PolicyDescriptor, limits: CacheLimits, options: PolicyOptions)
        throws(PolicyConfigurationError) {
        (capacity, countLimit) = try limits.validated(for: descriptor, options: options)
    }
}

/// A ``SlotPolicy`` whose limits and resident cost live in a ``PolicyBudget``: the limits, the
/// total cost and the cost update are written once here. The policy adds a resident's cost in
/// its insert rule (``PolicyBudget/cost``) and takes it out in its unlink step.
///
/// - Complexity: every step here is O(1).
public protocol BudgetedPolicy: SlotPolicy {
    /// The limits and the residents' total cost.
    var budget: PolicyBudget { get set }
}

extension BudgetedPolicy {
    @inlinable public var capacity: Int { budget.capacity }
    @inlinable public var countLimit: Int { budget.countLimit }
    @inlinable public var totalCost: Int { budget.cost }

    @inlinable public mutating func setCost(_ slot: Int32, _ cost: Int) {
        budget.cost += cost - store.cost(slot)
        store.setCost(slot, cost)
    }
}
