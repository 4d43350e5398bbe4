import _CSupport

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
        @inline(__always) set {
            let i = Int(slot)
            // The growth is out of line: inlined, it kept the whole setter out of its callers
            // (a call per write, about 15 % of LeCaR's replay).
            if i >= storage.count { _grow(through: i) }
            storage[i] = newValue
        }
    }

    /// Grows the table with fill values so that `slot` is in it. O(n) in the new length.
    ///
    /// Inlinable but never inlined: the call stays out of the setter, and clients specialise it
    /// (unspecialised, the append allocated for every fill value it copied).
    @inlinable @inline(never)
    mutating func _grow(through slot: Int) {
        // Grow geometrically from the capacity: reserving from the count asks for a little more
        // than the capacity on every new slot, and reallocates each time.
        if slot >= storage.capacity { storage.reserveCapacity(Swift.max(slot + 1, storage.capacity * 2)) }
        // Fill all the room reserved, not only through `slot`: an arena's slot numbers grow one
        // at a time, and each new one would come here, where now only each doubling does.
        storage.append(contentsOf: repeatElement(fill, count: storage.capacity - storage.count))
    }

    /// Starts loading the element for `slot` into the cache, for a read soon after. O(1).
    @inlinable @inline(__always)
    public func prefetch(_ slot: Int32) {
        let i = Int(slot)
        guard i >= 0, i < storage.count else { return }
        storage.withUnsafeBufferPointer { storage in
            if let base = storage.baseAddress { _cs_prefetch(base + i) }
        }
    }

    /// Forgets every element and gives the storage back. O(n).
    @inlinable
    public mutating func removeAll() { storage = [] }
}

extension SideTable: Sendable where Element: Sendable {}

extension SideTable {
    /// The element of `key`'s slot in `store`, or `nil` when `key` has none there.
    ///
    /// - Complexity: O(1) expected (one lookup in `store`).
    @inlinable
    public func element<Key, Value>(forKey key: Key, in store: SlotArena<Key, Value>) -> Element? {
        let slot = store.find(key)
        return slot >= 0 ? self[slot] : nil
    }

    /// Sets the element of `key`'s slot in `store`; does nothing when `key` has none there.
    ///
    /// - Complexity: O(1) expected (one lookup in `store`).
    @inlinable
    public mutating func setElement<Key, Value>(_ element: Element, forKey key: Key, in store: SlotArena<Key, Value>) {
        let slot = store.find(key)
        if slot >= 0 { self[slot] = element }
    }
}
