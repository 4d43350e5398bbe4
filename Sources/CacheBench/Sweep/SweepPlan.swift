#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Which shard runs which cells: a pure function of the sweep and its traces' sizes.
///
/// All the cells of a trace go to one shard, so each shard decodes each of its traces once for
/// all their cells (as `compare` does). Traces are dealt largest first to the shard with the least
/// bytes so far (ties to the lower shard; equal sizes in path order): the greedy
/// longest-processing-time rule, whose heaviest shard is within 4/3 of the best possible. Every
/// task of an array job computes the same plan from the same arguments, so together they cover
/// each cell exactly once with no coordinator. O(T log T + T·N) for T traces and N shards.
public struct SweepPlan: Sendable {
    /// The sweep.
    public var spec: SweepSpec
    /// Each trace's size in bytes, in ``SweepSpec/traces`` order.
    public var traceBytes: [Int]
    /// How many shards.
    public var shardCount: Int
    /// Each trace's shard (0-based), in ``SweepSpec/traces`` order.
    public private(set) var shardOfTrace: [Int]

    /// Assigns the traces of `spec`, whose sizes are `traceBytes`, to `shardCount` shards.
    public init(spec: SweepSpec, traceBytes: [Int], shardCount: Int) {
        precondition(traceBytes.count == spec.traces.count && shardCount >= 1)
        self.spec = spec
        self.traceBytes = traceBytes
        self.shardCount = shardCount
        let order = spec.traces.indices.sorted { a, b in
            traceBytes[a] != traceBytes[b] ? traceBytes[a] > traceBytes[b]
                : (spec.traces[a] != spec.traces[b] ? spec.traces[a] < spec.traces[b] : a < b)
        }
        var loads = Array(repeating: 0, count: min(shardCount, max(1, spec.traces.count)))
        var shards = Array(repeating: 0, count: spec.traces.count)
        for trace in order {
            var least = 0
            for shard in loads.indices where loads[shard] < loads[least] { least = shard }
            shards[trace] = least
            // Every trace weighs at least one byte, so empty files still spread out.
            loads[least] = loads[least] &+ max(1, traceBytes[trace])
        }
        shardOfTrace = shards
    }

    /// Plans `spec` over `shardCount` shards, reading each trace's size from the file system.
    ///
    /// A trace that is missing or not a regular file counts as 0 bytes here: the plan stays the
    /// same in every shard, and the shard it falls to notes it as unreadable while its other
    /// traces run (see ``Sweep/run(_:shard:directory:registry:progress:)``).
    public static func make(_ spec: SweepSpec, shardCount: Int) -> SweepPlan {
        var sizes: [Int] = []
        for path in spec.traces {
            var info = stat()
            guard stat(path, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else {
                sizes.append(0)
                continue
            }
            sizes.append(Int(info.st_size))
        }
        return SweepPlan(spec: spec, traceBytes: sizes, shardCount: shardCount)
    }

    /// The traces (indices into ``SweepSpec/traces``) of shard `index`, in sweep order.
    public func traces(ofShard index: Int) -> [Int] {
        spec.traces.indices.filter { shardOfTrace[$0] == index }
    }

    /// The cells of trace `index`: every policy at every capacity, policies in order.
    public func cells(ofTrace index: Int) -> [SweepCell] {
        let path = spec.traces[index]
        return spec.policies.flatMap { policy in
            spec.capacities.map { SweepCell(trace: path, policy: policy, capacity: SweepCapacity($0)) }
        }
    }

    /// Every cell of the sweep, trace by trace.
    public var cells: [SweepCell] { spec.traces.indices.flatMap(cells(ofTrace:)) }

    /// Bytes of trace each shard reads.
    public var shardBytes: [Int] {
        var loads = Array(repeating: 0, count: shardCount)
        for (trace, shard) in shardOfTrace.enumerated() { loads[shard] = loads[shard] &+ traceBytes[trace] }
        return loads
    }
}
