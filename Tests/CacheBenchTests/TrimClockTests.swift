@testable import CacheBench
import Testing

/// Trim passes are timed in processor ticks where the tick counter is invariant and reported in
/// nanoseconds; the conversion must agree with the monotonic clock.
@Suite("trim clock: ticks converted to nanoseconds")
struct TrimClockTests {
    @Test("a histogram scaled by a factor keeps its count and scales total, maximum and percentiles")
    func scaledHistogram() {
        var ticks = LatencyHistogram()
        for value in [100, 200, 300, 1_000, 10_000, 1_000_000] as [UInt64] { ticks.record(value) }
        let nanoseconds = ticks.scaled(by: 0.5)
        #expect(nanoseconds.count == 6)
        #expect(nanoseconds.total == 505_800)
        #expect(nanoseconds.maximum == 500_000)
        // Percentiles land within the histogram's 1.6 % bucket precision of the exact halves.
        let p50 = Double(nanoseconds.percentile(0.5))
        let p50Bound: Double = 150 * 0.032 + 1
        #expect(abs(p50 - 150) <= p50Bound)
        let p99 = Double(nanoseconds.percentile(0.99))
        let p99Bound: Double = 500_000 * 0.032
        #expect(abs(p99 - 500_000) <= p99Bound)
    }

    @Test("the replay loop's tally records the histogram LatencyHistogram.record does, up to UInt64.max")
    func tallyMatchesHistogram() {
        var generator = SystemRandomNumberGenerator()
        var histogram = LatencyHistogram()
        let tally = _LatencyTally()
        var values: [UInt64] = [0, 1, 127, 128, 129, 1 << 40, UInt64.max, UInt64.max - 1]
        for _ in 0..<2_000 { values.append(UInt64.random(in: 0...UInt64.max, using: &generator) >> UInt64.random(in: 0...63, using: &generator)) }
        for value in values {
            histogram.record(value)
            tally.record(value)
        }
        #expect(tally.histogram == histogram)
        #expect(tally.histogram.count == values.count)
        #expect(tally.histogram.maximum == UInt64.max)
        #expect(_LatencyTally().histogram == LatencyHistogram())
    }

    @Test("a busy-waited interval measured in converted ticks matches the monotonic clock")
    func ticksAgreeWithClock() {
        let readsTicks = _TrimClock.start()
        let startReading = _TrimClock.read(ticks: readsTicks)
        let startNanoseconds = monotonicNanoseconds()
        while monotonicNanoseconds() &- startNanoseconds < 5_000_000 {}
        let elapsedReading = _TrimClock.read(ticks: readsTicks) &- startReading
        let elapsedNanoseconds = Double(monotonicNanoseconds() &- startNanoseconds)
        let factor = readsTicks ? _TrimClock.nanosecondsPerTick() : 1
        let measured = Double(elapsedReading) * factor
        // Both clocks read the same interval (bar the reads themselves), so they agree closely.
        #expect(abs(measured - elapsedNanoseconds) <= elapsedNanoseconds * 0.05)
    }
}
