import EvictionPolicies

// `replay --tier memory=A,disk=B`: a two-level cache as SDWebImage and YYCache use one.
//
// How the replay loop stays specialized without a line per (memory, disk) pair: every policy
// registers two more closures, made in `RegisteredPolicy.of` where its type is concrete. As a
// memory tier it makes a `TieredReplayer<Memory>`, whose loop and memory calls are compiled for
// that type. As a disk tier it makes a `DiskTierHandle`: closures over an
// `ObservedTier<Disk, _TimingObserver>` compiled for the disk's type. The tiered cache reaches the
// disk only on a memory miss (and for sets, deletes and events), through one closure call each;
// a memory hit never leaves specialized code. Since the disk tier's clock is lazy (it is told
// the time when it is called), no per-request call goes to it just to move time. N policies
// give 2N specializations, not N².

/// Which policy is which tier, and the disk tier's configuration (`--tier`, `--disk-*`).
public struct TierJob: Sendable {
    /// The disk tier's policy name.
    public var disk: String
    /// The disk tier's cost limit, or `nil` for its default.
    public var diskCapacity: Int?
    /// The disk tier's cost limit as a fraction of the working set (`--disk-capacity 0.5`),
    /// used when ``diskCapacity`` is `nil`.
    public var diskCapacityFraction: CapacityList.Item?
    /// The disk tier's count limit.
    public var diskCountLimit: Int?
    /// The disk tier's parameters (`--disk-option`).
    public var diskOptions: PolicyOptions
    /// The cost of the memory copies (`--tier-promote-cost`).
    public var memoryCost: TierMemoryCost

    /// Creates a tier configuration.
    public init(disk: String, diskCapacity: Int? = nil, diskCountLimit: Int? = nil, diskOptions: PolicyOptions = PolicyOptions(),
                memoryCost: TierMemoryCost = .size) {
        self.disk = disk
        self.diskCapacity = diskCapacity
        self.diskCountLimit = diskCountLimit
        self.diskOptions = diskOptions
        self.memoryCost = memoryCost
    }
}

/// One tier's figures in a tiered replay.
public struct TierResult: Sendable, Equatable {
    /// The tier's policy name.
    public var policy: String
    /// Its cost limit.
    public var capacity: Int?
    /// Where that limit came from.
    public var capacitySource: CapacitySource
    /// Its count limit.
    public var countLimit: Int?
    /// Gets this tier answered.
    public var hits = 0
    /// The bytes of those gets.
    public var byteHits = 0
    /// Entries it evicted.
    public var evictions = 0
    /// Resident entries at the end.
    public var entries = 0
    /// The cost of those entries.
    public var bytes = 0
    /// All its trim passes.
    public var trim = LatencyHistogram().summary
    /// The passes its callers waited for.
    public var trimCaller = LatencyHistogram().summary
    /// Its deferred passes (queued blocks, timers).
    public var trimDeferred = LatencyHistogram().summary
    /// The policy's own figures.
    public var policyMetrics: [PolicyMetric] = []
}

/// Both tiers' figures (the report's `tiers`).
public struct TierResults: Sendable, Equatable {
    /// The cost memory copies got: `size` or `zero`.
    public var memoryCost: String
    /// The memory tier.
    public var memory: TierResult
    /// The disk tier.
    public var disk: TierResult
}

/// What a tier reports at the end of a run.
public struct TierState {
    /// Entries it evicted.
    public var evictions: Int
    /// Its trim pass timings.
    public var trims: TrimTimings
    /// Resident entries.
    public var entries: Int
    /// Their cost.
    public var bytes: Int
    /// The policy's own figures.
    public var policyMetrics: [PolicyMetric]

    @usableFromInline
    init(evictions: Int, trims: TrimTimings, entries: Int, bytes: Int, policyMetrics: [PolicyMetric]) {
        self.evictions = evictions
        self.trims = trims
        self.entries = entries
        self.bytes = bytes
        self.policyMetrics = policyMetrics
    }
}

/// A disk tier behind closures compiled for its policy type: one closure call per disk access.
public struct DiskTierHandle: BackingTier {
    /// Replay keys.
    public typealias Key = UInt64
    /// Replay has no values.
    public typealias Value = Void

    let lookupAt: (UInt64, Double) -> Bool
    let insertAt: (UInt64, Int, Double) -> Void
    let removeAt: (UInt64, Double) -> Bool
    let handleAt: (CacheEvent, Double) -> Void
    let advanceTo: (Double) -> Void
    /// The tier's evictions, trims, size and metrics so far.
    public let state: () -> TierState

    @usableFromInline
    init(lookupAt: @escaping (UInt64, Double) -> Bool, insertAt: @escaping (UInt64, Int, Double) -> Void,
         removeAt: @escaping (UInt64, Double) -> Bool, handleAt: @escaping (CacheEvent, Double) -> Void,
         advanceTo: @escaping (Double) -> Void, state: @escaping () -> TierState) {
        self.lookupAt = lookupAt
        self.insertAt = insertAt
        self.removeAt = removeAt
        self.handleAt = handleAt
        self.advanceTo = advanceTo
        self.state = state
    }

