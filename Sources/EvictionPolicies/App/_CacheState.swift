/// Everything a ``Cache`` guards with its lock apart from the policy, at a fixed address so that
/// calls pay no exclusivity check.
@usableFromInline
internal struct _CacheState<Key: Hashable, Value> {
    @usableFromInline var limits: CacheLimits
    @usableFromInline var timeToLive: Double?
    @usableFromInline let clock: CacheClock
    @usableFromInline var memoryWarningResponse: MemoryWarningResponse
    /// Library models keep timers and age limits in virtual time; research policies ignore time.
    @usableFromInline let advancesPolicyClock: Bool
    @usableFromInline var handler: Cache<Key, Value>.EvictionHandler?
    /// Whether entries keep their bookkeeping in ``ring`` (a policy that cannot list and drain
    /// its entries itself) or their expiry in the entry (a ``SlotPolicy``); see ``CacheEntry``.
    @usableFromInline let usesKeyRing: Bool
    /// The number of the last set; key ring slots remember theirs.
    @usableFromInline var serial: UInt64 = 0
    /// Whether any entry stored since the cache was last emptied can expire: until one can, a get
    /// skips the expiry check (and the clock read it costs).
    @usableFromInline var mayExpire = false
    /// Only when ``usesKeyRing``.
    @usableFromInline var ring = _KeyRing<Key>()
    /// Evictions made under the lock, reported to ``handler`` once it is released.
    @usableFromInline var evicted: [(Key, Value, CacheEvictionReason)] = []

    @usableFromInline
    init(limits: CacheLimits, timeToLive: Double?, clock: CacheClock, memoryWarningResponse: MemoryWarningResponse,
         advancesPolicyClock: Bool, usesKeyRing: Bool) {
        self.usesKeyRing = usesKeyRing
        self.limits = limits
        self.timeToLive = timeToLive
        self.clock = clock
        self.memoryWarningResponse = memoryWarningResponse
        self.advancesPolicyClock = advancesPolicyClock
    }

    /// Whether `entry` is past its expiry time.
    ///
    /// `mutating` only to run in place: the cache reaches its state through a pointer, and a
    /// non-mutating call through `pointee` copied the whole state (a retain and release of each
    /// of its arrays and closures) on every get of a cache whose entries may expire.
    @inlinable
    mutating func isExpired(_ entry: CacheEntry<Value>) -> Bool {
        guard mayExpire else { return false }
        let expires: Double
        if usesKeyRing {
            guard ring.owns(entry.slot, stamp: entry.stamp) else { return false }
            expires = ring[entry.slot].expires
        } else {
            expires = entry.expires
        }
        return _hasExpired(expires, at: clock.now())
    }

    /// The cost an entry was stored with, from the key ring (0 if its slot was reclaimed).
    /// `mutating` only to run in place, as ``isExpired(_:)``.
    @inlinable
    mutating func ringCost(of entry: CacheEntry<Value>) -> Int {
        ring.owns(entry.slot, stamp: entry.stamp) ? ring[entry.slot].cost : 0
    }

    /// A new entry for `value`: its expiry computed, and with a key ring its slot taken.
    @inlinable
    mutating func makeEntry(_ value: Value, forKey key: Key, cost: Int, timeToLive: Double?) -> CacheEntry<Value> {
        var expires = Double.infinity
        // An entry's own time to live wins, `.infinity` (for ever) included; NaN is none of its own.
        let lifetime: Double?
        if let timeToLive, !timeToLive.isNaN { lifetime = _duration(timeToLive) } else { lifetime = self.timeToLive }
        if let seconds = lifetime {
            // Set while the clock reads no finite time (an app's clock gone wrong), the entry
            // cannot say when its time to live ends: it expires at once rather than never.
            let now = clock.now()
            expires = now.isFinite ? now + seconds : -.infinity
            mayExpire = true
        }
        guard usesKeyRing else { return CacheEntry(value: value, expires: expires) }
        serial &+= 1
        let slot = ring.add(key, serial: serial, expires: expires, cost: cost)
        return CacheEntry(value: value, slot: slot, stamp: UInt32(truncatingIfNeeded: serial))
    }

    /// Frees the key ring slot of `entry`, which left the policy (nothing to do without a ring).
    @inlinable
    mutating func forget(_ entry: CacheEntry<Value>) {
        if usesKeyRing { ring.release(entry.slot, stamp: entry.stamp) }
    }

