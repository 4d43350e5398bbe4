/// A thread-safe in-memory cache over any policy of this library: NSCache's API, your choice of
/// eviction rule.
///
/// ```swift
/// let images = Cache<URL, UIImage>(policy: .sieve, costLimit: 100 << 20)
/// let bytes = Int(image.size.width * image.size.height * image.scale * image.scale) * 4
/// images.setValue(image, forKey: url, cost: bytes)
/// let hit = images[url]
/// ```
///
/// - **Threads.** Every call takes one lock (`os_unfair_lock` on Apple platforms, back to
///   iOS 13; elsewhere a lock on one atomic word whose waiters spin, then yield, then poll, and
///   a waiter that has polled in vain is let in next, so a get is never starved by a thread
///   setting in a loop), so each call is atomic with respect to the others. The class is `Sendable` when `Key` and `Value` are.
///   The lock is not reentrant: a key's `hash(into:)` and `==` run under it and must not call the
///   cache (that call would wait for itself for ever); the eviction handler and values' `deinit`
///   run after it is released and may. A get or set hashes its key before it takes the lock and
///   starts loading the key's index bucket then, so that the bucket's memory latency is paid
///   outside the time other threads wait (for the policies ``CachePolicy`` names).
/// - **Limits.** `nil` (or 0, as with NSCache) means none: for costs, totals up to
///   ``CacheLimits/maximumCapacity`` (2^60), the most any cost limit enforces, so that no sum of
///   costs can overflow; an entry's cost counts as at most ``CacheLimits/maximumCost`` (2^53). Setting ``costLimit`` or
///   ``countLimit`` trims at once and keeps the policy's order. A policy that takes new limits in
///   place (``EvictionPolicy/adoptLimits(of:)``: LRU, FIFO, LIFO, MRU, CLOCK, SIEVE and the models of
///   NSCache, PINCache, Nuke and SDWebImage's memory cache) keeps every entry's state (reference
///   bits, counts, the order among equal costs, a weak map) and evicts its own victims down to
///   them. Any other policy's entries come out in the order it would evict them and go back in
///   that order under the new limits, so an LRU-ordered rule keeps its order and drops its least
///   recently used entries (and any entry whose own cost is above the new cost limit, however
///   recent), reported to ``evictionHandler`` once the refill is done, not necessarily in eviction
///   order; LFU keeps its order (not its counts). Policies outside the slot
///   flow (S3-FIFO, 2Q, ARC, LIRS, W-TinyLFU and the library models) are refilled oldest set first,
///   each entry as a new set, so the policy's own admission rules apply: S3-FIFO sends them
///   through its small FIFO and LIRS through its small resident HIR part, which may keep few of
///   them (see ``CachePolicy`` for what each policy refuses).
///   A library model's queued purge (YYMemoryCache's cost trim, AFNetworking's purge) runs then
///   too, rather than at the next call as in the library.
/// - **Time.** ``timeToLive`` (or a per-entry one) expires entries on the ``CacheClock``; an
///   expired entry is never returned and is removed when a get finds it or when
///   ``removeExpired()`` runs (on entering the background, automatically).
/// - **Memory.** On Apple platforms the cache reacts to memory warnings and to entering the
///   background by itself (UIKit's notifications where UIKit exists, except on watchOS; the
///   memory-pressure dispatch source elsewhere); on Linux call ``handle(_:)`` with
///   ``CacheEvent/memoryWarning``.
///   ``memoryWarningResponse`` says what a warning does.
/// - **Evictions.** ``evictionHandler`` sees each entry the cache drops on its own (limits,
///   expiry, memory warnings), never the ones you remove. It runs on the thread whose call caused
///   the eviction, after the lock is released, so it may call back into the cache. For a memory
///   warning the cache observes by itself, that is the thread the system notifies on: the thread
///   that posted UIKit's notification (the main thread, in an iOS app), or a utility-priority
///   global dispatch queue for the memory-pressure source. The values the
///   cache lets go (evicted, expired, replaced by a set, removed by ``removeAll()``) are released
///   after the lock too, so a value's `deinit` may also call back into the cache (a policy chosen
///   by a type that is not an ``ArenaPolicy`` may release a replaced value under the lock).
///
/// - **Speed.** A get, set or remove of a policy ``CachePolicy`` names calls it directly, compiled
///   for your key and value types where you use the cache (one branch on the policy's kind, no
///   indirect call); a policy chosen by type goes through one closure compiled the same way. The
///   entry in the policy is 16 bytes for a class value (``CacheEntry``). Over a ``SlotPolicy``
///   (LRU, FIFO, CLOCK, SIEVE, LFU) a set writes nothing beside the policy: limit changes, trims
///   and expiry sweeps list the policy's own entries. Other policies keep a side table of keys,
///   costs and expiry times, one slot per set. The cold paths (limit changes, memory warnings,
///   expiry sweeps) are compiled for your types too, so their loop over the entries runs at
///   policy speed: halving the limit of a million-entry cache is a fraction of a second.
///
/// - Complexity: a get, set or remove is the policy's (O(1) expected for every policy
///   ``CachePolicy`` names) plus one lock; changing a limit or trimming on a memory warning is
///   O(n) policy operations (O(n log n) for policies refilled in set order).
public final class Cache<Key: Hashable, Value> {
    /// What the policy stores for each key; see ``CacheEntry``.
    public typealias Entry = CacheEntry<Value>
    /// Receives the key, the value and why the cache dropped it.
    public typealias EvictionHandler = @Sendable (_ key: Key, _ value: Value, _ reason: CacheEvictionReason) -> Void
    @usableFromInline typealias Observer = _CacheObserver<Key, Value>

