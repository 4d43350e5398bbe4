/// Several ``SlotList``s over one ``SlotArena``, a slot's aux telling which one holds it: the
/// queues of a policy family (``_SmallMainGhostLists``, ``_TinyLFURegions``).
public protocol _SlotListSet {
    /// The resident entries in the lists (ghosts excluded). O(1).
    var count: Int { get }
    /// The sum of the resident entries' costs. O(1).
    var totalCost: Int { get }
    /// Takes `slot`, resident or ghost, out of whichever list holds it. O(1).
    mutating func unlink<Key, Value>(_ slot: Int32, in store: inout SlotArena<Key, Value>)
    /// Renumbers every list's ends after the arena compacted (``SlotRelocatingPolicy``). O(lists).
    mutating func relocate(_ relocation: SlotRelocation)
}

/// An ``ArenaPolicy`` whose lists are one ``_SlotListSet``: the count, the total cost and the
/// unlink step are written once here.
///
/// - Complexity: every step here is O(1).
public protocol _ListSetPolicy: ArenaPolicy {
    /// The kind of list set.
    associatedtype ListSet: _SlotListSet
    /// The policy's lists.
    var lists: ListSet { get set }
}

extension _ListSetPolicy {
    @inlinable public var count: Int { lists.count }
    @inlinable public var totalCost: Int { lists.totalCost }

    @inlinable
    public mutating func unlink(_ slot: Int32) {
        // A copy of the lists (no references in it) lets the arena be borrowed in place beside them.
        var lists = self.lists
        lists.unlink(slot, in: &store)
        self.lists = lists
    }
}
