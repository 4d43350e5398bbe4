/// A cache that decides which entries to drop when it runs out of room.
///
/// Every policy in this module, from a research algorithm such as SIEVE to a faithful model of
/// YYMemoryCache, is one type conforming to this protocol. The same type serves two callers:
///
/// - **Apps** use it as a real cache: `Value` is the cached object, ``lookup(_:observer:)``
///   returns it, and ``insert(_:forKey:cost:observer:)`` stores it.
/// - **The replay engine** uses it as a simulator: `Value` is `Void`, which costs nothing once
///   the generic code is specialized, and keys are 64-bit object identifiers.
///
/// ## Time
/// Time is virtual. A policy never reads the wall clock; the caller moves time forward with
/// ``advance(to:observer:)``, and timers (YYMemoryCache's 5 s auto-trim) and age limits fire
/// there, in trace time. Entries are stamped with the time of the last `advance`.
///
/// ## Observing evictions
/// Every mutating call takes an ``EvictionObserver``. A policy reports each entry it drops
/// because of a limit, a timer or an event with ``EvictionObserver/didEvict(_:value:cost:)``,
/// and brackets each *trim pass* (one call that removes one or more entries) with
/// ``EvictionObserver/trimWillBegin(_:)`` and ``EvictionObserver/trimDidEnd(_:)``. A pass is only
/// reported when it removes at least one entry, so an observer may read a clock in those two
/// calls without adding a clock read to requests that evict nothing. Explicit removals
/// (``remove(_:observer:)``) are not evictions.
///
/// Observers are generic parameters, not existentials, so the replay loop, the policy and the
/// observer specialize into one loop with no dynamic dispatch per request.
///
/// ## Deferred work
/// Libraries that trim asynchronously (AFNetworking's barrier purge, YYMemoryCache's cost trim)
/// are modelled as work queued by one call and run at the start of the next call on the same
/// policy, which is when a serial queue would have run it. Such passes are reported with
/// ``TrimKind/deferred``; passes the caller waits for are ``TrimKind/caller``.
public protocol EvictionPolicy<Key, Value> {
    /// The type of keys. Replay uses `UInt64`; apps use whatever identifies their objects.
    associatedtype Key: Hashable
    /// The type of cached values. Replay uses `Void`.
    associatedtype Value

    /// What this policy is, what it reproduces and which parameters it takes.
    static var descriptor: PolicyDescriptor { get }

    /// Whether an admission rule in front of the policy (``AdmissionControlled``) decides its
    /// misses. `false` for a policy that, as its libCacheSim original, never consults an
    /// admission algorithm: the rule then refuses nothing. The default is `true`.
    static var takesAdmission: Bool { get }

    /// Whether the admission rule sees every request (``AdmissionRule/observe(_:cost:capacity:)``),
    /// as libCacheSim's `cache_get_base` updates its admissioner. `false` for a policy whose
    /// libCacheSim original has a get of its own that never does (GDSF), so a rule that learns
    /// from the requests (AdaptSize) keeps its initial state there. The default is `true`.
    static var showsRequestsToAdmission: Bool { get }

    /// Creates an empty cache.
    ///
    /// - Parameters:
    ///   - limits: the cost and count limits. A policy that has no count limit rejects one.
    ///   - options: policy parameters by name, as listed in ``descriptor`` (the parameters' own
    ///     names; ``PolicyOptions/resolvingAliases(of:)`` turns aliases into them). Unknown names
    ///     and malformed values are rejected.
    /// - Throws: ``PolicyConfigurationError`` when a limit or option cannot be used.
    init(limits: CacheLimits, options: PolicyOptions) throws(PolicyConfigurationError)

    /// The number of resident entries. Ghost (history-only) entries are not counted.
    var count: Int { get }

    /// The sum of the costs of the resident entries.
    var totalCost: Int { get }

    /// Whether `key` is resident, without recording an access.
    func contains(_ key: Key) -> Bool

    /// Looks `key` up and, when it is resident, records the access as the policy does on a hit.
    ///
    /// - Returns: the value, or `nil` on a miss. A miss changes nothing except deferred work
    ///   that was due, and what the policy's own rules say (for example, none for LRU).
    mutating func lookup(_ key: Key, observer: inout some EvictionObserver<Key, Value>) -> Value?

    /// Inserts `value` under `key` with `cost`, replacing the resident entry if there is one,
    /// and evicts what the policy's rules say must go.
    ///
    /// Research policies follow libCacheSim's conventions: an object whose cost exceeds the
    /// capacity is not inserted and leaves the cache untouched. Library models do what their
    /// library does.
    mutating func insert(_ value: Value, forKey key: Key, cost: Int, observer: inout some EvictionObserver<Key, Value>)

