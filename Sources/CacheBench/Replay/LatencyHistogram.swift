/// A log-linear histogram of durations in nanoseconds, in constant memory.
///
/// Values below 128 ns are counted exactly; above, each power of two is split into 64 buckets,
/// so a reported percentile is within 1.6 % of the true value (HdrHistogram's scheme with two
/// significant binary digits of sub-bucket precision). Count, total and maximum are exact.
public struct LatencyHistogram: Sendable, Equatable {
    // Computed, not stored: the record path inlines them as constants, with no lazy global.
    @inlinable static var exactLimit: UInt64 { 128 }
    @inlinable static var subBuckets: Int { 64 }
    /// The number of buckets, from 0 ns to `UInt64.max` ns: the exact ones, then 64 per power
    /// of two from 2^7 to 2^63.
    @inlinable static var bucketCount: Int { Int(exactLimit) + (64 - 7) * subBuckets }
    private var buckets: [UInt64]
    /// The number of recorded durations.
    public private(set) var count: Int = 0
    /// The sum of recorded durations.
    public private(set) var total: UInt64 = 0
    /// The largest recorded duration.
    public private(set) var maximum: UInt64 = 0

    /// Creates an empty histogram.
    public init() {
        buckets = Array(repeating: 0, count: Self.bucketCount)
    }

    /// A histogram of the given bucket counts (``bucketCount`` of them) and totals.
    init(buckets: [UInt64], count: Int, total: UInt64, maximum: UInt64) {
        self.buckets = buckets
        self.count = count
        self.total = total
        self.maximum = maximum
    }

    @inlinable @inline(__always)
    static func bucketIndex(_ value: UInt64) -> Int {
        if value < exactLimit { return Int(value) }
        let exponent = 63 - value.leadingZeroBitCount                 // >= 7
        let sub = Int(truncatingIfNeeded: value >> UInt64(exponent - 6)) & (subBuckets - 1)
        return Int(exactLimit) + (exponent - 7) * subBuckets + sub
    }

    /// The largest value that falls in bucket `index`.
    private static func upperBound(ofBucket index: Int) -> UInt64 {
        if index < Int(exactLimit) { return UInt64(index) }
        let exponent = (index - Int(exactLimit)) / subBuckets + 7
        let sub = UInt64((index - Int(exactLimit)) % subBuckets)
        let low = (UInt64(1) << UInt64(exponent)) | (sub << UInt64(exponent - 6))
        return low + (UInt64(1) << UInt64(exponent - 6)) - 1
    }

    /// Records one duration.
    @inline(__always)
    public mutating func record(_ nanoseconds: UInt64) {
        buckets[Self.bucketIndex(nanoseconds)] += 1
        count += 1
        total &+= nanoseconds
        if nanoseconds > maximum { maximum = nanoseconds }
    }

    /// The same durations in another unit, each multiplied by `factor` (ticks to nanoseconds).
    ///
    /// Each bucket moves as its midpoint, so percentiles stay within the bucket precision;
    /// count is exact, total and maximum are scaled exactly (to the nearest nanosecond).
    public func scaled(by factor: Double) -> LatencyHistogram {
        guard factor != 1 else { return self }
        var result = LatencyHistogram()
        for (index, n) in buckets.enumerated() where n > 0 {
            let lower = index == 0 ? 0 : Self.upperBound(ofBucket: index - 1) + 1
            let middle = Double(lower) / 2 + Double(Self.upperBound(ofBucket: index)) / 2
            result.buckets[Self.bucketIndex(Self.clamped(middle * factor))] += n
        }
        result.count = count
        result.total = Self.clamped(Double(total) * factor)
        result.maximum = Self.clamped(Double(maximum) * factor)
        return result
    }

    private static func clamped(_ value: Double) -> UInt64 {
        guard value.isFinite, value > 0 else { return 0 }
        return value >= 1.8e19 ? UInt64.max : UInt64(value.rounded())
    }

    /// Adds every duration recorded in `other`.
    public mutating func merge(_ other: LatencyHistogram) {
        for i in buckets.indices { buckets[i] += other.buckets[i] }
        count += other.count
        total &+= other.total
        maximum = max(maximum, other.maximum)
    }

    /// The value below which `fraction` of the durations fall (0 when empty), never above the maximum.
    public func percentile(_ fraction: Double) -> UInt64 {
        guard count > 0 else { return 0 }
        let rank = max(1, UInt64((fraction * Double(count)).rounded(.up)))
        var seen: UInt64 = 0
        for (index, n) in buckets.enumerated() where n > 0 {
            seen += n
            if seen >= rank { return min(Self.upperBound(ofBucket: index), maximum) }
        }
        return maximum
    }

    /// The summary reported as a `trim` object.
    public var summary: TrimSummary {
        TrimSummary(count: count, totalNanoseconds: total, p50Nanoseconds: percentile(0.5),
                    p99Nanoseconds: percentile(0.99), maxNanoseconds: maximum)
    }
}

/// A ``LatencyHistogram`` being recorded, for the replay loop: its counts live in memory this
/// object owns, so a record is a few stores, with none of the array's uniqueness check (a runtime
/// call) and bounds checks (measured at 3 % of a random-eviction replay, one record per trim pass).
///
/// Copies of a reference share the counts: one run owns a tally and records into it from one
/// thread at a time.
@usableFromInline
final class _LatencyTally: @unchecked Sendable {  // unchecked: one run's, used by one thread at a time
    /// The buckets' counts, then the count, the total and the maximum.
    @usableFromInline let storage: UnsafeMutablePointer<UInt64>

    /// An empty tally.
    init() {
        storage = .allocate(capacity: LatencyHistogram.bucketCount + 3)
        storage.initialize(repeating: 0, count: LatencyHistogram.bucketCount + 3)
    }

    deinit { storage.deallocate() }

    /// Records one duration. O(1).
    @inlinable @inline(__always)
    func record(_ duration: UInt64) {
        let totals = storage + LatencyHistogram.bucketCount
        storage[LatencyHistogram.bucketIndex(duration)] &+= 1
        totals[0] &+= 1
        totals[1] &+= duration
        if duration > totals[2] { totals[2] = duration }
    }

    /// What has been recorded, as a histogram. O(buckets).
    var histogram: LatencyHistogram {
        let totals = storage + LatencyHistogram.bucketCount
        return LatencyHistogram(buckets: Array(UnsafeBufferPointer(start: storage, count: LatencyHistogram.bucketCount)),
                                count: Int(truncatingIfNeeded: totals[0]), total: totals[1], maximum: totals[2])
    }
}

/// Trim-pass statistics: how many passes and how long they took.
public struct TrimSummary: Sendable, Equatable, Codable {
    /// Number of trim passes.
    public var count: Int
    /// Total time spent in trim passes.
    public var totalNanoseconds: UInt64
    /// Median pass duration.
    public var p50Nanoseconds: UInt64
    /// 99th-percentile pass duration.
    public var p99Nanoseconds: UInt64
    /// Longest pass.
    public var maxNanoseconds: UInt64

    /// Creates a summary.
    public init(count: Int, totalNanoseconds: UInt64, p50Nanoseconds: UInt64, p99Nanoseconds: UInt64, maxNanoseconds: UInt64) {
        self.count = count
        self.totalNanoseconds = totalNanoseconds
        self.p50Nanoseconds = p50Nanoseconds
        self.p99Nanoseconds = p99Nanoseconds
        self.maxNanoseconds = maxNanoseconds
    }
}
