import EvictionPolicies

/// A policy type the replay engine can drive: 64-bit keys, no values.
public typealias ReplayPolicy = EvictionPolicy<UInt64, Void>

/// The one list of policies. The command line, `cachebench policies` and `compare` read it;
/// adding a policy means adding its line here.
public enum PolicyRegistry {
    /// Every policy, in the order `cachebench policies` lists them.
    public static let all: [RegisteredPolicy] = [
        // Research algorithms, with libCacheSim's conventions.
        .of(FIFOCache<UInt64, Void>.self),
        .of(LIFOCache<UInt64, Void>.self),
        .of(LRUCache<UInt64, Void>.self),
        .of(MRUCache<UInt64, Void>.self),
        .of(ClockCache<UInt64, Void>.self),
        .of(SieveCache<UInt64, Void>.self),
        .of(RandomCache<UInt64, Void>.self),
        .of(RandomTwoCache<UInt64, Void>.self),
        .of(RandomLRUCache<UInt64, Void>.self),
        .of(LRUProbCache<UInt64, Void>.self),
        .of(FIFOMergeCache<UInt64, Void>.self),
        .of(HyperbolicCache<UInt64, Void>.self),
        .of(BeladySizeCache<UInt64, Void>.self),
        .of(FlashProbCache<UInt64, Void>.self),
        .of(LeCaRCache<UInt64, Void>.self),
        .of(LeCaRv0Cache<UInt64, Void>.self),
        .of(GDSFCache<UInt64, Void>.self),
        .of(LFUCache<UInt64, Void>.self),
        .of(S3FIFOCache<UInt64, Void>.self),
        .of(S3FIFOv0Cache<UInt64, Void>.self),
        .of(S3FIFOdCache<UInt64, Void>.self),
        .of(SLRUCache<UInt64, Void>.self),
        .of(SLRUv0Cache<UInt64, Void>.self),
        .of(SizeCache<UInt64, Void>.self),
        .of(LFUDACache<UInt64, Void>.self),
        .of(LFUCppCache<UInt64, Void>.self),
        .of(LRUKCache<UInt64, Void>.self),
        .of(QDLPCache<UInt64, Void>.self),
        .of(MQCache<UInt64, Void>.self),
        .of(Clock2QPlusCache<UInt64, Void>.self),
        .of(ARCCache<UInt64, Void>.self),
        .of(ARCv0Cache<UInt64, Void>.self),
        .of(CARCache<UInt64, Void>.self),
        .of(TwoQCache<UInt64, Void>.self),
        .of(LIRSCache<UInt64, Void>.self),
        .of(WTinyLFUCache<UInt64, Void>.self),
        .of(LibCacheSimWTinyLFUCache<UInt64, Void>.self),
        .of(BeladyCache<UInt64, Void>.self),
        // Models of app caches, which do what their library does.
        .of(CorelibsNSCache<UInt64, Void>.self),
        .of(FoundationNSCache<UInt64, Void>.self),
        .of(DarwinNSCacheApproximation<UInt64, Void>.self),
        .of(AFAutoPurgingImageCache<UInt64, Void>.self),
        .of(AlamofireAutoPurgingImageCache<UInt64, Void>.self),
        .of(YYMemoryCache<UInt64, Void>.self),
        .of(YYDiskCache<UInt64, Void>.self),
        .of(SDMemoryCache<UInt64, Void>.self),
        .of(SDDiskCache<UInt64, Void>.self),
        .of(PINMemoryCache<UInt64, Void>.self),
        .of(KingfisherMemoryStorage<UInt64, Void>.self),
        .of(NukeLRUCache<UInt64, Void>.self),
        .of(NukeClockCache<UInt64, Void>.self),
    ]

    /// The descriptors of every policy.
    public static var descriptors: [PolicyDescriptor] { all.map(\.descriptor) }

    /// libCacheSim algorithms cachebench does not provide, and why: each trains a learned model
    /// with a machine-learning library, which the project does not depend on.
    public static let notProvided: [UnprovidedPolicy] = [
        UnprovidedPolicy(name: "glcache", aliases: ["gl-cache"],
                         reason: "GL-Cache (Yang et al., FAST'23) trains a group-level model with XGBoost"),
        UnprovidedPolicy(name: "lrb", aliases: [],
                         reason: "LRB (Song et al., NSDI'20) trains a gradient-boosted model with LightGBM"),
        UnprovidedPolicy(name: "3lcache", aliases: [],
                         reason: "3L-Cache trains its eviction model with LightGBM"),
    ]

    /// The policy named `name`, case-insensitively: its own name or one of its
    /// ``PolicyDescriptor/aliases`` (libCacheSim's names, such as `LRU`, `twoq`, `s3-fifo`).
    ///
    /// - Throws: ``UsageError`` naming the known policies.
    public static func policy(named name: String) throws(UsageError) -> RegisteredPolicy {
        let wanted = name.lowercased()
        if let found = all.first(where: { $0.descriptor.name == wanted || $0.descriptor.aliases.contains(wanted) }) {
            return found
        }
        if let missing = notProvided.first(where: { $0.name == wanted || $0.aliases.contains(wanted) }) {
            throw UsageError("policy '\(name)' is not provided: \(missing.reason); see 'cachebench policies'")
        }
        throw UsageError("unknown policy '\(name)' (known: \(descriptors.map(\.name).joined(separator: ", ")); see 'cachebench policies')")
    }
}

