/// The validated limits and the one ``SlotList`` of a ``SingleListPolicy``'s residents.
///
/// - Complexity: every operation is O(1).
@frozen
public struct LimitedList: Sendable {
    /// The residents, in the order the policy's rule keeps them.
    public var list = SlotList()
    /// The cost limit, ``CacheLimits/maximumCapacity`` (2^60) for none.
    public let capacity: Int
    /// The count limit, `Int.max` for none.
    public let countLimit: Int

    /// The limits of a policy described by `descriptor`, validated once with `options`
    /// (``CacheLimits/validated(for:options:)``), and an empty list.
    @inlinable
    public init(for descriptor: PolicyDescriptor, limits: CacheLimits, options: PolicyOptions)
        throws(PolicyConfigurationError) {
        (capacity, countLimit) = try limits.validated(for: descriptor, options: options)
    }

    /// `list` under the limits of `other`.
    @inlinable
    init(_ list: SlotList, limitsOf other: LimitedList) {
        self.list = list
        (capacity, countLimit) = (other.capacity, other.countLimit)
    }

    /// The newest slot, or -1.
    @inlinable public var head: Int32 { list.head }
    /// The oldest slot, or -1.
    @inlinable public var tail: Int32 { list.tail }

    /// Renumbers the list's ends after the arena compacted (``SlotRelocatingPolicy``). O(1).
    @inlinable public mutating func relocate(_ relocation: SlotRelocation) { relocation.relocate(&list) }
}

/// A ``SlotPolicy`` whose residents all stand in one ``SlotList`` under its limits (FIFO, LIFO,
/// LRU, MRU, CLOCK, SIEVE, NSCache): the limits, `count`, `totalCost`, the insert rule "a new
/// object enters at the head", the unlink step, the cost update and taking new limits in place
/// are written once here. The policy supplies its hit rule and its victim, and overrides what its
/// rule changes.
///
/// - Complexity: every step here is O(1).
public protocol SingleListPolicy: SlotPolicy {
    /// The limits and the list of the residents.
    var residents: LimitedList { get set }
}

extension SingleListPolicy {
    @inlinable public var capacity: Int { residents.capacity }
    @inlinable public var countLimit: Int { residents.countLimit }
    @inlinable public var count: Int { residents.list.count }
    @inlinable public var totalCost: Int { residents.list.cost }

    /// Takes the other policy's limits in place: the list's order and each slot's state are the
    /// whole rule. A rule with state shaped by its limits (CLOCK-Pro's cold budget) returns
    /// `false` instead.
    @inlinable public mutating func adoptLimits(of other: Self) -> Bool {
        residents = LimitedList(residents.list, limitsOf: other.residents)
        return true
    }

    /// A new object enters at the head.
    @inlinable public mutating func didInsert(_ slot: Int32) { _withStoreAndList { $0.pushHead(slot, &$1) } }
    @inlinable public mutating func unlink(_ slot: Int32) { _withStoreAndList { $0.unlink(slot, &$1) } }
    @inlinable public mutating func setCost(_ slot: Int32, _ cost: Int) {
        _withStoreAndList { $0.setCost(slot, cost, in: &$1) }
    }

    /// Runs `body` on the arena and the list, both in place.
    ///
    /// Why: in this generic extension, `store` and `residents` are two accesses to `self`, which
    /// cannot overlap; the list holds no references, so it is copied out and back (four words),
    /// while the arena is borrowed through ``ArenaPolicy``'s in-place accessor, never copied.
    @inlinable @inline(__always)
    mutating func _withStoreAndList<Result>(_ body: (inout SlotArena<Key, Value>, inout SlotList) -> Result) -> Result {
        var list = residents.list
        defer { residents.list = list }
        return _inPlace { body(&$0, &list) }
    }
}

extension SingleListPolicy where Self: LibraryModelPolicy {
    /// The list's count limit, where a library model's default would have none.
    @inlinable public var countLimit: Int { residents.countLimit }
}