    /// Removes `key` if it is resident. This is not an eviction and is not reported as one.
    ///
    /// - Returns: the removed value, or `nil` if `key` was not resident.
    @discardableResult
    mutating func remove(_ key: Key, observer: inout some EvictionObserver<Key, Value>) -> Value?

    /// Delivers an environment event (memory warning, entering the background) to the cache,
    /// which reacts as the library it models does. Research policies ignore events.
    mutating func handle(_ event: CacheEvent, observer: inout some EvictionObserver<Key, Value>)

    /// Moves virtual time forward to `time` (seconds), firing any timers that fall due.
    /// Times earlier than the current time are ignored.
    mutating func advance(to time: Double, observer: inout some EvictionObserver<Key, Value>)

    /// Takes over `previous`'s time: called on a new, empty policy that replaces `previous`
    /// (a ``Cache`` emptied by ``Cache/removeAll()`` or a memory warning, or given new limits),
    /// before anything is stored in it. In the libraries, emptying a cache or changing its limits
    /// leaves its timer alone, so a model with a timer keeps the timer's schedule, and any model
    /// of trace time keeps the current time (so entries stored next are stamped with it, not
    /// with 0). The default does nothing: a research policy keeps no time.
    mutating func continueClock(of previous: Self)

    /// The time this policy keeps for `key`'s entry (when it was stored or last used, or when it
    /// expires, in trace time), or `nil` when it keeps none (the default, for a policy without
    /// time). A ``Cache`` given new limits refills a new policy with the old one's entries, in
    /// the old one's eviction order, and puts each entry's time back with
    /// ``EvictionPolicy/restoreEntryTime(_:forKey:)``: in the libraries a limit change does not touch an entry's
    /// expiry, age or date.
    func entryTime(forKey key: Key) -> Double?

    /// Puts back, for `key`'s entry, a time ``EvictionPolicy/entryTime(forKey:)`` gave (see there). The entries
    /// are stored again oldest first, so a model whose order follows its times keeps that order.
    mutating func restoreEntryTime(_ time: Double, forKey key: Key)

    /// Runs now the work earlier calls queued for later ones (see "Deferred work" above: a
    /// library's asynchronous purge), as if the queue had drained. ``Cache`` calls it after a
    /// limit change, so the cache is within its new limits at once. The default does nothing.
    mutating func finishDeferredWork(observer: inout some EvictionObserver<Key, Value>)

    /// Runs the queued work that, in the library this policy models, a read of the cache's state
    /// waits for: AFNetworking's reads (`memoryUsage`, `imageWithIdentifier:`) queue behind its
    /// purge barrier, so they see the purge an earlier add queued, while YYMemoryCache's
    /// `totalCost` does not wait for its background trim. ``Cache`` calls it before ``count``,
    /// ``totalCost`` and ``Cache/contains(_:)`` answer. The default does nothing.
    mutating func willRead(observer: inout some EvictionObserver<Key, Value>)

    /// Cache-aside access: a hit if `key` is resident, otherwise `value` is inserted with `cost`.
    ///
    /// The default implementation is ``EvictionPolicy/lookup(_:observer:)`` followed, on a miss, by
    /// ``EvictionPolicy/insert(_:forKey:cost:observer:)``. Policies may implement it with one index probe.
    ///
    /// - Returns: `true` on a hit.
    mutating func access(_ key: Key, cost: Int, orInsert value: @autoclosure () -> Value,
                         observer: inout some EvictionObserver<Key, Value>) -> Bool

    /// Tells an offline policy when `key`'s next request will come. Online policies ignore it.
    ///
    /// The replay engine calls this before each request when ``PolicyDescriptor/needsFuture``
    /// is set; `index` is the 1-based request index of the next request for the same key, or
    /// `Int64.max` when there is none.
    mutating func noteNextAccess(_ index: Int64)

    /// A hint that `key` will be requested soon: the policy may start loading the memory that
    /// request will touch, so the request does not wait for it. It changes nothing observable.
    ///
    /// A replay engine that can see the requests ahead calls it twice per request: with
    /// `.index` some requests ahead, then with `.entry` a few requests ahead. The default does
    /// nothing.
    ///
    /// It is `mutating` so that a default can read the policy's storage in place: a
    /// non-mutating default reads a stored property through the protocol's getter, which copies
    /// it (see ``ArenaPolicy``). A non-mutating implementation satisfies it as well.
    mutating func prefetch(_ key: Key, _ stage: PrefetchStage)