/// A libCacheSim algorithm cachebench names but does not provide, with why.
public struct UnprovidedPolicy: Sendable {
    /// libCacheSim's name, lowercased.
    public let name: String
    /// Its other libCacheSim names, lowercased.
    public let aliases: [String]
    /// Why it is not provided.
    public let reason: String
}

/// A registered policy: its descriptor and a factory for replayers specialized to its type.
///
/// The factory is a closure created in ``of(_:)`` where the policy type is concrete, so the
/// replay loop inside it is compiled for that type. Opening an existential metatype instead
/// would run the generic, unspecialized loop with a metadata lookup per slot operation.
public struct RegisteredPolicy: Sendable {
    /// What the policy is.
    public let descriptor: PolicyDescriptor
    private let factory: @Sendable (CacheLimits, PolicyOptions, Bool) throws(PolicyConfigurationError) -> PolicyRun
    private let concurrent: @Sendable (CacheLimits, PolicyOptions, Bool, Int, sending any TraceReader) throws(CacheBenchError) -> ConcurrentReplay.Outcome
    private let tiered: @Sendable (CacheLimits, PolicyOptions, Bool, DiskTierHandle, TierMemoryCost) throws(PolicyConfigurationError) -> TieredRun
    private let diskTier: @Sendable (CacheLimits, PolicyOptions) throws(PolicyConfigurationError) -> DiskTierHandle

    /// Registers `type`.
    public static func of<P: ReplayPolicy & SendableMetatype>(_ type: P.Type) -> RegisteredPolicy {
        RegisteredPolicy(
            descriptor: P.descriptor,
            factory: { (limits, options, ignoreSize) throws(PolicyConfigurationError) in
                let box = _ReplayerBox(try Replayer<P>(limits: limits, options: options, ignoreSize: ignoreSize))
                return PolicyRun(apply: { box.replayer.apply($0) },
                                 counters: { box.replayer.counters },
                                 trims: { box.replayer.trims },
                                 extraMetrics: { box.replayer.policy.extraMetrics })
            },
            concurrent: { (limits, options, ignoreSize, threads, reader) throws(CacheBenchError) in
                try ConcurrentReplay.run(P.self, limits: limits, options: options, ignoreSize: ignoreSize,
                                         threads: threads, reader: reader)
            },
            tiered: { (limits, options, ignoreSize, disk, memoryCost) throws(PolicyConfigurationError) in
                try TieredRun.make(P.self, limits: limits, options: options, ignoreSize: ignoreSize, disk: disk,
                                   memoryCost: memoryCost)
            },
            diskTier: { (limits, options) throws(PolicyConfigurationError) in
                try DiskTierHandle.make(P.self, limits: limits, options: options)
            })
    }

    /// Creates an empty policy as the memory tier of a tiered run, in front of `disk`.
    public func makeTieredRun(limits: CacheLimits, options: PolicyOptions, ignoreSize: Bool, disk: DiskTierHandle,
                              memoryCost: TierMemoryCost) throws(PolicyConfigurationError) -> TieredRun {
        try tiered(limits, try options.resolvingAliases(of: descriptor), ignoreSize, disk, memoryCost)
    }

    /// Creates an empty policy as the disk tier of a tiered run.
    public func makeDiskTier(limits: CacheLimits, options: PolicyOptions) throws(PolicyConfigurationError) -> DiskTierHandle {
        try diskTier(limits, try options.resolvingAliases(of: descriptor))
    }

    /// Replays `reader` to its end from `threads` threads sharing one synchronized policy.
    func replayConcurrently(limits: CacheLimits, options: PolicyOptions, ignoreSize: Bool, threads: Int,
                            reader: sending any TraceReader) throws(CacheBenchError) -> ConcurrentReplay.Outcome {
        let resolved: PolicyOptions
        do { resolved = try options.resolvingAliases(of: descriptor) } catch { throw error.asUsage }
        return try concurrent(limits, resolved, ignoreSize, threads, reader)
    }

    /// Creates an empty policy and a replayer around it.
    public func makeRun(limits: CacheLimits, options: PolicyOptions, ignoreSize: Bool) throws(PolicyConfigurationError) -> PolicyRun {
        try factory(limits, try options.resolvingAliases(of: descriptor), ignoreSize)
    }

    /// Whether `key` is one of the policy's parameters, under its name or an alias.
    public func declares(option key: String) -> Bool {
        descriptor.parameters.contains { $0.name == key.lowercased() || $0.aliases.contains(key.lowercased()) }
    }
}

/// One policy instance being replayed, behind closures specialized for its type: one dynamic
/// call per batch of requests, none per request.
public struct PolicyRun {
    /// Drives the policy with a batch of requests.
    public let apply: ([Request]) -> Void
    /// The counters so far.
    public let counters: () -> ReplayCounters
    /// Trim timings so far: all passes, caller-visible ones, deferred ones.
    public let trims: () -> (all: LatencyHistogram, caller: LatencyHistogram, deferred: LatencyHistogram)
    /// The policy's own figures (``EvictionPolicy/extraMetrics``).
    public let extraMetrics: () -> [PolicyMetric]
}

final class _ReplayerBox<P: ReplayPolicy> {
    var replayer: Replayer<P>
    init(_ replayer: Replayer<P>) { self.replayer = replayer }
}
