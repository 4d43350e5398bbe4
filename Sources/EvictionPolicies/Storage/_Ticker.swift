/// A periodic timer in trace time: ticks at `start + k × period` for k = 1, 2, …, where `start`
/// is the time of the cache's first `advance(to:)` (its init).
///
/// A policy fires each due tick in order at its own time. After a tick, ``skip(until:evicts:)``
/// moves past the ticks that provably do nothing, so that one advance over 10^12 s of idle time
/// costs O(log) rather than one step per tick.
@usableFromInline
internal struct _Ticker {
    @usableFromInline let period: Double
    /// The time of the first advance, or `nil` before it: the timer has not started.
    @usableFromInline var start: Double?
    /// The index k of the next tick.
    @usableFromInline var next = 1

    @inlinable
    init(period: Double) {
        self.period = period
    }

    /// The time of tick `k`. The timer must have started.
    @inlinable
    func time(ofTick k: Int) -> Double { (start ?? 0) + Double(k) * period }

    /// The time of the next tick when it is due at or before `time`, otherwise `nil`.
    @inlinable
    func due(by time: Double) -> Double? {
        guard start != nil else { return nil }
        let tick = self.time(ofTick: next)
        return tick <= time ? tick : nil
    }

    /// After the tick at index `next` has fired, moves `next` to the first later tick due by
    /// `time` at which `evicts(tickTime)` holds, or to the first tick after `time` when none does.
    ///
    /// `evicts` must be monotone in the tick time (false, then true): with no operation between
    /// ticks, the only thing that changes is time, and an entry that is old enough to go at one
    /// tick is old enough at every later one.
    @inlinable
    mutating func skip(until time: Double, evicts: (Double) -> Bool) {
        var low = next + 1
        var high = firstTick(after: time)
        guard low < high else {
            next = max(low, high)
            return
        }
        // Smallest k in [low, high) with evicts(time(k)), or high.
        while low < high {
            let middle = low + (high - low) / 2
            if evicts(self.time(ofTick: middle)) { high = middle } else { low = middle + 1 }
        }
        next = low
    }

    /// The index of the first tick strictly after `time`.
    @inlinable
    func firstTick(after time: Double) -> Int {
        guard let start else { return 1 }
        let estimate = ((time - start) / period).rounded(.down)
        guard estimate < 4e18 else { return Int.max / 2 }
        var k = max(1, Int(estimate) + 1)
        // Floating-point guard: step to the exact boundary.
        while k > 1 && self.time(ofTick: k - 1) > time { k -= 1 }
        while self.time(ofTick: k) <= time { k += 1 }
        return k
    }
}
