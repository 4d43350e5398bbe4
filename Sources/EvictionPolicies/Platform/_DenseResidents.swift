import _CSupport

/// Resident slots in a dense array, each with a `Payload`, and each one's place in the array:
/// what ``ResidentSample`` keeps (no payload) and what Random's and RandomTwo's draws keep (each
/// resident's hash bits, `_DenseSample`). A removal moves the last element into the hole, so the
/// array stays dense and a uniformly random place is a uniformly random resident.
///
/// - Complexity: ``append(_:_:)`` O(1) amortised; ``remove(at:)``, ``position(of:)`` and the
///   subscript O(1); ``relocate(_:)`` O(n).
@frozen
public struct _DenseResidents<Payload> {
    @usableFromInline var elements: ContiguousArray<(slot: Int32, payload: Payload)> = []
    /// Where each slot was last put in `elements` (-1: never). A removal leaves its slot's entry
    /// stale rather than write it; ``position(of:)`` checks the place still holds the slot.
    @usableFromInline var positions = SideTable<Int32>(filling: -1)

    /// No resident.
    @inlinable public init() {}

    /// The residents held.
    @inlinable public var count: Int { elements.count }

    /// The resident at `position` (below ``count``) and its payload.
    @inlinable public subscript(position: Int) -> (slot: Int32, payload: Payload) {
        @inline(__always) get { elements[position] }
    }

    /// The place of `slot`, or -1 when it is not held.
    @inlinable @inline(__always)
    public func position(of slot: Int32) -> Int {
        let position = Int(positions[slot])
        return holds(slot, at: position) ? position : -1
    }

    /// Whether `position` is a place and holds `slot`.
    @inlinable @inline(__always)
    public func holds(_ slot: Int32, at position: Int) -> Bool {
        position >= 0 && position < elements.count && elements[position].slot == slot
    }

    /// Adds `slot`, which must not be held, with `payload`.
    @inlinable @inline(__always)
    public mutating func append(_ slot: Int32, _ payload: Payload) {
        positions[slot] = Int32(truncatingIfNeeded: elements.count)
        elements.append((slot: slot, payload: payload))
    }

    /// Removes the resident at `position` (below ``count``), moving the last one into its place.
    @inlinable @inline(__always)
    public mutating func remove(at position: Int) {
        let last = elements.removeLast()
        if position < elements.count {
            elements[position] = last
            positions[last.slot] = Int32(truncatingIfNeeded: position)
        }
    }

    /// Starts loading the resident at `position` (below ``count``).
    @inlinable @inline(__always)
    public func prefetch(at position: Int) {
        elements.withUnsafeBufferPointer { elements in
            if let base = elements.baseAddress { _cs_prefetch(base + position) }
        }
    }

    /// Renumbers the residents after the arena compacted (for a ``SlotRelocatingPolicy``); each
    /// keeps its place, so draws by place stay the same. Gives back the spare room of a purge.
    @inlinable
    public mutating func relocate(_ relocation: SlotRelocation) {
        elements.withUnsafeMutableBufferPointer { elements in
            for i in elements.indices { elements[i].slot = relocation[elements[i].slot] }
        }
        elements._giveBackSpareRoom()
        positions.relocate(relocation)
    }
}