    public mutating func lookup(_ key: UInt64, at time: Double) -> Void? { lookupAt(key, time) ? () : nil }
    public mutating func insert(_ value: Void, forKey key: UInt64, cost: Int, at time: Double) { insertAt(key, cost, time) }
    @discardableResult
    public mutating func remove(_ key: UInt64, at time: Double) -> Void? { removeAt(key, time) ? () : nil }
    public mutating func handle(_ event: CacheEvent, at time: Double) { handleAt(event, time) }
    public mutating func advance(to time: Double) { advanceTo(time) }

    /// Wraps a new, empty `P` as a disk tier. Inlinable, as ``RegisteredPolicy/of(_:)``: the
    /// closures are compiled where `P` is concrete, in the module that registers it.
    @inlinable
    static func make<P: ReplayPolicy>(_ type: P.Type, limits: CacheLimits, options: PolicyOptions)
        throws(PolicyConfigurationError) -> DiskTierHandle {
        try options.validate(against: P.descriptor)
        try limits.validate(for: P.descriptor)
        let box = _DiskTierBox(ObservedTier(try P(limits: limits, options: options), observer: _TimingObserver()))
        return DiskTierHandle(
            lookupAt: { box.tier.lookup($0, at: $1) != nil },
            insertAt: { box.tier.insert((), forKey: $0, cost: $1, at: $2) },
            removeAt: { box.tier.remove($0, at: $1) != nil },
            handleAt: { box.tier.handle($0, at: $1) },
            advanceTo: { box.tier.advance(to: $0) },
            state: {
                let observer = box.tier.observer
                return TierState(evictions: observer.evictions, trims: observer.timings,
                                 entries: box.tier.policy.count, bytes: box.tier.policy.totalCost,
                                 policyMetrics: box.tier.policy.extraMetrics)
            })
    }
}

@usableFromInline
final class _DiskTierBox<P: ReplayPolicy> {
    @usableFromInline var tier: ObservedTier<P, _TimingObserver>
    @usableFromInline init(_ tier: ObservedTier<P, _TimingObserver>) { self.tier = tier }
}

/// A tiered cache being driven by a trace: specialized for the memory tier's type.
public struct TieredReplayer<Memory: EvictionPolicy> where Memory.Key == UInt64, Memory.Value == Void {
    /// The two tiers.
    public var cache: TieredModel<Memory, DiskTierHandle>
    @usableFromInline var driver: RequestDriver

    /// Creates a replayer with a new, empty memory tier in front of `disk`.
    public init(limits: CacheLimits, options: PolicyOptions, ignoreSize: Bool, disk: DiskTierHandle,
                memoryCost: TierMemoryCost) throws(PolicyConfigurationError) {
        try options.validate(against: Memory.descriptor)
        try limits.validate(for: Memory.descriptor)
        cache = TieredModel(memory: try Memory(limits: limits, options: options), disk: disk, memoryCost: memoryCost)
        // Tiers are online policies: an offline policy cannot be a tier.
        driver = RequestDriver(ignoreSize: ignoreSize, needsFuture: false)
    }

    /// Drives both tiers with a batch of requests.
    @inlinable
    public mutating func apply(_ batch: [Request]) {
        for request in batch { driver.apply(request, to: &cache) }
    }

    /// Lets the disk tier's clock catch up with the trace, for the timers due after its last call.
    public mutating func finish() { cache.synchronizeDisk() }
}

/// One tiered run behind closures specialized for the memory tier's type.
public struct TieredRun {
    /// Drives both tiers with a batch of requests.
    public let apply: ([Request]) -> Void
    /// Brings the disk tier's clock to the end of the trace.
    public let finish: () -> Void
    /// The counts so far (hits are memory and disk hits; evictions are the memory tier's).
    public let counters: () -> ReplayCounters
    /// Disk hits and their bytes.
    public let diskHits: () -> (hits: Int, bytes: Int)
    /// The memory tier's state.
    public let memory: () -> TierState
    /// The disk tier's state.
    public let disk: () -> TierState

    @usableFromInline
    init(apply: @escaping ([Request]) -> Void, finish: @escaping () -> Void, counters: @escaping () -> ReplayCounters,
         diskHits: @escaping () -> (hits: Int, bytes: Int), memory: @escaping () -> TierState, disk: @escaping () -> TierState) {
        self.apply = apply
        self.finish = finish
        self.counters = counters
        self.diskHits = diskHits
        self.memory = memory
        self.disk = disk
    }
}

@usableFromInline
final class _TieredReplayerBox<P: ReplayPolicy> {
    @usableFromInline var replayer: TieredReplayer<P>
    @usableFromInline init(_ replayer: TieredReplayer<P>) { self.replayer = replayer }
}

