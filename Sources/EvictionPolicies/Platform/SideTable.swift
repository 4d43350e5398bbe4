/// Per-slot data beside a ``SlotArena``: one element per slot number, growing with the arena.
///
/// Reading a slot the table has never stored answers the fill value, so a policy needs no step to
/// grow it when the arena grows; writing past the end grows it (doubling).
///
/// - Complexity: reads are O(1); writes are O(1) amortised.
@frozen
public struct SideTable<Element> {
    @usableFromInline var storage: ContiguousArray<Element> = []
    /// What a slot holds before anything is written for it.
    public let fill: Element

    /// An empty table whose every slot reads as `fill`.
    @inlinable
    public init(filling fill: Element) { self.fill = fill }

    /// The element for `slot` (≥ 0).
    @inlinable
    public subscript(slot: Int32) -> Element {
        @inline(__always) get {
            let i = Int(slot)
            return i < storage.count ? storage[i] : fill
        }
        set {
            let i = Int(slot)
            if i >= storage.count {
                // Grow geometrically from the capacity: reserving from the count asks for a
                // little more than the capacity on every new slot, and reallocates each time.
                if i >= storage.capacity { storage.reserveCapacity(Swift.max(i + 1, storage.capacity * 2)) }
                storage.append(contentsOf: repeatElement(fill, count: i + 1 - storage.count))
            }
            storage[i] = newValue
        }
    }

    /// Forgets every element and gives the storage back. O(n).
    @inlinable
    public mutating func removeAll() { storage = [] }
}

extension SideTable: Sendable where Element: Sendable {}
