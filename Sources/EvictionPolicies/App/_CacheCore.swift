/// The policy behind a ``Cache``, as the cache's cold paths see it: counts, events, limit changes,
/// trims and sweeps, which run rarely. A call made once per operation (a count, an event) may pay
/// a virtual call into generic code; the steps a cold path repeats for every entry (drain, insert,
/// remove, contains, evict, the count and total cost) go through ``calls``, compiled for the policy's type, so that a limit
/// change on a million entries is not a million calls into unspecialised code. The hot paths
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
    /// The policy's per-entry steps, formed where its type is known so that they run specialised:
    /// the hot paths of a policy chosen by a type this library does not name, and the loops of
    /// every policy's cold paths.
    @usableFromInline let calls: _PolicyCalls<Key, Value>
    /// Whether the cache keeps a key ring for this policy: `false` for a ``SlotPolicy``, which
    /// lists its entries (``expiredKeys(by:)``) and drains them in eviction order itself.
    @usableFromInline let usesKeyRing: Bool

    @usableFromInline
    init(address: UnsafeMutableRawPointer, descriptor: PolicyDescriptor, calls: _PolicyCalls<Key, Value>,
         usesKeyRing: Bool) {
        self.address = address
        self.descriptor = descriptor
        self.calls = calls
        self.usesKeyRing = usesKeyRing
    }

    @usableFromInline func advance(to time: Double, observer: inout Observer) {}
    @usableFromInline func handle(_ event: CacheEvent, observer: inout Observer) {}
    @usableFromInline func finishDeferredWork(observer: inout Observer) {}
    @usableFromInline func willRead(observer: inout Observer) {}
    /// Without a key ring: the keys of the entries that expire at or before `time`.
    @usableFromInline func expiredKeys(by time: Double) -> [Key] { [] }
    /// Whether ``renumberEntries(_:)`` can reach the policy's entries (its arena's values).
    @usableFromInline var canRenumberEntries: Bool { false }
    /// Points each moved key ring slot's entry at the slot's new number.
    @usableFromInline func renumberEntries(_ moves: [(key: Key, from: Int32, to: Int32, stamp: UInt32)]) {}
    /// Without a key ring: the cost `key`'s entry was stored with (0 if it has none).
    @usableFromInline func cost(ofKey key: Key) -> Int { 0 }
    /// Without a key ring: the keys of the entries that cost more than `cost`.
    @usableFromInline func keys(costingMoreThan cost: Int) -> [Key] { [] }
    /// Whether the policy takes `limits`.
    @usableFromInline func accepts(_ limits: CacheLimits) -> Bool { false }
    /// Gives the policy `limits`, which it ``accepts(_:)``, in place, keeping its entries and
    /// their state (``EvictionPolicy/adoptLimits(of:)``); `false` if it cannot.
    @usableFromInline func adoptLimits(_ limits: CacheLimits) -> Bool { false }
    /// Replaces the policy by an empty one with `limits`, which it ``accepts(_:)``; returns the
    /// old one, for the caller to release once it has released its lock.
    @usableFromInline @discardableResult func reset(limits: CacheLimits) -> Any? { nil }
    /// Without a key ring: the keys of the policy's entries.
    @usableFromInline func residentKeys() -> [Key] { [] }
    /// ``EvictionPolicy/entryTime(forKey:)`` of each of `keys` that has one.
    @usableFromInline func entryTimes(of keys: [Key]) -> [(key: Key, time: Double)] { [] }
    /// ``EvictionPolicy/restoreEntryTime(_:forKey:)`` for each of `times`.
    @usableFromInline func restoreEntryTimes(_ times: [(key: Key, time: Double)]) {}
    /// Where the index of the arena that holds the entries keeps its buckets
    /// (``SlotIndex/_bucketGeometry``), or address 0 when there is no such arena: for the cold
    /// paths, which may move it (a reset, a trim that gives storage back). The hot paths read it
    /// specialised (``_IndexGeometry``).
    @usableFromInline func indexGeometry() -> (base: UInt, shift: UInt) { (0, 0) }
}

