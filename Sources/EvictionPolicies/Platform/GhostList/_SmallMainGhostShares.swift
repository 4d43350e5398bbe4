/// The sizes of the S3-FIFO family (S3-FIFO, QD-LP, CLOCK-2Q+), validated once from the
/// options they share: a small FIFO of ⌊small-ratio × capacity⌋, a main queue of the rest and a
/// ghost FIFO of ⌊ghost-ratio × capacity⌋, in the same cost units, truncated as libCacheSim does.
/// S3-FIFO-d moves share between small and main as it runs.
public struct _SmallMainGhostShares {
    @usableFromInline let capacity: Int
    @usableFromInline var small: Int
    @usableFromInline var main: Int
    @usableFromInline var ghost: Int
    /// Requests in the small FIFO needed to move to main (`move-to-main-threshold`).
    @usableFromInline let threshold: UInt32

    /// Validates `options` and `limits` for `descriptor`, which must require a capacity.
    init(_ limits: CacheLimits, _ options: PolicyOptions, for descriptor: PolicyDescriptor, threshold defaultThreshold: Int)
        throws(PolicyConfigurationError) {
        let capacity = try limits._requiredCapacity(for: descriptor, options: options)
        let smallRatio = try options.double("small-ratio", default: 0.1, in: 0...1)
        // A share of 0 or 1 leaves one queue no room at every capacity: libCacheSim refuses it.
        guard smallRatio > 0 && smallRatio < 1 else {
            throw .invalidOption("small-ratio", value: options.values["small-ratio"] ?? "\(smallRatio)",
                                 expected: "a share above 0 and below 1 (at 0 the small FIFO, at 1 the main queue, has no room)")
        }
        let ghostRatio = try options.double("ghost-ratio", default: 0.9, in: 0...100)
        threshold = UInt32(try options.integer("move-to-main-threshold", default: defaultThreshold, in: 0...1_000_000))
        self.capacity = capacity
        small = _proportion(of: capacity, smallRatio)
        main = capacity - small
        ghost = _proportion(of: capacity, ghostRatio)
    }

    /// The options the family shares, as its policies list them: `small-ratio` (described as
    /// `small`), `ghost-ratio` unless `ghost` is false (S3-FIFO-d's ghost follows main), and
    /// `move-to-main-threshold` defaulting to `threshold`, which counts `counting` in the small FIFO.
    static func parameters(small: String = "small FIFO share of the capacity, truncated", ghost: Bool = true,
                           threshold: Int, counting: String) -> [PolicyParameter] {
        [PolicyParameter("small-ratio", default: "0.1", small, aliases: ["fifo-size-ratio", "small-size-ratio"])]
            + (ghost ? [PolicyParameter("ghost-ratio", default: "0.9",
                                        "ghost FIFO size as a share of the capacity, in the same units, truncated; 0 disables it",
                                        aliases: ["ghost-size-ratio"])] : [])
            + [PolicyParameter("move-to-main-threshold", default: String(threshold), "\(counting) in the small FIFO needed to move to main")]
    }
}
