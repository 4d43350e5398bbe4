import Foundation

/// Where a ``Cache`` reads the time for time-to-live and for its policy's timers.
///
/// ``system`` is the wall clock (`Date`), so an entry's time to live keeps running while the app
/// is suspended. It is also set back when the user sets the device's clock back: an entry's age
/// is the reading minus the reading when it was stored, so an entry stored before a set-back of
/// a day lives a day longer in ``Cache`` (its time to live) and in ``DiskCache`` (its age limit)
/// while the process runs; a ``DiskCache`` reopened takes an entry stored at a time the clock has
/// not reached again as stored then. Tests pass a clock they move by hand:
///
/// ```swift
/// let now = ManualTime()            // your own Sendable box of a Double
/// let cache = Cache<String, Int>(timeToLive: 60, clock: CacheClock { now.seconds })
/// ```
public struct CacheClock: Sendable {
    /// The current time in seconds. Only differences matter.
    ///
    /// A reading that is not a finite number is no time: it moves no policy timer, an entry
    /// given a time to live while the clock reads it expires at once, and a reading of NaN or
    /// +∞ finds every entry with a time to live expired (a cache in doubt misses rather than
    /// return what may be stale). Entries without one are not affected.
    public var now: @Sendable () -> Double

    /// A clock that reads `now`.
    public init(_ now: @escaping @Sendable () -> Double) { self.now = now }

    /// The wall clock: seconds since 2001 (`Date.timeIntervalSinceReferenceDate`).
    public static let system = CacheClock { Date.timeIntervalSinceReferenceDate }
}

/// What a ``Cache`` does on a memory warning (or memory pressure).
public enum MemoryWarningResponse: Sendable, Equatable {
    /// Remove every entry: what YYMemoryCache, PINMemoryCache, SDWebImage's memory cache,
    /// Kingfisher, Nuke and AFNetworking's image cache do. The default. (NSCache itself differs:
    /// on Apple platforms it removes some entries under memory pressure, and
    /// swift-corelibs-foundation's observes nothing.)
    case removeAll
    /// Keep this fraction (0–1) of the entries and of their total cost, rounded down (for example
    /// `.trim(toFraction: 0.5)` halves the cache). A policy that names its victims (LRU, FIFO,
    /// CLOCK, SIEVE, LFU) evicts them in its own order; the others (S3-FIFO, 2Q, ARC, LIRS,
    /// W-TinyLFU) lose the entries set longest ago first. The limits stay as they were.
    case trim(toFraction: Double)
    /// Do nothing beyond what the policy itself does with the event.
    case ignore
}

extension MemoryWarningResponse {
    /// What a cache of `count` entries costing `totalCost` in all keeps after this response: at
    /// most `count` entries costing at most `cost` (each the fraction, rounded down), a count of
    /// 0 meaning that every entry goes and the policy starts again; `nil` when nothing goes
    /// (``ignore``, or a trim that keeps everything). ``Cache`` applies it, and so does a replay
    /// that answers memory warnings as a ``Cache`` would.
    ///
    /// - Complexity: O(1).
    public func kept(fromCount count: Int, totalCost: Int) -> (count: Int, cost: Int)? {
        let fraction: Double
        switch self {
        case .ignore: return nil
        case .removeAll: fraction = 0
        case .trim(let kept): fraction = kept.isNaN ? 0 : min(max(kept, 0), 1)
        }
        let keptCount = Int((Double(count) * fraction).rounded(.down))
        if keptCount == 0 { return (0, 0) }
        return fraction < 1 ? (keptCount, Int((Double(totalCost) * fraction).rounded(.down))) : nil
    }
}