extension _CacheCore {
    @inlinable func count() -> Int { calls.count() }
    @inlinable func totalCost() -> Int { calls.totalCost() }
    @inlinable func contains(_ key: Key) -> Bool { calls.contains(key) }
    @inlinable func removeEntry(_ key: Key, observer: inout Observer) -> Entry? { calls.remove(key, &observer) }
    @inlinable func insertEntry(_ entry: Entry, forKey key: Key, cost: Int, observer: inout Observer) {
        calls.insert(entry, key, cost, &observer)
    }
    /// ``EvictionPolicy/evictVictims(downToCount:cost:observer:)`` of the policy.
    @inlinable func evictVictims(downToCount count: Int, cost: Int, observer: inout Observer) -> Bool {
        calls.evictVictims(count, cost, &observer)
    }

    /// Every entry of the policy with its cost, the first it would evict first. The policy is
    /// left emptied or disturbed: the caller replaces it with ``reset(limits:)``.
    ///
    /// A policy that names its victims (every ``SlotPolicy``) gives them up in its own eviction
    /// order; any other gives up its entries oldest set first, with the costs the key ring kept.
    @inlinable
    func drain(observer: inout Observer) -> [(key: Key, entry: Entry, cost: Int)] {
        if let ordered = calls.drain() { return ordered }
        var entries: [(key: Key, entry: Entry, cost: Int)] = []
        // A key listed twice (a replaced entry's old slot) is found once.
        let ring = observer.state.pointee.ring
        for key in ring.liveKeys() {
            if let entry = removeEntry(key, observer: &observer) {
                entries.append((key, entry, observer.state.pointee.ringCost(of: entry)))
            }
        }
        func serial(_ entry: Entry) -> UInt64 { ring.owns(entry.slot, stamp: entry.stamp) ? ring[entry.slot].serial : 0 }
        entries.sort { serial($0.entry) < serial($1.entry) }
        return entries
    }

    /// Applies `newLimits` keeping the policy's order: the entries come out in the order the
    /// policy would evict them and go back in that order into a policy with the new limits, so
    /// the ones it would evict first are the ones that no longer fit. If the policy rejects
    /// `newLimits`, nothing changes.
    ///
    /// - Complexity: O(n) policy operations.
    @inlinable
    func changeLimits(to newLimits: CacheLimits, state: UnsafeMutablePointer<_CacheState<Key, Value>>,
                      observer: inout Observer) -> Bool {
        guard accepts(newLimits) else { return false }
        // A rule that can take new limits in place keeps every entry's state (a library's own
        // limit setter changes a number, then trims); it evicts its own victims down to them.
        if adoptLimits(newLimits) {
            state.pointee.limits = newLimits
            let limits = newLimits._forCache
            // An entry costing more than the new cost limit cannot stay, however recent (as a
            // refill refuses it): it goes first, so the rule's trim does not drain the entries
            // older than it to make room for it.
            if let capacity = limits.capacity, totalCost() > capacity {
                let oversized = state.pointee.usesKeyRing ? state.pointee.ring.keys(costingMoreThan: capacity) : keys(costingMoreThan: capacity)
                for key in oversized where contains(key) {
                    if let entry = removeEntry(key, observer: &observer) { observer.didEvict(key, value: entry, cost: 0) }
                }
            }
            trim(toCount: limits.countLimit ?? .max, cost: limits.capacity ?? .max, state: state, observer: &observer)
            finishDeferredWork(observer: &observer)
            return true
        }
        // What a library model keeps of each entry's time (its expiry, its age) survives the
        // refill: in the libraries a limit change leaves it alone.
        let keys = state.pointee.usesKeyRing ? state.pointee.ring.liveKeys() : residentKeys()
        let times = entryTimes(of: keys)
        let entries = drain(observer: &observer)
        observer.droppedPolicy = reset(limits: newLimits)
        state.pointee.limits = newLimits
        restore(entries, state: state, observer: &observer)
        restoreEntryTimes(times)
        return true
    }

