import CacheBench
import EvictionPolicies

/// The options of a tiered run (`--tier memory=A,disk=B` and the disk tier's own), shared by the
/// commands that replay.
enum TierOptions {
    /// The option names, for a command's spec.
    static let valueOptions: Set<String> = ["--disk-capacity", "--disk-count-limit", "--tier-promote-cost"]
    /// `--tier` is repeatable for `compare`; `replay` takes one (the spec makes it single there).
    static let repeatableOptions: Set<String> = ["--disk-option"]

    /// Help lines for the options.
    static let help = """
      --tier memory=A,disk=B  A two-level cache instead of --policy, as SDWebImage and YYCache use
                              one: a get asks policy A (memory), then B (disk); a disk hit is
                              copied into memory; a miss is stored in both. --capacity,
                              --count-limit and --option configure the memory tier.
      --disk-capacity SIZE    The disk tier's cost limit: a size, or a fraction of the working set
                              (0.5, 50%), as --capacity takes (default as for --capacity).
      --disk-count-limit N    The disk tier's count limit.
      --disk-option KEY=VALUE A disk-tier parameter (repeatable).
      --tier-promote-cost C   The cost of memory copies: size (SDImageCache, default) or zero
                              (YYCache's facade, for stores and promotions alike).
    """

    /// The memory policy's name and the tier configuration, or `nil` without `--tier` (then the
    /// disk options are an error). For `replay`, which runs one cache.
    static func parse(_ arguments: Arguments, registry: PolicyRegistry) throws(UsageError) -> (memory: String, tier: TierJob)? {
        if arguments.value("--tier") != nil && arguments.value("--policy") != nil {
            throw UsageError("--tier and --policy cannot be combined: --tier names both policies")
        }
        guard let pair = try pairs(arguments, registry: registry).first else { return nil }
        return (pair.memory, pair.tier)
    }

    /// Every `--tier` (repeatable in `compare`), each with the shared disk options; none without
    /// `--tier` (then the disk options are an error). Each name becomes the registry's own (any
    /// case, any alias), so a pair is labelled and told apart as `--policies` names are; a name
    /// the registry does not know is kept, for the run to refuse.
    static func pairs(_ arguments: Arguments, registry: PolicyRegistry) throws(UsageError) -> [TierPair] {
        let lists = arguments.all("--tier")
        guard !lists.isEmpty else {
            for name in valueOptions.union(repeatableOptions).sorted() where !arguments.all(name).isEmpty {
                throw UsageError("\(name) needs --tier memory=POLICY,disk=POLICY")
            }
            return []
        }
        var pairs: [TierPair] = []
        for text in lists {
            let (given, givenDisk) = try TierJob.parseTiers(text)
            let (memory, disk) = (registry.canonicalName(given), registry.canonicalName(givenDisk))
            let pair = TierPair(memory: memory, tier: try tierJob(arguments, disk: disk))
            guard !pairs.contains(where: { $0.name == pair.name }) else { throw UsageError("--tier \(text) is given twice") }
            pairs.append(pair)
        }
        return pairs
    }

    /// The disk tier's configuration from the `--disk-*` options.
    static func tierJob(_ arguments: Arguments, disk: String) throws(UsageError) -> TierJob {
        // As --capacity: a size, or a fraction of the working set.
        let (capacity, fraction) = try TraceOptions.capacity(arguments, "--disk-capacity")
        // Checked here: the disk policy's own refusal would be worded for a count limit in general.
        let countLimit = try arguments.integer("--disk-count-limit")
        if let countLimit, countLimit <= 0 { throw UsageError("--disk-count-limit \(countLimit): must be greater than 0") }
        var job = TierJob(disk: disk, diskCapacity: capacity, diskCountLimit: countLimit,
                          diskOptions: try TraceOptions.policyOptions(arguments.all("--disk-option"), option: "--disk-option"),
                          memoryCost: try arguments.choice("--tier-promote-cost", default: TierMemoryCost.size))
        job.diskCapacityFraction = fraction
        return job
    }
}
