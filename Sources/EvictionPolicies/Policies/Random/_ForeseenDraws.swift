/// A draw ``_IndexedSample`` has made ahead of time: its chain, its position number and, once
/// picked, the slot it takes (chain -1: none; slot -1: not picked yet, or its chain changed).
@frozen
public struct _ForeseenDraw {
    @usableFromInline var chain: Int
    @usableFromInline var position: UInt64
    @usableFromInline var slot: Int32

    @inlinable init(chain: Int, position: UInt64, slot: Int32 = -1) {
        self.chain = chain
        self.position = position
        self.slot = slot
    }

    /// Nothing foreseen.
    @inlinable static var none: _ForeseenDraw { _ForeseenDraw(chain: -1, position: 0) }
}

/// The next few draws ``_IndexedSample`` foresees, oldest first: a queue of at most
/// ``capacity`` stored inline, with no allocation.
///
/// - Complexity: every operation O(``capacity``).
@frozen
public struct _ForeseenDraws {
    @usableFromInline var draws = (_ForeseenDraw.none, _ForeseenDraw.none, _ForeseenDraw.none, _ForeseenDraw.none)
    /// How many draws are foreseen.
    @usableFromInline var count = 0

    @inlinable init() {}

    /// The most draws foreseen at once.
    @inlinable static var capacity: Int { 4 }

    @inlinable
    subscript(position: Int) -> _ForeseenDraw {
        @inline(__always) get {
            switch position {
            case 0: draws.0
            case 1: draws.1
            case 2: draws.2
            default: draws.3
            }
        }
        @inline(__always) set {
            switch position {
            case 0: draws.0 = newValue
            case 1: draws.1 = newValue
            case 2: draws.2 = newValue
            default: draws.3 = newValue
            }
        }
    }

    /// Takes the oldest draw out, or `.none` when there is none.
    @inlinable @inline(__always)
    mutating func removeFirst() -> _ForeseenDraw {
        guard count > 0 else { return .none }
        let first = draws.0
        draws = (draws.1, draws.2, draws.3, .none)
        count -= 1
        return first
    }

    /// Adds a draw after the others; there must be room.
    @inlinable @inline(__always)
    mutating func append(_ draw: _ForeseenDraw) {
        self[count] = draw
        count += 1
    }

    /// Forgets every draw.
    @inlinable @inline(__always)
    mutating func removeAll() {
        self = _ForeseenDraws()
    }

    /// Renumbers the picks after the arena compacted.
    @inlinable
    mutating func relocatePicks(_ relocation: SlotRelocation) {
        draws.0.slot = relocation[draws.0.slot]
        draws.1.slot = relocation[draws.1.slot]
        draws.2.slot = relocation[draws.2.slot]
        draws.3.slot = relocation[draws.3.slot]
    }

    /// Forgets the picks made in `chain`, whose residents change; the draws still take that
    /// chain, and pick again.
    @inlinable @inline(__always)
    mutating func forgetPicks(in chain: Int) {
        if draws.0.chain == chain { draws.0.slot = -1 }
        if draws.1.chain == chain { draws.1.slot = -1 }
        if draws.2.chain == chain { draws.2.slot = -1 }
        if draws.3.chain == chain { draws.3.slot = -1 }
    }
}
