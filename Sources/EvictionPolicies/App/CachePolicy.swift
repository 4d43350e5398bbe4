/// The policies a ``Cache`` can be created with by name, through ``Cache/init(policy:costLimit:countLimit:timeToLive:clock:memoryWarningResponse:observesSystemEvents:)``.
///
/// Any other policy of this library (or one written elsewhere) is chosen by type with
/// ``Cache/init(policyType:costLimit:countLimit:options:timeToLive:clock:memoryWarningResponse:observesSystemEvents:)``.
public enum CachePolicy: String, Sendable, CaseIterable {
    /// Least recently used (``LRUCache``): NSCache-family behaviour, the safe default.
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
    /// LIRS (``LIRSCache``); no count limit.
    case lirs
    /// Least frequently used (``LFUCache``).
    case lfu
    /// W-TinyLFU, as Caffeine (``WTinyLFUCache``); no count limit.
    case tinyLFU = "tinylfu"

    /// Whether the policy enforces a count limit. For one that does not, ``Cache`` rejects a
    /// count limit.
    public var supportsCountLimit: Bool {
        switch self {
        case .lru, .fifo, .clock, .sieve, .lfu: return true
        case .s3fifo, .twoQueue, .arc, .lirs, .tinyLFU: return false
        }
    }
}
