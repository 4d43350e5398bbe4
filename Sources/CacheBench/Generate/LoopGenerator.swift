/// `loop`: objects 1…N requested in order, over and over (Caffeine's "repeating" synthetic and the
/// LIRS paper's `loop` pattern). It is LRU's and FIFO's worst case: with a cache smaller than N
/// every request misses, because the object about to be requested is always the one just
/// evicted; MRU, LIFO, LIRS and Bélády keep part of the loop and hit on it. Every object has one
/// size, uniform in [min-size, max-size] from the seed and the key. Timestamps are the row
/// index; every row is a get.
public struct LoopGenerator: TraceGenerator {
    /// The command-line name.
    public static var kind: String { "loop" }
    /// One line for `generate --help`.
    public static var summary: String {
        "objects 1…N requested in order, repeatedly: every cache smaller than N misses every request under LRU or FIFO"
    }
    /// The `--NAME VALUE` options beyond `--seed` and `--requests`.
    public static var parameters: [GeneratorParameter] {
        [
            GeneratorParameter("objects", default: "1000", "the loop's length: distinct objects, requested in order"),
            GeneratorParameter("min-size", default: "1", "smallest object size (bytes, or KB/KiB/...)"),
            GeneratorParameter("max-size", default: "1", "largest object size"),
        ]
    }
    /// Gets written when `--requests` is not given.
    public static var defaultRequests: Int { 100_000 }

    private let objects: Int
    private let sizes: _ObjectSizes
    private let requests: Int
    private var emitted = 0

    /// Creates a generator of `requests` gets from `seed`; throws ``GeneratorError`` naming a bad parameter.
    public init(seed: UInt64, requests: Int, options: GeneratorOptions) throws(GeneratorError) {
        objects = try options.integer("objects", default: 1000, in: 1...50_000_000)
        sizes = try _ObjectSizes(seed: seed, options: options)
        self.requests = requests
    }

    /// The next row, or `nil` after the last.
    public mutating func next() -> Request? {
        guard emitted < requests else { return nil }
        defer { emitted += 1 }
        let key = UInt64(emitted % objects + 1)
        return Request(time: Double(emitted), key: key, size: sizes.size(of: key), operation: .get)
    }
}

/// Per-object sizes uniform in [min-size, max-size], derived from the seed and the key alone, so
/// every request for an object agrees and generators need no table (as `zipf` does it).
struct _ObjectSizes {
    let seed: UInt64
    let minimum: Int
    let span: UInt64

    init(seed: UInt64, options: GeneratorOptions) throws(GeneratorError) {
        let minimum = try options.size("min-size", default: 1, in: 1...(1 << 50))
        let maximum = try options.size("max-size", default: minimum, in: 1...(1 << 50))
        guard maximum >= minimum else { throw .sizeRangeInverted(minimum: minimum, maximum: maximum) }
        self.seed = seed
        self.minimum = minimum
        span = UInt64(maximum - minimum) + 1
    }

    func size(of key: UInt64) -> Int {
        let hash = SplitMix64.mix(seed ^ SplitMix64.mix(key))
        return minimum + Int(hash.multipliedFullWidth(by: span).high)
    }
}
