/// The resident slots of a cache in a dense array, so that one can be drawn uniformly at random
/// (libCacheSim's `hashtable_rand_obj`, without its bias toward long hash chains).
///
/// - Complexity: ``insert(_:)``, ``remove(_:)`` and ``randomElement(using:)`` are O(1)
///   (amortised for insert); a removal moves the last element into the hole;
///   ``relocate(_:)`` is O(n).
@frozen
public struct ResidentSample {
    @usableFromInline var residents = _DenseResidents<Void>()

    /// An empty sample.
    @inlinable public init() {}

    /// The number of slots held.
    @inlinable public var count: Int { residents.count }

    /// Adds `slot`, which must not be held.
    @inlinable
    public mutating func insert(_ slot: Int32) { residents.append(slot, ()) }

    /// Removes `slot` if it is held.
    @inlinable
    public mutating func remove(_ slot: Int32) {
        let position = residents.position(of: slot)
        if position >= 0 { residents.remove(at: position) }
    }

    /// Renumbers the slots held after the arena compacted (for a ``SlotRelocatingPolicy``). Each
    /// slot keeps its place in the dense array, so the draws that follow are the ones the same
    /// generator would have made without the compaction. Gives back the spare room of a purge. O(n).
    @inlinable
    public mutating func relocate(_ relocation: SlotRelocation) { residents.relocate(relocation) }

    /// A slot drawn uniformly from those held. The sample must not be empty.
    @inlinable
    public func randomElement(using generator: inout some RandomNumberGenerator) -> Int32 {
        residents[Int.random(in: 0..<residents.count, using: &generator)].slot
    }
}
