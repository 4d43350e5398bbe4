// The trims app libraries repeat, written once: a timer that fires trim passes in trace time, a
// sweep that removes what has expired, oldest first, and a purge that sorts every entry and
// removes them in that order down to a target.

/// A library model whose timer runs a trim pass every period of trace time (YYDiskCache's auto
/// trim, PINMemoryCache's age limit, Kingfisher's clean timer).
@usableFromInline
protocol _TimerDriven {
    associatedtype Key: Hashable
    associatedtype Value
    /// The timer; it starts at the first advance, the cache's init.
    var timer: _Ticker { get set }
    /// The current trace time.
    var now: Double { get set }
    /// The pass the timer runs when it fires at ``now``.
    mutating func timerDidFire(observer: inout some EvictionObserver<Key, Value>)
    /// Whether a pass at `time`, with nothing happening before it, would remove anything; monotone
    /// in `time` (false, then true), so idle ticks are skipped in O(1).
    func timerWouldEvict(at time: Double) -> Bool
    /// What the cache's init does at the first advance (a timer that fires at once). Default: nothing.
    mutating func timerDidStart(observer: inout some EvictionObserver<Key, Value>)
}

extension _TimerDriven {
    @inlinable
    mutating func timerDidStart(observer: inout some EvictionObserver<Key, Value>) {}

    /// Takes over `previous`'s timer and time (``EvictionPolicy/continueClock(of:)``): the
    /// library's timer keeps its beat when the cache is emptied or given new limits.
    @inlinable
    mutating func continueTimer(of previous: Self) {
        timer = previous.timer
        now = previous.now
    }

    /// Moves trace time forward to `time`, firing each due tick in order at its own time.
    @inlinable
    mutating func advanceTimer(to time: Double, observer: inout some EvictionObserver<Key, Value>) {
        guard timer.start != nil else {
            timer.start = time
            now = time
            timerDidStart(observer: &observer)
            return
        }
        guard time > now else { return }
        while let tick = timer.due(by: time) {
            now = tick
            timerDidFire(observer: &observer)
            var ticker = timer                      // the predicate reads self
            ticker.skip(until: time) { timerWouldEvict(at: $0) }
            timer = ticker
        }
        now = time
    }
}

extension SlotArena {
    /// Evicts every entry of `list` for which `expired` holds, walking from the tail (the oldest)
    /// to the head, within `pass`. O(n).
    @inlinable
    mutating func evictOldestFirst(from list: inout SlotList, pass: inout TrimPass,
                                   observer: inout some EvictionObserver<Key, Value>,
                                   where expired: (Int32) -> Bool) {
        var slot = list.tail
        while slot >= 0 {
            let newer = prev(slot)
            if expired(slot) {
                pass.willRemove(&observer)
                evict(slot, from: &list, observer: &observer)
            }
            slot = newer
        }
    }

    /// The entry of `list` with the lowest `rank` (the first of equals from the head), or -1 for
    /// an empty list: what a ranked purge would remove first. O(n).
    @inlinable
    func lowestRanked(in list: SlotList, by rank: (Int32) -> (UInt64, UInt64)) -> Int32 {
        var best: Int32 = -1
        var bestRank = (UInt64.max, UInt64.max)
        var slot = list.head
        while slot >= 0 {
            let r = rank(slot)
            if best < 0 || r < bestRank { (best, bestRank) = (slot, r) }
            slot = next(slot)
        }
        return best
    }
}

/// A logical clock that stamps slots with unique, increasing numbers: the order of last access
/// (or write) that the libraries keep as dates, without the ties dates would have.
@usableFromInline
struct _StampClock {
    @usableFromInline var stamps = SideTable<UInt64>(filling: 0)
    @usableFromInline var latest: UInt64 = 0

    @inlinable init() {}

    /// Stamps `slot` now. O(1) amortised.
    @inlinable @inline(__always)
    mutating func stamp(_ slot: Int32) {
        latest &+= 1
        stamps[slot] = latest
    }

    /// The stamp of `slot`. O(1).
    @inlinable @inline(__always)
    subscript(slot: Int32) -> UInt64 { stamps[slot] }

    /// Moves the stamps with their slots after a compaction. O(n) in the stamps.
    @inlinable
    mutating func relocate(_ relocation: SlotRelocation) { stamps.relocate(relocation) }
}

/// The entries of a list sorted by a rank, for the libraries that copy and sort every entry
/// before they purge (AFNetworking, PINCache, SDWebImage's disk cache). The buffer is reused from
/// one purge to the next, so only the sort itself may allocate.
@usableFromInline
struct _RankedSlots {
    /// One entry's rank: `primary`, ties broken by `secondary`.
    @usableFromInline
    struct _Ranked {
        @usableFromInline var primary: UInt64
        @usableFromInline var secondary: UInt64
        @usableFromInline var slot: Int32
        @inlinable init(primary: UInt64, secondary: UInt64, slot: Int32) {
            (self.primary, self.secondary, self.slot) = (primary, secondary, slot)
        }
    }

    @usableFromInline var entries: ContiguousArray<_Ranked> = []

    @inlinable init() {}

    /// Gathers every entry of `list` (head to tail) with its rank and sorts them ascending.
    /// O(n log n).
    @inlinable
    mutating func sort<K, V>(_ list: SlotList, in store: SlotArena<K, V>, by rank: (Int32) -> (UInt64, UInt64)) {
        entries.removeAll(keepingCapacity: true)
        var slot = list.head
        while slot >= 0 {
            let (primary, secondary) = rank(slot)
            entries.append(_Ranked(primary: primary, secondary: secondary, slot: slot))
            slot = store.next(slot)
        }
        entries.sort { ($0.primary, $0.secondary) < ($1.primary, $1.secondary) }
    }

    /// Evicts the sorted entries from `list`, lowest rank first (highest first when `descending`),
    /// until the list's total cost is at most `target`; the caller brackets the pass. O(k).
    @inlinable
    func evict<K, V>(from list: inout SlotList, in store: inout SlotArena<K, V>, downTo target: Int,
                     descending: Bool = false, observer: inout some EvictionObserver<K, V>) {
        for i in entries.indices {
            store.evict(entries[descending ? entries.count - 1 - i : i].slot, from: &list, observer: &observer)
            if list.cost <= target { return }
        }
    }
}
