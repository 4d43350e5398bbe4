/// `mix`: a workload whose character changes while it runs, for policies that adapt (ARC's
/// recency/frequency balance, W-TinyLFU's window, S3-FIFO's small queue). Each request comes
/// from one of three sources, chosen at random with the given weights:
///
/// - a Zipf(alpha) hot set of `objects` objects whose popularity ranking is reshuffled every
///   `phase` requests (yesterday's popular objects fade);
/// - a loop over `loop-objects` objects in order (keys from 1,000,000,000), which rewards
///   frequency and punishes recency;
/// - a scan of objects requested once (keys from 2,000,000,000).
///
/// Optionally, before a get, a `set` of a hot object (a write, `--set-ratio`) or a `delete` of one
/// (an invalidation, `--delete-ratio`); `--requests` counts gets only. Sizes are per object,
/// uniform in [min-size, max-size]. Timestamps are the row index of the get.
public struct MixGenerator: TraceGenerator {
    /// The command-line name.
    public static var kind: String { "mix" }
    /// One line for `generate --help`.
    public static var summary: String {
        "a Zipf hot set whose ranking reshuffles each phase, mixed with a loop and one-time scans; optional sets and deletes"
    }
    /// The `--NAME VALUE` options beyond `--seed` and `--requests`.
    public static var parameters: [GeneratorParameter] {
        [
            GeneratorParameter("alpha", default: "0.9", "Zipf exponent of the hot set"),
            GeneratorParameter("objects", default: "10000", "objects in the hot set"),
            GeneratorParameter("phase", default: "25000", "requests between reshuffles of the hot set's ranking"),
            GeneratorParameter("loop-objects", default: "2000", "objects in the loop"),
            GeneratorParameter("hot-weight", default: "0.7", "share of gets from the hot set"),
            GeneratorParameter("loop-weight", default: "0.2", "share of gets from the loop"),
            GeneratorParameter("scan-weight", default: "0.1", "share of gets from one-time scans"),
            GeneratorParameter("set-ratio", default: "0", "probability of a set of a hot object before a get"),
            GeneratorParameter("delete-ratio", default: "0", "probability of a delete of a hot object before a get"),
            GeneratorParameter("min-size", default: "1", "smallest object size (bytes, or KB/KiB/...)"),
            GeneratorParameter("max-size", default: "1", "largest object size"),
        ]
    }
    /// Gets written when `--requests` is not given.
    public static var defaultRequests: Int { 100_000 }

    /// The first key of the loop.
    public static let firstLoopKey: UInt64 = 1_000_000_000
    /// The first key of the scans.
    public static let firstScanKey: UInt64 = 2_000_000_000

    private let hot: ZipfSampler
    private var random: Xoshiro256StarStar
    private let sizes: _ObjectSizes
    private let phase: Int
    private let loopObjects: Int
    private let hotShare: Double
    private let loopShare: Double
    private let setRatio: Double
    private let deleteRatio: Double
    private let requests: Int
    /// rank - 1 -> object, reshuffled each phase.
    private var ranking: [UInt64]
    private var emitted = 0
    private var loopNext = 0
    private var scanNext = MixGenerator.firstScanKey
    private var pending: Request?

    /// Creates a generator of `requests` gets from `seed`; throws ``GeneratorError`` naming a bad parameter.
    public init(seed: UInt64, requests: Int, options: GeneratorOptions) throws(GeneratorError) {
        let alpha = try options.double("alpha", default: 0.9, in: 0...20)
        let objects = try options.integer("objects", default: 10_000, in: 1...10_000_000)
        phase = try options.integer("phase", default: 25_000, in: 1...Int(Int32.max))
        loopObjects = try options.integer("loop-objects", default: 2000, in: 1...50_000_000)
        let weights = [try options.double("hot-weight", default: 0.7, in: 0...1),
                       try options.double("loop-weight", default: 0.2, in: 0...1),
                       try options.double("scan-weight", default: 0.1, in: 0...1)]
        let total = weights.reduce(0, +)
        guard total > 0 else { throw .weightsAllZero(["hot-weight", "loop-weight", "scan-weight"]) }
        hotShare = weights[0] / total
        loopShare = weights[1] / total
        setRatio = try options.double("set-ratio", default: 0, in: 0...1)
        deleteRatio = try options.double("delete-ratio", default: 0, in: 0...1)
        guard setRatio + deleteRatio <= 1 else { throw .sharesAboveOne(["set-ratio", "delete-ratio"]) }
        hot = ZipfSampler(count: objects, alpha: alpha)
        random = Xoshiro256StarStar(seed: seed)
        sizes = try _ObjectSizes(seed: seed, options: options)
        ranking = (1...objects).map { UInt64($0) }
        self.requests = requests
    }

    /// The next row, or `nil` after the last.
    public mutating func next() -> Request? {
        if let row = pending {
            pending = nil
            return row
        }
        guard emitted < requests else { return nil }
        defer { emitted += 1 }
        if emitted > 0 && emitted % phase == 0 { reshuffle() }
        let time = Double(emitted)
        let draw = random.nextUnit()
        let key: UInt64
        if draw < hotShare {
            key = hotObject()
        } else if draw < hotShare + loopShare {
            key = MixGenerator.firstLoopKey + UInt64(loopNext)
            loopNext = (loopNext + 1) % loopObjects
        } else {
            key = scanNext
            scanNext += 1
        }
        let get = Request(time: time, key: key, size: sizes.size(of: key), operation: .get)
        // A write or an invalidation of a hot object comes first, at the same time.
        let write = random.nextUnit()
        if write < setRatio + deleteRatio {
            let target = hotObject()
            pending = get
            return Request(time: time, key: target, size: sizes.size(of: target), operation: write < setRatio ? .set : .delete)
        }
        return get
    }

    private mutating func hotObject() -> UInt64 { ranking[hot.next(using: &random) - 1] }

    /// Fisher–Yates with the trace's own generator, so a seed keeps giving the same trace.
    private mutating func reshuffle() {
        var i = ranking.count - 1
        while i > 0 {
            let j = Int(random.next(below: UInt64(i + 1)))
            ranking.swapAt(i, j)
            i -= 1
        }
    }
}
