import Foundation

/// An analytic model of a cache's misses from each key's request count alone, the control
/// variate of ``MiniatureSimulation``: evaluated on every key at the full capacity and on the
/// sampled keys at the miniature's, its two answers differ by what the sample's luck does to
/// the model, which is most of what it does to the simulation.
///
/// Under the independent reference model a key requested `r` times in a trace is requested at
/// rate `r` per trace; with a characteristic time `τ` (in traces) a request hits with
/// probability `h(r·τ)`, and `τ` is the one for which the keys' expected occupancy fills the
/// capacity: `Σ size · h(r·τ) = capacity`.
/// - ``Form/lru``: Che's approximation, `h(x) = 1 − e^(−x)` (a key stays while it is requested
///   again within `τ`).
/// - ``Form/fifo``: FIFO's and RANDOM's, `h(x) = x / (1 + x)` (Gelenbe; Martina et al., 2014):
///   a hit does not extend the key's stay.
///
/// A key's first request is a miss (compulsory); each later one misses with probability
/// `1 − h(r·τ)`. Keys are grouped by request count, so a solution costs
/// O(groups · iterations) whatever the number of keys.
struct _RequestCountModel {
    /// The keys with one request count.
    struct Group: Equatable {
        /// Requests of each key.
        var requests: Double
        /// Keys with that count.
        var keys: Double
        /// Their sizes added up.
        var bytes: Double
    }

    /// Which hit probability a characteristic time gives.
    enum Form: String, Sendable, CaseIterable {
        /// Che's approximation for LRU.
        case lru
        /// FIFO's and RANDOM's approximation.
        case fifo

        @inline(__always)
        func hitProbability(_ x: Double) -> Double {
            switch self {
            case .lru: -expm1(-x)
            case .fifo: x / (1 + x)
            }
        }
    }

    /// Expected misses and missed bytes.
    struct Misses: Equatable {
        var requests: Double
        var bytes: Double
    }

    let groups: [Group]
    let form: Form

    /// The expected misses of a cache of `capacity` (objects when `ignoreSize`, else bytes).
    func misses(capacity: Double, ignoreSize: Bool) -> Misses {
        let tau = characteristicTime(capacity: capacity, ignoreSize: ignoreSize)
        var misses = Misses(requests: 0, bytes: 0)
        for group in groups {
            let missing = tau.isInfinite ? 0 : 1 - form.hitProbability(group.requests * tau)
            let perKey = 1 + (group.requests - 1) * missing
            misses.requests += group.keys * perKey
            misses.bytes += group.bytes * perKey
        }
        return misses
    }

    /// Keys' expected occupancy at `tau`: objects or bytes.
    private func occupancy(_ tau: Double, ignoreSize: Bool) -> Double {
        var total = 0.0
        for group in groups {
            total += (ignoreSize ? group.keys : group.bytes) * form.hitProbability(group.requests * tau)
        }
        return total
    }

    /// The `τ` whose occupancy is `capacity`: infinite when every key fits, 0 for no capacity;
    /// by bisection on `log τ` (occupancy grows with `τ`), to a relative 2^−40.
    func characteristicTime(capacity: Double, ignoreSize: Bool) -> Double {
        let whole = groups.reduce(0.0) { $0 + (ignoreSize ? $1.keys : $1.bytes) }
        guard capacity > 0 else { return 0 }
        guard capacity < whole else { return .infinity }
        var low = 1.0, high = 1.0
        while occupancy(low, ignoreSize: ignoreSize) > capacity && low > 1e-300 { low /= 1024 }
        while occupancy(high, ignoreSize: ignoreSize) < capacity && high < 1e300 { high *= 1024 }
        for _ in 0..<80 {
            let middle = (low * high).squareRoot()
            if occupancy(middle, ignoreSize: ignoreSize) < capacity { low = middle } else { high = middle }
            if high / low < 1 + 0x1p-40 { break }
        }
        return (low * high).squareRoot()
    }
}
