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
    /// The hit slots, oldest first, in the first ``count`` places; a slot may appear more than
    /// once. Inline, not an array: a hit then appends with one store, with no uniqueness check
    /// and no call (the queue is part of the policy's value, so a copy of the policy copies it).
    @usableFromInline var _slots: (Int32, Int32, Int32, Int32, Int32, Int32, Int32, Int32,
                                   Int32, Int32, Int32, Int32, Int32, Int32, Int32, Int32,
                                   Int32, Int32, Int32, Int32, Int32, Int32, Int32, Int32,
                                   Int32, Int32, Int32, Int32, Int32, Int32, Int32, Int32)
        = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
    /// How many hits wait.
    @usableFromInline var count = 0

    /// How many hits wait before they are applied: enough for the writes of one batch to
    /// overlap, few enough that the batch's slots are still in the processor's cache. The
    /// capacity of ``_slots``.
    @inlinable static var batch: Int { 32 }

    /// No pending hit.
    @inlinable public init() {}

    /// Whether no hit waits. O(1).
    @inlinable public var isEmpty: Bool { count == 0 }

    /// Runs `body` on the waiting hits, oldest first.
    @inlinable @inline(__always)
    mutating func _withHits<R>(_ body: (UnsafeMutableBufferPointer<Int32>) -> R) -> R {
        let count = self.count
        return withUnsafeMutableBytes(of: &_slots) { bytes in
            body(UnsafeMutableBufferPointer(start: bytes.baseAddress?.assumingMemoryBound(to: Int32.self), count: count))
        }
    }

    /// Queues a hit on `slot` unless it is the newest one queued; returns whether the queue is
    /// full. The caller applies a full queue before the next hit.
    @inlinable @inline(__always)
    mutating func _append(_ slot: Int32) -> Bool {
        let count = self.count
        assert(count < Self.batch, "a full queue of hits was not applied")
        let queued = withUnsafeMutableBytes(of: &_slots) { bytes in
            let hits = bytes.baseAddress.unsafelyUnwrapped.assumingMemoryBound(to: Int32.self)
            if count > 0 && hits[count - 1] == slot { return false }
            hits[count] = slot
            return true
        }
        guard queued else { return false }
        self.count = count + 1
        return count + 1 >= Self.batch
    }
}

extension SlotArena {
    /// Records that `slot`, in `list`, was hit and moves to the head of `list`: at once when it
    /// is the head already, otherwise when the pending hits are applied (every 32
    /// hits, or by ``applyPendingHits(_:_:)``). O(1) amortised.
    @inlinable @inline(__always)
    public mutating func deferMoveToHead(_ slot: Int32, _ list: inout SlotList, _ pending: inout PendingHits) {
        if pending.isEmpty && list.head == slot { return }
        if pending._append(slot) { _applyPendingHits(&pending, &list) }
    }

    /// Moves every pending hit's slot to the head of `list`, oldest hit first, and empties
    /// `pending`. Call it before any operation that reads or changes the order of `list`.
    /// O(1) when nothing is pending; O(k) for k pending hits.
    @inlinable @inline(__always)
    public mutating func applyPendingHits(_ pending: inout PendingHits, _ list: inout SlotList) {
        if !pending.isEmpty { _applyPendingHits(&pending, &list) }
    }

    @inlinable @inline(never)
    mutating func _applyPendingHits(_ pending: inout PendingHits, _ list: inout SlotList) {
        // How many moves ahead the neighbours of a pending slot start loading.
        let distance = 4
        slots.withUnsafeMutableBufferPointer { s in
            guard let base = s.baseAddress else { return }
            pending._withHits { hits in
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
        pending.count = 0
    }
}