    @usableFromInline let _lock = _CacheLock()
    /// Where the policy's key index lies, for the calls that start loading a key's bucket
    /// before they take the lock.
    @usableFromInline let _indexHint = _IndexHint()
    @usableFromInline let _state: UnsafeMutablePointer<_CacheState<Key, Value>>
    @usableFromInline let _core: _CacheCore<Key, Value>
    @usableFromInline let _kind: _PolicyKind
    @usableFromInline var _systemEvents: AnyObject?
    /// The seed of every policy's key index (one per process), so the cache can hash a key as
    /// the index does without holding the lock.
    @usableFromInline let _hashSeed: UInt64 = _stringHashSeed

    /// Creates an empty cache with a policy chosen by name.
    ///
    /// - Parameters:
    ///   - policy: the eviction rule; LRU by default.
    ///   - costLimit: the most total cost the cache holds, or `nil` (or 0) for none.
    ///   - countLimit: the most entries it holds, or `nil` (or 0) for none. Only the policies
    ///     that are ``CachePolicy/supportsCountLimit`` take one.
    ///   - timeToLive: seconds an entry stays valid after it is set, or `nil` for ever.
    ///   - clock: where time is read.
    ///   - memoryWarningResponse: what a memory warning does.
    ///   - observesSystemEvents: whether, on Apple platforms, the cache subscribes itself to memory
    ///     warnings, memory pressure and entering the background.
    /// - Precondition: the policy can enforce the limits given: no count limit for a policy that
    ///   has none (S3-FIFO, 2Q, ARC, LIRS, W-TinyLFU size their queues by cost), and for LIRS a
    ///   cost limit of at least 3 (its LIR part must hold twice its HIR part). (Use
    ///   ``init(policyType:costLimit:countLimit:options:timeToLive:clock:memoryWarningResponse:observesSystemEvents:)``
    ///   to get an error instead.)
    @inlinable
    public convenience init(policy: CachePolicy = .lru, costLimit: Int? = nil, countLimit: Int? = nil,
                            timeToLive: Double? = nil, clock: CacheClock = .system,
                            memoryWarningResponse: MemoryWarningResponse = .removeAll,
                            observesSystemEvents: Bool = true) {
        do {
            try self.init(validating: policy, costLimit: costLimit, countLimit: countLimit, timeToLive: timeToLive,
                          clock: clock, memoryWarningResponse: memoryWarningResponse,
                          observesSystemEvents: observesSystemEvents)
        } catch {
            preconditionFailure("Cache(policy: .\(policy)): \(error.message)")
        }
    }

