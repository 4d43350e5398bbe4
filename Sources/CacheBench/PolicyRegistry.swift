import EvictionPolicies
import Foundation

/// A policy type the replay engine can drive: 64-bit keys, no values.
public typealias ReplayPolicy = EvictionPolicy<UInt64, Void>

/// The policies a run can name: the built-in ones (``standard``) plus any a caller registers.
///
/// The command line, `cachebench policies`, `replay`, `compare` and `sweep` read the registry
/// they are given, so a policy defined in another package runs through every command:
///
/// ```swift
/// let registry = PolicyRegistry.standard.adding(LIPCache<UInt64, Void>.self)
/// ```
///
/// Adding a built-in policy means adding its line to ``all``.
public struct PolicyRegistry: Sendable {
    /// The registered policies, in the order `cachebench policies` lists them.
    public private(set) var policies: [RegisteredPolicy]

    /// A registry of `policies`, in that order.
    ///
    /// - Throws: ``PolicyRegistryError/duplicateName(_:)`` when two policies answer to one name.
    public init(_ policies: [RegisteredPolicy]) throws(PolicyRegistryError) {
        self.policies = []
        for policy in policies { try add(policy) }
    }

    /// The built-in policies of ``all``.
    public static let standard = PolicyRegistry(unchecked: all)

    private init(unchecked policies: [RegisteredPolicy]) { self.policies = policies }

    /// This registry with `type` added after its policies.
    ///
    /// A name or alias of `type` that an existing policy already answers to (or one that
    /// ``add(_:)`` refuses) is a programming mistake in the caller's executable, caught at its
    /// first run; ``add(_:)`` throws instead.
    /// - Precondition: no registered policy answers to `type`'s name or aliases, and each is usable.
    ///
    /// Inlinable, as ``RegisteredPolicy/of(_:)`` is: the replay loop is compiled in the caller's
    /// module, for `P`.
    @inlinable
    public func adding<P: ReplayPolicy & SendableMetatype>(_ type: P.Type) -> PolicyRegistry {
        var copy = self
        // A mistake in the caller's program (its own policy's name), never in a user's input.
        // The message goes to standard error first: a release build's precondition drops it,
        // and the caller must learn which name clashed.
        do { try copy.add(.of(type)) } catch {
            let message = "PolicyRegistry.adding(\(P.self).self): \(error.description)"
            FileHandle.standardError.write(Data((message + "\n").utf8))
            preconditionFailure(message)
        }
        return copy
    }

