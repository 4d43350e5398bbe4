/// The policy behind a ``Cache``, as the cache's cold paths see it: counts, events, limit changes,
/// trims and sweeps, which run rarely and may pay a virtual call into generic code. The hot paths
/// (get, set, remove) do not come through here: ``Cache`` calls the policy directly, specialised
/// (see ``_PolicyCall``).
@usableFromInline
internal class _CacheCore<Key: Hashable, Value> {
    @usableFromInline typealias Entry = CacheEntry<Value>
    @usableFromInline typealias Observer = _CacheObserver<Key, Value>

    /// The policy's address, stable for the cache's life (a limit change replaces the policy in
    /// place), so the hot paths reach it without a class load or an exclusivity check.
    @usableFromInline let address: UnsafeMutableRawPointer
    @usableFromInline let descriptor: PolicyDescriptor
    /// The hot paths of a policy chosen by a type this library does not name, formed where the
    /// type is known so that they run specialised.
    @usableFromInline let custom: _CustomPolicyCalls<Key, Value>
    /// Whether the cache keeps a key ring for this policy: `false` for a ``SlotPolicy``, which
    /// lists its entries (``expiredKeys(by:)``) and drains them in eviction order itself.
    @usableFromInline let usesKeyRing: Bool

    @usableFromInline
    init(address: UnsafeMutableRawPointer, descriptor: PolicyDescriptor, custom: _CustomPolicyCalls<Key, Value>,
         usesKeyRing: Bool) {
        self.address = address
        self.descriptor = descriptor
        self.custom = custom
        self.usesKeyRing = usesKeyRing
    }

    @usableFromInline func count() -> Int { 0 }
    @usableFromInline func totalCost() -> Int { 0 }
    @usableFromInline func contains(_ key: Key) -> Bool { false }
    @usableFromInline func advance(to time: Double, observer: inout Observer) {}
    @usableFromInline func handle(_ event: CacheEvent, observer: inout Observer) {}
    @usableFromInline func removeEntry(_ key: Key, observer: inout Observer) -> Entry? { nil }
    @usableFromInline func insertEntry(_ entry: Entry, forKey key: Key, cost: Int, observer: inout Observer) {}
    /// Every entry of the policy with its cost, the first it would evict first. The policy may
    /// be left disturbed: the caller replaces it with ``reset(limits:)``.
    @usableFromInline func drain(observer: inout Observer) -> [(key: Key, entry: Entry, cost: Int)] { [] }
    /// Without a key ring: the keys of the entries that expire at or before `time`.
    @usableFromInline func expiredKeys(by time: Double) -> [Key] { [] }
    /// Without a key ring: the cost `key`'s entry was stored with (0 if it has none).
    @usableFromInline func cost(ofKey key: Key) -> Int { 0 }
    /// ``EvictionPolicy/evictVictims(downToCount:cost:observer:)`` of the policy.
    @usableFromInline func evictVictims(downToCount count: Int, cost: Int, observer: inout Observer) -> Bool { false }
    /// Whether the policy takes `limits`.
    @usableFromInline func accepts(_ limits: CacheLimits) -> Bool { false }
    /// Replaces the policy by an empty one with `limits`, which it ``accepts(_:)``.
    @usableFromInline func reset(limits: CacheLimits) {}
}

extension _CacheCore {
    /// Applies `newLimits` keeping the policy's order: the entries come out in the order the
    /// policy would evict them and go back in that order into a policy with the new limits, so
    /// the ones it would evict first are the ones that no longer fit. If the policy rejects
    /// `newLimits`, nothing changes.
    ///
    /// - Complexity: O(n) policy operations.
    @usableFromInline
    func changeLimits(to newLimits: CacheLimits, state: UnsafeMutablePointer<_CacheState<Key, Value>>,
                      observer: inout Observer) -> Bool {
        guard accepts(newLimits) else { return false }
        let entries = drain(observer: &observer)
        reset(limits: newLimits)
        state.pointee.limits = newLimits
        restore(entries, state: state, observer: &observer)
        return true
    }

