/// A policy of the ARC family (ARC, ARCv0, CAR) over ``_ARCLists``: the members that only read or
/// forward to the lists are written once here, so each policy keeps only its rule.
@usableFromInline
internal protocol _ARCListsPolicy: GhostListPolicy {
    /// T1, T2, B1, B2 and the target p.
    var lists: _ARCLists { get set }
}

extension _ARCListsPolicy {
    /// Resident entries: T1 and T2. O(1).
    @inlinable public var count: Int { lists.count }
    /// The residents' cost: T1 and T2. O(1).
    @inlinable public var totalCost: Int { lists.totalCost }

    /// The current target size of T1 (p), in cost units, for tests and reports.
    @inlinable public var target: Double { lists.p }

    /// Takes `slot`, resident or ghost, out of its list. O(1).
    ///
    /// The lists hold no references: they are copied out and back, so that they and the arena,
    /// two accesses to `self`, are not borrowed at once; the arena is borrowed in place.
    @inlinable public mutating func unlink(_ slot: Int32) {
        var lists = self.lists
        defer { self.lists = lists }
        _inPlace { lists.unlink(slot, in: &$0) }
    }
}