    /// Adds `policy` after the registered ones.
    ///
    /// - Throws: ``PolicyRegistryError/duplicateName(_:)`` when a registered policy already
    ///   answers to its name or one of its aliases; ``PolicyRegistryError/unusableName(_:reason:)``
    ///   for a name that is empty, holds a comma or white space, is a group's (``groupNames``),
    ///   or repeats the policy's own name or alias; ``PolicyRegistryError/invalidDescriptor(_:reason:)`` for a library
    ///   default capacity below 1, or a parameter name or alias that is empty, holds a comma, an
    ///   equals sign or white space, or is another parameter's (in any case).
    public mutating func add(_ policy: RegisteredPolicy) throws(PolicyRegistryError) {
        if case .library(let bytes) = policy.descriptor.defaultCapacity, bytes < 1 {
            throw .invalidDescriptor(policy.descriptor.name, reason: "its default capacity, \(bytes) bytes, is below 1")
        }
        var own = Set<String>()
        for name in [policy.descriptor.name] + policy.descriptor.aliases {
            // An alias that repeats the name or another alias (in any case) is a slip in the descriptor.
            if !own.insert(name.lowercased()).inserted {
                throw .unusableName(name, reason: "it repeats the policy's name or another of its aliases")
            }
            // A name every list of policies can hold: not empty, no comma (lists are separated by
            // commas), no white space (lists trim it), and not a group's name (`all`, `research`,
            // `library` stand for groups).
            if name.allSatisfy(\.isWhitespace) { throw .unusableName(name, reason: "it is empty") }
            if name.contains(",") { throw .unusableName(name, reason: "a comma separates names in lists of policies") }
            if name.contains(where: \.isWhitespace) {
                throw .unusableName(name, reason: "white space in a name (lists of policies trim it)")
            }
            if Self.groupNames.contains(name.lowercased()) {
                throw .unusableName(name, reason: "it names a group of policies (\(Self.groupNames.joined(separator: ", ")))")
            }
            if lookup(name) != nil { throw .duplicateName(name) }
        }
        // Options are given as `key=value` pairs separated by commas, and matched to a parameter
        // by its name or an alias in any case: each key must be one that can be typed, and name
        // one parameter.
        var keys = Set<String>()
        for parameter in policy.descriptor.parameters {
            for key in [parameter.name] + parameter.aliases {
                let problem: String? =
                    key.isEmpty ? "a parameter's name or alias is empty"
                    : key.contains(where: { $0 == "," || $0 == "=" || $0.isWhitespace })
                        ? "its parameter '\(key)' holds a comma, an equals sign or white space, which separate options"
                    : !keys.insert(key.lowercased()).inserted ? "two of its parameters answer to '\(key)'" : nil
                if let problem { throw .invalidDescriptor(policy.descriptor.name, reason: problem) }
            }
        }
        if policy.descriptor.evictsAsLRU, let mismatch = Self.lruMismatch(policy) {
            throw .invalidDescriptor(policy.descriptor.name, reason: mismatch)
        }
        policies.append(policy)
    }

    /// Why `policy`, whose descriptor says it evicts as LRU, does not, or `nil` when it hits as
    /// LRU does on a fixed sequence of 3,000 requests at three limits (in objects, then bytes):
    /// the claim lets `compare` and `mrc` take its counts from one LRU stack-distance pass
    /// instead of running it, so a wrong one would report LRU's figures under its name. A limit
    /// the policy refuses is skipped. O(requests), once per registration.
    static func lruMismatch(_ policy: RegisteredPolicy) -> String? {
        guard let lru = try? PolicyRegistry.standard.policy(named: "lru") else { return nil }
        var generator = SeededGenerator(seed: 0x5EED_1A0)
        // Reuse at every distance: a hot set, a loop longer than the small limits, and scans.
        let requests = (0..<3_000).map { i -> Request in
            let key: UInt64 = switch i % 5 {
            case 0, 1: UInt64.random(in: 0..<12, using: &generator)
            case 2, 3: UInt64(i / 5 % 90) + 100
            default: UInt64.random(in: 1_000..<1_400, using: &generator)
            }
            return Request(time: Double(i), key: key, size: Int(key % 97) + 1)
        }
        for (capacity, ignoreSize) in [(8, true), (48, true), (1_500, false)] {
            let limits = CacheLimits(capacity: capacity)
            guard let own = try? policy.makeRun(limits: limits, options: PolicyOptions(), ignoreSize: ignoreSize),
                  let reference = try? lru.makeRun(limits: limits, options: PolicyOptions(), ignoreSize: ignoreSize) else { continue }
            own.apply(requests)
            reference.apply(requests)
            let (ownHits, lruHits) = (own.counters().hits, reference.counters().hits)
            let (ownBytes, lruBytes) = (own.counters().byteHits, reference.counters().byteHits)
            if ownHits != lruHits || ownBytes != lruBytes {
                let unit = ignoreSize ? "objects" : "bytes"
                return "its descriptor says it evicts as LRU (evictsAsLRU), which lets compare and mrc report LRU's counts for it, "
                    + "but on a test sequence of \(requests.count) requests at a capacity of \(capacity) \(unit) it hits "
                    + "\(ownHits) times (\(ownBytes) bytes) where LRU hits \(lruHits) times (\(lruBytes) bytes)"
            }
        }
        return nil
    }

