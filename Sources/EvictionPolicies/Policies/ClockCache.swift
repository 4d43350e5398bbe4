// CLOCK (second chance / FIFO-reinsertion; Corbató 1968), as libCacheSim's Clock.c
// (1a1a11a/libCacheSim @ aa0fc40, `Clock_find`, `Clock_insert`, `Clock_evict`, default
// `n-bit-counter=1`).

/// A CLOCK cache with an n-bit reference counter per entry.
///
/// **Rule.** One FIFO list and an n-bit counter per object (`bits`, default 1: a reference bit).
/// A new object enters at the head with its counter at `init-freq` (default 0; set as given, even
/// above the ceiling, as libCacheSim does). A hit adds 1, saturating at 2^bits − 1, and never
/// moves the object. To make room, while the tail's counter is ≥ 1, subtract 1 and move it to
/// the head; evict the first tail at 0; repeat until the new object fits (cost and count). An
/// object larger than the capacity is never inserted. Re-inserting a resident key replaces its
/// cost in place and counts as a hit.
///
/// - Complexity: lookup, insert and remove are O(1) expected. One eviction moves at most
///   `count × (2^bits − 1)` entries, O(1) amortised per counter increment.
public struct ClockCache<Key: Hashable, Value>: SingleListPolicy {
    public static var descriptor: PolicyDescriptor {
        PolicyDescriptor(
            name: "clock", reproduces: "CLOCK (libCacheSim Clock.c, n-bit-counter=1)",
            rule: "FIFO with a reference counter: a hit increments it (saturating); eviction scans from the oldest, "
                + "decrementing and reinserting at the head objects with a non-zero counter, and evicts the first at 0; "
                + "new objects start at 0",
            family: .research, supportsCountLimit: true, aliases: ["fifo-reinsertion", "second-chance"],
            parameters: [
                PolicyParameter("bits", default: "1",
                                "counter width in bits (libCacheSim n-bit-counter); a hit saturates at 2^bits-1",
                                aliases: ["n-bit-counter"]),
                PolicyParameter("init-freq", default: "0", "counter of a new object (0 to 65535), as given even above 2^bits-1"),
            ],
            faithfulMiniatureObjects: 0)
    }

    public var store = SlotArena<Key, Value>()
    /// Head: newest insertion or reinsertion; tail: where the hand looks first.
    public var residents: LimitedList
    /// 2^bits − 1: the counter's ceiling.
    @usableFromInline let maximumCounter: UInt32
    /// A new object's counter.
    @usableFromInline let initialCounter: UInt32

    public init(limits: CacheLimits, options: PolicyOptions) throws(PolicyConfigurationError) {
        residents = try LimitedList(for: Self.descriptor, limits: limits, options: options)
        let bits = try options.integer("bits", default: 1, in: 1...16)
        maximumCounter = (UInt32(1) << UInt32(bits)) - 1
        initialCounter = UInt32(try options.integer("init-freq", default: 0, in: 0...65_535))
    }

    /// At the head, with the counter `init-freq` gives (the arena hands out slots at 0).
    @inlinable public mutating func didInsert(_ slot: Int32) {
        _withStoreAndList { $0.pushHead(slot, &$1) }
        if initialCounter != 0 { store.setAux(slot, initialCounter) }
    }

    /// One more reference, up to the counter's ceiling; the entry stays where it is.
    @inlinable public mutating func didHit(_ slot: Int32) {
        let counter = store.aux(slot)
        if counter < maximumCounter { store.setAux(slot, counter + 1) }
    }

    /// The hand: a referenced tail loses one reference and goes back to the head.
    @inlinable public mutating func victim() -> Int32 {
        var slot = residents.tail
        while store.aux(slot) >= 1 {
            store.setAux(slot, store.aux(slot) - 1)
            store.moveToHead(slot, &residents.list)
            slot = residents.tail
        }
        return slot
    }
}

extension ClockCache: SlotRelocatingPolicy {
    /// Renumbers the list's ends after a compaction.
    @inlinable public mutating func relocateSlots(_ relocation: SlotRelocation) { residents.relocate(relocation) }
}
