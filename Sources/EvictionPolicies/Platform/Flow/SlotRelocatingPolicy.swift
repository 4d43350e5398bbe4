/// An ``ArenaPolicy`` that follows its slots when the arena renumbers them, so that a large
/// purge (a memory warning that trims to a fraction, a burst of removals) gives back all the
/// storage it freed: its ``ArenaPolicy/shrinkStorageIfSparse()`` compacts the arena
/// (``SlotArena/compactIfSparse()``) and then calls ``relocateSlots(_:)``.
///
/// Conform only when ``relocateSlots(_:)`` renumbers *every* slot number the policy keeps
/// outside the arena's links: the ends of its ``SlotList``s, a hand, a queue of pending hits,
/// a ``SideTable``, a heap. One left behind names another entry after a purge.
///
/// ```swift
/// extension SieveCache: SlotRelocatingPolicy {
///     public mutating func relocateSlots(_ relocation: SlotRelocation) {
///         relocation.relocate(&residents.list)
///         hand = relocation[hand]
///     }
/// }
/// ```
///
/// - Complexity: a compaction is O(n) in the arena's slots, once per fall of the entries in
///   use below a quarter of the slots: O(1) amortised per release.
public protocol SlotRelocatingPolicy: ArenaPolicy {
    /// Renumbers every slot number the policy keeps outside the arena's links, as `relocation`
    /// says; called once the arena has moved its slots.
    mutating func relocateSlots(_ relocation: SlotRelocation)
}

extension SlotRelocatingPolicy {
    @inlinable @inline(__always)
    public mutating func shrinkStorageIfSparse() {
        if let relocation = _inPlace({ $0.compactIfSparse() }) { relocateSlots(relocation) }
    }
}
