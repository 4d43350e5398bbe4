import EvictionPolicies
/// The part of a trace a run measures, as papers set it up: a warm-up whose requests fill the
/// cache but are not counted, a cap on the rows read, spatial sampling (SHARDS), and miss
/// ratios reported per interval.
///
/// Row counts (`--warmup 100000req`, `--max-requests`, `--report-interval 1000000req`) count
/// the trace's rows as read, before sampling, so a sampled run warms up and stops on the same
/// stretch of the trace as the full run; all three leave out the gets and sets of size 0 that a
/// replay skips, so a warm-up of N ends where a cap of N stops. Durations count trace time from
/// the first row.
public struct RequestWindow: Sendable, Equatable {
    /// Requests before this point fill the cache; statistics start after it.
    public var warmup: TraceSpan?
    /// Read at most this many rows of the trace (warm-up included), not counting the gets and
    /// sets of size 0 that a replay skips (``Request/isSkippedForSize``), as libCacheSim's `-n`.
    public var maxRequests: Int?
    /// Keep the keys whose hash falls below `ratio · 2^64` (SHARDS); capacities scale by it.
    public var sampleRatio: Double?
    /// Report the miss ratio and byte miss ratio of each interval of this length after warm-up.
    public var reportInterval: TraceSpan?
    /// Which sample `sampleRatio` draws: each seed hashes the keys differently, so runs with
    /// several seeds show how much an estimate depends on the keys that happened to be kept.
    /// Seed 0 is the default hash.
    public var sampleSeed: UInt64
    /// What a sampled run's capacities and sizes scale by, when not `sampleRatio`: the sample's
    /// own share of the working set (its objects', or bytes', fraction of the whole), as
    /// ``MiniatureSimulation`` measures it. A sample holds `sampleRatio` of the keys only on
    /// average; scaled by its own share, the miniature cache stands to the sample's working set
    /// exactly as the full cache to the trace's, so a curve's cliff (a loop as large as the
    /// cache) falls at the same capacity. `nil`: the sampling ratio.
    public var capacityRatio: Double?

    /// Creates a window; `nil` everywhere is the whole trace.
    public init(warmup: TraceSpan? = nil, maxRequests: Int? = nil, sampleRatio: Double? = nil,
                reportInterval: TraceSpan? = nil, sampleSeed: UInt64 = 0) {
        self.warmup = warmup
        self.maxRequests = maxRequests
        self.sampleRatio = sampleRatio
        self.reportInterval = reportInterval
        self.sampleSeed = sampleSeed
    }

    /// No warm-up, cap, sampling or intervals: the stream passes untouched.
    public var isWholeTrace: Bool { self == RequestWindow() }

    /// Whether statistics must be cut at points of the stream (warm-up end, interval ends).
    public var needsMeter: Bool { warmup != nil || reportInterval != nil }

    /// The sampling threshold, or `nil` when every key is kept.
    var keepBelow: UInt64? {
        guard let ratio = sampleRatio, ratio < 1 else { return nil }
        let scaled = ratio * 0x1p64
        return scaled >= 0x1p64 ? UInt64.max : UInt64(scaled)
    }

    /// `capacity` scaled by the sampling ratio, at least 1; `capacity` itself without sampling.
    ///
    /// A sampled trace keeps about `ratio` of the objects and of their bytes, so a cache of
    /// `ratio · capacity` sees it as the full cache sees the full trace (SHARDS, MINISIM).
    public func scaled(_ capacity: Int) -> Int {
        guard let ratio = sampleRatio, ratio < 1 else { return capacity }
        return max(1, _saturatingInt((Double(capacity) * (capacityRatio ?? ratio)).rounded()))
    }

