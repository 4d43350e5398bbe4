import _CSupport

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Nanoseconds from the monotonic clock (`clock_gettime(CLOCK_MONOTONIC)`, a vDSO call on Linux).
@usableFromInline @inline(__always)
func monotonicNanoseconds() -> UInt64 {
    var time = timespec()
    clock_gettime(CLOCK_MONOTONIC, &time)
    return UInt64(time.tv_sec) &* 1_000_000_000 &+ UInt64(time.tv_nsec)
}

/// The clock that times trim passes, read twice per pass, so at up to one pass per request it
/// must be cheap: the processor's tick counter (`rdtsc`, about half the cost of the vDSO
/// `clock_gettime`) where it runs at a constant rate, monotonic nanoseconds elsewhere.
///
/// Ticks are turned into nanoseconds with a rate measured against the monotonic clock from the
/// first use in the process to the conversion, which spans the whole replay.
@usableFromInline
enum _TrimClock {
    /// Whether readings are processor ticks rather than nanoseconds.
    static let readsTicks = _cs_ticks_are_invariant() != 0
    /// The first joint reading of both clocks, the start of the rate's measuring interval.
    static let origin = (ticks: _cs_ticks(), nanoseconds: monotonicNanoseconds())

    /// Starts the measuring interval if it has not started; returns whether readings are ticks.
    static func start() -> Bool {
        _ = origin
        return readsTicks
    }

    /// A reading: ticks when `ticks`, else nanoseconds.
    @inlinable @inline(__always)
    static func read(ticks: Bool) -> UInt64 {
        ticks ? _cs_ticks() : monotonicNanoseconds()
    }

    /// Nanoseconds per tick, measured since ``origin`` over at least a millisecond.
    static func nanosecondsPerTick() -> Double {
        var elapsedNanoseconds = monotonicNanoseconds() &- origin.nanoseconds
        while elapsedNanoseconds < 1_000_000 {
            elapsedNanoseconds = monotonicNanoseconds() &- origin.nanoseconds
        }
        let elapsedTicks = _cs_ticks() &- origin.ticks
        guard elapsedTicks > 0 else { return 1 }
        return Double(elapsedNanoseconds) / Double(elapsedTicks)
    }
}