    /// Stores drained entries again, oldest first, and reports as evicted those the policy does
    /// not keep (ones larger than a lowered cost limit, which no policy admits). The policy
    /// reports the entries it evicts to make room itself.
    @inlinable
    func restore(_ entries: [(key: Key, entry: Entry, cost: Int)], state: UnsafeMutablePointer<_CacheState<Key, Value>>,
                 observer: inout Observer) {
        guard state.pointee.usesKeyRing else {
            // Without a key ring, an entry the policy evicted cannot be told from one it refused
            // by its bookkeeping, so the policy's reports are held back and every entry not
            // resident after the refill is reported, in the order it came out.
            let reports = observer.reports
            observer.reports = false
            for (key, entry, cost) in entries { insertEntry(entry, forKey: key, cost: cost, observer: &observer) }
            // A library's deferred purge (YYMemoryCache's cost trim) runs now: a limit change
            // leaves the cache within its limits at once.
            finishDeferredWork(observer: &observer)
            observer.reports = reports
            for (key, entry, _) in entries where !contains(key) { observer.didEvict(key, value: entry, cost: 0) }
            return
        }
        for (key, entry, cost) in entries {
            insertEntry(entry, forKey: key, cost: cost, observer: &observer)
        }
        finishDeferredWork(observer: &observer)
        // An entry the policy evicted has had its slot freed (and was reported); one it refused has not.
        for (key, entry, _) in entries where state.pointee.ring.owns(entry.slot, stamp: entry.stamp) && !contains(key) {
            observer.didEvict(key, value: entry, cost: 0)
        }
    }