    /// A policy's options for a miniature cache: each value that is a size with a unit
    /// (`preferred=60MiB`), and each whole number of a parameter that is an amount in the
    /// capacity's units (``PolicyParameter/scalesWithCapacity``: `free-disk-space-limit=500000000`),
    /// scaled by the ratio, as the capacity is, so that a size and the same fraction of the
    /// capacity (`preferred=0.6`) stay the same cache. Other values as given.
    ///
    /// - Parameter descriptor: the policy's, whose parameters say which scale; `nil` scales sizes
    ///   with a unit only.
    public func scaled(_ options: PolicyOptions, for descriptor: PolicyDescriptor? = nil) -> PolicyOptions {
        guard let ratio = sampleRatio, ratio < 1 else { return options }
        let amounts = Set((descriptor?.parameters ?? []).filter(\.scalesWithCapacity)
            .flatMap { [$0.name] + $0.aliases }.map { $0.lowercased() })
        let factor = capacityRatio ?? ratio
        var scaled = options
        for (key, value) in options.values {
            if let bytes = PolicyOptions.parseSize(value) {
                scaled.values[key] = "\(_saturatingInt((Double(bytes) * factor).rounded()))B"
            } else if amounts.contains(key.lowercased()), let amount = Int(value.trimmingSpaces), amount > 0 {
                // At least 1, as the capacity: a positive amount does not turn into "off".
                scaled.values[key] = "\(max(1, _saturatingInt((Double(amount) * factor).rounded())))"
            }
        }
        return scaled
    }

    /// The error of a run of `file` that saw no rows: an empty trace, or a sample that kept none
    /// of its keys.
    func emptyStreamError(file: String) -> TraceError {
        if let ratio = sampleRatio, ratio < 1 {
            // Six decimals unless the ratio needs more (1e-9 is not "0").
            let sixDecimals = String(format6: ratio).trimmingZeros
            let hint = TraceError.Hint.sampleRatio(Double(sixDecimals) == ratio ? sixDecimals : "\(ratio)")
            return TraceError(.malformed, file: file,
                              reason: "no row of the trace is in the sample (\(hint.phrase) kept none of its keys; the trace may be empty, or too small for this ratio)",
                              hint: hint)
        }
        return TraceError(.malformed, file: file, reason: "the trace has no rows (empty file, or a header alone)")
    }

    /// Parses a sampling ratio: a number above 0 and at most 1 (`0.01`), or a percentage (`1%`).
    ///
    /// - Throws: ``InvalidValueError`` for 0, a ratio above 1, or text that is not a number.
    public static func parseSampleRatio(_ text: String, setting: String = "sampling ratio") throws(InvalidValueError) -> Double {
        let trimmed = text.trimmingSpaces
        let percent = trimmed.hasSuffix("%")
        let digits = percent ? String(trimmed.dropLast()).trimmingSpaces : trimmed
        guard digits.allSatisfy({ $0.isASCII && ($0.isNumber || $0 == "." || $0 == "e" || $0 == "E" || $0 == "-") }),
              let number = Double(digits), number.isFinite else {
            throw InvalidValueError(setting, text, expected: "expected a ratio such as 0.01 or 1%")
        }
        let ratio = percent ? number / 100 : number
        guard ratio > 0 && ratio <= 1 else {
            throw InvalidValueError(setting, text, expected: "the \(setting) must be above 0 and at most 1 (0.01 keeps 1 % of the keys)")
        }
        return ratio
    }
}

/// SHARDS' spatial filter: a key is kept when its hash falls below the threshold, so a key is
/// either always or never in the sample and the sample keeps whole reuse patterns.
enum SpatialSample {
    /// SplitMix64's finalizer of the key mixed with the seed's salt: a bijection of 64-bit keys
    /// that spreads sequential ids (1, 2, 3…) evenly, so any threshold keeps its share of them,
    /// and whose samples for different seeds are independent draws of the key space.
    @inlinable @inline(__always)
    static func hash(_ key: UInt64, salt: UInt64 = 0) -> UInt64 {
        var z = (key ^ salt) &+ 0x9E37_79B9_7F4A_7C15
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// The salt of seed `seed`: 0 for seed 0 (the default hash), else the seed spread over 64
    /// bits by an odd multiplier, so consecutive seeds differ in every bit position.
    static func salt(seed: UInt64) -> UInt64 { seed &* 0xD1B5_4A32_D192_ED03 }
}