    /// ``init(policy:costLimit:countLimit:timeToLive:clock:memoryWarningResponse:observesSystemEvents:)``
    /// that throws what the policy rejects, for callers that pass limits on (``DiskCache``).
    @inlinable
    convenience init(validating policy: CachePolicy, costLimit: Int?, countLimit: Int?, timeToLive: Double?,
                     clock: CacheClock, memoryWarningResponse: MemoryWarningResponse,
                     observesSystemEvents: Bool) throws(PolicyConfigurationError) {
        let limits = CacheLimits(capacity: _limit(costLimit), countLimit: _limit(countLimit))
        let core = try Self._core(for: policy, limits: limits)
        self.init(core: core, kind: _PolicyKind(policy), limits: limits, timeToLive: timeToLive, clock: clock,
                  memoryWarningResponse: memoryWarningResponse, observesSystemEvents: observesSystemEvents)
    }

    /// Creates an empty cache with any policy, chosen by type.
    ///
    /// ```swift
    /// let cache = try Cache<String, Data>(policyType: YYMemoryCache<String, CacheEntry<Data>>.self,
    ///                                     costLimit: 20 << 20, options: ["auto-trim-interval": "5"])
    /// ```
    ///
    /// `options` are the policy's parameters by name (``EvictionPolicy/descriptor``), or by an
    /// alias such as libCacheSim's name (`fifo-size-ratio` for S3-FIFO's `small-ratio`), in any case.
    ///
    /// - Throws: ``PolicyConfigurationError`` when the policy rejects the limits or options.
    @inlinable
    public convenience init<Policy: EvictionPolicy>(
        policyType: Policy.Type, costLimit: Int? = nil, countLimit: Int? = nil, options: PolicyOptions = PolicyOptions(),
        timeToLive: Double? = nil, clock: CacheClock = .system, memoryWarningResponse: MemoryWarningResponse = .removeAll,
        observesSystemEvents: Bool = true
    ) throws(PolicyConfigurationError) where Policy.Key == Key, Policy.Value == Entry {
        let limits = CacheLimits(capacity: _limit(costLimit), countLimit: _limit(countLimit))
        let kind = Self._kind(of: policyType)
        // libCacheSim's parameter names (`fifo-size-ratio`) and any case, as on the command line.
        let options = try options.resolvingAliases(of: Policy.descriptor)
        let core = _PolicyCore<Key, Value, Policy>(try Policy(limits: limits._forCache, options: options), options: options)
        self.init(core: core, kind: kind, limits: limits, timeToLive: timeToLive, clock: clock,
                  memoryWarningResponse: memoryWarningResponse, observesSystemEvents: observesSystemEvents)
    }

    @usableFromInline
    init(core: _CacheCore<Key, Value>, kind: _PolicyKind, limits: CacheLimits,
         timeToLive: Double?, clock: CacheClock, memoryWarningResponse: MemoryWarningResponse, observesSystemEvents: Bool) {
        _core = core
        _kind = kind
        _state = .allocate(capacity: 1)
        _state.initialize(to: _CacheState(
            limits: limits, timeToLive: _duration(timeToLive), clock: clock, memoryWarningResponse: memoryWarningResponse,
            advancesPolicyClock: core.descriptor.family == .library, usesKeyRing: core.usesKeyRing))
        // Start the policy's clock now, so that entries set before the first timed call are not
        // stamped at time zero.
        if _state.pointee.advancesPolicyClock { _withState(.event) { _, _ in } }
        if observesSystemEvents { _systemEvents = _subscribeToSystemEvents() }
    }

    deinit {
        _lock.deallocate()
        _indexHint.deallocate()
        _state.deinitialize(count: 1)
        _state.deallocate()
    }

    // MARK: Reading and writing

    /// The value for `key`, recording the access, or `nil` on a miss or when the entry expired.
    @inlinable
    public func value(forKey key: Key) -> Value? {
        _get(key, withCost: false)?.value
    }

    /// The value for `key` and its cost, recording the access (what ``RecordingCache`` needs).
    @inlinable
    func _valueAndCost(forKey key: Key) -> (value: Value, cost: Int)? {
        _get(key, withCost: true)
    }

    /// A get; the cost is read only when asked for.
    @inlinable @inline(__always)
    func _get(_ key: Key, withCost: Bool) -> (value: Value, cost: Int)? {
        // Hashed before the lock is taken: reading the key's bytes (often a cache miss) and
        // hashing them stay out of the time other threads wait.
        _get(key, hash: _keyHash(key), withCost: withCost)
    }

