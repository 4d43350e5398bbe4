@testable import EvictionPolicies
import Testing
import TestSupport

/// `_HyperbolicRate`'s order against the obviously correct one, libCacheSim's: its `Double`
/// score, 10^8 × frequency / age, compared with `<`.
@Suite("Hyperbolic's rate order")
struct HyperbolicRateTests {
    /// libCacheSim's comparison, written out.
    static func scoreIsLower(_ a: (UInt32, Int64), _ b: (UInt32, Int64)) -> Bool {
        1.0e8 * Double(a.0) / Double(a.1) < 1.0e8 * Double(b.0) / Double(b.1)
    }

    static func rate(_ value: (UInt32, Int64)) -> _HyperbolicRate {
        // entered 0, `requests` = the age.
        _HyperbolicRate((frequency: value.0, entered: 0), at: value.1)
    }

    @Test("hand-worked: equal rates are not lower either way; 1/3 is below 2/5; scores that round equal stay equal")
    func handWorked() {
        #expect(!(Self.rate((1, 2)) < Self.rate((2, 4))))
        #expect(!(Self.rate((2, 4)) < Self.rate((1, 2))))
        #expect(Self.rate((1, 3)) < Self.rate((2, 5)))
        #expect(!(Self.rate((2, 5)) < Self.rate((1, 3))))
        // Ages past 2^53 are rounded to a Double: two different ages can give one score, and
        // then neither is lower, as in libCacheSim, though the exact rates differ.
        let big = Int64(1) << 54
        let rateAtBig: Double = 1.0e8 / Double(big), rateAtBigPlusOne: Double = 1.0e8 / Double(big + 1)
        #expect(rateAtBig == rateAtBigPlusOne)
        #expect(!(Self.rate((1, big + 1)) < Self.rate((1, big))))
        #expect(!(Self.rate((1, big)) < Self.rate((1, big + 1))))
    }

    @Test("the same order as the Double scores on random rates, small, near-equal and huge", arguments: [1, 2, 3])
    func matchesScores(seed: UInt64) {
        var random = SeededRandom(seed: seed)
        for step in 0..<200_000 {
            let a: (UInt32, Int64), b: (UInt32, Int64)
            switch step % 4 {
            case 0:  // small: many exact ties
                a = (UInt32(random.next() % 8 + 1), Int64(random.next() % 16 + 1))
                b = (UInt32(random.next() % 8 + 1), Int64(random.next() % 16 + 1))
            case 1:  // a trace's range
                a = (UInt32(random.next() % 100_000 + 1), Int64(random.next() % 10_000_000 + 1))
                b = (UInt32(random.next() % 100_000 + 1), Int64(random.next() % 10_000_000 + 1))
            case 2:  // near-equal rates with large ages
                let f = UInt32(random.next() % 1_000 + 1), age = Int64(random.next() % (1 << 50) + 1)
                a = (f, age)
                b = (f, age + Int64(random.next() % 3))
            default:  // anything, ages up to 2^62
                a = (UInt32(truncatingIfNeeded: random.next()) | 1, Int64(random.next() >> 2) | 1)
                b = (UInt32(truncatingIfNeeded: random.next()) | 1, Int64(random.next() >> 2) | 1)
            }
            let lower = Self.rate(a) < Self.rate(b)
            if lower != Self.scoreIsLower(a, b) {
                Issue.record("\(a) < \(b): \(lower), the scores say \(!lower)")
                return
            }
        }
    }
}