    /// The names that stand for groups of policies in a list of them, not for one policy.
    public static let groupNames = ["all", "research", "library"]

    /// The descriptors of every registered policy.
    public var descriptors: [PolicyDescriptor] { policies.map(\.descriptor) }

    /// The policy named `name`, case-insensitively: its own name or one of its
    /// ``PolicyDescriptor/aliases`` (libCacheSim's names, such as `LRU`, `twoq`, `s3-fifo`).
    ///
    /// - Throws: ``PolicyLookupError`` carrying the known names.
    public func policy(named name: String) throws(PolicyLookupError) -> RegisteredPolicy {
        if let found = lookup(name) { return found }
        let wanted = name.lowercased()
        let missing = Self.notProvided.first { $0.name == wanted || $0.aliases.contains(wanted) }
        throw PolicyLookupError(name: name, known: descriptors.map(\.name), notProvidedBecause: missing?.reason)
    }

    /// The registered name of the policy `name` finds (`LRU` → `lru`, `twoq` → `2q`), or `name`
    /// itself when no policy answers to it, so that records keyed by policy name agree however
    /// the user spelled it.
    public func canonicalName(_ name: String) -> String {
        lookup(name)?.descriptor.name ?? name
    }

    /// Names compare ignoring case on both sides: a descriptor may spell its own name or aliases
    /// with capitals (`CamelLRU`), and any spelling finds it.
    private func lookup(_ name: String) -> RegisteredPolicy? {
        let wanted = name.lowercased()
        return policies.first {
            $0.descriptor.name.lowercased() == wanted || $0.descriptor.aliases.contains { $0.lowercased() == wanted }
        }
    }
}

/// A policy name no registered policy answers to.
public struct PolicyLookupError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The name asked for.
    public var name: String
    /// The names of the registered policies.
    public var known: [String]
    /// Why cachebench does not provide the policy, when `name` is a libCacheSim algorithm of
    /// ``PolicyRegistry/notProvided``; `nil` for a name nobody knows.
    public var notProvidedBecause: String?

    /// A lookup of `name` that found none of `known`.
    public init(name: String, known: [String], notProvidedBecause: String? = nil) {
        self.name = name
        self.known = known
        self.notProvidedBecause = notProvidedBecause
    }

    /// The name asked for and the known names (or why it is not provided), in one line.
    public var description: String {
        if let reason = notProvidedBecause { return "policy '\(name)' is not provided: \(reason)" }
        return "unknown policy '\(name)' (known: \(known.joined(separator: ", ")))"
    }

    /// The known name closest to ``name`` (ignoring case, `-` and `_`), when at most two edits
    /// away and closer than every other; `nil` otherwise.
    public var nearest: String? {
        func plain(_ text: String) -> [Character] { Array(text.lowercased().filter { $0 != "-" && $0 != "_" }) }
        let wanted = plain(name)
        guard !wanted.isEmpty else { return nil }
        let ranked = known.map { (name: $0, distance: Self.editDistance(wanted, plain($0))) }.sorted { $0.distance < $1.distance }
        guard let best = ranked.first, best.distance <= min(2, wanted.count / 2) else { return nil }
        return ranked.dropFirst().first?.distance == best.distance ? nil : best.name
    }

    /// Levenshtein distance: the fewest insertions, deletions and substitutions from `a` to `b`.
    static func editDistance(_ a: [Character], _ b: [Character]) -> Int {
        var previous = Array(0...b.count)
        for (i, x) in a.enumerated() {
            var current = [i + 1] + Array(repeating: 0, count: b.count)
            for (j, y) in b.enumerated() {
                current[j + 1] = Swift.min(previous[j + 1] + 1, current[j] + 1, previous[j] + (x == y ? 0 : 1))
            }
            previous = current
        }
        return previous[b.count]
    }
}

