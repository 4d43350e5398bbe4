/// One entry's storage: its key, cost, list links and a small policy-defined field.
///
/// Links are `Int32` slot numbers (`-1` for none), so a node is 24–32 bytes and a list is a
/// pair of integers rather than a chain of objects.
@usableFromInline
internal struct _Slot<Key> {
    @usableFromInline var key: Key
    @usableFromInline var cost: Int
    /// Toward the head (the newer end) of whichever list holds the slot.
    @usableFromInline var prev: Int32
    /// Toward the tail (the older end) of whichever list holds the slot.
    @usableFromInline var next: Int32
    /// Free for the policy: a reference bit, a frequency, a queue tag (the low 32 bits, through
    /// ``SlotArena/aux(_:)``), or a time stamp (all 64, through ``SlotArena/stamp(_:)``).
    /// 64 bits cost nothing: they fill what would be padding in the slot's 32-byte stride.
    @usableFromInline var aux: UInt64

    @inlinable
    init(key: Key, cost: Int) {
        self.key = key
        self.cost = cost
        self.prev = -1
        self.next = -1
        self.aux = 0
    }
}