    /// A get of `key`, whose hash ``_keyHash(_:)`` gave.
    @inlinable @inline(__always)
    func _get(_ key: Key, hash: UInt64, withCost: Bool) -> (value: Value, cost: Int)? {
        _indexHint.prefetch(hash: hash)
        return _withState(.limit) { state, observer in
            guard let entry = _call(_Lookup(hash: hash), key, &observer) else { return nil }
            if state.pointee.mayExpire && state.pointee.isExpired(entry) {
                if let removed = _call(_Remove(), key, &observer) { observer.didEvict(key, removed, because: .expired) }
                return nil
            }
            guard withCost else { return (entry.value, 0) }
            return (entry.value, state.pointee.usesKeyRing ? state.pointee.ringCost(of: entry) : _core.cost(ofKey: key))
        }
    }

    /// Stores `value` under `key`, replacing any value there, and evicts what the policy's rule
    /// says must go.
    ///
    /// - Parameters:
    ///   - value: the value to store.
    ///   - key: the key to store it under.
    ///   - cost: what the entry counts against ``costLimit`` (bytes, typically); negative is 0,
    ///     and above ``CacheLimits/maximumCost`` (2^53) counts as that.
    ///   - timeToLive: seconds until the entry expires (`.infinity`: never; 0 or less: at once);
    ///     `nil` (or NaN, which is no number of seconds) uses the cache's ``timeToLive``.
    @inlinable
    public func setValue(_ value: Value, forKey key: Key, cost: Int = 0, timeToLive: Double? = nil) {
        _set(value, forKey: key, hash: _keyHash(key), cost: cost, timeToLive: timeToLive)
    }

    /// A set of `key`, whose hash ``_keyHash(_:)`` gave: hashed, and its bucket asked for,
    /// before the lock is taken, as a get's.
    @inlinable @inline(__always)
    func _set(_ value: Value, forKey key: Key, hash: UInt64, cost: Int, timeToLive: Double?) {
        _indexHint.prefetch(hash: hash)
        _withState(.limit) { state, observer in
            let cost = CacheLimits.clampedCost(cost)
            let entry = state.pointee.makeEntry(value, forKey: key, cost: cost, timeToLive: timeToLive)
            _call(_Insert(entry: entry, cost: cost, hash: hash), key, &observer)
            // The index may have grown: later calls prefetch from where it lies now.
            _indexHint.publish(_call(_IndexGeometry(), key, &observer))
            // Replacements leave stale key ring slots behind; look for them now and then.
            if state.pointee.usesKeyRing && state.pointee.serial & 1023 == 0 { _core.compactIfNeeded(state: state) }
        }
    }

    /// Removes `key`'s entry and returns its value, or `nil` if there was none. Not an eviction:
    /// the ``evictionHandler`` does not see it.
    @inlinable
    @discardableResult
    public func removeValue(forKey key: Key) -> Value? {
        _withState(.limit) { state, observer in
            guard let entry = _call(_Remove(), key, &observer) else { return nil }
            // The index may have shrunk.
            _indexHint.publish(_call(_IndexGeometry(), key, &observer))
            let expired = state.pointee.isExpired(entry)
            state.pointee.forget(entry)
            _core.shrinkRingIfSparse(state: state)
            guard !expired else {
                // Released once the lock is, as every value the cache drops: its deinit may call
                // back into the cache.
                observer.keep(entry.value)
                return nil
            }
            return entry.value
        }
    }

    /// Whether `key` has an entry (an expired one not yet removed included), without recording an
    /// access.
    @inlinable
    public func contains(_ key: Key) -> Bool {
        _withState(.limit) { _, observer in
            _core.willRead(observer: &observer)
            return _call(_Contains(), key, &observer)
        }
    }

    /// Removes every entry. Not an eviction: the ``evictionHandler`` does not see them.
    public func removeAll() {
        _withState(.limit) { state, observer in
            // The old policy, and every value in it, goes once the lock is released.
            observer.droppedPolicy = _core.reset(limits: state.pointee.limits)
            state.pointee.clear()
            _republishIndex()
        }
    }

