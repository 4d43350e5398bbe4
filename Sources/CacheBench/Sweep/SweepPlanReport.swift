/// `sweep --plan`: the cells of a plan, each with its identity, shard and whether it is recorded.
public enum SweepPlanReport {
    /// One row per cell of `plan` (of `shard` alone when given), in `format`. With `directory`,
    /// each row says whether the cell is recorded there. Reads every listed trace once to hash it.
    ///
    /// - Throws: ``CacheBenchError/trace(_:)`` when a trace or a record file cannot be read.
    public static func render(_ plan: SweepPlan, shard: SweepShard?, directory: String?,
                              as format: ReportFormat) throws(CacheBenchError) -> String {
        let recorded: Set<String>
        if let directory {
            recorded = try SweepRecordStore(directory: directory).read().recorded()
        } else {
            recorded = []
        }
        let key = plan.spec.configurationKey
        var rows: [[String]] = []
        for index in plan.spec.traces.indices where shard == nil || plan.shardOfTrace[index] == shard?.index {
            let identity: TraceIdentity
            do { identity = try TraceIdentity.of(path: plan.spec.traces[index]) } catch { throw .trace(error) }
            let shardText = SweepShard(index: plan.shardOfTrace[index], count: plan.shardCount).description
            for cell in plan.cells(ofTrace: index) {
                let id = cell.identity(trace: identity, configurationKey: key)
                rows.append([id, cell.trace, cell.policy, cell.capacity.label, shardText,
                             directory == nil ? "" : (recorded.contains(SweepRecordStore.Contents.recordKey(identity: id, trace: cell.trace)) ? "yes" : "no")])
            }
        }
        let header = ["cell", "trace", "policy", "capacity", "shard", "recorded"]
        switch format {
        case .json:
            let cells = rows.map { row in JSONValue.object(zip(header, row).map { ($0, JSONValue.string($1)) }) }
            return JSONValue.object([
                ("shards", .int(plan.shardCount)),
                ("shardBytes", .array(plan.shardBytes.map { .int($0) })),
                ("cells", .array(cells)),
            ]).serialized(pretty: true) + "\n"
        case .csv:
            return ([header] + rows).map { $0.map(ReplayReport.csvField).joined(separator: ",") }.joined(separator: "\n") + "\n"
        case .markdown:
            return CompareReport.markdownTable([header] + rows)
        case .table:
            let bytes = plan.shardBytes.enumerated().map { "\($0.offset + 1): \($0.element)" }.joined(separator: ", ")
            // Control bytes of the traces' names (ESC, CR) shown escaped, not sent to the terminal.
            let shown = rows.map { $0.map(ReplayReport.displayText) }
            return "\(rows.count) cells; bytes of trace per shard: \(bytes)\n" + CompareReport.aligned([header] + shown, rightAligned: [])
        }
    }
}
