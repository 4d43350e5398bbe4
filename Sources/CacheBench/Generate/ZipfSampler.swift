#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Draws ranks from a Zipf distribution: rank k (1-based) of `n` has probability proportional
/// to 1 / k^alpha, so alpha = 0 is uniform and larger alphas concentrate on the first ranks.
///
/// Exact inversion of a cumulative table with binary search: O(n) memory built once, O(log n)
/// per draw, and no approximation to argue about. The table uses `pow`, so a seed reproduces
/// the same ranks on a given platform's math library (every test and committed trace here was
/// made on Linux).
public struct ZipfSampler: Sendable {
    /// The number of ranks.
    public let count: Int
    /// The exponent.
    public let alpha: Double
    /// cumulative[i] = P(rank <= i + 1), ending at exactly 1.
    private let cumulative: [Double]

    /// Creates a sampler over ranks 1...count.
    ///
    /// - Precondition: `count >= 1` and `alpha >= 0`, checked by the callers that parse options.
    public init(count: Int, alpha: Double) {
        precondition(count >= 1 && alpha >= 0 && alpha.isFinite, "Zipf needs at least one rank and a finite alpha >= 0")
        self.count = count
        self.alpha = alpha
        var weights = [Double](repeating: 0, count: count)
        var total = 0.0
        for k in 0..<count {
            let weight = alpha == 0 ? 1 : 1 / pow(Double(k + 1), alpha)
            total += weight
            weights[k] = total
        }
        for k in 0..<count { weights[k] /= total }
        weights[count - 1] = 1
        cumulative = weights
    }

    /// The rank (1-based) whose cumulative interval contains `u`, for `u` in [0, 1).
    public func rank(forUnit u: Double) -> Int {
        var low = 0, high = count - 1
        while low < high {
            let middle = (low + high) / 2
            if cumulative[middle] > u { high = middle } else { low = middle + 1 }
        }
        return low + 1
    }

    /// The probability of rank `k` (1-based).
    public func probability(ofRank k: Int) -> Double {
        k == 1 ? cumulative[0] : cumulative[k - 1] - cumulative[k - 2]
    }

    /// Draws one rank (1-based).
    public func next(using random: inout Xoshiro256StarStar) -> Int { rank(forUnit: random.nextUnit()) }
}
