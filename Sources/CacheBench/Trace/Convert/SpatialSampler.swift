/// Keeps the requests of a fixed fraction of objects, chosen by a hash of the object id, as
/// libCacheSim's spatial sampler does for `traceConv --sample-ratio`.
///
/// An object is kept when XXH3-64 (seed 0, default secret) of its id's 8 little-endian bytes
/// is a multiple of `⌊1 / ratio⌋`. The choice depends on the id alone, so an object's requests
/// are all kept or all dropped, and the same ratio keeps the same objects as traceConv. Only
/// ratios whose inverse is at least 2 sample (libCacheSim refuses ratios above 0.5); 1 keeps all.
public struct SpatialSampler: Sendable, Equatable {
    /// The ratio asked for, in (0, 0.5] or exactly 1.
    public let ratio: Double
    /// `⌊1 / ratio⌋`: an object is kept when its hash is a multiple of this.
    public let modulus: UInt64

    /// Why a ratio cannot be used.
    public enum Problem: Error, Sendable, Equatable {
        /// Not above 0 and at most 1 (or not a number).
        case outOfRange
        /// Above 0.5 and below 1: `⌊1 / ratio⌋` would be 1, which keeps every object.
        case coarserThanHalf
    }

    /// A sampler for `ratio`, which must be 1 or in (0, 0.5].
    public init(ratio: Double) throws(Problem) {
        guard ratio.isFinite, ratio > 0, ratio <= 1 else { throw .outOfRange }
        guard ratio == 1 || ratio <= 0.5 else { throw .coarserThanHalf }
        self.ratio = ratio
        // 1/ratio ≥ 1 is finite here and below 2^64 for any positive double ratio ≥ 2^-64;
        // smaller ratios keep (almost) nothing either way.
        let inverse = (1 / ratio).rounded(.towardZero)
        modulus = inverse < 0x1p63 ? UInt64(inverse) : 1 << 63
    }

    /// Whether the object `id` is in the sample. O(1).
    @inline(__always)
    public func keeps(_ id: UInt64) -> Bool {
        modulus == 1 || Self.xxh3(id) % modulus == 0
    }

    /// XXH3-64 of the 8 little-endian bytes of `value`, seed 0, default secret.
    static func xxh3(_ value: UInt64) -> UInt64 {
        withUnsafeBytes(of: value.littleEndian) { _XXH3.hash($0) }
    }
}