    /// Stores drained entries again, oldest first, and reports as evicted those the policy does
    /// not keep (ones larger than a lowered cost limit, which no policy admits). The policy
    /// reports the entries it evicts to make room itself.
    @usableFromInline
    func restore(_ entries: [(key: Key, entry: Entry, cost: Int)], state: UnsafeMutablePointer<_CacheState<Key, Value>>,
                 observer: inout Observer) {
        guard state.pointee.usesKeyRing else {
            // Without a key ring, an entry the policy evicted cannot be told from one it refused
            // by its bookkeeping, so the policy's reports are held back and every entry not
            // resident after the refill is reported, in the order it came out.
            let reports = observer.reports
            observer.reports = false
            for (key, entry, cost) in entries { insertEntry(entry, forKey: key, cost: cost, observer: &observer) }
            observer.reports = reports
            for (key, entry, _) in entries where !contains(key) { observer.didEvict(key, value: entry, cost: 0) }
            return
        }
        for (key, entry, cost) in entries {
            insertEntry(entry, forKey: key, cost: cost, observer: &observer)
        }
        // An entry the policy evicted has had its slot freed (and was reported); one it refused has not.
        for (key, entry, _) in entries where state.pointee.ring.owns(entry.slot, stamp: entry.stamp) && !contains(key) {
            observer.didEvict(key, value: entry, cost: 0)
        }
    }

    /// Does what the cache's ``MemoryWarningResponse`` says (see
    /// ``MemoryWarningResponse/kept(fromCount:totalCost:)``). A policy that names its victims (a
    /// ``SlotPolicy``) evicts them one by one, as it would to make room, so the survivors keep
    /// their standing; the others lose their entries oldest set first. The limits do not change,
    /// so no survivor can be refused as too large for a smaller policy.
    @usableFromInline
    func respondToMemoryWarning(state: UnsafeMutablePointer<_CacheState<Key, Value>>, observer: inout Observer) {
        guard let kept = state.pointee.memoryWarningResponse.kept(fromCount: count(), totalCost: totalCost()) else { return }
        guard kept.count > 0 else {
            // With no eviction handler to tell, nothing needs the entries one by one: a fresh
            // policy is the same outcome, without draining a million entries on the main thread.
            guard observer.reports else {
                reset(limits: state.pointee.limits)
                state.pointee.clear()
                return
            }
            let everything = drain(observer: &observer)
            reset(limits: state.pointee.limits)
            for (key, entry, _) in everything { observer.didEvict(key, value: entry, cost: 0) }
            // Replaced entries' old slots go too.
            state.pointee.clear()
            return
        }
        if evictVictims(downToCount: kept.count, cost: kept.cost, observer: &observer) { return }
        for key in state.pointee.ring.keysOldestSetFirst() {
            // Entries of cost 0 leave on the count alone.
            if count() <= kept.count && totalCost() <= kept.cost { return }
            // Only residents: a replaced entry's stale slot may name a key that has since left,
            // and removing it would also drop it from the policy's ghost list.
            guard contains(key) else { continue }
            if let entry = removeEntry(key, observer: &observer) { observer.didEvict(key, value: entry, cost: 0) }
        }
    }

    /// Removes the entries whose time to live has run out, reporting them as expired.
    ///
    /// - Complexity: O(n) over the key ring or the policy's arena, plus one removal per expired
    ///   entry; O(1) while no entry can expire.
    @usableFromInline
    func removeExpired(state: UnsafeMutablePointer<_CacheState<Key, Value>>, observer: inout Observer) {
        guard state.pointee.mayExpire else { return }
        let now = state.pointee.clock.now()
        // Listed first, removed after: the listing reads what the removals change. Only keys
        // whose current entry expired are listed, so none is taken out and put back (which
        // would count as a use).
        let expired = state.pointee.usesKeyRing ? state.pointee.ring.keys(expiringBy: now) : expiredKeys(by: now)
        for key in expired {
            if let entry = removeEntry(key, observer: &observer) { observer.didEvict(key, entry, because: .expired) }
        }
    }

