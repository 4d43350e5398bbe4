import Foundation

/// The statistics of a trace: those libCacheSim's `traceAnalyzer` prints in its summary and
/// writes in its `.reuse`, `.size`, `.popularity` and `.reqRate` files, computed the same way so
/// the two can be compared number for number, and the reuse distances it does not compute.
///
/// Definitions (as traceAnalyzer's unless said): requests are `get` rows of non-zero size; an
/// object's size is its size at first request; the compulsory miss ratio is objects over
/// requests (and object bytes over requested bytes); request rates are per complete window of
/// trace time; the Zipf α is minus the slope of the least-squares line through (log rank, log
/// frequency) over every object, with its R². A size change is a request whose size differs
/// from the object's previous request (traceAnalyzer's `prev_size`). Reuse time is in whole
/// trace seconds between an object's requests, in bins of ``reuseTimeBin`` seconds; "requests
/// since" is traceAnalyzer's reuse virtual time (the difference of request indices, in log-1.5
/// bins); the reuse distance (not in traceAnalyzer) is the number of distinct other objects
/// requested in between, in powers of two. Windows are counted from the first request; times
/// are expected in order (a request earlier than its predecessor counts in its own window).
public struct TraceAnalysis: Sendable, Equatable {
    /// `get` rows of non-zero size.
    public var requests = 0
    /// Distinct keys requested.
    public var objects = 0
    /// Bytes requested.
    public var requestBytes = 0
    /// Bytes of the distinct objects, each at its first size (the working set).
    public var objectBytes = 0
    /// Rows by operation (`get`, `set`, `delete`, events), zero-size gets included.
    public var operations: [String: Int] = [:]
    /// Zero-size `get` rows, which replay and traceAnalyzer skip.
    public var zeroSizeRequests = 0
    /// Requests of an object whose size differs from its previous request's.
    public var sizeChanges = 0
    /// Objects whose size changed at least once.
    public var objectsWithSizeChanges = 0
    /// The first and last request times, in trace seconds.
    public var firstTime = 0.0, lastTime = 0.0
    /// `objectsByRequestCount[i]`: objects requested exactly `i + 1` times, for i < 8.
    public var objectsByRequestCount: [Int] = []
    /// The request counts of the 8 most requested objects, most first.
    public var topFrequencies: [Int] = []
    /// Rank-frequency: each distinct request count with the objects requested that often, most
    /// requested first (traceAnalyzer's `.popularity` file).
    public var frequencyCounts: [FrequencyCount] = []
    /// The fitted Zipf exponent and the fit's R² (0 when fewer than two objects; α 0 and R² 1
    /// when every object is requested equally often).
    public var zipfAlpha = 0.0, zipfR2 = 0.0
    /// The window for request rates, in trace seconds.
    public var rateWindow = 300.0
    /// Requests per second in the slowest and the busiest complete window; both the whole trace's
    /// rate (over ``wholeTraceSeconds``) when no window is complete.
    public var minimumRate = 0.0, maximumRate = 0.0
    /// Distinct objects per second in the quietest and the busiest complete window (traceAnalyzer's
    /// object rate); both the whole trace's when no window is complete.
    public var minimumObjectRate = 0.0, maximumObjectRate = 0.0
    /// The trace's time span in seconds, at least 1: what the rates of a trace shorter than one
    /// window are taken over.
    public var wholeTraceSeconds: Double { max(lastTime - firstTime, 1) }
    /// Each window of ``rateWindow`` seconds from the first request, the last one possibly cut short.
    public var windows: [Window] = []
    /// Bin `k` counts requests whose object was last requested `k · reuseTimeBin` to
    /// `(k + 1) · reuseTimeBin` seconds before. At most 100,000 bins: a longer reuse time doubles
    /// the bins' width (merging them in pairs) until it fits, so no reuse time is cut off.
    public var reuseTimeHistogram: [Int] = []
    /// The width of a reuse-time bin in seconds: traceAnalyzer's time granularity, 5, on a trace
    /// whose reuse times stay under 500,000 s; doubled as often as a longer one needed.
    public var reuseTimeBin = 5.0
    /// Bin `k` counts requests whose object was last requested `n` requests before, with
    /// `k = ⌊log₁.₅ n⌋` (traceAnalyzer's reuse virtual time).
    public var requestsSinceHistogram: [Int] = []
    /// Bin 0 counts reuse distance 0 (the same object again); bin `k ≥ 1` counts distances in
    /// `2^(k-1) ..< 2^k`: the distinct other objects requested in between.
    public var reuseDistanceHistogram: [Int] = []
    /// Bin `k` counts requests (or objects, at their first size) of size `2^k ..< 2^(k+1)` bytes.
    public var sizeHistogramByRequests: [Int] = [], sizeHistogramByObjects: [Int] = []
    /// Requests and objects (at their first size) by exact size, most requested size first (at
    /// most 16, ties by smaller size).
    public var commonSizes: [SizeCount] = []
    /// The smallest and largest request sizes.
    public var smallestSize = 0, largestSize = 0
    /// Requests whose row carries a time-to-live above 0.
    public var requestsWithTTL = 0
    /// Sets whose row carries a time-to-live above 0 (in Twitter's traces only writes carry one).
    public var setsWithTTL = 0
    /// Requests and sets by time-to-live in seconds, for rows that carry one (most common first,
    /// at most 16).
    public var commonTTLs: [TTLCount] = []

    /// One distinct request count and the objects requested that many times.
    public struct FrequencyCount: Sendable, Equatable {
        /// Requests per object.
        public var frequency: Int
        /// Objects requested exactly ``frequency`` times.
        public var objects: Int
    }

    /// One object size and how often it occurs.
    public struct SizeCount: Sendable, Equatable {
        /// The size in bytes.
        public var size: Int
        /// Requests of this size.
        public var requests: Int
        /// Objects whose first request had this size.
        public var objects: Int
    }

    /// One time-to-live and the requests that carry it.
    public struct TTLCount: Sendable, Equatable {
        /// Seconds.
        public var ttl: Int
        /// Requests with this TTL.
        public var requests: Int
    }

    /// The requests of one window of trace time.
    public struct Window: Sendable, Equatable {
        /// Requests in the window.
        public var requests = 0
        /// Their bytes.
        public var bytes = 0
        /// Distinct objects requested in the window.
        public var objects = 0
        /// Objects requested for the first time in the trace (compulsory misses).
        public var newObjects = 0
        /// Objects requested exactly once in the window.
        public var oneHitObjects = 0

        /// One-hit wonders over the window's objects.
        public var oneHitWonderRatio: Double { objects == 0 ? 0 : Double(oneHitObjects) / Double(objects) }
    }

    /// Objects requested once over all objects.
    public var oneHitWonderRatio: Double { objects == 0 ? 0 : Double(objectsByRequestCount.first ?? 0) / Double(objects) }
}
