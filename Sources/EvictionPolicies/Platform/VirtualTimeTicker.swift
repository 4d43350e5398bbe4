/// A periodic timer in trace time (virtual time: the timestamps of the requests, not the wall
/// clock): it ticks at `start + k × period` for k = 1, 2, …, where `start` is the time the
/// policy starts it (a model's init, usually its first `advance(to:)`).
///
/// A policy fires each due tick in order at its own time, then calls ``skip(until:evicts:)`` to
/// move past the ticks that provably do nothing, so that one advance over any idle time costs
/// O(1) (a bounded search) rather than one step per tick:
///
/// ```swift
/// guard ticker.start != nil else { ticker.start = time; return }
/// while let tick = ticker.due(by: time) {
///     trim(at: tick)
///     ticker.skip(until: time) { tick in oldestEntry < tick - ageLimit }
/// }
/// ```
///
/// Tick indices are `Double`s and tick times are computed the one way ``time(ofTick:)`` does, so
/// nothing overflows or traps at any finite timestamp (10^22 s, nanosecond epochs with a 0.1 s
/// period): where the doubles cannot tell two ticks apart, they are one tick.
///
/// - Complexity: ``due(by:)`` and ``time(ofTick:)`` are O(1); ``skip(until:evicts:)`` and
///   ``firstTick(after:)`` call their predicate O(1) times when the next useful tick is the one
///   estimated, and at most about 2,000 times for any magnitudes.
@frozen
public struct VirtualTimeTicker: Sendable, Equatable {
    /// The time between ticks, in trace seconds (> 0).
    public let period: Double
    /// The time the timer started, or `nil` before it has: no tick is ever due then.
    public var start: Double?
    /// The index k of the next tick: ``due(by:)`` asks about it, ``skip(until:evicts:)`` moves it.
    public var next: Double = 1

    /// A timer that ticks every `period` (> 0) once started.
    @inlinable
    public init(period: Double) {
        self.period = period
    }

    /// The time of tick `k`. The timer must have started.
    @inlinable
    public func time(ofTick k: Double) -> Double { (start ?? 0) + k * period }

    /// The time of the next tick when it is due at or before `time`, otherwise `nil`; `nil` for
    /// a `time` that is not finite (every tick would be due by +∞, and a loop over them would
    /// never end).
    @inlinable
    public func due(by time: Double) -> Double? {
        guard start != nil, time.isFinite else { return nil }
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
    public mutating func skip(until time: Double, evicts: (Double) -> Bool) {
        let start = self.start ?? 0, period = self.period
        let following = Self.successor(of: next)
        next = Self.smallestIndex(atLeast: following, estimate: following) { k in
            let tick = start + k * period
            return tick > time || evicts(tick)
        }
    }

    /// The index of the first tick strictly after `time`.
    @inlinable
    public func firstTick(after time: Double) -> Double {
        guard let start else { return 1 }
        let period = self.period
        return Self.smallestIndex(atLeast: 1, estimate: ((time - start) / period).rounded(.down) + 1) { k in
            start + k * period > time
        }
    }

    /// The next whole number after `k` that a `Double` can hold (`k + 1`, or more beyond 2^53).
    @inlinable
    static func successor(of k: Double) -> Double { Swift.max(k + 1, k.nextUp).rounded(.up) }

    /// The smallest whole `k ≥ lowest` at which the monotone `holds` (false, then true) is true,
    /// or the largest finite `Double` when it never is. Starts at `estimate` (any value, even
    /// infinite or NaN) and gallops, then bisects: at most about 2,000 calls of `holds` whatever
    /// the magnitudes, and one or two when the estimate is right.
    @inlinable
    static func smallestIndex(atLeast lowest: Double, estimate: Double, where holds: (Double) -> Bool) -> Double {
        let top = Double.greatestFiniteMagnitude
        var guess = estimate.isNaN ? lowest : Swift.min(Swift.max(estimate, lowest), top).rounded(.down)
        if guess < lowest { guess = lowest }
        var low: Double, high: Double
        if holds(guess) {
            if guess <= lowest { return guess }
            high = guess
            var step = 1.0
            while true {
                let candidate = Swift.max(lowest, high - step)
                if candidate < high {
                    if !holds(candidate) { low = candidate; break }
                    high = candidate
                    if candidate <= lowest { return candidate }
                }
                step *= 2
            }
        } else {
            low = guess
            var step = 1.0
            while true {
                let candidate = Swift.min(top, low + step)
                if candidate > low {
                    if holds(candidate) { high = candidate; break }
                    if candidate >= top { return top }
                    low = candidate
                }
                step *= 2
            }
        }
        // holds(low) is false and holds(high) is true: bisect until no whole number lies between.
        while true {
            let middle = (low + (high - low) / 2).rounded(.down)
            guard middle > low && middle < high else { return high }
            if holds(middle) { high = middle } else { low = middle }
        }
    }
}

/// The name the app models knew the ticker by.
@usableFromInline typealias _Ticker = VirtualTimeTicker
