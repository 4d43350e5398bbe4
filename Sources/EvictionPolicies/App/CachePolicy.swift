/// The policies a ``Cache`` can be created with by name, through ``Cache/init(policy:costLimit:countLimit:timeToLive:clock:memoryWarningResponse:observesSystemEvents:)``.
///
/// Any other policy of this library (or one written elsewhere) is chosen by type with
/// ``Cache/init(policyType:costLimit:countLimit:options:timeToLive:clock:memoryWarningResponse:observesSystemEvents:)``.
///
/// The raw value is the policy's name in `cachebench` (`cachebench replay session.csv --policy
/// \(policy.rawValue)` replays what ``RecordingCache`` recorded with the same rule).
///
/// **Entries these policies refuse.** Every policy refuses an entry that costs more than the cost
/// limit. Three refuse smaller ones too, as the research versions they reproduce do: S3-FIFO an
/// entry costing as much as its small queue or more (10 % of the cost limit; one costing exactly
/// that much is refused after the queues have made room for it, so that set can evict entries
/// and still store nothing), 2Q one costing more than its A1in queue (25 %), LIRS one costing
/// more than its HIR share (1 %). So small cost limits store little: under 10, S3-FIFO's small
/// queue holds nothing and the cache keeps no entry at all, cost 0 included; under 4, 2Q keeps no
/// entry of cost 1 or more. A refused set stores nothing and, like every set, drops the
/// key's old value. With images of very different sizes, prefer
/// ``lru``, ``sieve`` or ``tinyLFU``, or check ``Cache/contains(_:)`` after a set.
public enum CachePolicy: String, Sendable, CaseIterable {
    /// Least recently used (``LRUCache``): the order YYMemoryCache, PINCache (by date), Nuke and
    /// AFNetworking's image cache evict in; the safe default. (NSCache is not LRU: ``CorelibsNSCache`` and
    /// ``DarwinNSCacheApproximation`` model its orders, as policies chosen by type.)
    case lru
    /// First in, first out (``FIFOCache``).
    case fifo
    /// CLOCK, second chance (``ClockCache``).
    case clock
    /// SIEVE (``SieveCache``): LRU's hit ratio or better on web and image workloads, with hits that
    /// only set a bit.
    case sieve
    /// S3-FIFO (``S3FIFOCache``): scan-resistant; no count limit.
    case s3fifo
    /// 2Q (``TwoQCache``); no count limit.
    case twoQueue = "2q"
    /// ARC (``ARCCache``); no count limit.
    case arc
    /// LIRS (``LIRSCache``); no count limit, and a cost limit of at least 3. An entry costing
    /// more than its HIR part (1 % of the cost limit by default) is not stored. As libCacheSim's
    /// LIRS, it can go on serving an entry its HIR part has just pushed out (a "phantom" block,
    /// see ``LIRSCache``), so ``Cache/totalCost`` can exceed the cost limit by a few entries.
    case lirs
    /// Least frequently used (``LFUCache``).
    case lfu
    /// W-TinyLFU, as Caffeine (``WTinyLFUCache``); no count limit. Its frequency sketch is made
    /// once the cache is half full and sized by its entries, as Caffeine's own cache does
    /// (`weighted=true`), so its memory follows the entries, not the cost limit; accesses before
    /// then are not counted. Its raw value is `caffeine-wtinylfu`: cachebench's `tinylfu` is
    /// libCacheSim's simplified port, another rule.
    case tinyLFU = "caffeine-wtinylfu"

    /// What the policy reproduces and its rule, as `cachebench policies` lists it under the
    /// case's raw value.
    public var descriptor: PolicyDescriptor {
        switch self {
        case .lru: return LRUCache<Int, Void>.descriptor
        case .fifo: return FIFOCache<Int, Void>.descriptor
        case .clock: return ClockCache<Int, Void>.descriptor
        case .sieve: return SieveCache<Int, Void>.descriptor
        case .s3fifo: return S3FIFOCache<Int, Void>.descriptor
        case .twoQueue: return TwoQCache<Int, Void>.descriptor
        case .arc: return ARCCache<Int, Void>.descriptor
        case .lirs: return LIRSCache<Int, Void>.descriptor
        case .lfu: return LFUCache<Int, Void>.descriptor
        case .tinyLFU: return WTinyLFUCache<Int, Void>.descriptor
        }
    }

    /// Whether the policy enforces a count limit. For one that does not, ``Cache`` rejects a
    /// count limit.
    public var supportsCountLimit: Bool {
        switch self {
        case .lru, .fifo, .clock, .sieve, .lfu: return true
        case .s3fifo, .twoQueue, .arc, .lirs, .tinyLFU: return false
        }
    }
}