extension TieredRun {
    /// A tiered run with a new, empty `P` as its memory tier, in front of `disk`. Inlinable, as
    /// ``RegisteredPolicy/of(_:)``: the loop is compiled where `P` is concrete.
    @inlinable
    static func make<P: ReplayPolicy>(_ type: P.Type, limits: CacheLimits, options: PolicyOptions, ignoreSize: Bool,
                                      disk: DiskTierHandle, memoryCost: TierMemoryCost)
        throws(PolicyConfigurationError) -> TieredRun {
        let box = _TieredReplayerBox(try TieredReplayer<P>(limits: limits, options: options, ignoreSize: ignoreSize,
                                                           disk: disk, memoryCost: memoryCost))
        return TieredRun(
            apply: { box.replayer.apply($0) },
            finish: { box.replayer.finish() },
            counters: { box.replayer.driver.counters },
            diskHits: { (box.replayer.driver.lowerTierHits, box.replayer.driver.lowerTierByteHits) },
            memory: {
                let observer = box.replayer.driver.observer
                let memory = box.replayer.cache.memory
                return TierState(evictions: observer.evictions, trims: observer.timings,
                                 entries: memory.count, bytes: memory.totalCost, policyMetrics: memory.extraMetrics)
            },
            disk: { disk.state() })
    }
}

/// A memory policy in front of a disk policy, as `compare --tier` lists them.
public struct TierPair: Sendable {
    /// The memory tier's policy name.
    public var memory: String
    /// The disk tier and its configuration.
    public var tier: TierJob

    /// Creates a pair.
    public init(memory: String, tier: TierJob) {
        self.memory = memory
        self.tier = tier
    }

    /// `memory=A,disk=B`: how reports name the pair.
    public var name: String { "memory=\(memory),disk=\(tier.disk)" }
}

extension Replay {
    /// Runs `job` through a memory tier (`job.policy`) in front of a disk tier (`tier.disk`).
    static func runTiered(_ job: ReplayJob, _ tier: TierJob) throws(CacheBenchError) -> ReplayResult {
        let (memory, disk) = try tierPolicies(TierPair(memory: job.policy, tier: tier), in: job.registry)
        guard job.threads == 1 else { throw .configuration(.tierWithThreads) }
        var diskJob = job
        // The disk tier's own limits only: a fraction given for the memory tier is not the disk's.
        diskJob.capacity = tier.diskCapacity
        diskJob.capacityFraction = tier.diskCapacity == nil ? tier.diskCapacityFraction : nil
        diskJob.countLimit = tier.diskCountLimit
        let memoryCapacity = try resolveCapacity(for: memory.descriptor, job)
        let diskCapacity = try resolveCapacity(for: disk.descriptor, diskJob)
        let run = try makeTieredRun(memory: memory, disk: disk, tier: tier,
                                    memoryLimits: CacheLimits(capacity: memoryCapacity.0, countLimit: job.countLimit),
                                    diskCapacity: diskCapacity.0, options: job.options, ignoreSize: job.ignoreSize)
        // The same batch loop as a plain replay and a comparison, with the pair as its one lane.
        let opened = try openReader(needsFuture: memory.descriptor.needsFuture, job.trace, policy: memory.descriptor.name,
                                    maxRequests: job.window.maxRequests)
        let start = monotonicNanoseconds()
        do { _ = try Compare.drive([_Lane(apply: run.apply)], opened, threads: 1, progress: nil) } catch { throw .trace(error) }
        run.finish()
        let seconds = Double(monotonicNanoseconds() - start) / 1e9
        try requireRows(run.counters(), job)
        return ReplayResult(tiered: run, memory: memory.descriptor, disk: disk.descriptor, tier: tier, trace: job.trace.path,
                            memoryCapacity: memoryCapacity, memoryCountLimit: job.countLimit, diskCapacity: diskCapacity,
                            ignoreSize: job.ignoreSize, seconds: seconds)
    }

    /// The registered policies of a pair; offline policies cannot be tiers.
    static func tierPolicies(_ pair: TierPair, in registry: PolicyRegistry) throws(CacheBenchError) -> (memory: RegisteredPolicy, disk: RegisteredPolicy) {
        let memory: RegisteredPolicy, disk: RegisteredPolicy
        do {
            memory = try registry.policy(named: pair.memory)
            disk = try registry.policy(named: pair.tier.disk)
        } catch { throw error.asRunError }
        for policy in [memory, disk] where policy.descriptor.needsFuture {
            throw .configuration(.offlineTier(policy.descriptor.name))
        }
        return (memory, disk)
    }

    /// A new, empty disk tier and memory tier, ready to be driven.
    static func makeTieredRun(memory: RegisteredPolicy, disk: RegisteredPolicy, tier: TierJob, memoryLimits: CacheLimits,
                              diskCapacity: Int?, options: PolicyOptions, ignoreSize: Bool) throws(CacheBenchError) -> TieredRun {
        let handle: DiskTierHandle
        do {
            handle = try disk.makeDiskTier(limits: CacheLimits(capacity: diskCapacity, countLimit: tier.diskCountLimit),
                                           options: tier.diskOptions, ignoreSize: ignoreSize)
        } catch { throw .configuration(.diskTier(error)) }
        do {
            return try memory.makeTieredRun(limits: memoryLimits, options: options, ignoreSize: ignoreSize, disk: handle,
                                            memoryCost: tier.memoryCost)
        } catch { throw error.asRunError }
    }
}
