/// A thread-safe in-memory cache split into independent stripes, each a ``Cache`` with its own
/// lock and its own policy, chosen by the key's hash: for caches that many threads use at once.
///
/// ```swift
/// let thumbnails = StripedCache<URL, UIImage>(policy: .lru, stripes: 8, countLimit: 2_000)
/// thumbnails[url] = image
/// ```
///
/// - **Approximate order.** The policy's rule holds within each stripe, not across them: an LRU
///   striped cache evicts the least recently used entry *of the stripe that is full*, which may
///   not be the least recently used of all. Use ``Cache`` when the exact global order matters
///   (a replay of a trace, a hit ratio to compare with a model); use this one when threads
///   contend for one ``Cache``'s lock.
/// - **Limits** are split evenly between the stripes (the first ones take the remainder), so
///   the totals never exceed the limits given, except that every stripe may hold at least one
///   entry and cost unit: the number of stripes is lowered to the smallest limit given to the
///   initializer, and further until the policy accepts every stripe's share (LIRS needs a cost
///   limit of 3 a stripe) and keeps an entry of one cost unit at it (S3-FIFO's small queue, a
///   tenth of a stripe's cost limit, must hold one unit). The stripes are fixed from then on (a key's stripe must not change while
///   threads use it), so a limit *set* below ``stripeCount`` gives every stripe one unit: the
///   cache then holds up to ``stripeCount`` entries, and ``costLimit`` or ``countLimit`` reads
///   back that total. A limit set whose share one stripe's policy rejects (LIRS below 3 a
///   stripe) changes no stripe, as a ``Cache`` keeps its limits when its policy rejects new ones.
///   Keys do not
///   spread exactly evenly, so the fullest stripe starts evicting before the total reaches the
///   limit: with 8 stripes of 25,000 entries, about 1,000 to 3,000 entries (0.5 to 1.5 %) before,
///   since the fullest of 8 stripes runs about 1.4 standard deviations (some 200 entries) ahead
///   of the mean and each of its entries stands for 8. A stripe refuses what its policy refuses
///   at the stripe's share: an entry costing more than the share, as a ``Cache`` refuses one above
///   its limit (with 8 stripes and 50 MiB, an image over 6.25 MiB is not kept; a ``Cache`` of
///   50 MiB keeps it), and, for a policy that sizes its queues by cost, one larger than its first
///   queue's part of the share (S3-FIFO's small queue is 10 % of it, 2Q's 25 %, LIRS's resident
///   HIR part 1 %): with 8 stripes, an eighth of what a ``Cache`` with the
///   whole limit admits. Give large entries a ``Cache`` of their own, or fewer stripes.
///   ``count``, ``totalCost`` and changing a limit visit every stripe, one lock at a time: they
///   are not a snapshot when other threads write meanwhile.
/// - Everything else (time to live, memory warnings, the eviction handler and its thread) is as
///   in ``Cache``, per stripe, except that a memory warning's trim to a fraction keeps that
///   fraction of the whole cache (see ``handle(_:)``).
///
/// - Complexity: a get, set or remove is one stripe's ``Cache`` call plus one hash of the key
///   (shared with the stripe's lookup on a get); ``count``, ``totalCost``, ``removeAll()`` and
///   limit changes are O(stripes) calls.
public final class StripedCache<Key: Hashable, Value> {
    @usableFromInline let _stripes: ContiguousArray<Cache<Key, Value>>
    /// The same stripes, unretained (``_stripes`` keeps them alive): a call reaches its stripe
    /// without retaining and releasing it, atomic writes to one reference count that every
    /// thread using the stripe would otherwise pass back and forth between cores.
    @usableFromInline let _unretained: ContiguousArray<Unmanaged<Cache<Key, Value>>>
    /// Every policy index's hash seed: see ``Cache/_keyHash(_:)``.
    @usableFromInline let _hashSeed: UInt64 = _stringHashSeed
    /// The subscription to the system's events, for the whole cache rather than each stripe, so
    /// that a memory warning's trim takes its fraction of the whole (see ``handle(_:)``).
    private var _systemEvents: AnyObject?

