import Foundation

/// How many runs of a comparison fit in memory together, from the trace's working set.
///
/// A run holds at most every distinct object of the trace, and at most what its capacity
/// admits, so its memory is bounded by `perRun + perEntry × min(objects, capacity in objects)`.
/// The bound is deliberately generous (ghost lists and frequency sketches included): a wave
/// that fits the bound fits in memory.
struct _MemoryBudget {
    /// Fixed cost of one run: its tables, counters and trim histograms.
    static let perRun = 64 << 10
    /// Cost of one resident (or remembered) entry, ghosts and indexes included.
    static let perEntry = 384
    /// Grids smaller than this run in one wave without measuring anything first.
    static let gridWorthMeasuring = 64
    /// A quarter of physical memory.
    static var defaultLimit: Int { Int(clamping: ProcessInfo.processInfo.physicalMemory / 4) }

    /// The budget in bytes.
    var limit: Int
    var workingSet: WorkingSet
    var ignoreSize: Bool

    /// The bound on one run at `capacity` (`nil`: unlimited).
    func estimate(capacity: Int?) -> Int {
        let objects = max(1, workingSet.objects)
        var entries = objects
        if let capacity {
            let averageSize = ignoreSize ? 1 : max(1, workingSet.bytes / objects)
            // Twice the capacity's worth of average objects: small objects fill it more densely.
            let admitted = capacity / averageSize
            entries = admitted >= objects ? objects : min(objects, admitted * 2 + 1)
        }
        return Self.perRun &+ Self.perEntry &* max(0, entries)
    }

    /// Splits runs (by capacity, in order) into consecutive waves under the limit; `extra` runs
    /// (tiers, the stack profiler) join the first wave at the unlimited bound. Every wave has
    /// at least one run, so a single run over the budget still runs.
    /// - Returns: the waves as indices into `capacities`, and the estimate for all runs at once.
    func pack(_ capacities: [Int?], extra: Int) -> (waves: [[Int]], total: Int) {
        var waves: [[Int]] = [[]]
        var load = extra &* estimate(capacity: nil)
        var total = load
        for (index, capacity) in capacities.enumerated() {
            let cost = estimate(capacity: capacity)
            total = total &+ cost
            if load &+ cost > limit && !waves[waves.count - 1].isEmpty {
                waves.append([])
                load = 0
            }
            waves[waves.count - 1].append(index)
            load = load &+ cost
        }
        return (waves, total)
    }
}
