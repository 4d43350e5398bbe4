/// Which policy a ``Cache`` holds: the ones ``CachePolicy`` names, which the cache calls directly,
/// or another chosen by type.
@usableFromInline
internal enum _PolicyKind: UInt8, Sendable {
    case lru, fifo, clock, sieve, s3fifo, twoQueue, arc, lirs, lfu, tinyLFU, custom

    @inlinable
    init(_ choice: CachePolicy) {
        switch choice {
        case .lru: self = .lru
        case .fifo: self = .fifo
        case .clock: self = .clock
        case .sieve: self = .sieve
        case .s3fifo: self = .s3fifo
        case .twoQueue: self = .twoQueue
        case .arc: self = .arc
        case .lirs: self = .lirs
        case .lfu: self = .lfu
        case .tinyLFU: self = .tinyLFU
        }
    }
}

/// One hot-path call on a ``Cache``'s policy, written once for any policy type: ``Cache`` runs it
/// on the concrete type its ``_PolicyKind`` names (every one an ``ArenaPolicy``), so the call is compiled for that type where
/// the app uses the cache. The key is an argument, not a field: borrowed, it costs no retain.
@usableFromInline
internal protocol _PolicyCall<Key, Value> {
    associatedtype Key: Hashable
    associatedtype Value
    associatedtype Result
    /// The call on a policy of a known type.
    func callAsFunction<P: ArenaPolicy>(_ policy: UnsafeMutablePointer<P>, _ key: Key, _ observer: inout _CacheObserver<Key, Value>) -> Result
    where P.Key == Key, P.Value == CacheEntry<Value>
    /// The call on a policy chosen by a type the cache does not name.
    func callAsFunction(_ calls: _PolicyCalls<Key, Value>, _ key: Key, _ observer: inout _CacheObserver<Key, Value>) -> Result
}

@usableFromInline
internal struct _Lookup<Key: Hashable, Value>: _PolicyCall {
    /// The key's hash, computed before the cache took its lock (see ``Cache/_keyHash(_:)``).
    @usableFromInline let hash: UInt64
    @inlinable init(hash: UInt64) { self.hash = hash }
    @inlinable @inline(__always)
    func callAsFunction<P: ArenaPolicy>(_ policy: UnsafeMutablePointer<P>, _ key: Key, _ observer: inout _CacheObserver<Key, Value>) -> CacheEntry<Value>?
    where P.Key == Key, P.Value == CacheEntry<Value> { policy.pointee._lookup(key, hash: hash, observer: &observer) }
    @inlinable
    func callAsFunction(_ calls: _PolicyCalls<Key, Value>, _ key: Key, _ observer: inout _CacheObserver<Key, Value>) -> CacheEntry<Value>? {
        calls.lookup(key, &observer)
    }
}

@usableFromInline
internal struct _Insert<Key: Hashable, Value>: _PolicyCall {
    @usableFromInline let entry: CacheEntry<Value>
    @usableFromInline let cost: Int
    /// The key's hash, computed before the cache took its lock (see ``Cache/_keyHash(_:)``). The
    /// kinds the cache names all store through the flow's insert (none replaces
    /// ``EvictionPolicy/insert(_:forKey:cost:observer:)``), so its hashed form is the same step.
    @usableFromInline let hash: UInt64
    @inlinable init(entry: CacheEntry<Value>, cost: Int, hash: UInt64) { self.entry = entry; self.cost = cost; self.hash = hash }
    @inlinable @inline(__always)
    func callAsFunction<P: ArenaPolicy>(_ policy: UnsafeMutablePointer<P>, _ key: Key, _ observer: inout _CacheObserver<Key, Value>)
    where P.Key == Key, P.Value == CacheEntry<Value> {
        policy.pointee._insert(entry, forKey: key, hash: hash, cost: cost, observer: &observer)
    }
    @inlinable
    func callAsFunction(_ calls: _PolicyCalls<Key, Value>, _ key: Key, _ observer: inout _CacheObserver<Key, Value>) {
        calls.insert(entry, key, cost, &observer)
    }
}

@usableFromInline
internal struct _Remove<Key: Hashable, Value>: _PolicyCall {
    @inlinable init() {}
    @inlinable @inline(__always)
    func callAsFunction<P: ArenaPolicy>(_ policy: UnsafeMutablePointer<P>, _ key: Key, _ observer: inout _CacheObserver<Key, Value>) -> CacheEntry<Value>?
    where P.Key == Key, P.Value == CacheEntry<Value> { policy.pointee.remove(key, observer: &observer) }
    @inlinable
    func callAsFunction(_ calls: _PolicyCalls<Key, Value>, _ key: Key, _ observer: inout _CacheObserver<Key, Value>) -> CacheEntry<Value>? {
        calls.remove(key, &observer)
    }
}

@usableFromInline
internal struct _Contains<Key: Hashable, Value>: _PolicyCall {
    @inlinable init() {}
    @inlinable
    func callAsFunction<P: ArenaPolicy>(_ policy: UnsafeMutablePointer<P>, _ key: Key, _ observer: inout _CacheObserver<Key, Value>) -> Bool
    where P.Key == Key, P.Value == CacheEntry<Value> { policy.pointee.contains(key) }
    @inlinable
    func callAsFunction(_ calls: _PolicyCalls<Key, Value>, _ key: Key, _ observer: inout _CacheObserver<Key, Value>) -> Bool {
        calls.contains(key)
    }
}