/// Why a policy cannot join a registry.
public enum PolicyRegistryError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A registered policy already answers to this name or alias.
    case duplicateName(String)
    /// A name or alias no list of policies could select: empty, with a comma or white space, or
    /// a group's name.
    case unusableName(String, reason: String)
    /// A descriptor the commands could not use (a library default capacity below 1, parameter
    /// names that cannot be typed or that collide): the policy's name, and why.
    case invalidDescriptor(String, reason: String)

    /// The problem in one line.
    public var description: String {
        switch self {
        case .duplicateName(let name): "a registered policy already answers to the name '\(name)'"
        case .unusableName(let name, let reason): "the name '\(name)' cannot be a policy's: \(reason)"
        case .invalidDescriptor(let name, let reason): "policy '\(name)' cannot be registered: \(reason)"
        }
    }
}

extension PolicyRegistry {
    /// The descriptors of the built-in policies (``standard``).
    public static var descriptors: [PolicyDescriptor] { standard.descriptors }

    /// The built-in policy named `name` (see ``policy(named:)``).
    public static func policy(named name: String) throws(PolicyLookupError) -> RegisteredPolicy {
        try standard.policy(named: name)
    }

    /// The built-in policies, in the order `cachebench policies` lists them.
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
        .of(LHDCache<UInt64, Void>.self),
        .of(CacheusCache<UInt64, Void>.self),
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
        .of(ClockProCache<UInt64, Void>.self),
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

    /// libCacheSim algorithms cachebench does not provide, and why: three train a learned model
    /// with a machine-learning library, which the project does not depend on; `nop` measures
    /// nothing cachebench's own figures do not; `pluginCache` loads C, where a Swift policy
    /// registers instead.
    public static let notProvided: [UnprovidedPolicy] = [
        UnprovidedPolicy(name: "glcache", aliases: ["gl-cache"],
                         reason: "GL-Cache (Yang et al., FAST'23) trains a group-level model with XGBoost"),
        UnprovidedPolicy(name: "lrb", aliases: [],
                         reason: "LRB (Song et al., NSDI'20) trains a gradient-boosted model with LightGBM"),
        UnprovidedPolicy(name: "3lcache", aliases: [],
                         reason: "3L-Cache trains its eviction model with LightGBM"),
        UnprovidedPolicy(name: "nop", aliases: [],
                         reason: "libCacheSim's nop caches nothing, to time its trace reading alone; cachebench reports its replay loop's own requests/s, and a capacity of 0 is refused"),
        UnprovidedPolicy(name: "plugincache", aliases: [],
                         reason: "libCacheSim's pluginCache loads a policy from a C shared library; write the policy in Swift and register it (see the Writing a policy article of EvictionPolicies)"),
    ]
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
    let admittedFactory: @Sendable (CacheLimits, PolicyOptions, Bool, LibCacheSimAdmission<UInt64>) throws(PolicyConfigurationError) -> PolicyRun

    /// The closures ``of(_:)`` forms where the policy's type is concrete.
    @usableFromInline
    init(descriptor: PolicyDescriptor,
         factory: @escaping @Sendable (CacheLimits, PolicyOptions, Bool) throws(PolicyConfigurationError) -> PolicyRun,
         concurrent: @escaping @Sendable (CacheLimits, PolicyOptions, Bool, Int, sending any TraceReader) throws(CacheBenchError) -> ConcurrentReplay.Outcome,
         tiered: @escaping @Sendable (CacheLimits, PolicyOptions, Bool, DiskTierHandle, TierMemoryCost) throws(PolicyConfigurationError) -> TieredRun,
         diskTier: @escaping @Sendable (CacheLimits, PolicyOptions) throws(PolicyConfigurationError) -> DiskTierHandle,
         admittedFactory: @escaping @Sendable (CacheLimits, PolicyOptions, Bool, LibCacheSimAdmission<UInt64>) throws(PolicyConfigurationError) -> PolicyRun) {
        self.descriptor = descriptor
        self.factory = factory
        self.concurrent = concurrent
        self.tiered = tiered
        self.diskTier = diskTier
        self.admittedFactory = admittedFactory
    }

