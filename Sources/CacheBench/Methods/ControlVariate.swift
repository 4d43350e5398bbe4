/// The control variate of ``MiniatureSimulation``: per capacity, what a request-count model
/// says about the census (every key, or a nested sample at the census's ratio `c` that holds the
/// miniature's, at `c` times the capacity, scaled up by `1/c`) minus what it says about the
/// sample at the miniature's capacity, scaled up by the ratio as the simulation's misses are.
///
/// Its expectation over samples is about 0, so adding it leaves the estimate centred where it
/// was; it varies with the sample as the simulation's scaled misses do (both rise when the
/// sample holds more than its share of the keys that miss), so the sum varies less. A census
/// of a fraction `c` of the keys adds the model's own sampling error at `c`: about
/// `√((1 − c)/c · r/(1 − r))` of the model's error at the miniature's ratio `r`, and 0 at `c = 1`.
struct _ControlVariate {
    let form: _RequestCountModel.Form
    private let census: _KeyCensus
    private let ignoreSize: Bool
    private let whole: _RequestCountModel
    /// The sampled keys' model for each sampling threshold asked so far (nested runs sample more).
    private var samples: [UInt64: _RequestCountModel] = [:]

    init(census: _KeyCensus, form: _RequestCountModel.Form, ignoreSize: Bool) {
        self.form = form
        self.census = census
        self.ignoreSize = ignoreSize
        whole = _RequestCountModel(groups: census.groups(keepBelow: nil), form: form)
        censusRatio = census.ratio
    }

    /// The fraction of the key space the census counted (1: every key).
    private let censusRatio: Double

    /// The model's misses for a run at full `capacity` whose miniature held `miniature`, on a
    /// sample at `ratio`: on the census at its share of the full capacity, scaled up by the
    /// census's ratio (exact with every key counted), and on the sampled keys at the
    /// miniature's capacity scaled up by the ratio; `nil` without both capacities or for an
    /// unsampled run.
    mutating func evaluate(capacity: Int?, miniature: Int?, ratio: Double) -> (full: _RequestCountModel.Misses,
                                                                              miniature: _RequestCountModel.Misses)? {
        guard let capacity, let miniature, let keepBelow = RequestWindow(sampleRatio: ratio).keepBelow else { return nil }
        let sample: _RequestCountModel
        if let known = samples[keepBelow] {
            sample = known
        } else {
            sample = _RequestCountModel(groups: census.groups(keepBelow: keepBelow), form: form)
            samples[keepBelow] = sample
        }
        let population = whole.misses(capacity: Double(capacity) * censusRatio, ignoreSize: ignoreSize)
        let full = _RequestCountModel.Misses(requests: population.requests / censusRatio, bytes: population.bytes / censusRatio)
        let mini = sample.misses(capacity: Double(miniature), ignoreSize: ignoreSize)
        return (full, .init(requests: mini.requests / ratio, bytes: mini.bytes / ratio))
    }
}

/// The corrections of a curve's runs from the two model forms, blended by the weight that best
/// predicts the simulation on the sample.
///
/// A policy is not exactly either model, so which to use is read from the sample itself: the
/// weight `w` (0 to 1) of Che's LRU form against FIFO's that fits the miniatures' own scaled
/// misses best, by least squares over the curve's capacities (`w = Σ x·y / Σ x²`, with
/// `x = M_lru − M_fifo` and `y = misses − M_fifo` on the sample). The correction of each run is
/// then the blended model's `M_census / c − M_mini / ratio`. Misses and missed bytes get their own
/// weight. The fit knows no policy: LRU's miniatures come out near 1, FIFO's near 0.
struct _BlendedControlVariate {
    /// The weights of the LRU form, for misses and for missed bytes.
    private(set) var weights = (requests: 1.0, bytes: 1.0)
    /// The correction of each run, `nil` where the models have nothing to say.
    private(set) var corrections: [_RequestCountModel.Misses?] = []

    /// `runs`: each run's full and miniature capacities, ratio and the sample's scaled misses.
    init(census: _KeyCensus, ignoreSize: Bool, forms: [_RequestCountModel.Form],
         runs: [(capacity: Int?, miniature: Int?, ratio: Double, misses: _RequestCountModel.Misses)]) {
        var models = forms.map { _ControlVariate(census: census, form: $0, ignoreSize: ignoreSize) }
        // Per run, per form: the model's misses on the whole trace and on the sample.
        let evaluated = runs.map { run in
            models.indices.map { models[$0].evaluate(capacity: run.capacity, miniature: run.miniature, ratio: run.ratio) }
        }
        if forms.count == 2 {
            func fit(_ value: (_RequestCountModel.Misses) -> Double) -> Double {
                var xy = 0.0, xx = 0.0
                for (run, models) in zip(runs, evaluated) {
                    guard let lru = models[0], let fifo = models[1] else { continue }
                    let x = value(lru.miniature) - value(fifo.miniature)
                    xy += x * (value(run.misses) - value(fifo.miniature))
                    xx += x * x
                }
                return xx > 0 ? min(1, max(0, xy / xx)) : 1
            }
            weights = (fit(\.requests), fit(\.bytes))
        } else {
            weights = forms.first == .fifo ? (0, 0) : (1, 1)
        }
        corrections = evaluated.map { models in
            guard models.allSatisfy({ $0 != nil }) else { return nil }
            func blend(_ value: (_RequestCountModel.Misses) -> Double, _ weight: Double) -> Double {
                let corrected = models.compactMap { $0.map { value($0.full) - value($0.miniature) } }
                return corrected.count == 2 ? weight * corrected[0] + (1 - weight) * corrected[1] : corrected[0]
            }
            return .init(requests: blend(\.requests, weights.requests), bytes: blend(\.bytes, weights.bytes))
        }
    }
}

extension MiniatureSimulation.Estimator.Model {
    /// The model forms this choice blends: both (LRU's first) for ``automatic``, else its own.
    var forms: [_RequestCountModel.Form] {
        switch self {
        case .automatic: [.lru, .fifo]
        case .lru: [.lru]
        case .fifo: [.fifo]
        }
    }
}