/// Where the policy's key index keeps its buckets (``SlotIndex/_bucketGeometry``), for
/// ``_IndexHint``; none (address 0) for a policy chosen by a type the cache does not name.
@usableFromInline
internal struct _IndexGeometry<Key: Hashable, Value>: _PolicyCall {
    @inlinable init() {}
    @inlinable @inline(__always)
    func callAsFunction<P: ArenaPolicy>(_ policy: UnsafeMutablePointer<P>, _ key: Key, _ observer: inout _CacheObserver<Key, Value>) -> (base: UInt, shift: UInt)
    where P.Key == Key, P.Value == CacheEntry<Value> { policy.pointee._inPlace { $0.index._bucketGeometry } }
    @inlinable
    func callAsFunction(_ calls: _PolicyCalls<Key, Value>, _ key: Key, _ observer: inout _CacheObserver<Key, Value>) -> (base: UInt, shift: UInt) {
        (0, 0)
    }
}

extension Cache {
    /// Runs `call` on the policy as its concrete type: one branch on the kind, then a direct,
    /// specialised call.
    @inlinable @inline(__always)
    func _call<Call: _PolicyCall>(_ call: Call, _ key: Key, _ observer: inout Observer) -> Call.Result
    where Call.Key == Key, Call.Value == Value {
        let address = _core.address
        switch _kind {
        case .lru: return call(address.assumingMemoryBound(to: LRUCache<Key, Entry>.self), key, &observer)
        case .fifo: return call(address.assumingMemoryBound(to: FIFOCache<Key, Entry>.self), key, &observer)
        case .clock: return call(address.assumingMemoryBound(to: ClockCache<Key, Entry>.self), key, &observer)
        case .sieve: return call(address.assumingMemoryBound(to: SieveCache<Key, Entry>.self), key, &observer)
        case .s3fifo: return call(address.assumingMemoryBound(to: S3FIFOCache<Key, Entry>.self), key, &observer)
        case .twoQueue: return call(address.assumingMemoryBound(to: TwoQCache<Key, Entry>.self), key, &observer)
        case .arc: return call(address.assumingMemoryBound(to: ARCCache<Key, Entry>.self), key, &observer)
        case .lirs: return call(address.assumingMemoryBound(to: LIRSCache<Key, Entry>.self), key, &observer)
        case .lfu: return call(address.assumingMemoryBound(to: LFUCache<Key, Entry>.self), key, &observer)
        case .tinyLFU: return call(address.assumingMemoryBound(to: WTinyLFUCache<Key, Entry>.self), key, &observer)
        case .custom: return call(_core.calls, key, &observer)
        }
    }

    /// The kind of a policy chosen by type: a named one's when it is that very type.
    @inlinable
    static func _kind<P: EvictionPolicy>(of type: P.Type) -> _PolicyKind {
        if type == LRUCache<Key, Entry>.self { return .lru }
        if type == FIFOCache<Key, Entry>.self { return .fifo }
        if type == ClockCache<Key, Entry>.self { return .clock }
        if type == SieveCache<Key, Entry>.self { return .sieve }
        if type == S3FIFOCache<Key, Entry>.self { return .s3fifo }
        if type == TwoQCache<Key, Entry>.self { return .twoQueue }
        if type == ARCCache<Key, Entry>.self { return .arc }
        if type == LIRSCache<Key, Entry>.self { return .lirs }
        if type == LFUCache<Key, Entry>.self { return .lfu }
        if type == WTinyLFUCache<Key, Entry>.self { return .tinyLFU }
        return .custom
    }

    /// The policy a name chooses, with `limits` and no options.
    @inlinable
    static func _core(for choice: CachePolicy, limits: CacheLimits) throws(PolicyConfigurationError) -> _CacheCore<Key, Value> {
        func make<P: EvictionPolicy>(_: P.Type, options: PolicyOptions = PolicyOptions()) throws(PolicyConfigurationError) -> _CacheCore<Key, Value>
        where P.Key == Key, P.Value == Entry {
            _PolicyCore<Key, Value, P>(try P(limits: limits._forCache, options: options), options: options)
        }
        switch choice {
        case .lru: return try make(LRUCache<Key, Entry>.self)
        case .fifo: return try make(FIFOCache<Key, Entry>.self)
        case .clock: return try make(ClockCache<Key, Entry>.self)
        case .sieve: return try make(SieveCache<Key, Entry>.self)
        case .s3fifo: return try make(S3FIFOCache<Key, Entry>.self)
        case .twoQueue: return try make(TwoQCache<Key, Entry>.self)
        case .arc: return try make(ARCCache<Key, Entry>.self)
        case .lirs: return try make(LIRSCache<Key, Entry>.self)
        case .lfu: return try make(LFUCache<Key, Entry>.self)
        // Its frequency sketch sized by the entries, once the cache is half full, as Caffeine's own
        // cache sizes it: sized by the cost limit up front (the simulator's way, for entries of
        // cost 1), a cache without a limit, or with a byte limit and a first entry of cost 1,
        // held a 512 MiB table for a few thousand entries.
        case .tinyLFU: return try make(WTinyLFUCache<Key, Entry>.self, options: PolicyOptions(["weighted": "true"]))
        }
    }
}