    /// Registers `type`.
    ///
    /// Inlinable so that the closures, and the replay loop inside them, are compiled where `P` is
    /// concrete: in the caller's own module for a policy defined there, which then replays as
    /// fast as a built-in one (without it, the loop ran generic code, about 10× slower).
    @inlinable
    public static func of<P: ReplayPolicy & SendableMetatype>(_ type: P.Type) -> RegisteredPolicy {
        RegisteredPolicy(
            descriptor: P.descriptor,
            factory: { (limits, options, ignoreSize) throws(PolicyConfigurationError) in
                let box = _ReplayerBox(try Replayer<P>(limits: limits, options: options, ignoreSize: ignoreSize))
                var run = PolicyRun(apply: { box.replayer.apply($0) },
                                    counters: { box.replayer.counters },
                                    trims: { box.replayer.trims },
                                    extraMetrics: { box.replayer.policy.extraMetrics })
                run.overrideMemoryWarnings = { box.replayer.overrideMemoryWarnings($0, limits: limits, options: options) }
                run.occupancy = { (box.replayer.policy.count, box.replayer.policy.totalCost) }
                run.residents = { _arenaResidents(box.replayer.policy) }
                return run
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
            },
            admittedFactory: { (limits, options, ignoreSize, rule) throws(PolicyConfigurationError) in
                try PolicyRun.admitted(P.self, limits: limits, options: options, ignoreSize: ignoreSize, rule: rule)
            })
    }

    /// Creates an empty policy as the memory tier of a tiered run, in front of `disk`.
    public func makeTieredRun(limits: CacheLimits, options: PolicyOptions, ignoreSize: Bool, disk: DiskTierHandle,
                              memoryCost: TierMemoryCost) throws(PolicyConfigurationError) -> TieredRun {
        try withResolvedOptions(options, ignoreSize: ignoreSize) { (resolved) throws(PolicyConfigurationError) in
            try tiered(limits, resolved, ignoreSize, disk, memoryCost)
        }
    }

    /// Creates an empty policy as the disk tier of a tiered run (whose sizes are all 1 when
    /// `ignoreSize`).
    public func makeDiskTier(limits: CacheLimits, options: PolicyOptions, ignoreSize: Bool = false) throws(PolicyConfigurationError) -> DiskTierHandle {
        try withResolvedOptions(options, ignoreSize: ignoreSize) { (resolved) throws(PolicyConfigurationError) in try diskTier(limits, resolved) }
    }

    /// Replays `reader` to its end from `threads` threads sharing one synchronized policy.
    func replayConcurrently(limits: CacheLimits, options: PolicyOptions, ignoreSize: Bool, threads: Int,
                            reader: sending any TraceReader) throws(CacheBenchError) -> ConcurrentReplay.Outcome {
        let resolved: PolicyOptions
        do { resolved = try withResolvedOptions(options, ignoreSize: ignoreSize) { $0 } } catch { throw error.asRunError }
        return try concurrent(limits, resolved, ignoreSize, threads, reader)
    }

    /// Creates an empty policy and a replayer around it.
    public func makeRun(limits: CacheLimits, options: PolicyOptions, ignoreSize: Bool) throws(PolicyConfigurationError) -> PolicyRun {
        try withResolvedOptions(options, ignoreSize: ignoreSize) { (resolved) throws(PolicyConfigurationError) in
            try factory(limits, resolved, ignoreSize)
        }
    }

