extension RequestWindow {
    /// This window for a run at `capacity`: with a sampling ratio and a `minimumScaled`
    /// capacity, the ratio is raised (up to 1) so the run's scaled capacity is at least that.
    func forCapacity(_ capacity: Int?, minimumScaled: Int?) -> RequestWindow {
        guard let ratio = sampleRatio, ratio < 1, let minimumScaled, let capacity, capacity > 0 else { return self }
        var window = self
        window.sampleRatio = min(1, max(ratio, Double(minimumScaled) / Double(capacity)))
        // A raised ratio draws another sample, whose share was not measured.
        if window.sampleRatio != ratio { window.capacityRatio = nil }
        return window
    }

    /// The window the shared stream is read through: this one, sampling at the largest ratio of
    /// `runs` (1, every key, when a run needs them all).
    func covering(_ runs: [RequestWindow]) -> RequestWindow {
        guard sampleRatio != nil, !runs.isEmpty else { return self }
        var window = self
        window.sampleRatio = runs.map { $0.sampleRatio ?? 1 }.max() ?? 1
        return window
    }

    /// The filter a run applies to the stream to keep its own, smaller sample; `nil` when the
    /// stream's sample is the run's. Samples nest: a key whose hash is below the run's threshold
    /// is below the stream's, so the run sees exactly what a stream at its ratio would give it.
    func nestedFilter(within stream: RequestWindow) -> _NestedSample? {
        guard let own = keepBelow, own != stream.keepBelow else { return nil }
        return _NestedSample(keepBelow: own, salt: SpatialSample.salt(seed: sampleSeed))
    }
}

/// A run's own sample inside the stream's, filtered into a buffer the run keeps (no allocation
/// per batch once it has grown).
final class _NestedSample: @unchecked Sendable {
    private let keepBelow: UInt64
    private let salt: UInt64
    private var kept: [Request] = []

    init(keepBelow: UInt64, salt: UInt64) {
        self.keepBelow = keepBelow
        self.salt = salt
    }

    /// The requests of `batch` whose key is in the sample.
    func filter(_ batch: [Request]) -> [Request] {
        kept.removeAll(keepingCapacity: true)
        // Events have no key: every sample keeps them.
        for request in batch where SpatialSample.hash(request.key, salt: salt) < keepBelow || !request.operation.hasKey {
            kept.append(request)
        }
        return kept
    }
}