    /// Forgets every entry's bookkeeping.
    @usableFromInline
    mutating func clear() {
        ring.removeAll()
        mayExpire = false
    }
}

/// The observer a ``Cache`` passes to its policy: frees each evicted entry's key ring slot and,
/// when the cache has an eviction handler, queues the eviction to report once the lock is
/// released.
@usableFromInline
internal struct _CacheObserver<Key: Hashable, Value>: EvictionObserver {
    @usableFromInline let state: UnsafeMutablePointer<_CacheState<Key, Value>>
    /// Whether evictions are queued for the handler.
    @usableFromInline var reports: Bool
    @usableFromInline var reason: CacheEvictionReason
    /// What the call took out of the cache and no handler is to receive: held until
    /// ``Cache/_withState(_:_:)`` has released the lock (``releaseDropped()``), so that a
    /// value's `deinit` may call back into the cache. One value inline (a set evicts one entry,
    /// or replaces one, as a rule); more, and a policy replaced whole, beside it.
    @usableFromInline var dropped: Value? = nil
    /// Allocated only when a call drops more than one value, or a whole policy: a get carries
    /// two empty words.
    @usableFromInline var moreDropped: _DroppedValues<Value>? = nil

    /// The policy a reset replaced, and every value in it.
    @inlinable var droppedPolicy: Any? {
        get { moreDropped?.policy }
        set { (moreDropped ?? _makeMoreDropped()).policy = newValue }
    }

    @usableFromInline @inline(never)
    mutating func _makeMoreDropped() -> _DroppedValues<Value> {
        let box = _DroppedValues<Value>()
        moreDropped = box
        return box
    }

    @inlinable
    init(state: UnsafeMutablePointer<_CacheState<Key, Value>>, reports: Bool, reason: CacheEvictionReason) {
        self.state = state
        self.reports = reports
        self.reason = reason
    }

    @inlinable public mutating func trimWillBegin(_ kind: TrimKind) {}
    @inlinable public mutating func trimDidEnd(_ kind: TrimKind) {}

    @inlinable
    public mutating func didEvict(_ key: Key, value: CacheEntry<Value>, cost: Int) {
        state.pointee.forget(value)
        if reports {
            state.pointee.evicted.append((key, value.value, reason))
        } else {
            keep(value.value)
        }
    }

    @inlinable
    public mutating func willReplace(_ key: Key, value: CacheEntry<Value>) { keep(value.value) }

    /// Holds `value` until the lock is released.
    @inlinable @inline(__always)
    mutating func keep(_ value: Value) {
        if dropped == nil { dropped = value } else { (moreDropped ?? _makeMoreDropped()).values.append(value) }
    }

    /// Releases what the call dropped; called once the lock is released.
    @inlinable @inline(__always)
    mutating func releaseDropped() {
        if dropped != nil { dropped = nil }
        if moreDropped != nil { moreDropped = nil }
    }

    /// Reports `entry` as dropped for `why`, whatever the current reason.
    @inlinable
    mutating func didEvict(_ key: Key, _ entry: CacheEntry<Value>, because why: CacheEvictionReason) {
        let reason = self.reason
        self.reason = why
        didEvict(key, value: entry, cost: 0)
        self.reason = reason
    }
}

/// Collects what a policy gives up, in the order it gives it up: how a limit change takes the
/// entries out of the policy in its own eviction order.
@usableFromInline
internal struct _DrainObserver<Key, Value>: EvictionObserver {
    @usableFromInline var entries: [(key: Key, entry: Value, cost: Int)] = []

    @inlinable init() {}
    @inlinable mutating func trimWillBegin(_ kind: TrimKind) {}
    @inlinable mutating func trimDidEnd(_ kind: TrimKind) {}
    @inlinable mutating func didEvict(_ key: Key, value: Value, cost: Int) { entries.append((key, value, cost)) }
}

/// Why a ``Cache`` dropped an entry it did not remove on request.
public enum CacheEvictionReason: Sendable, Hashable {
    /// The policy made room under the cost or count limit (including after a limit was lowered).
    case limit
    /// The entry's time to live ran out.
    case expired
    /// A memory warning (or memory pressure) removed it.
    case memoryWarning
    /// The app entered the background, or the policy's own timer fired.
    case event
}

/// What one ``Cache`` call dropped beyond its first value, held until the lock is released.
@usableFromInline
internal final class _DroppedValues<Value> {
    @usableFromInline var values: [Value] = []
    @usableFromInline var policy: Any? = nil
    @usableFromInline init() {}
}