    /// Creates an empty striped cache.
    ///
    /// - Parameters:
    ///   - policy: each stripe's eviction rule; LRU by default.
    ///   - stripes: how many independent stripes (at least 1; lowered to the smallest limit, and
    ///     until the policy accepts each stripe's share).
    ///     More stripes, less waiting between threads; the order drifts further from one cache's.
    ///   - costLimit: the most total cost the cache holds, or `nil` (or 0) for none.
    ///   - countLimit: the most entries it holds, or `nil` (or 0) for none.
    ///   - timeToLive: seconds an entry stays valid after it is set, or `nil` for ever.
    ///   - clock: where time is read.
    ///   - memoryWarningResponse: what a memory warning does in each stripe.
    ///   - observesSystemEvents: whether, on Apple platforms, the cache subscribes itself to
    ///     memory warnings, memory pressure and entering the background (as ``Cache`` does), and
    ///     hands each to ``handle(_:)``.
    /// - Precondition: `stripes` ≥ 1, and the policy can enforce the limits given (see ``Cache``).
    public init(policy: CachePolicy = .lru, stripes: Int = 8, costLimit: Int? = nil, countLimit: Int? = nil,
                timeToLive: Double? = nil, clock: CacheClock = .system,
                memoryWarningResponse: MemoryWarningResponse = .removeAll, observesSystemEvents: Bool = true) {
        precondition(stripes >= 1, "StripedCache(stripes: \(stripes)): at least one stripe")
        let costLimit = _limit(costLimit), countLimit = _limit(countLimit)
        let count = Self._stripeCount(min(stripes, costLimit ?? .max, countLimit ?? .max), policy: policy,
                                      costLimit: costLimit, countLimit: countLimit)
        _stripes = ContiguousArray((0..<count).map { stripe in
            Cache(policy: policy, costLimit: _share(of: costLimit, stripe: stripe, stripes: count),
                  countLimit: _share(of: countLimit, stripe: stripe, stripes: count), timeToLive: timeToLive,
                  clock: clock, memoryWarningResponse: memoryWarningResponse, observesSystemEvents: false)
        })
        _unretained = ContiguousArray(_stripes.map { Unmanaged.passUnretained($0) })
        #if canImport(Darwin)
        if observesSystemEvents {
            let target: any _SystemEventTarget = _WeakStripedCache(self)
            _systemEvents = _SystemEventRelay { event in target.deliver(event) }
        }
        #endif
    }

    /// The number of stripes.
    public var stripeCount: Int { _stripes.count }

    /// The most stripes, up to `wanted`, among which `policy` accepts every share of the limits
    /// and, at each share, keeps an entry of one cost unit; 1 when none does (the one stripe then
    /// has the whole limits, as a ``Cache`` would).
    /// The shares differ by at most one unit, so the first and the last stripe's are the only two.
    ///
    /// Why the entry: a policy that sizes its queues by cost (S3-FIFO's small queue is a tenth of
    /// its limit, 2Q's a quarter, LIRS's resident HIR part a hundredth) accepts a small limit but
    /// can then admit nothing, and a stripe that admits nothing would leave its keys uncached
    /// for good.
    static func _stripeCount(_ wanted: Int, policy: CachePolicy, costLimit: Int?, countLimit: Int?) -> Int {
        func accepts(_ stripe: Int, of count: Int) -> Bool {
            // A probe of the policy at this share: made only if the policy accepts the share.
            guard let probe = try? Cache<Int, Void>(validating: policy,
                                                    costLimit: _share(of: costLimit, stripe: stripe, stripes: count),
                                                    countLimit: _share(of: countLimit, stripe: stripe, stripes: count),
                                                    timeToLive: nil, clock: .system, memoryWarningResponse: .ignore,
                                                    observesSystemEvents: false) else { return false }
            probe.setValue((), forKey: 0, cost: 1)
            return probe.contains(0)
        }
        var count = wanted
        while count > 1 && !(accepts(0, of: count) && accepts(count - 1, of: count)) { count -= 1 }
        return count
    }

    /// The number of the stripe that holds a key whose hash is `hash`.
    ///
    /// The stripe comes from the hash's low 32 bits, which a stripe's own index does not use (it
    /// places a key by the hash's top bits and tells keys apart by the high 32): were the stripe
    /// taken from the top bits, each stripe's keys would all start their probes in one eighth of
    /// its index, in long clusters (measured: 0.07M operations/s instead of 2M).
    @inlinable @inline(__always)
    func _stripeIndex(hash: UInt64) -> Int {
        Int(truncatingIfNeeded: ((hash & 0xffff_ffff) &* UInt64(_unretained.count)) >> 32)
    }

    /// Runs `body` on the stripe that holds `key`, with `key`'s hash, without retaining the stripe.
    @inlinable @inline(__always)
    func _withStripe<Result>(for key: Key, _ body: (Cache<Key, Value>, UInt64) -> Result) -> Result {
        let hash = _hash(key, seed: _hashSeed)
        return _unretained[_stripeIndex(hash: hash)]._withUnsafeGuaranteedRef { body($0, hash) }
    }

