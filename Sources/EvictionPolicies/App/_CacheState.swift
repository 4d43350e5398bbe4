/// Everything a ``Cache`` guards with its lock, at a fixed address so that calls pay no
/// exclusivity check.
@usableFromInline
internal struct _CacheState<Key: Hashable, Value> {
    @usableFromInline typealias Observer = _CacheObserver<Key, Value>

    @usableFromInline var policy: _ErasedPolicy<Key, Value>
    @usableFromInline let factory: _PolicyFactory<Key, Value>
    @usableFromInline var limits: CacheLimits
    @usableFromInline var timeToLive: Double?
    @usableFromInline let clock: CacheClock
    @usableFromInline var memoryWarningResponse: MemoryWarningResponse
    @usableFromInline let advancesPolicyClock: Bool
    @usableFromInline var handler: Cache<Key, Value>.EvictionHandler?
    /// The number of the last set; entries remember theirs.
    @usableFromInline var serial: UInt64 = 0

    @usableFromInline
    init(policy: _ErasedPolicy<Key, Value>, factory: _PolicyFactory<Key, Value>, limits: CacheLimits, timeToLive: Double?,
         clock: CacheClock, memoryWarningResponse: MemoryWarningResponse, advancesPolicyClock: Bool) {
        self.policy = policy
        self.factory = factory
        self.limits = limits
        self.timeToLive = timeToLive
        self.clock = clock
        self.memoryWarningResponse = memoryWarningResponse
        self.advancesPolicyClock = advancesPolicyClock
    }

    /// Moves the policy's virtual time to the clock's, firing its timers.
    @inlinable
    mutating func advanceClock(_ observer: inout Observer) {
        let reason = observer.reason
        observer.reason = .event
        policy.advance(clock.now(), &observer)
        observer.reason = reason
    }

    /// A fresh, empty policy with the current limits (which it accepted before).
    @usableFromInline
    mutating func removeAll(ring: UnsafeMutablePointer<_KeyRing<Key>>) {
        guard let empty = try? factory.make(limits) else { return removeEach(ring: ring) }
        policy = empty
        ring.pointee.removeAll()
    }

    /// Removes every entry one by one (not as evictions).
    @usableFromInline
    mutating func removeEach(ring: UnsafeMutablePointer<_KeyRing<Key>>) {
        var observer = Observer(ring: ring, evicted: nil, reason: .limit)
        for key in ring.pointee.liveKeys() { _ = policy.remove(key, &observer) }
        ring.pointee.removeAll()
    }

    /// Takes every entry out of the policy, oldest set first.
    @usableFromInline
    mutating func drain(ring: UnsafeMutablePointer<_KeyRing<Key>>, observer: inout Observer) -> [(Key, CacheEntry<Value>)] {
        var entries: [(Key, CacheEntry<Value>)] = []
        entries.reserveCapacity(policy.count())
        // A key listed twice (a replaced entry's old slot) is found once.
        for key in ring.pointee.liveKeys() {
            if let entry = policy.remove(key, &observer) { entries.append((key, entry)) }
        }
        ring.pointee.removeAll()
        entries.sort { $0.1.serial < $1.1.serial }
        return entries
    }

    /// Replaces the policy by one with `newLimits` holding the same entries, stored again oldest
    /// first so that its rule evicts what no longer fits. If the policy rejects `newLimits`,
    /// nothing changes.
    @usableFromInline
    mutating func rebuild(limits newLimits: CacheLimits, ring: UnsafeMutablePointer<_KeyRing<Key>>, observer: inout Observer) {
        guard let fresh = try? factory.make(newLimits) else { return }
        let entries = drain(ring: ring, observer: &observer)
        policy = fresh
        limits = newLimits
        for (key, entry) in entries { store(key, entry, ring: ring, observer: &observer) }
    }

    /// Stores a drained entry in the current policy under a new key slot.
    @usableFromInline
    mutating func store(_ key: Key, _ entry: CacheEntry<Value>, ring: UnsafeMutablePointer<_KeyRing<Key>>,
                        observer: inout Observer) {
        var entry = entry
        entry.ring = ring.pointee.add(key, serial: entry.serial, expires: entry.expires)
        policy.insert(entry, key, entry.cost, &observer)
    }

    /// Keeps `fraction` of the entries and of their cost, the policy choosing: a rebuild with
    /// limits that small, then one with the usual limits.
    @usableFromInline
    mutating func trim(toFraction fraction: Double, ring: UnsafeMutablePointer<_KeyRing<Key>>, observer: inout Observer) {
        let fraction = fraction.isNaN ? 0 : min(max(fraction, 0), 1)
        let keepCount = Int((Double(policy.count()) * fraction).rounded(.down))
        let keepCost = Int((Double(policy.totalCost()) * fraction).rounded(.down))
        guard keepCount > 0 else {
            let everything = drain(ring: ring, observer: &observer)
            for (key, entry) in everything { observer.didEvict(key, value: entry, cost: entry.cost) }
            return
        }
        guard fraction < 1 else { return }
        let usual = limits
        var small = CacheLimits(capacity: keepCost > 0 ? keepCost : nil, countLimit: nil)
        if factory.descriptor.supportsCountLimit { small.countLimit = keepCount }
        if let capacity = usual.capacity, let smaller = small.capacity { small.capacity = min(capacity, smaller) }
        rebuild(limits: small, ring: ring, observer: &observer)
        rebuild(limits: usual, ring: ring, observer: &observer)
    }

    @usableFromInline
    mutating func respondToMemoryWarning(ring: UnsafeMutablePointer<_KeyRing<Key>>, observer: inout Observer) {
        switch memoryWarningResponse {
        case .ignore: return
        case .removeAll: trim(toFraction: 0, ring: ring, observer: &observer)
        case .trim(let fraction): trim(toFraction: fraction, ring: ring, observer: &observer)
        }
    }

    /// Removes the entries whose time to live has run out, reporting them as expired.
    @usableFromInline
    mutating func removeExpired(ring: UnsafeMutablePointer<_KeyRing<Key>>, observer: inout Observer) {
        let now = clock.now()
        for key in ring.pointee.keys(expiringBy: now) {
            guard let entry = policy.remove(key, &observer) else { continue }
            if entry.expires <= now {
                let reason = observer.reason
                observer.reason = .expired
                observer.didEvict(key, value: entry, cost: entry.cost)
                observer.reason = reason
            } else {
                // The slot was a replaced entry's; the key's current entry is still valid.
                ring.pointee.release(entry.ring, serial: entry.serial)
                store(key, entry, ring: ring, observer: &observer)
            }
        }
    }
}
