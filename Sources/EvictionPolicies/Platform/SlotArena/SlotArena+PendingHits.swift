import _CSupport

/// Hits on a recency list that have not been applied to it yet, oldest first.
///
/// Why: moving a hit entry to the head of a list writes its two neighbours, which on a large
/// cache are two random cache lines; and the atomic operation that follows a get (a retain, a
/// lock release) waits until those writes are done, so each get pays a full memory latency for
/// them. Queued, the moves are applied in a batch where those writes overlap (profiled: LRU's
/// get spent more time on the relink than on the lookup).
///
/// Applying queued moves in order gives exactly the list that applying each at once gives, so a
/// policy that queues its hits makes the same decisions provided it applies them before anything
/// that reads or changes the order: an insert, a victim choice, an unlink. See
/// ``SlotArena/deferMoveToHead(_:_:_:)`` and ``SlotArena/applyPendingHits(_:_:)``.
@frozen
public struct PendingHits: Sendable {
    /// The hit slots, oldest first; a slot may appear more than once.
    @usableFromInline var slots: ContiguousArray<Int32> = []

    /// How many hits wait before they are applied: enough for the writes of one batch to
    /// overlap, few enough that the batch's slots are still in the processor's cache.
    @inlinable static var batch: Int { 32 }

    /// No pending hit.
    @inlinable public init() {}

    /// Whether no hit waits. O(1).
    @inlinable public var isEmpty: Bool { slots.isEmpty }
}

extension SlotArena {
    /// Records that `slot`, in `list`, was hit and moves to the head of `list`: at once when it
    /// is the head already, otherwise when the pending hits are applied (every 32
    /// hits, or by ``applyPendingHits(_:_:)``). O(1) amortised.
    @inlinable @inline(__always)
    public mutating func deferMoveToHead(_ slot: Int32, _ list: inout SlotList, _ pending: inout PendingHits) {
        if pending.slots.isEmpty {
            guard list.head != slot else { return }
        } else if pending.slots.last == slot {
            return
        }
        pending.slots.append(slot)
        if pending.slots.count >= PendingHits.batch { _applyPendingHits(&pending, &list) }
    }

    /// Moves every pending hit's slot to the head of `list`, oldest hit first, and empties
    /// `pending`. Call it before any operation that reads or changes the order of `list`.
    /// O(1) when nothing is pending; O(k) for k pending hits.
    @inlinable @inline(__always)
    public mutating func applyPendingHits(_ pending: inout PendingHits, _ list: inout SlotList) {
        if !pending.slots.isEmpty { _applyPendingHits(&pending, &list) }
    }

    @inlinable @inline(never)
    mutating func _applyPendingHits(_ pending: inout PendingHits, _ list: inout SlotList) {
        // How many moves ahead the neighbours of a pending slot start loading.
        let distance = 4
        slots.withUnsafeMutableBufferPointer { s in
            guard let base = s.baseAddress else { return }
            pending.slots.withUnsafeBufferPointer { hits in
                for k in hits.indices {
                    if k + distance < hits.count {
                        // The neighbours now: earlier moves may change them, which only makes
                        // this hint miss.
                        let ahead = Int(hits[k + distance])
                        let previous = s[ahead].prev, next = s[ahead].next
                        if previous >= 0 { _cs_prefetch(base + Int(previous)) }
                        if next >= 0 { _cs_prefetch(base + Int(next)) }
                    }
                    let slot = hits[k]
                    guard list.head != slot else { continue }
                    Self._unlink(s, slot, &list)
                    Self._pushHead(s, slot, &list)
                }
            }
        }
        pending.slots.removeAll(keepingCapacity: true)
    }
}
