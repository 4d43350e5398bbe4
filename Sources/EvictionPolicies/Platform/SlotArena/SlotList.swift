/// The ends, length and total cost of one intrusive doubly linked list over a ``SlotArena``.
///
/// The head is the newest end, the tail the oldest. Several lists (ARC's T1, T2, B1, B2) share
/// one store; a slot is in at most one of them at a time.
@frozen
public struct SlotList: Sendable, Equatable {
    /// The newest slot, or -1.
    public var head: Int32 = -1
    /// The oldest slot, or -1.
    public var tail: Int32 = -1
    /// The number of slots in the list.
    public var count: Int = 0
    /// The sum of their costs.
    public var cost: Int = 0

    /// An empty list.
    @inlinable public init() {}

    /// Whether the list has no slot. O(1).
    @inlinable public var isEmpty: Bool { head < 0 }
}
