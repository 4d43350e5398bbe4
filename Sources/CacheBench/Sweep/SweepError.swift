import EvictionPolicies

/// A sweep that cannot run as asked, in the engine's own words. A command-line tool adds its
/// flags and hints by switching over the cases (`cachebench` does, in `CacheBenchCommandLine`).
public enum SweepError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The sweep names no trace.
    case noTraces
    /// The sweep names no policy.
    case noPolicies
    /// The sweep names no capacity.
    case noCapacities
    /// The sweep names this policy twice.
    case policyNamedTwice(String)
    /// No policy of the sweep declares this option.
    case optionTakenByNone(String)
    /// A count limit was given, but no policy of the sweep has one.
    case countLimitTakenByNone
    /// A policy refused an option's value (every cell of the policy would be refused).
    case invalidOption(PolicyConfigurationError, policy: String)
    /// The sweep names this trace twice.
    case traceNamedTwice(String)
    /// The folder holds the records of a different sweep: the folder, and how that sweep differs
    /// (``SweepManifest/difference(from:)``).
    case folderHoldsAnotherSweep(String, difference: String)
    /// The sweep has no results of the baseline policy; its policies are listed.
    case noBaselineResults(String, policies: [String])
    /// The sweep has only the baseline policy.
    case onlyBaseline(String)
    /// The admission rule cannot be made as chosen.
    case admission(AdmissionConfigurationError)
    /// A Slurm array task whose environment lacks this variable.
    case slurmVariableMissing(String)
    /// A Slurm variable that is not a whole number: its name and value.
    case slurmVariableNotANumber(String, String)
    /// A Slurm task ID outside its array: the ID, the task count, the first ID and the step.
    case slurmTaskOutsideArray(id: Int, count: Int, minimum: Int, step: Int)
    /// A Slurm array whose task IDs are not one evenly spaced range (`--array=3,7`): its task
    /// count, first and last ID and step, from which no task can tell its place.
    case slurmArrayNotARange(count: Int, minimum: Int, maximum: Int, step: Int)

    /// The problem in one line, in the engine's words.
    public var description: String {
        switch self {
        case .noTraces: "a sweep needs at least one trace"
        case .noPolicies: "a sweep needs at least one policy"
        case .noCapacities: "a sweep needs at least one capacity"
        case .policyNamedTwice(let name): "policy \(name) is named twice"
        case .optionTakenByNone(let option): "option \(option): none of the sweep's policies takes it"
        case .countLimitTakenByNone: "count limit: none of the sweep's policies has one"
        case let .invalidOption(error, policy): "policy \(policy): \(error.description)"
        case .traceNamedTwice(let path): "trace \(path) is named twice (or another name reaches the same file)"
        case let .folderHoldsAnotherSweep(directory, difference):
            "\(directory) holds another sweep: \(difference). Run every task of a sweep with the same traces (spelled alike, from the same folder), policies, capacities and settings, or write this one to a new folder"
        case let .noBaselineResults(baseline, policies):
            "the sweep has no \(baseline) results to measure reductions against (its policies: \(policies.joined(separator: ", ")))"
        case .onlyBaseline(let baseline): "the sweep has only \(baseline); there is nothing to compare with it"
        case .admission(let error): "admission: \(error.description)"
        case .slurmVariableMissing(let name): "\(name) is not set, but SLURM_ARRAY_TASK_ID is (not a Slurm array task?)"
        case let .slurmVariableNotANumber(name, text): "\(name)=\(text): not a whole number"
        case let .slurmTaskOutsideArray(id, count, minimum, step):
            count > SweepShard.maximumCount
                ? "SLURM_ARRAY_TASK_COUNT=\(count): a sweep has at most \(SweepShard.maximumCount) shards"
                : count < 1 ? "SLURM_ARRAY_TASK_COUNT=\(count): a job array has at least one task"
                : step < 1 ? "SLURM_ARRAY_TASK_STEP=\(step): a step is at least 1"
                : "SLURM_ARRAY_TASK_ID=\(id) is not one of \(count) tasks from \(minimum) in steps of \(step)"
        case let .slurmArrayNotARange(count, minimum, maximum, step):
            "the Slurm array's \(count) task IDs are not one range from \(minimum) to \(maximum) in steps of \(step) (a list such as 3,7?), so a task cannot tell which shard it is; give each task its shard explicitly"
        }
    }
}