    /// The stripe number of `key` (for tests).
    func _stripeIndex(for key: Key) -> Int { _stripeIndex(hash: _hash(key, seed: _hashSeed)) }

    // MARK: Reading and writing

    /// The value for `key`, recording the access in its stripe, or `nil` on a miss or when the
    /// entry expired.
    @inlinable
    public func value(forKey key: Key) -> Value? {
        _withStripe(for: key) { stripe, hash in stripe._get(key, hash: hash, withCost: false)?.value }
    }

    /// Stores `value` under `key` in its stripe, evicting what that stripe's policy says must go.
    /// The parameters are ``Cache/setValue(_:forKey:cost:timeToLive:)``'s.
    @inlinable
    public func setValue(_ value: Value, forKey key: Key, cost: Int = 0, timeToLive: Double? = nil) {
        _withStripe(for: key) { stripe, hash in stripe._set(value, forKey: key, hash: hash, cost: cost, timeToLive: timeToLive) }
    }

    /// Removes `key`'s entry and returns its value, or `nil` if there was none (not an eviction).
    @inlinable
    @discardableResult
    public func removeValue(forKey key: Key) -> Value? {
        _withStripe(for: key) { stripe, _ in stripe.removeValue(forKey: key) }
    }

    /// Whether `key` has an entry, without recording an access.
    @inlinable
    public func contains(_ key: Key) -> Bool { _withStripe(for: key) { stripe, _ in stripe.contains(key) } }

    /// Removes every entry, stripe by stripe (not an eviction).
    public func removeAll() { for stripe in _stripes { stripe.removeAll() } }

    /// The number of entries: the sum over the stripes.
    public var count: Int { _stripes.reduce(0) { $0 + $1.count } }

    /// The sum of the entries' costs over the stripes, at most `Int.max` (each stripe's total is
    /// bounded, but with no limit eight stripes' totals can add up past it).
    public var totalCost: Int {
        _stripes.reduce(0) { sum, stripe in
            let (total, overflow) = sum.addingReportingOverflow(stripe.totalCost)
            return overflow ? .max : total
        }
    }

    // MARK: Limits, time and events

    /// The most total cost the cache holds (the sum of the stripes' shares), or `nil` for none.
    /// Setting it splits the new limit between the stripes and trims each at once; each stripe
    /// keeps at least 1, so a limit below ``stripeCount`` reads back as ``stripeCount``.
    public var costLimit: Int? {
        get { _total(\.costLimit) }
        set { _split(_limit(newValue), \.capacity) }
    }

    /// The most entries the cache holds (the sum of the stripes' shares), or `nil` for none.
    /// Setting it splits the new limit between the stripes and trims each at once; each stripe
    /// keeps at least 1, so a limit below ``stripeCount`` reads back as ``stripeCount``.
    public var countLimit: Int? {
        get { _total(\.countLimit) }
        set { _split(_limit(newValue), \.countLimit) }
    }

    /// Seconds an entry stays valid after it is set (see ``Cache/timeToLive``), for every stripe.
    public var timeToLive: Double? {
        get { _stripes[0].timeToLive }
        set { for stripe in _stripes { stripe.timeToLive = newValue } }
    }

    /// What a memory warning does, in every stripe.
    public var memoryWarningResponse: MemoryWarningResponse {
        get { _stripes[0].memoryWarningResponse }
        set { for stripe in _stripes { stripe.memoryWarningResponse = newValue } }
    }

    /// Called for each entry a stripe drops on its own; see ``Cache/evictionHandler``.
    public var evictionHandler: Cache<Key, Value>.EvictionHandler? {
        get { _stripes[0].evictionHandler }
        set { for stripe in _stripes { stripe.evictionHandler = newValue } }
    }

    /// Removes every expired entry, stripe by stripe.
    public func removeExpired() { for stripe in _stripes { stripe.removeExpired() } }