    /// Evicts the policy's own victims, in the order making room would, until at most `count`
    /// entries costing at most `cost` in all remain (a memory warning that trims to a fraction).
    ///
    /// - Returns: whether the policy names its victims and did so; `false` (the default) from a
    ///   policy that evicts only while it inserts, which is left as it was. Every ``SlotPolicy``
    ///   names them.
    /// - Complexity: O(k) evictions for k victims.
    mutating func evictVictims(downToCount count: Int, cost: Int, observer: inout some EvictionObserver<Key, Value>) -> Bool

    /// Takes the limits of `other`, an empty policy of this type made with the new limits and
    /// the same options, keeping every entry and what the rule knows of it (a frequency, a
    /// reference bit, a place among equals), as a library's cache does when its app sets a
    /// limit; the caller then evicts down to the new limits with
    /// ``EvictionPolicy/evictVictims(downToCount:cost:observer:)``.
    ///
    /// - Returns: whether it did; `false` (the default), changing nothing, for a rule whose
    ///   state is shaped by its limits (a segment's size, an adaptive target). A ``Cache`` then
    ///   refills a new policy with the entries in the order this one would evict them.
    /// - Complexity: O(1) where implemented.
    mutating func adoptLimits(of other: Self) -> Bool

    /// Figures particular to this policy, for the replay report's `policyMetrics` (for example,
    /// how many of YYDiskCache's entries are inline SQLite blobs and how many are files).
    ///
    /// Names are lowerCamelCase and stable; values are counts or sizes. The default is none.
    var extraMetrics: [PolicyMetric] { get }
}

extension EvictionPolicy {
    @inlinable public static var takesAdmission: Bool { true }
    @inlinable public static var showsRequestsToAdmission: Bool { true }

    @inlinable
    public mutating func access(_ key: Key, cost: Int, orInsert value: @autoclosure () -> Value,
                                observer: inout some EvictionObserver<Key, Value>) -> Bool {
        lookupOrInsert(key, cost: cost, orInsert: value(), observer: &observer)
    }

    /// Cache-aside access as two calls: ``EvictionPolicy/lookup(_:observer:)``, then, on a miss,
    /// ``EvictionPolicy/insert(_:forKey:cost:observer:)``. It is the default
    /// ``EvictionPolicy/access(_:cost:orInsert:observer:)``, and the one a ``ForwardingPolicy`` whose lookup
    /// refuses some resident entries (an expired object) writes, so both steps stay its own.
    ///
    /// - Returns: `true` on a hit.
    @inlinable
    public mutating func lookupOrInsert(_ key: Key, cost: Int, orInsert value: @autoclosure () -> Value,
                                        observer: inout some EvictionObserver<Key, Value>) -> Bool {
        if lookup(key, observer: &observer) != nil { return true }
        insert(value(), forKey: key, cost: cost, observer: &observer)
        return false
    }

    @inlinable
    public mutating func noteNextAccess(_ index: Int64) {}

    @inlinable
    public mutating func prefetch(_ key: Key, _ stage: PrefetchStage) {}
    @inlinable
    public mutating func evictVictims(downToCount count: Int, cost: Int,
                                      observer: inout some EvictionObserver<Key, Value>) -> Bool { false }

    @inlinable
    public mutating func adoptLimits(of other: Self) -> Bool { false }

    @inlinable
    public mutating func handle(_ event: CacheEvent, observer: inout some EvictionObserver<Key, Value>) {}

    @inlinable
    public mutating func advance(to time: Double, observer: inout some EvictionObserver<Key, Value>) {}

    @inlinable
    public mutating func continueClock(of previous: Self) {}

    @inlinable
    public func entryTime(forKey key: Key) -> Double? { nil }

    @inlinable
    public mutating func restoreEntryTime(_ time: Double, forKey key: Key) {}

    @inlinable
    public mutating func finishDeferredWork(observer: inout some EvictionObserver<Key, Value>) {}

    @inlinable
    public mutating func willRead(observer: inout some EvictionObserver<Key, Value>) {}

    public var extraMetrics: [PolicyMetric] { [] }
}

/// One policy-specific figure: a name and an integer value.
public struct PolicyMetric: Sendable, Equatable, CustomStringConvertible {
    /// The name, lowerCamelCase, e.g. `inlineEntries`.
    public var name: String
    /// The value: a count or a size.
    public var value: Int

    /// Creates a metric.
    public init(_ name: String, _ value: Int) {
        self.name = name
        self.value = value
    }

    /// `name=value`.
    public var description: String { "\(name)=\(value)" }
}

// Conveniences for apps that do not observe evictions.
extension EvictionPolicy {
    /// Creates an empty cache with the given limits and default options.
    ///
    /// - Parameters:
    ///   - capacity: the cost limit, or `nil` for none.
    ///   - countLimit: the count limit, or `nil` for none.
    public init(capacity: Int?, countLimit: Int? = nil) throws(PolicyConfigurationError) {
        try self.init(limits: CacheLimits(capacity: capacity, countLimit: countLimit), options: PolicyOptions())
    }

