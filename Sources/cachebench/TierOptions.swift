import CacheBench
import EvictionPolicies

/// The options of a tiered run (`--tier memory=A,disk=B` and the disk tier's own), shared by the
/// commands that replay.
enum TierOptions {
    /// The option names, for a command's spec.
    static let valueOptions: Set<String> = ["--tier", "--disk-capacity", "--disk-count-limit", "--tier-promote-cost"]
    static let repeatableOptions: Set<String> = ["--disk-option"]

    /// Help lines for the options.
    static let help = """
      --tier memory=A,disk=B  A two-level cache instead of --policy, as SDWebImage and YYCache use
                              one: a get asks policy A (memory), then B (disk); a disk hit is
                              copied into memory; a miss is stored in both. --capacity,
                              --count-limit and --option configure the memory tier.
      --disk-capacity SIZE    The disk tier's cost limit (default as for --capacity).
      --disk-count-limit N    The disk tier's count limit.
      --disk-option KEY=VALUE A disk-tier parameter (repeatable).
      --tier-promote-cost C   The cost of memory copies: size (SDImageCache, default) or zero
                              (YYCache's facade, for stores and promotions alike).
    """

    /// The memory policy's name and the tier configuration, or `nil` without `--tier` (then the
    /// disk options are an error).
    static func parse(_ arguments: Arguments) throws(UsageError) -> (memory: String, tier: TierJob)? {
        guard let text = arguments.value("--tier") else {
            for name in valueOptions.union(repeatableOptions).sorted() where !arguments.all(name).isEmpty {
                throw UsageError("\(name) needs --tier memory=POLICY,disk=POLICY")
            }
            return nil
        }
        if arguments.value("--policy") != nil { throw UsageError("--tier and --policy cannot be combined: --tier names both policies") }
        let (memory, disk) = try TierJob.parseTiers(text)
        let capacity = try arguments.value("--disk-capacity").map { (text) throws(UsageError) in
            try SizeFormat.parse(text, option: "--disk-capacity")
        }
        if let capacity, capacity <= 0 { throw UsageError("--disk-capacity \(arguments.value("--disk-capacity") ?? ""): must be greater than 0") }
        let tier = TierJob(disk: disk, diskCapacity: capacity, diskCountLimit: try arguments.integer("--disk-count-limit"),
                           diskOptions: try TraceOptions.policyOptions(arguments.all("--disk-option")),
                           memoryCost: try arguments.choice("--tier-promote-cost", default: TierMemoryCost.size))
        return (memory, tier)
    }
}
