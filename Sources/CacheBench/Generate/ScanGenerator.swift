/// `scan`: a Zipf-popular hot set interrupted by sequential scans of objects never seen before
/// and never requested again, like a backup or a report reading a table once. It measures scan
/// resistance: under LRU every scan longer than the cache flushes the hot set, so the requests
/// after it miss until the hot set is back; policies that admit new objects on probation
/// (SIEVE, S3-FIFO, 2Q, ARC, LIRS, TinyLFU) keep most of it.
///
/// Requests alternate between `scan-every` requests to the hot set (objects 1…N, Zipf(alpha))
/// and one scan of `scan-length` fresh objects (keys 1,000,000,000 and up, in order). Each object
/// has one size, uniform in [min-size, max-size]. Timestamps are the row index; every row is a get.
public struct ScanGenerator: TraceGenerator {
    /// The command-line name.
    public static var kind: String { "scan" }
    /// One line for `generate --help`.
    public static var summary: String {
        "a Zipf hot set interrupted by one-time sequential scans of fresh objects: tests scan resistance"
    }
    /// The `--NAME VALUE` options beyond `--seed` and `--requests`.
    public static var parameters: [GeneratorParameter] {
        [
            GeneratorParameter("alpha", default: "0.8", "Zipf exponent of the hot set"),
            GeneratorParameter("objects", default: "5000", "objects in the hot set"),
            GeneratorParameter("scan-every", default: "20000", "hot-set requests between two scans"),
            GeneratorParameter("scan-length", default: "5000", "objects in each scan, each requested once"),
            GeneratorParameter("min-size", default: "1", "smallest object size (bytes, or KB/KiB/...)"),
            GeneratorParameter("max-size", default: "1", "largest object size"),
        ]
    }
    /// Gets written when `--requests` is not given.
    public static var defaultRequests: Int { 100_000 }

    /// The first key of the scans, far above any hot-set key.
    public static let firstScanKey: UInt64 = 1_000_000_000

    private let hot: ZipfSampler
    private var random: Xoshiro256StarStar
    private let sizes: _ObjectSizes
    private let scanEvery: Int
    private let scanLength: Int
    private let requests: Int
    private var emitted = 0
    private var nextScanKey = ScanGenerator.firstScanKey

    /// Creates a generator of `requests` gets from `seed`; throws ``GeneratorError`` naming a bad parameter.
    public init(seed: UInt64, requests: Int, options: GeneratorOptions) throws(GeneratorError) {
        let alpha = try options.double("alpha", default: 0.8, in: 0...20)
        let objects = try options.integer("objects", default: 5000, in: 1...50_000_000)
        scanEvery = try options.integer("scan-every", default: 20_000, in: 1...Int(Int32.max))
        scanLength = try options.integer("scan-length", default: 5000, in: 0...Int(Int32.max))
        hot = ZipfSampler(count: objects, alpha: alpha)
        random = Xoshiro256StarStar(seed: seed)
        sizes = try _ObjectSizes(seed: seed, options: options)
        self.requests = requests
    }

    /// The next row, or `nil` after the last.
    public mutating func next() -> Request? {
        guard emitted < requests else { return nil }
        defer { emitted += 1 }
        // Position within one period: scanEvery hot requests, then scanLength scan requests.
        let key: UInt64
        if emitted % (scanEvery + scanLength) < scanEvery {
            key = UInt64(hot.next(using: &random))
        } else {
            key = nextScanKey
            nextScanKey += 1
        }
        return Request(time: Double(emitted), key: key, size: sizes.size(of: key), operation: .get)
    }
}
