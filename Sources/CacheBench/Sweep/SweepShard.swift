/// One part of a sweep: shard `index` (0-based) of `count`.
///
/// Shards need no coordinator: every task computes the same assignment from the same arguments
/// and the sizes of the same traces (see ``SweepPlan``), and runs only its own part.
public struct SweepShard: Sendable, Equatable, CustomStringConvertible {
    /// 0-based index, below ``count``.
    public var index: Int
    /// How many shards the sweep is split into.
    public var count: Int

    /// The whole sweep as one shard.
    public static let whole = SweepShard(index: 0, count: 1)

    /// A shard; `index` must be below `count`.
    public init(index: Int, count: Int) {
        self.index = index
        self.count = count
    }

    /// `K/N` with K from 1 to N (1-based, as GNU parallel's `{#}` counts).
    public var description: String { "\(index + 1)/\(count)" }

    /// The most shards one sweep may have.
    public static let maximumCount = 1_000_000

    /// Parses `K/N`, 1-based.
    public static func parse(_ text: String) throws(InvalidValueError) -> SweepShard {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, let k = Int(parts[0]), let n = Int(parts[1]) else {
            throw InvalidValueError("shard", text, expected: "expected K/N, e.g. 2/4 (K counts from 1)")
        }
        guard n >= 1, n <= maximumCount, k >= 1, k <= n else {
            throw InvalidValueError("shard", text, expected: "K must be from 1 to N, and N from 1 to \(maximumCount)")
        }
        return SweepShard(index: k - 1, count: n)
    }

    /// The shard of a Slurm job-array task, from `SLURM_ARRAY_TASK_ID`, `SLURM_ARRAY_TASK_COUNT`,
    /// `SLURM_ARRAY_TASK_MIN` and `SLURM_ARRAY_TASK_STEP` (`--array=0-15:4` gives IDs 0, 4, 8, 12,
    /// shards 1 to 4); `nil` outside an array job. An array whose IDs are a list rather than one
    /// range (`SLURM_ARRAY_TASK_MAX` disagrees with the count) throws: its tasks' places are unknown.
    public static func slurm(_ environment: [String: String]) throws(SweepError) -> SweepShard? {
        guard environment["SLURM_ARRAY_TASK_ID"] != nil else { return nil }
        func number(_ name: String, default value: Int?) throws(SweepError) -> Int {
            guard let text = environment[name] else {
                if let value { return value }
                throw .slurmVariableMissing(name)
            }
            guard let number = Int(text) else { throw .slurmVariableNotANumber(name, text) }
            return number
        }
        let id = try number("SLURM_ARRAY_TASK_ID", default: nil)
        let count = try number("SLURM_ARRAY_TASK_COUNT", default: nil)
        let minimum = try number("SLURM_ARRAY_TASK_MIN", default: 0)
        let step = try number("SLURM_ARRAY_TASK_STEP", default: 1)
        guard step >= 1, minimum >= 0, id >= minimum, (id - minimum) % step == 0, count >= 1, count <= maximumCount,
              (id - minimum) / step < count else {
            throw .slurmTaskOutsideArray(id: id, count: count, minimum: minimum, step: step)
        }
        // Slurm gives a list of IDs (`--array=3,7`, as when failed tasks are resubmitted) the
        // same COUNT, MIN and STEP variables as a range: only MAX shows that IDs are missing.
        if let text = environment["SLURM_ARRAY_TASK_MAX"] {
            guard let maximum = Int(text) else { throw .slurmVariableNotANumber("SLURM_ARRAY_TASK_MAX", text) }
            guard maximum >= id, (maximum - minimum) % step == 0, (maximum - minimum) / step == count - 1 else {
                throw .slurmArrayNotARange(count: count, minimum: minimum, maximum: maximum, step: step)
            }
        }
        return SweepShard(index: (id - minimum) / step, count: count)
    }
}