    /// Does what the cache's ``MemoryWarningResponse`` says (see
    /// ``MemoryWarningResponse/kept(fromCount:totalCost:)``). A policy that names its victims (a
    /// ``SlotPolicy``) evicts them one by one, as it would to make room, so the survivors keep
    /// their standing; the others lose their entries oldest set first. The limits do not change,
    /// so no survivor can be refused as too large for a smaller policy. `target`, when given, is
    /// what to keep in place of the response's own fraction of this cache (a ``StripedCache``
    /// shares one fraction of its whole contents out between its stripes).
    @inlinable
    func respondToMemoryWarning(state: UnsafeMutablePointer<_CacheState<Key, Value>>, observer: inout Observer,
                                keeping target: (count: Int, cost: Int)? = nil) {
        guard let kept = target ?? state.pointee.memoryWarningResponse.kept(fromCount: count(), totalCost: totalCost()) else { return }
        guard kept.count > 0 else {
            // With no eviction handler to tell, nothing needs the entries one by one: a fresh
            // policy is the same outcome, without draining a million entries on the main thread.
            guard observer.reports else {
                observer.droppedPolicy = reset(limits: state.pointee.limits)
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
        trim(toCount: kept.count, cost: kept.cost, state: state, observer: &observer)
    }

    /// Evicts until at most `count` entries costing at most `cost` remain: the policy's own
    /// victims where it names them (every ``SlotPolicy``), else the entries oldest set first.
    @inlinable
    func trim(toCount count: Int, cost: Int, state: UnsafeMutablePointer<_CacheState<Key, Value>>, observer: inout Observer) {
        guard self.count() > count || totalCost() > cost else { return }
        if evictVictims(downToCount: count, cost: cost, observer: &observer) { return }
        defer { shrinkRingIfSparse(state: state) }
        for key in state.pointee.ring.keysOldestSetFirst() {
            // Entries of cost 0 leave on the count alone.
            if self.count() <= count && totalCost() <= cost { return }
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
    @inlinable
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
        shrinkRingIfSparse(state: state)
    }

    /// Gives the key ring's storage back after a large purge (a memory warning that trims to a
    /// fraction, a burst of removals): stale slots are dropped, the ring is compacted and the
    /// entries that name a moved slot are renumbered. Only for a policy whose entries can be
    /// renumbered in place (``canRenumberEntries``); O(1) unless the ring is sparse, then O(n).
    @inlinable
    func shrinkRingIfSparse(state: UnsafeMutablePointer<_CacheState<Key, Value>>) {
        guard state.pointee.usesKeyRing, state.pointee.ring.isSparse, canRenumberEntries else { return }
        // First one slot per resident key, the one its entry names (its newest set's).
        state.pointee.ring.compact(isResident: contains)
        renumberEntries(state.pointee.ring.compactSlots())
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

    /// Inlinable, so that the closures of ``_PolicyCalls/calling(_:)`` are compiled where the
    /// cache is made, for `P`.
    @inlinable
    init(_ first: consuming P, options: PolicyOptions) {
        let policy = UnsafeMutablePointer<P>.allocate(capacity: 1)
        policy.initialize(to: first)
        self.policy = policy
        self.options = options
        super.init(address: UnsafeMutableRawPointer(policy), descriptor: P.descriptor,
                   calls: .calling(policy), usesKeyRing: !(P.self is any SlotPolicy.Type))
    }

    deinit {
        policy.deinitialize(count: 1)
        policy.deallocate()
    }

    override func advance(to time: Double, observer: inout Observer) {
        policy.pointee.advance(to: time, observer: &observer)
    }

    override func handle(_ event: CacheEvent, observer: inout Observer) {
        policy.pointee.handle(event, observer: &observer)
    }

    override func finishDeferredWork(observer: inout Observer) {
        policy.pointee.finishDeferredWork(observer: &observer)
    }

    override func willRead(observer: inout Observer) {
        policy.pointee.willRead(observer: &observer)
    }

    override func expiredKeys(by time: Double) -> [Key] {
        var keys: [Key] = []
        _slotArena()?.forEachResident { key, entry, _ in
            if _hasExpired(entry.expires, at: time) { keys.append(key) }
        }
        return keys
    }

    override func residentKeys() -> [Key] {
        var keys: [Key] = []
        _slotArena()?.forEachResident { key, _, _ in keys.append(key) }
        return keys
    }

    override func cost(ofKey key: Key) -> Int { _slotArena()?.cost(ofKey: key) ?? 0 }

    override func keys(costingMoreThan cost: Int) -> [Key] {
        var keys: [Key] = []
        _slotArena()?.forEachResident { key, _, entryCost in if entryCost > cost { keys.append(key) } }
        return keys
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

    override var canRenumberEntries: Bool { _holdsEntriesInArena(P.self) }

    override func renumberEntries(_ moves: [(key: Key, from: Int32, to: Int32, stamp: UInt32)]) {
        _withEntryArena(policy) { (store: UnsafeMutablePointer<SlotArena<Key, Entry>>) in
            for move in moves {
                let slot = store.pointee.find(move.key)
                guard slot >= 0, let entry = store.pointee.value(slot),
                      entry.slot == move.from, entry.stamp == move.stamp else { continue }
                store.pointee.setValue(slot, Entry(value: entry.value, slot: move.to, stamp: move.stamp))
            }
        }
    }

    override func accepts(_ limits: CacheLimits) -> Bool { (try? P(limits: limits._forCache, options: options)) != nil }

    override func adoptLimits(_ limits: CacheLimits) -> Bool {
        guard let fresh = try? P(limits: limits._forCache, options: options) else { return false }
        return policy.pointee.adoptLimits(of: fresh)
    }

    override func entryTimes(of keys: [Key]) -> [(key: Key, time: Double)] {
        keys.compactMap { key in policy.pointee.entryTime(forKey: key).map { (key, $0) } }
    }

    override func restoreEntryTimes(_ times: [(key: Key, time: Double)]) {
        for (key, time) in times where policy.pointee.contains(key) { policy.pointee.restoreEntryTime(time, forKey: key) }
    }

    override func indexGeometry() -> (base: UInt, shift: UInt) {
        var geometry: (base: UInt, shift: UInt) = (0, 0)
        _withEntryArena(policy) { (store: UnsafeMutablePointer<SlotArena<Key, Entry>>) in
            geometry = store.pointee.index._bucketGeometry
        }
        return geometry
    }

    override func reset(limits: CacheLimits) -> Any? {
        // The caller checked the limits, and making a policy is deterministic.
        guard var fresh = try? P(limits: limits._forCache, options: options) else { return nil }
        fresh.continueClock(of: policy.pointee)
        let old = policy.pointee
        policy.pointee = fresh
        return old
    }
}

/// A policy's per-entry steps as closures, formed by ``calling(_:)`` where the policy's type is
/// known (``_PolicyCore/init(_:options:)`` is inlinable, and so is every initializer of ``Cache``),
/// so that they are compiled there, specialised for it: the hot paths of a policy chosen by a
/// type this library does not name, and the loops of every policy's cold paths.
@usableFromInline
internal struct _PolicyCalls<Key: Hashable, Value> {
    @usableFromInline typealias Observer = _CacheObserver<Key, Value>
    @usableFromInline typealias Entry = CacheEntry<Value>
    @usableFromInline let lookup: (Key, inout Observer) -> Entry?
    @usableFromInline let insert: (Entry, Key, Int, inout Observer) -> Void
    @usableFromInline let remove: (Key, inout Observer) -> Entry?
    @usableFromInline let contains: (Key) -> Bool
    @usableFromInline let count: () -> Int
    @usableFromInline let totalCost: () -> Int
    /// ``EvictionPolicy/evictVictims(downToCount:cost:observer:)``.
    @usableFromInline let evictVictims: (Int, Int, inout Observer) -> Bool
    /// Every entry with its cost, in the order the policy evicts them, taken out of the policy;
    /// `nil` (and the policy untouched) when the policy does not name its victims.
    @usableFromInline let drain: () -> [(key: Key, entry: Entry, cost: Int)]?

    @inlinable
    init(lookup: @escaping (Key, inout Observer) -> Entry?, insert: @escaping (Entry, Key, Int, inout Observer) -> Void,
         remove: @escaping (Key, inout Observer) -> Entry?, contains: @escaping (Key) -> Bool,
         count: @escaping () -> Int, totalCost: @escaping () -> Int,
         evictVictims: @escaping (Int, Int, inout Observer) -> Bool,
         drain: @escaping () -> [(key: Key, entry: Entry, cost: Int)]?) {
        self.lookup = lookup
        self.insert = insert
        self.remove = remove
        self.contains = contains
        self.count = count
        self.totalCost = totalCost
        self.evictVictims = evictVictims
        self.drain = drain
    }

    /// The calls for the policy at `policy`.
    @inlinable
    static func calling<P: EvictionPolicy>(_ policy: UnsafeMutablePointer<P>) -> Self
    where P.Key == Key, P.Value == Entry {
        Self(lookup: { key, observer in policy.pointee.lookup(key, observer: &observer) },
             insert: { entry, key, cost, observer in policy.pointee.insert(entry, forKey: key, cost: cost, observer: &observer) },
             remove: { key, observer in policy.pointee.remove(key, observer: &observer) },
             contains: { key in policy.pointee.contains(key) },
             count: { policy.pointee.count }, totalCost: { policy.pointee.totalCost },
             evictVictims: { count, cost, observer in policy.pointee.evictVictims(downToCount: count, cost: cost, observer: &observer) },
             drain: {
                 // In place, not on a copy: the caller replaces the policy next, and a copy
                 // would duplicate the whole arena first.
                 var collector = _DrainObserver<Key, Entry>()
                 guard policy.pointee.evictVictims(downToCount: 0, cost: 0, observer: &collector) else { return nil }
                 return collector.entries
             })
    }
}

/// Whether a policy of `type` keeps its entries in a ``SlotArena`` that ``_withEntryArena(_:_:)``
/// reaches: an ``ArenaPolicy``'s own, or the one of the policy a ``ForwardingPolicy`` runs
/// (Kingfisher's model runs an NSCache model), at any depth.
@usableFromInline
func _holdsEntriesInArena(_ type: any EvictionPolicy.Type) -> Bool {
    if type is any ArenaPolicy.Type { return true }
    func base<F: ForwardingPolicy>(_: F.Type) -> any EvictionPolicy.Type { F.Base.self }
    guard let forwarding = type as? any ForwardingPolicy.Type else { return false }
    return _holdsEntriesInArena(base(forwarding))
}

/// Runs `body` on the arena that holds the entries of `policy` (see ``_holdsEntriesInArena(_:)``),
/// in place; does nothing when there is none, or when it holds other keys or values than `body`
/// takes. Only the arena's values may change: the policy's order and slot numbers must not.
@usableFromInline
func _withEntryArena<P: EvictionPolicy, Key: Hashable, Value>(
    _ policy: UnsafeMutablePointer<P>, _ body: (UnsafeMutablePointer<SlotArena<Key, Value>>) -> Void
) {
    if let type = P.self as? any ArenaPolicy.Type {
        func open<A: ArenaPolicy>(_: A.Type) {
            // A is P, which a type check cannot tell the compiler.
            guard A.Key.self == Key.self, A.Value.self == Value.self else { return }
            let arenaPolicy = UnsafeMutableRawPointer(policy).assumingMemoryBound(to: A.self)
            withUnsafeMutablePointer(to: &arenaPolicy.pointee.store) { pointer in
                body(UnsafeMutableRawPointer(pointer).assumingMemoryBound(to: SlotArena<Key, Value>.self))
            }
        }
        open(type)
    } else if let type = P.self as? any ForwardingPolicy.Type {
        func open<F: ForwardingPolicy>(_: F.Type) {
            let forwarding = UnsafeMutableRawPointer(policy).assumingMemoryBound(to: F.self)
            withUnsafeMutablePointer(to: &forwarding.pointee.base) { _withEntryArena($0, body) }
        }
        open(type)
    }
}
