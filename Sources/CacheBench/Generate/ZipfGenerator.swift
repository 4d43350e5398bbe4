/// `zipf`: independent requests for objects 1…N whose popularity follows Zipf(alpha), the
/// standard synthetic cache workload (Breslau et al., "Web caching and Zipf-like distributions",
/// 1999). Each object has one size, uniform in [min-size, max-size], derived from the seed and
/// the key so that every request for it agrees. Timestamps are the row index; every row is a get.
public struct ZipfGenerator: TraceGenerator {
    public static var kind: String { "zipf" }
    public static var summary: String {
        "independent gets of objects 1…N with Zipf(alpha) popularity; one size per object, uniform in [min-size, max-size]"
    }
    public static var parameters: [GeneratorParameter] {
        [
            GeneratorParameter("alpha", default: "1.0", "Zipf exponent (0 is uniform)"),
            GeneratorParameter("objects", default: "10000", "number of distinct objects"),
            GeneratorParameter("min-size", default: "1", "smallest object size (bytes, or KB/KiB/...)"),
            GeneratorParameter("max-size", default: "1", "largest object size"),
        ]
    }
    public static var defaultRequests: Int { 100_000 }

    private let sampler: ZipfSampler
    private var random: Xoshiro256StarStar
    private let seed: UInt64
    private let requests: Int
    private let minimumSize: Int
    private let sizeSpan: UInt64
    private var emitted = 0

    public init(seed: UInt64, requests: Int, options: GeneratorOptions) throws(GeneratorError) {
        let alpha = try options.double("alpha", default: 1.0, in: 0...20)
        let objects = try options.integer("objects", default: 10_000, in: 1...50_000_000)
        minimumSize = try options.size("min-size", default: 1, in: 1...(1 << 50))
        let maximumSize = try options.size("max-size", default: max(1, minimumSize), in: 1...(1 << 50))
        guard maximumSize >= minimumSize else {
            throw .sizeRangeInverted(minimum: minimumSize, maximum: maximumSize)
        }
        sizeSpan = UInt64(maximumSize - minimumSize) + 1
        sampler = ZipfSampler(count: objects, alpha: alpha)
        random = Xoshiro256StarStar(seed: seed)
        self.seed = seed
        self.requests = requests
    }

    public mutating func next() -> Request? {
        guard emitted < requests else { return nil }
        let key = UInt64(sampler.next(using: &random))
        let hash = SplitMix64.mix(seed ^ SplitMix64.mix(key))
        let size = minimumSize + Int(hash.multipliedFullWidth(by: sizeSpan).high)
        defer { emitted += 1 }
        return Request(time: Double(emitted), key: key, size: size, operation: .get)
    }
}