    /// The number of entries (expired ones not yet removed included).
    public var count: Int {
        _withState(.limit) { _, observer in
            _core.willRead(observer: &observer)
            return _core.count()
        }
    }

    /// The sum of the entries' costs.
    public var totalCost: Int {
        _withState(.limit) { _, observer in
            _core.willRead(observer: &observer)
            return _core.totalCost()
        }
    }

    // MARK: Limits and time

    /// The most total cost the cache holds, or `nil` for none; 0 also means none. Setting it trims
    /// at once, keeping the policy's order (see the type's documentation). A limit the policy
    /// rejects (none, for a policy that needs one) leaves the cache as it was.
    @inlinable
    public var costLimit: Int? {
        get { _withState(.limit) { state, _ in state.pointee.limits.capacity } }
        set { _changeLimits { $0.capacity = _limit(newValue) } }
    }

    /// The most entries the cache holds, or `nil` for none; 0 also means none. Setting it trims at
    /// once, keeping the policy's order. A limit the policy rejects (any, for a policy without a
    /// count limit: see ``CachePolicy/supportsCountLimit``) leaves the cache as it was.
    @inlinable
    public var countLimit: Int? {
        get { _withState(.limit) { state, _ in state.pointee.limits.countLimit } }
        set { _changeLimits { $0.countLimit = _limit(newValue) } }
    }

    /// Seconds an entry stays valid after it is set, for entries set from now on without a time to
    /// live of their own; `nil` for ever.
    public var timeToLive: Double? {
        get { _withState(.limit) { state, _ in state.pointee.timeToLive } }
        set { _withState(.limit) { state, _ in state.pointee.timeToLive = _duration(newValue) } }
    }

    /// What a memory warning does; ``MemoryWarningResponse/removeAll`` by default.
    public var memoryWarningResponse: MemoryWarningResponse {
        get { _withState(.limit) { state, _ in state.pointee.memoryWarningResponse } }
        set { _withState(.limit) { state, _ in state.pointee.memoryWarningResponse = newValue } }
    }

    /// Called for each entry the cache drops on its own; see the type's documentation.
    ///
    /// Evictions are delivered after the lock is released, so a handler replaced (or set to `nil`)
    /// while another thread is delivering a batch taken before the replacement is still called
    /// for that batch, possibly after this setter returns. A handler that must not run once
    /// replaced checks a flag of its own.
    public var evictionHandler: EvictionHandler? {
        get { _withState(.limit) { state, _ in state.pointee.handler } }
        set {
            // The handler replaced, and all it captured, is released once the lock is: a deinit
            // there may call back into the cache, as an evicted value's may. A timer that fired
            // in this call (before the body) evicted under the replaced handler: it is told of
            // those, after the lock, and the new one only of evictions from its installation on.
            let (replaced, evicted) = _withState(.limit) { state, _ in
                var evicted: [(Key, Value, CacheEvictionReason)] = []
                swap(&evicted, &state.pointee.evicted)
                defer { state.pointee.handler = newValue }
                return (state.pointee.handler, evicted)
            }
            if let replaced {
                for (key, value, why) in evicted { replaced(key, value, why) }
            }
            withExtendedLifetime(replaced) {}
        }
    }

    /// Removes every expired entry.
    ///
    /// - Complexity: O(n) over the entries (their expiry times are in the entries, or in the key
    ///   ring for a policy that is not a ``SlotPolicy``), plus one removal per expired entry; O(1)
    ///   while no entry stored since the cache was last emptied can expire.
    @inlinable
    public func removeExpired() {
        _withState(.expired) { state, observer in
            _core.removeExpired(state: state, observer: &observer)
            _republishIndex()
        }
    }

    // MARK: Events