    /// Delivers an environment event to every stripe; see ``Cache/handle(_:)``.
    ///
    /// A memory warning whose response trims to a fraction keeps that fraction of the whole
    /// cache's entries and cost, each rounded down once (not in each stripe: a 0.9 trim of 16
    /// entries over 8 stripes kept 8 of them rather than 14). The entries to keep are shared out
    /// between the stripes in proportion to what each holds, the largest remainders taking the
    /// units left; then, if the survivors still cost more than the fraction, the excess is taken
    /// from the stripes in proportion to their cost. Each stripe evicts in its policy's order.
    public func handle(_ event: CacheEvent) {
        guard event == .memoryWarning, _stripes.count > 1, case .trim = memoryWarningResponse,
              let kept = memoryWarningResponse.kept(fromCount: count, totalCost: totalCost) else {
            for stripe in _stripes { stripe.handle(event) }
            return
        }
        let keptCounts = Self._apportion(kept.count, among: _stripes.map(\.count))
        for (stripe, keptCount) in zip(_stripes, keptCounts) {
            stripe._respondToMemoryWarning(keeping: (keptCount, keptCount == 0 ? 0 : .max), deliveringEvent: true)
        }
        let costs = _stripes.map(\.totalCost)
        let excess = Self._saturatingSum(costs) - kept.cost
        guard excess > 0 else { return }
        for (stripe, (cost, cut)) in zip(_stripes, zip(costs, Self._apportion(excess, among: costs, roundingUp: true))) where cut > 0 {
            stripe._respondToMemoryWarning(keeping: (.max, cost - cut), deliveringEvent: false)
        }
    }

    /// `total` shared out in proportion to `parts` (none above its part), exactly: each share
    /// rounded down, then one unit more to the largest remainders until they add up to `total`;
    /// or, `roundingUp`, each share rounded up (adding up to at least `total`).
    static func _apportion(_ total: Int, among parts: [Int], roundingUp: Bool = false) -> [Int] {
        let parts = parts.map { max($0, 0) }
        let whole = _saturatingSum(parts)
        guard whole > 0, total > 0 else { return parts.map { _ in 0 } }
        let total = min(total, whole)
        var shares: [Int] = [], remainders: [Int] = []
        for part in parts {
            // part × total ÷ whole in 128 bits: at most `part`, since `total` ≤ `whole`.
            let (quotient, remainder) = whole.dividingFullWidth(part.multipliedFullWidth(by: total))
            shares.append(roundingUp && remainder > 0 ? quotient + 1 : quotient)
            remainders.append(remainder)
        }
        guard !roundingUp else { return shares }
        var left = max(0, total - _saturatingSum(shares))
        for i in parts.indices.sorted(by: { remainders[$0] > remainders[$1] }) where left > 0 && shares[i] < parts[i] {
            shares[i] += 1
            left -= 1
        }
        return shares
    }

    /// The sum of `values` (none negative), at most `Int.max`.
    static func _saturatingSum(_ values: [Int]) -> Int {
        values.reduce(0) { sum, value in
            let (total, overflow) = sum.addingReportingOverflow(value)
            return overflow ? .max : total
        }
    }

    /// The sum of a limit over the stripes, or `nil` when they have none.
    func _total(_ limit: KeyPath<Cache<Key, Value>, Int?>) -> Int? {
        var total = 0
        for stripe in _stripes {
            guard let share = stripe[keyPath: limit] else { return nil }
            total += share
        }
        return total
    }

    /// Gives each stripe its share of `limit` as its `field`, and trims it; or, when one stripe's
    /// policy rejects its share, changes none.
    func _split(_ limit: Int?, _ field: WritableKeyPath<CacheLimits, Int?>) {
        let shares = (0..<_stripes.count).map { _share(of: limit, stripe: $0, stripes: _stripes.count) }
        for (cache, share) in zip(_stripes, shares) {
            var limits = cache._withState(.limit) { state, _ in state.pointee.limits }
            limits[keyPath: field] = share
            guard cache._core.accepts(limits) else { return }
        }
        for (cache, share) in zip(_stripes, shares) { cache._changeLimits { $0[keyPath: field] = share } }
    }
}

extension StripedCache: @unchecked Sendable where Key: Sendable, Value: Sendable {}

extension StripedCache: KeyedCache {}

/// Stripe `stripe`'s share of `limit` split between `stripes`: the quotient, plus one for the
/// first `limit % stripes` stripes, and at least 1 (0 would mean no limit).
func _share(of limit: Int?, stripe: Int, stripes: Int) -> Int? {
    guard let limit else { return nil }
    return max(limit / stripes + (stripe < limit % stripes ? 1 : 0), 1)
}

/// Holds a striped cache weakly for the system's event relay, as ``Cache``'s own subscription
/// holds a cache.
private final class _WeakStripedCache<Key: Hashable, Value>: _SystemEventTarget, @unchecked Sendable {
    weak var cache: StripedCache<Key, Value>?
    init(_ cache: StripedCache<Key, Value>) { self.cache = cache }
    func deliver(_ event: CacheEvent) { cache?.handle(event) }
}
