/// What a sweep's output folder holds: the cells it must have, saved as `sweep.json`.
///
/// Every shard writes the same manifest (it has no shard count and no times), so whichever task
/// starts first creates it and the others find it equal. A folder whose manifest differs belongs
/// to another sweep and is refused, so two studies never mix. ``SweepMerge`` reads it to know
/// which cells are missing.
public struct SweepManifest: Sendable, Equatable {
    /// The trace paths, in order.
    public var traces: [String]
    /// The policies, in order.
    public var policies: [String]
    /// The capacities, in order.
    public var capacities: [SweepCapacity]
    /// ``SweepSpec/configurationKey``.
    public var configurationKey: String

    /// The manifest of `spec`.
    public init(_ spec: SweepSpec) {
        traces = spec.traces
        policies = spec.policies
        capacities = spec.capacities.map(SweepCapacity.init)
        configurationKey = spec.configurationKey
    }

    /// The file's name inside the output folder.
    public static let fileName = "sweep.json"

    /// The file's content.
    public var json: JSONValue {
        .object([
            ("sweep", .int(1)),
            ("traces", .array(traces.map { .string($0) })),
            ("policies", .array(policies.map { .string($0) })),
            ("capacities", .array(capacities.map { .string($0.key) })),
            ("configuration", .string(configurationKey)),
        ])
    }

    /// Reads a manifest's text; `nil` when it is not one.
    public init?(text: String) {
        guard let object = JSONValue.parse(Substring(text)), object["sweep"]?.intValue == 1,
              let traces = object["traces"]?.arrayValue?.compactMap(\.stringValue),
              let policies = object["policies"]?.arrayValue?.compactMap(\.stringValue),
              let capacityKeys = object["capacities"]?.arrayValue?.compactMap(\.stringValue),
              let configurationKey = object["configuration"]?.stringValue else { return nil }
        let capacities = capacityKeys.compactMap(SweepCapacity.init(key:))
        guard capacities.count == capacityKeys.count,
              traces.count == object["traces"]?.arrayValue?.count,
              policies.count == object["policies"]?.arrayValue?.count else { return nil }
        self.traces = traces
        self.policies = policies
        self.capacities = capacities
        self.configurationKey = configurationKey
    }

    /// How this manifest (the folder's) differs from `other` (the run's), in words: the first of
    /// traces, policies, capacities and settings that differs, and how. Paths are compared as
    /// spelled: `eq/a.csv` and `/home/me/eq/a.csv` are other traces to a manifest.
    public func difference(from other: SweepManifest) -> String {
        func lists(_ what: String, _ mine: [String], _ theirs: [String]) -> String? {
            guard mine != theirs else { return nil }
            if Set(mine) == Set(theirs) { return "it lists the same \(what) in another order (\(mine.prefix(3).joined(separator: ", "))\(mine.count > 3 ? ", …" : ""))" }
            if let extra = theirs.first(where: { !mine.contains($0) }) {
                return "its \(what) do not include \(extra) (it has \(mine.prefix(3).joined(separator: ", "))\(mine.count > 3 ? ", … \(mine.count) in all" : ""))"
            }
            let missing = mine.first { !theirs.contains($0) } ?? ""
            return "its \(what) include \(missing), which this run does not name"
        }
        return lists("traces", traces, other.traces)
            ?? lists("policies", policies, other.policies)
            ?? lists("capacities", capacities.map(\.key), other.capacities.map(\.key))
            ?? "its settings differ (\(configurationKey.isEmpty ? "none" : configurationKey) there, \(other.configurationKey.isEmpty ? "none" : other.configurationKey) here)"
    }

    /// Every cell, trace by trace, then policy by policy, capacities in the order given.
    public var cells: [SweepCell] {
        traces.flatMap { trace in
            policies.flatMap { policy in capacities.map { SweepCell(trace: trace, policy: policy, capacity: $0) } }
        }
    }
}