    /// Drops side-table slots that replacements left behind, once they outnumber the entries.
    @inlinable
    func compactIfNeeded(state: UnsafeMutablePointer<_CacheState<Key, Value>>) {
        guard state.pointee.ring.liveCount > 2 &* count() &+ 1024 else { return }
        state.pointee.ring.compact(isResident: contains)
    }
}

/// A ``Cache``'s policy of type `P`, at a fixed address.
@usableFromInline
internal final class _PolicyCore<Key: Hashable, Value, P: EvictionPolicy>: _CacheCore<Key, Value>
where P.Key == Key, P.Value == CacheEntry<Value> {
    @usableFromInline let policy: UnsafeMutablePointer<P>
    @usableFromInline let options: PolicyOptions

    /// - Parameter named: whether the cache reaches the policy directly (one it names); if not,
    ///   it goes through closures specialised here.
    @inlinable
    init(_ first: consuming P, options: PolicyOptions, named: Bool) {
        let policy = UnsafeMutablePointer<P>.allocate(capacity: 1)
        policy.initialize(to: first)
        self.policy = policy
        self.options = options
        super.init(address: UnsafeMutableRawPointer(policy), descriptor: P.descriptor,
                   custom: named ? .unused : .calling(policy), usesKeyRing: !(P.self is any SlotPolicy.Type))
    }

    deinit {
        policy.deinitialize(count: 1)
        policy.deallocate()
    }

    override func count() -> Int { policy.pointee.count }
    override func totalCost() -> Int { policy.pointee.totalCost }
    override func contains(_ key: Key) -> Bool { policy.pointee.contains(key) }

    override func advance(to time: Double, observer: inout Observer) {
        policy.pointee.advance(to: time, observer: &observer)
    }

    override func handle(_ event: CacheEvent, observer: inout Observer) {
        policy.pointee.handle(event, observer: &observer)
    }

    override func removeEntry(_ key: Key, observer: inout Observer) -> Entry? {
        policy.pointee.remove(key, observer: &observer)
    }

    override func insertEntry(_ entry: Entry, forKey key: Key, cost: Int, observer: inout Observer) {
        policy.pointee.insert(entry, forKey: key, cost: cost, observer: &observer)
    }

    override func drain(observer: inout Observer) -> [(key: Key, entry: Entry, cost: Int)] {
        var entries: [(key: Key, entry: Entry, cost: Int)] = []
        // Policies on the slot flow give up their entries in eviction order (a copy of the policy
        // is drained; the caller then replaces it).
        if let ordered = policy.pointee as? any SlotPolicy,
           let drained = _drainInEvictionOrder(ordered) as? [(key: Key, entry: Entry, cost: Int)] {
            return drained
        }
        // Others: oldest set first, with the cost kept in the key ring. A key listed twice (a
        // replaced entry's old slot) is found once.
        let ring = observer.state.pointee.ring
        for key in ring.liveKeys() {
            if let entry = policy.pointee.remove(key, observer: &observer) {
                entries.append((key, entry, observer.state.pointee.ringCost(of: entry)))
            }
        }
        func serial(_ entry: Entry) -> UInt64 { ring.owns(entry.slot, stamp: entry.stamp) ? ring[entry.slot].serial : 0 }
        entries.sort { serial($0.entry) < serial($1.entry) }
        return entries
    }

    override func expiredKeys(by time: Double) -> [Key] {
        var keys: [Key] = []
        _slotArena()?.forEachResident { key, entry, _ in
            if entry.expires <= time { keys.append(key) }
        }
        return keys
    }

    override func cost(ofKey key: Key) -> Int { _slotArena()?.cost(ofKey: key) ?? 0 }

    override func evictVictims(downToCount count: Int, cost: Int, observer: inout Observer) -> Bool {
        policy.pointee.evictVictims(downToCount: count, cost: cost, observer: &observer)
    }

    /// The arena of a ``SlotPolicy`` (a copy sharing its storage), or `nil` for another policy.
    func _slotArena() -> SlotArena<Key, Entry>? {
        func arena<S: SlotPolicy>(_: S.Type) -> SlotArena<Key, Entry>? {
            // S is P, which a type check cannot tell the compiler.
            UnsafeMutableRawPointer(policy).assumingMemoryBound(to: S.self).pointee.store as? SlotArena<Key, Entry>
        }
        guard let type = P.self as? any SlotPolicy.Type else { return nil }
        return arena(type)
    }

    override func accepts(_ limits: CacheLimits) -> Bool { (try? P(limits: limits._forCache, options: options)) != nil }

    override func reset(limits: CacheLimits) {
        // The caller checked the limits, and making a policy is deterministic.
        guard let fresh = try? P(limits: limits._forCache, options: options) else { return }
        policy.pointee = fresh
    }
}

