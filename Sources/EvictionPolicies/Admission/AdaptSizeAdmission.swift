import Foundation

// AdaptSize: size-aware probabilistic admission whose parameter follows the workload (Berger,
// Sitaraman, Harchol-Balter, "AdaptSize: Orchestrating the Hot Object Memory Cache in a Content
// Delivery Network", NSDI'17), as libCacheSim 0.3.5's cache/admission/adaptsize/adaptsize.cpp.
//
// Rule. Admit an object of size s with probability e^(-s / c). Every request updates per-object
// statistics of the current interval; every `reconf-interval` requests (once the objects seen
// weigh more than three cache capacities), the statistics are folded into an exponentially
// weighted history (decay 0.3), objects whose weight fell below 0.1 are forgotten, and c is set to
// the value that maximises the hit ratio the paper's Markov model predicts for that history:
// a coarse scan of log2(c) over 2, 6, 10, ... below log2(capacity), then a golden-section search
// (at most `max-iteration` steps). c starts at 2^15.

/// AdaptSize admission: probability `exp(-cost / c)` with `c` tuned to the trace by the paper's
/// model, reconfigured every ``reconfigurationInterval`` requests.
///
/// libCacheSim's parameters `max-iteration` (default 15) and `reconf-interval` (default 30000).
/// The draw is libCacheSim's (`(next_rand() % 10⁷) / 10⁷ < probability`) on a lehmer64
/// generator seeded with `seed`. libCacheSim sums the model over a hash map in its iteration
/// order; this rule sums in first-seen order, so the model's floating-point sums may differ in the
/// last bit. Where two modelled hit ratios tie to within it (a history of a few objects, as with a
/// `reconf-interval` of a few requests), the search takes the other branch and c can differ by
/// orders of magnitude, with every admission after it.
/// - Complexity: O(1) expected per request; a reconfiguration is O(objects remembered ×
///   (model evaluations ≈ 20 × (log2(capacity)/4 + max-iteration))).
public struct AdaptSizeAdmission<Key: Hashable>: AdmissionRule {
    /// The most golden-section steps per reconfiguration.
    public let maximumIterations: Int
    /// Requests between reconfigurations.
    public let reconfigurationInterval: Int
    /// The current size parameter c.
    public var sizeParameter: Double { _sizeParameter }
    @usableFromInline var _sizeParameter: Double = 32768
    @usableFromInline var random: _Lehmer64
    @usableFromInline var capacity: UInt64 = 0
    @usableFromInline var untilReconfiguration: UInt64
    // libCacheSim keeps this unsigned and lets it wrap; so does this rule.
    @usableFromInline var trackedBytes: UInt64 = 0
    @usableFromInline var interval = _ObjectStatistics<Key>()
    @usableFromInline var history = _ObjectStatistics<Key>()

    /// A rule with libCacheSim's defaults unless given.
    ///
    /// - Throws: ``AdmissionConfigurationError/invalidParameter(_:rule:value:expected:)`` when
    ///   `maximumIterations` is negative or above 1,000 (each step of a reconfiguration evaluates
    ///   the model about 20 times over every object seen since the last: beyond that a run's time
    ///   is the search's), or `reconfigurationInterval` is below 1.
    public init(maximumIterations: Int = 15, reconfigurationInterval: Int = 30000,
                seed: UInt64 = 1) throws(AdmissionConfigurationError) {
        guard maximumIterations >= 0 && maximumIterations <= 1_000 else {
            throw .invalidParameter("max-iteration", rule: "adaptsize", value: "\(maximumIterations)",
                                    expected: "a whole number from 0 to 1000")
        }
        guard reconfigurationInterval >= 1 else {
            throw .invalidParameter("reconf-interval", rule: "adaptsize", value: "\(reconfigurationInterval)",
                                    expected: "a whole number of at least 1")
        }
        self.maximumIterations = maximumIterations
        self.reconfigurationInterval = reconfigurationInterval
        untilReconfiguration = UInt64(reconfigurationInterval)
        random = _Lehmer64(seed: seed)
    }