    /// Delivers an environment event. On Apple platforms the cache receives memory warnings and
    /// background transitions by itself; on Linux, call `cache.handle(.memoryWarning)` when the
    /// process is short of memory.
    ///
    /// The policy sees the event first (library models react as their library does); then a memory
    /// warning does what ``memoryWarningResponse`` says, and entering the background removes
    /// expired entries.
    @inlinable
    public func handle(_ event: CacheEvent) {
        let reason: CacheEvictionReason = event == .memoryWarning ? .memoryWarning : .event
        _withState(reason) { state, observer in
            _core.handle(event, observer: &observer)
            switch event {
            case .memoryWarning:
                _core.respondToMemoryWarning(state: state, observer: &observer)
            case .background:
                observer.reason = .expired
                _core.removeExpired(state: state, observer: &observer)
            case .terminate:
                break
            }
            _republishIndex()
        }
    }

    // MARK: Internals

    /// A memory warning's trim to `target` (at most that many entries costing at most that much)
    /// in place of the response's own fraction, after the policy's own reaction to the event when
    /// `deliveringEvent`: a ``StripedCache`` rounds one fraction of its whole contents, not each
    /// stripe's, and trims again without the event when its survivors still cost too much.
    func _respondToMemoryWarning(keeping target: (count: Int, cost: Int), deliveringEvent: Bool) {
        _withState(.memoryWarning) { state, observer in
            if deliveringEvent { _core.handle(.memoryWarning, observer: &observer) }
            _core.respondToMemoryWarning(state: state, observer: &observer, keeping: target)
            _republishIndex()
        }
    }

    /// Runs `body` under the lock with an observer for `reason`, then reports what it evicted.
    @inlinable @inline(__always)
    func _withState<Result>(_ reason: CacheEvictionReason, _ body: (UnsafeMutablePointer<_CacheState<Key, Value>>, inout Observer) -> Result) -> Result {
        _lock.lock()
        let state = _state
        let reports = state.pointee.handler != nil
        var observer = Observer(state: state, reports: reports, reason: reason)
        if state.pointee.advancesPolicyClock {
            // The policy's timers fire as events, whatever the call. A reading that is no finite
            // time (an app's clock gone wrong: NaN, ±∞) moves no timer.
            let now = state.pointee.clock.now()
            if now.isFinite {
                observer.reason = .event
                _core.advance(to: now, observer: &observer)
                observer.reason = reason
            }
        }
        let result = body(state, &observer)
        guard reports, !state.pointee.evicted.isEmpty, let handler = state.pointee.handler else {
            _lock.unlock()
            observer.releaseDropped()
            return result
        }
        var batch: [(Key, Value, CacheEvictionReason)] = []
        swap(&batch, &state.pointee.evicted)
        _lock.unlock()
        observer.releaseDropped()
        for (key, value, why) in batch { handler(key, value, why) }
        return result
    }

    /// Publishes where the policy's index lies after a cold path that may have moved it (a
    /// reset, a trim that gave storage back), so that gets prefetch from there at once. Under
    /// the lock. Sets and removals publish through ``_IndexGeometry``, specialised.
    @inlinable
    func _republishIndex() {
        guard _kind != .custom else { return }
        _indexHint.publish(_core.indexGeometry())
    }

    /// `key`'s hash as the policy's key index computes it; a pure function of the key.
    @inlinable @inline(__always)
    func _keyHash(_ key: Key) -> UInt64 { _hash(key, seed: _hashSeed) }

    /// Applies the limits `change` makes (or none, if the policy rejects them). Inlinable, as the
    /// limits' setters are, so that the drain and refill are compiled for the app's key and value
    /// types rather than run as generic code (about 4 µs an entry).
    @inlinable
    func _changeLimits(_ change: (inout CacheLimits) -> Void) {
        _withState(.limit) { state, observer in
            var limits = state.pointee.limits
            change(&limits)
            _ = _core.changeLimits(to: limits, state: state, observer: &observer)
            _republishIndex()
        }
    }
}

extension Cache: @unchecked Sendable where Key: Sendable, Value: Sendable {}

extension Cache: KeyedCache {}

/// A limit as the policies take it: `nil` for none, and NSCache's 0 (or less) also none.
@inlinable
func _limit(_ value: Int?) -> Int? {
    guard let value, value > 0 else { return nil }
    return value
}

/// A time to live as the cache keeps it: a finite number of seconds, at least 0, or `nil`.
@inlinable
func _duration(_ seconds: Double?) -> Double? {
    guard let seconds, !seconds.isNaN else { return nil }
    if seconds == .infinity { return nil }
    return max(seconds, 0)
}