    /// Returns the value for `key` and records the access, or `nil` on a miss.
    @inlinable
    public mutating func value(forKey key: Key) -> Value? {
        var observer = IgnoringObserver<Key, Value>()
        return lookup(key, observer: &observer)
    }

    /// Stores `value` under `key` with `cost`, evicting as the policy's rules say.
    @inlinable
    public mutating func setValue(_ value: Value, forKey key: Key, cost: Int = 1) {
        var observer = IgnoringObserver<Key, Value>()
        insert(value, forKey: key, cost: cost, observer: &observer)
    }

    /// Removes `key` and returns its value, or `nil` if it was not resident.
    @inlinable
    @discardableResult
    public mutating func removeValue(forKey key: Key) -> Value? {
        var observer = IgnoringObserver<Key, Value>()
        return remove(key, observer: &observer)
    }
}

/// An environment event delivered to a cache, as an app's notification centre would.
public enum CacheEvent: String, Sendable, CaseIterable {
    /// `UIApplicationDidReceiveMemoryWarningNotification`.
    case memoryWarning = "memory-warning"
    /// `UIApplicationDidEnterBackgroundNotification`.
    case background
    /// `UIApplicationWillTerminateNotification`: the app is about to exit. Only caches that clean
    /// up on termination (SDWebImage's disk cache) react to it.
    case terminate
}

/// Who waits for a trim pass.
public enum TrimKind: Sendable, Hashable {
    /// The pass runs inside the call that caused it; the caller waits for it.
    case caller
    /// The pass runs later, off the caller's path: a queued block or a timer.
    case deferred
}

/// Receives the evictions and trim passes of a cache.
///
/// The replay engine's observer counts evictions and times trim passes; an app's observer may
/// release resources or log. All requirements are called synchronously from the cache's
/// mutating methods, so an observer must not call back into the cache.
public protocol EvictionObserver<Key, Value> {
    /// The cache's key type.
    associatedtype Key
    /// The cache's value type.
    associatedtype Value
    /// Called before a pass that will remove at least one entry.
    mutating func trimWillBegin(_ kind: TrimKind)
    /// Called once for each entry removed by a limit, a timer or an event.
    mutating func didEvict(_ key: Key, value: Value, cost: Int)
    /// Called after the pass announced by the last ``trimWillBegin(_:)``.
    mutating func trimDidEnd(_ kind: TrimKind)
    /// Whether a missed object of `cost` may enter, asked by the policy at the point where
    /// libCacheSim asks its admission algorithm (`can_insert`): after the policy's own refusals,
    /// before it evicts to make room. The observer travels with every request, so it is where a
    /// request's admission rule (``AdmissionControlled``) answers. The default admits everything.
    mutating func admits(_ key: Key, cost: Int) -> Bool
    /// Called when a set replaces resident `key`'s value, with the value that goes, before the
    /// policy drops it. Not an eviction. An observer may keep the value to release it later
    /// (``Cache`` does, so that a value's `deinit` runs after its lock is released). The
    /// default does nothing.
    mutating func willReplace(_ key: Key, value: Value)
}

extension EvictionObserver {
    @inlinable @inline(__always)
    public mutating func admits(_ key: Key, cost: Int) -> Bool { true }

    @inlinable @inline(__always)
    public mutating func willReplace(_ key: Key, value: Value) {}
}

/// An observer that ignores everything.
@frozen
public struct IgnoringObserver<Key, Value>: EvictionObserver {
    // One byte, so the observer has an address: an `inout` of an empty type passes a placeholder
    // pointer, which ThreadSanitizer's instrumentation of the access dereferences (a SEGV in
    // `swift test --sanitize=thread`). A byte on the stack costs nothing measurable.
    @usableFromInline internal var _addressable: UInt8 = 0

    /// Creates an observer that ignores everything.
    @inlinable public init() {}
    @inlinable public mutating func trimWillBegin(_ kind: TrimKind) {}
    @inlinable public mutating func didEvict(_ key: Key, value: Value, cost: Int) {}
    @inlinable public mutating func trimDidEnd(_ kind: TrimKind) {}
}

/// How far ahead a ``EvictionPolicy/prefetch(_:_:)`` hint comes, and so what it can load.
public enum PrefetchStage: Sendable {
    /// Well ahead: start loading where the key's lookup begins (an index bucket).
    case index
    /// Shortly ahead, after an `.index` hint for the same key: start loading the entry itself.
    case entry
}
