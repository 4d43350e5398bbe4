@testable import EvictionPolicies
import Testing

@Suite("_Ticker: periodic timers in trace time")
struct TickerTests {
    /// Fires every due tick up to `time`, as the timed models do: each tick removes the entries
    /// whose deadline it has reached, and the ticks that would remove nothing are skipped.
    /// - Returns: the ticks that fired.
    func fire(_ ticker: inout _Ticker, until time: Double, deadlines: inout [Double]) -> [Double] {
        var fired: [Double] = []
        while let tick = ticker.due(by: time) {
            fired.append(tick)
            deadlines.removeAll { $0 <= tick }
            let earliest = deadlines.min() ?? .infinity
            ticker.skip(until: time) { earliest <= $0 }
        }
        return fired
    }

    @Test("ticks fall at start + k·period; none before the first advance; the boundary is inclusive")
    func schedule() {
        var ticker = _Ticker(period: 60)
        #expect(ticker.due(by: 1e9) == nil, "not started")
        ticker.start = 10
        #expect(ticker.due(by: 69.9) == nil && ticker.due(by: 70) == 70)
        var deadlines = [0.0, 100, 150, 1000]
        #expect(fire(&ticker, until: 200, deadlines: &deadlines) == [70, 130, 190])
        #expect(ticker.next == 4 && deadlines == [1000])
    }

    @Test("skip jumps to the first tick that can do something, else past the time")
    func skipping() {
        var ticker = _Ticker(period: 0.5)
        ticker.start = 0
        var deadlines = [1000.2, 5e9]
        #expect(fire(&ticker, until: 1e12, deadlines: &deadlines) == [0.5, 1000.5, 5e9])
        #expect(ticker.next == ticker.firstTick(after: 1e12) && deadlines.isEmpty)
        var idle = _Ticker(period: 3)
        idle.start = 1
        var none: [Double] = []
        #expect(fire(&idle, until: 100, deadlines: &none) == [4])
        #expect(idle.due(by: 100) == nil && idle.due(by: 100.0001) == nil && idle.due(by: 103) == 103)
    }

    @Test("firstTick(after:) is exact at boundaries despite floating point", arguments: [0.1, 0.3, 1.0 / 3, 7, 60])
    func boundaries(period: Double) {
        var ticker = _Ticker(period: period)
        ticker.start = 0.7
        for k: Double in [1, 2, 10, 1_000, 123_457] {
            let tick = ticker.time(ofTick: k)
            #expect(ticker.firstTick(after: tick) == k + 1)
            #expect(ticker.firstTick(after: tick.nextDown) == k)
        }
    }

    @Test("any finite time: huge gaps and nanosecond epochs finish in a bounded number of ticks")
    func hugeTimes() {
        for (start, period, end) in [(0.0, 10.0, 1e22), (1.7e18, 0.1, 1.7e18 + 1e13), (0, 0.001, 1e308), (-1e300, 1e-9, 1e300)] {
            var ticker = _Ticker(period: period)
            ticker.start = start
            var deadlines = [start + 1, end / 2, end]
            let fired = fire(&ticker, until: end, deadlines: &deadlines)
            #expect(fired.count <= 4 && fired == fired.sorted())
            #expect(ticker.due(by: end) == nil, "every due tick fired")
            #expect(ticker.time(ofTick: ticker.next) > end)
        }
    }

    @Test("smallestIndex agrees with a linear search on random monotone predicates")
    func smallestIndexReference() {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<2_000 {
            let threshold = Double(Int.random(in: 0...5_000, using: &generator))
            let lowest = Double(Int.random(in: 0...3_000, using: &generator))
            let estimate = [Double.nan, .infinity, -.infinity, Double(Int.random(in: -10...9_000, using: &generator))].randomElement(using: &generator) ?? 0
            let found = _Ticker.smallestIndex(atLeast: lowest, estimate: estimate) { $0 >= threshold }
            #expect(found == max(lowest, threshold))
        }
        // Beyond 2^53 whole numbers are sparse; the answer is still the first that holds.
        let big = 1e20
        #expect(_Ticker.smallestIndex(atLeast: 1, estimate: 5) { $0 >= big } == big)
        #expect(_Ticker.smallestIndex(atLeast: 1, estimate: 1) { _ in false } == .greatestFiniteMagnitude)
    }
}