    @inlinable
    public mutating func admits(_ key: Key, cost: Int) -> Bool {
        random.nextFraction() < exp(-Double(cost) / _sizeParameter)
    }

    /// libCacheSim's `updateStats`: reconfigure if due, then count the request.
    ///
    /// Inlinable, as everything it calls on each request: the statistics are keyed by `Key`, and
    /// compiled where `Key` is concrete their lookups are direct (generic, each one went through
    /// the key type's metadata: 12 % of a replay's time).
    @inlinable
    public mutating func observe(_ key: Key, cost: Int, capacity: Int) {
        self.capacity = UInt64(Swift.max(capacity, 0))
        reconfigureIfDue()
        let size = Int64(cost)
        let inInterval = interval.index(of: key)
        let inHistory = history.index(of: key)
        if inInterval == nil && inHistory == nil {
            trackedBytes &+= UInt64(bitPattern: size)
        } else {
            if let i = inInterval, interval.sizes[i] != size {
                trackedBytes = trackedBytes &- UInt64(bitPattern: interval.sizes[i]) &+ UInt64(bitPattern: size)
            }
            if let i = inHistory, history.sizes[i] != size {
                trackedBytes = trackedBytes &- UInt64(bitPattern: history.sizes[i]) &+ UInt64(bitPattern: size)
            }
        }
        let i = inInterval ?? interval.append(key)
        interval.weights[i] += 1
        interval.sizes[i] = size
    }

    @inlinable @inline(__always)
    mutating func reconfigureIfDue() {
        untilReconfiguration &-= 1
        if untilReconfiguration == 0 { reconfigure() }
    }

    /// Fits the size parameter to the history, every reconfiguration interval.
    @inlinable @inline(never)
    mutating func reconfigure() {
        guard trackedBytes > capacity &* 3 else {
            untilReconfiguration &+= 1000
            return
        }
        untilReconfiguration = UInt64(reconfigurationInterval)
        foldIntervalIntoHistory()
        let model = _AdaptSizeModel(weights: history.weights, sizes: history.sizes.map(Double.init),
                                    capacity: Double(capacity))
        if let best = model.bestLog2SizeParameter(maximumIterations: maximumIterations,
                                                  log2Capacity: log2(Double(capacity))) {
            _sizeParameter = pow(2, best)
        }
    }

    /// Decays the history, adds the interval to it, and forgets objects whose weight fell
    /// below 0.1.
    @inlinable
    mutating func foldIntervalIntoHistory() {
        let decay = 0.3
        for i in history.weights.indices { history.weights[i] *= decay }
        for (i, key) in interval.keys.enumerated() {
            if let j = history.index(of: key) {
                history.weights[j] += (1 - decay) * interval.weights[i]
                history.sizes[j] = interval.sizes[i]
            } else {
                let j = history.append(key)
                history.weights[j] = interval.weights[i]
                history.sizes[j] = interval.sizes[i]
            }
        }
        interval = _ObjectStatistics()
        var kept = _ObjectStatistics<Key>()
        for (i, key) in history.keys.enumerated() {
            if history.weights[i] < 0.1 {
                trackedBytes &-= UInt64(bitPattern: history.sizes[i])
                continue
            }
            let j = kept.append(key)
            kept.weights[j] = history.weights[i]
            kept.sizes[j] = history.sizes[i]
        }
        history = kept
    }
}

/// Per-object request weights and sizes in first-seen order, with an index by key.
@usableFromInline
struct _ObjectStatistics<Key: Hashable> {
    @usableFromInline var keys: [Key] = []
    @usableFromInline var weights: [Double] = []
    @usableFromInline var sizes: [Int64] = []
    @usableFromInline var positions: [Key: Int] = [:]

    @inlinable init() {}

    @inlinable func index(of key: Key) -> Int? { positions[key] }

    /// Adds `key` with weight 0 and size 0; returns its index.
    @inlinable mutating func append(_ key: Key) -> Int {
        positions[key] = keys.count
        keys.append(key)
        weights.append(0)
        sizes.append(0)
        return keys.count - 1
    }
}

extension AdaptSizeAdmission: Sendable where Key: Sendable {}
extension _ObjectStatistics: Sendable where Key: Sendable {}
