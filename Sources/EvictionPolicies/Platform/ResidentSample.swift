/// The resident slots of a cache in a dense array, so that one can be drawn uniformly at random
/// (libCacheSim's `hashtable_rand_obj`, without its bias toward long hash chains).
///
/// - Complexity: ``insert(_:)``, ``remove(_:)`` and ``randomElement(using:)`` are O(1)
///   (amortised for insert); a removal moves the last element into the hole;
///   ``relocate(_:)`` is O(n).
@frozen
public struct ResidentSample {
    @usableFromInline var slots: ContiguousArray<Int32> = []
    /// Where each slot sits in `slots`, -1 when absent.
    @usableFromInline var positions = SideTable<Int32>(filling: -1)

    /// An empty sample.
    @inlinable public init() {}

    /// The number of slots held.
    @inlinable public var count: Int { slots.count }

    /// Adds `slot`, which must not be held.
    @inlinable
    public mutating func insert(_ slot: Int32) {
        positions[slot] = Int32(truncatingIfNeeded: slots.count)
        slots.append(slot)
    }

    /// Removes `slot` if it is held.
    @inlinable
    public mutating func remove(_ slot: Int32) {
        let position = positions[slot]
        guard position >= 0 else { return }
        let last = slots.removeLast()
        if last != slot {
            slots[Int(position)] = last
            positions[last] = position
        }
        positions[slot] = -1
    }

    /// Renumbers the slots held after the arena compacted (for a ``SlotRelocatingPolicy``). Each
    /// slot keeps its place in the dense array, so the draws that follow are the ones the same
    /// generator would have made without the compaction. Gives back the spare room of a purge. O(n).
    @inlinable
    public mutating func relocate(_ relocation: SlotRelocation) {
        for i in slots.indices { slots[i] = relocation[slots[i]] }
        slots._giveBackSpareRoom()
        positions.relocate(relocation)
    }

    /// A slot drawn uniformly from those held. The sample must not be empty.
    @inlinable
    public func randomElement(using generator: inout some RandomNumberGenerator) -> Int32 {
        slots[Int.random(in: 0..<slots.count, using: &generator)]
    }
}
