import Foundation

/// AdaptSize's model of the hit ratio a size parameter c would give (the paper's Markov-chain
/// approximation, with libCacheSim's fixed-point iteration and Padé-style terms), and the search
/// for the best log2(c). Each evaluation is O(objects).
@usableFromInline
struct _AdaptSizeModel {
    let weights: [Double]
    let sizes: [Double]
    let capacity: Double

    @usableFromInline
    init(weights: [Double], sizes: [Double], capacity: Double) {
        self.weights = weights
        self.sizes = sizes
        self.capacity = capacity
    }

    /// The golden-section ratio and its complement, and the search's relative tolerance.
    static let ratio = 0.61803399
    static let tolerance = 3.0e-8

    /// The log2(c) with the best modelled hit ratio, or `nil` when the model gave NaN.
    @usableFromInline
    func bestLog2SizeParameter(maximumIterations: Int, log2Capacity: Double) -> Double? {
        let r = Self.ratio, v = 1 - Self.ratio
        var x0 = 0.0, x1 = log2Capacity, x2 = x1, x3 = x1
        var best = 0.0
        // A coarse scan: log2(c) = 2, 6, 10, ... below log2(capacity).
        var candidate = 2
        while Double(candidate) < x3 {
            let rate = hitRate(log2SizeParameter: Double(candidate))
            if rate > best {
                best = rate
                x1 = Double(candidate)
            }
            candidate += 4
        }
        var h1 = best, h2 = 0.0
        if x3 - x1 > x1 - x0 {
            x2 = x1 + v * (x3 - x1)
            h2 = hitRate(log2SizeParameter: x2)
        } else {
            x2 = x1
            h2 = h1
            x1 = x0 + v * (x1 - x0)
            h1 = hitRate(log2SizeParameter: x1)
        }
        var iteration = 0
        while iteration < maximumIterations && abs(x3 - x0) > Self.tolerance * (abs(x1) + abs(x2)) {
            iteration += 1
            if h1.isNaN || h2.isNaN { break }
            if h2 > h1 {
                x0 = x1
                x1 = x2
                x2 = r * x1 + v * x3
                h1 = h2
                h2 = hitRate(log2SizeParameter: x2)
            } else {
                x3 = x2
                x2 = x1
                x1 = r * x2 + v * x0
                h2 = h1
                h1 = hitRate(log2SizeParameter: x1)
            }
        }
        if h1.isNaN || h2.isNaN { return nil }
        return h1 > h2 ? x1 : x2
    }

    /// The modelled hit ratio (weighted by request rate) for c = 2^`log2SizeParameter`.
    func hitRate(log2SizeParameter: Double) -> Double {
        let c = pow(2, log2SizeParameter)
        var weightedBytes = 0.0
        for i in weights.indices {
            weightedBytes += weights[i] * exp(-sizes[i] / c) * sizes[i]
        }
        if weightedBytes <= 0 { return 0 }
        var t = capacity / weightedBytes
        let admission = sizes.map { exp(-$0 / pow(2.0, log2SizeParameter)) }
        // The characteristic time t that fills the cache, by fixed-point iteration.
        for _ in 0..<20 {
            if t > 1e70 { break }
            var filled = 0.0
            for i in weights.indices {
                let product = weights[i] * t
                if product > 150 {
                    filled += sizes[i]
                } else {
                    let admitted = admission[i] * (exp(product) - 1)
                    filled += sizes[i] * (admitted / (1 + admitted))
                }
            }
            t = capacity * t / filled
        }
        var rate = 0.0
        for i in weights.indices {
            let numerator = Self.numerator(t, weights[i], admission[i])
            let denominator = Self.denominator(t, weights[i], admission[i])
            var hit = numerator != 0 && denominator == 0 ? 0 : numerator / denominator
            if hit < 0 { hit = 0 } else if hit > 1 { hit = 1 }
            rate += weights[i] * hit
        }
        return rate
    }

    // The paper's hit-probability approximation for an object of rate l and admission
    // probability p at characteristic time T, evaluated in libCacheSim's operation order.
    static func numerator(_ T: Double, _ l: Double, _ p: Double) -> Double {
        let a = 60.0 * l * T
        let b = 20.0 * l * l * T * T
        let c = l * l * l * T * T * T
        return l * p * T * (840.0 + a + b + c)
    }

    static func denominator(_ T: Double, _ l: Double, _ p: Double) -> Double {
        let a = 120.0 * l * (-3.0 + 7.0 * p) * T
        let b = 60.0 * l * l * (1.0 + p) * T * T
        let c = 4.0 * l * l * l * (-1.0 + 5.0 * p) * T * T * T
        let d = l * l * l * l * p * T * T * T * T
        return 840.0 + a + b + c + d
    }
}