    /// Runs `make` with `options` under the parameters' own names (``PolicyOptions/resolvingAliases(of:)``);
    /// an option the policy refuses is then named as the caller spelled it (`fifo-size-ratio`,
    /// not the `small-ratio` it stands for). When `ignoreSize` (every size is 1), a value given
    /// for a parameter that works on sizes (``PolicyParameter/actsOnSizes``) is refused.
    func withResolvedOptions<Result>(
        _ options: PolicyOptions, ignoreSize: Bool = false, _ make: (PolicyOptions) throws(PolicyConfigurationError) -> Result
    ) throws(PolicyConfigurationError) -> Result {
        let resolved = try options.resolvingAliases(of: descriptor)
        for parameter in descriptor.parameters where ignoreSize && parameter.actsOnSizes {
            guard let value = resolved.values[parameter.name] else { continue }
            throw spelledAsGiven(.invalidOption(parameter.name, value: value,
                                                expected: "no value while sizes are ignored (it works on sizes, and every size is 1)"),
                                 in: options)
        }
        do { return try make(resolved) } catch { throw spelledAsGiven(error, in: options) }
    }

    /// `error`, naming an option by the key it was given under when that key is an alias.
    private func spelledAsGiven(_ error: PolicyConfigurationError, in options: PolicyOptions) -> PolicyConfigurationError {
        guard case .invalidOption(let name, let value, let expected) = error,
              let parameter = descriptor.parameters.first(where: { $0.name == name }),
              options.values[name] == nil,
              let given = options.values.keys.sorted().first(where: { $0 != name && parameter.answers(to: $0.lowercased()) })
        else { return error }
        return .invalidOption(given, value: value, expected: expected)
    }

    /// Whether `key` is one of the policy's parameters, under its name or an alias.
    public func declares(option key: String) -> Bool {
        descriptor.parameters.contains { $0.answers(to: key.lowercased()) }
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
    /// The admission rule's name and counts, when the run has one.
    public var admission: (() -> AdmissionCounts)? = nil
    /// Sets what memory-warning rows do after the policy's reaction (``MemoryWarningOverride``);
    /// `nil` for a run that cannot take one (one behind an admission rule).
    public var overrideMemoryWarnings: ((MemoryWarningOverride) -> Void)? = nil
    /// The objects the policy holds now and their total cost, for the end-of-run check that it
    /// kept within its limits (``ReplayResult/warnings``); `nil` when not known.
    public var occupancy: (() -> (count: Int, cost: Int))? = nil
    /// The objects the policy's slot arena holds and their total cost, counted slot by slot, for
    /// the end-of-run check that the policy's own ``occupancy`` is right; `nil` when not known
    /// (a policy that keeps no ``ArenaPolicy/store``).
    public var residents: (() -> (count: Int, cost: Int)?)? = nil

    /// A run behind these closures.
    @usableFromInline
    init(apply: @escaping ([Request]) -> Void, counters: @escaping () -> ReplayCounters,
         trims: @escaping () -> (all: LatencyHistogram, caller: LatencyHistogram, deferred: LatencyHistogram),
         extraMetrics: @escaping () -> [PolicyMetric]) {
        self.apply = apply
        self.counters = counters
        self.trims = trims
        self.extraMetrics = extraMetrics
    }
}

@usableFromInline
final class _ReplayerBox<P: ReplayPolicy> {
    @usableFromInline var replayer: Replayer<P>
    @usableFromInline init(_ replayer: Replayer<P>) { self.replayer = replayer }
}

/// What `policy`'s slot arena holds, when it keeps its entries in one (``SlotArena/residentTotals()``):
/// read once at the end of a run, so the dynamic cast costs nothing per request.
@usableFromInline
func _arenaResidents<P: EvictionPolicy>(_ policy: P) -> (count: Int, cost: Int)? {
    guard let arenaPolicy = policy as? any ArenaPolicy else { return nil }
    return _residentTotals(of: arenaPolicy)
}

private func _residentTotals<A: ArenaPolicy>(of policy: A) -> (count: Int, cost: Int) { policy.store.residentTotals() }