/// Every entry of a copy of `policy`, in the order its rule evicts them.
///
/// - Complexity: O(n) evictions.
func _drainInEvictionOrder<S: SlotPolicy>(_ policy: S) -> [(key: S.Key, entry: S.Value, cost: Int)] {
    var copy = policy
    var collector = _DrainObserver<S.Key, S.Value>()
    while copy.count > 0 {
        let victim = copy.victim()
        guard victim >= 0 else { break }
        copy.evict(victim, observer: &collector)
    }
    return collector.entries
}

/// The hot paths of a policy chosen by a type this library does not name, as closures formed in
/// ``Cache/init(policyType:costLimit:countLimit:options:timeToLive:clock:memoryWarningResponse:observesSystemEvents:)``,
/// which is inlinable: they are compiled where the app names the type, specialised for it.
@usableFromInline
internal struct _CustomPolicyCalls<Key: Hashable, Value> {
    @usableFromInline typealias Observer = _CacheObserver<Key, Value>
    @usableFromInline let lookup: (Key, inout Observer) -> CacheEntry<Value>?
    @usableFromInline let insert: (CacheEntry<Value>, Key, Int, inout Observer) -> Void
    @usableFromInline let remove: (Key, inout Observer) -> CacheEntry<Value>?
    @usableFromInline let contains: (Key) -> Bool

    @inlinable
    init(lookup: @escaping (Key, inout Observer) -> CacheEntry<Value>?,
         insert: @escaping (CacheEntry<Value>, Key, Int, inout Observer) -> Void,
         remove: @escaping (Key, inout Observer) -> CacheEntry<Value>?, contains: @escaping (Key) -> Bool) {
        self.lookup = lookup
        self.insert = insert
        self.remove = remove
        self.contains = contains
    }

    /// The calls of a named policy, which the cache reaches directly: never made.
    @inlinable
    static var unused: Self { Self(lookup: { _, _ in nil }, insert: { _, _, _, _ in }, remove: { _, _ in nil }, contains: { _ in false }) }

    /// The calls for the policy at `policy`.
    @inlinable
    static func calling<P: EvictionPolicy>(_ policy: UnsafeMutablePointer<P>) -> Self
    where P.Key == Key, P.Value == CacheEntry<Value> {
        Self(lookup: { key, observer in policy.pointee.lookup(key, observer: &observer) },
             insert: { entry, key, cost, observer in policy.pointee.insert(entry, forKey: key, cost: cost, observer: &observer) },
             remove: { key, observer in policy.pointee.remove(key, observer: &observer) },
             contains: { key in policy.pointee.contains(key) })
    }
}
