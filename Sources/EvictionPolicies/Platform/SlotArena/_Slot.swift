/// One entry's bookkeeping: its cost, list links and a small policy-defined field. The key lives
/// apart, in ``SlotArena``'s `keys`, beside the slots.
///
/// Links are `Int32` slot numbers (`-1` for none), so a node is 24 bytes and a list is a pair of
/// integers rather than a chain of objects.
///
/// Why the key is not here: a lookup confirms the index's candidate by comparing keys, and the
/// keys of a replay (8 bytes each) stay in the processor's second-level cache where 32-byte slots
/// with the key inside did not. A policy whose hits change nothing (Random) then reads no slot at
/// all on a hit.
@usableFromInline
internal struct _Slot {
    @usableFromInline var cost: Int
    /// Toward the head (the newer end) of whichever list holds the slot.
    @usableFromInline var prev: Int32
    /// Toward the tail (the older end) of whichever list holds the slot.
    @usableFromInline var next: Int32
    /// Free for the policy: a reference bit, a frequency, a queue tag (the low 32 bits, through
    /// ``SlotArena/aux(_:)``), or a time stamp (all 64, through ``SlotArena/stamp(_:)``).
    @usableFromInline var aux: UInt64

    @inlinable
    init(cost: Int) {
        self.cost = cost
        self.prev = -1
        self.next = -1
        self.aux = 0
    }
}
