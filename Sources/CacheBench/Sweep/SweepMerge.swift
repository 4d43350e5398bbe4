/// The records of a sweep joined into one report (`cachebench merge DIR`): a pure function of
/// the folder's manifest and records.
public struct SweepMerge: Sendable {
    /// The sweep, from its manifest.
    public var manifest: SweepManifest
    /// One result per recorded cell: trace by trace in the manifest's order, policies in order,
    /// capacities ascending (as `compare` orders them).
    public var results: [ReplayResult]
    /// The cell of each of ``results``, in the same order.
    public var resultCells: [SweepCell]
    /// Cells the policy refused to run (a capacity too small for it, …), with the reason; recorded,
    /// so not missing, but without a result.
    public var refused: [(cell: SweepCell, reason: String)]
    /// Cells of the manifest with no valid record.
    public var missing: [SweepCell]
    /// Cells recorded more than once (with equal results): each with the places of its records.
    /// The first record is kept.
    public var duplicated: [(cell: SweepCell, places: [String])]
    /// Record lines cut short or damaged (`cells/NAME.jsonl:LINE`), ignored.
    public var damaged: [String]
    /// Valid records of cells this sweep does not have (another configuration or trace list), ignored.
    public var foreign: [String]
    /// The tool versions that wrote the records, sorted.
    public var versions: [String]
    /// The builds of the program that wrote the records (``ToolVersion/build``), sorted; records
    /// that name none add nothing.
    public var builds: [String] = []
    /// The record files (`cells/NAME.jsonl`) that hold the only record of some cell: a damaged
    /// line in one of them is a leftover, but the file cannot go.
    var _filesWithSoleRecords: Set<String> = []

    /// Joins the records of `directory`.
    ///
    /// - Throws: ``CacheBenchError/trace(_:)``: cannot open (66) without a manifest; malformed
    ///   (65) when one cell has two records that disagree (other than in timings), naming both.
    public static func load(directory: String) throws(CacheBenchError) -> SweepMerge {
        let store = SweepRecordStore(directory: directory)
        let manifest = try store.manifest()
        return try merge(manifest, try store.read(), directory: directory)
    }

    /// Joins `contents` as the cells of `manifest`.
    public static func merge(_ manifest: SweepManifest, _ contents: SweepRecordStore.Contents,
                             directory: String) throws(CacheBenchError) -> SweepMerge {
        let expected = manifest.cells
        let wanted = Set(expected)
        var found: [SweepCell: SweepRecordStore.Entry] = [:]
        var duplicatePlaces: [SweepCell: [String]] = [:]
        var foreign: [String] = []
        var versions = Set<String>(), builds = Set<String>()
        for entry in contents.entries {
            let record = entry.record
            guard record.configurationKey == manifest.configurationKey, wanted.contains(record.cell) else {
                foreign.append(entry.place)
                continue
            }
            versions.insert(record.version)
            if let build = record.build { builds.insert(build) }
            if let first = found[record.cell] {
                guard first.record.traceIdentity == record.traceIdentity,
                      first.record.result?.withoutTimings == record.result?.withoutTimings else {
                    throw .trace(TraceError(.malformed, file: entry.place,
                                            reason: "\(record.cell.description) is recorded with a different result at \(first.place) (was the trace changed during the sweep?)"))
                }
                duplicatePlaces[record.cell, default: [first.place]].append(entry.place)
            } else {
                found[record.cell] = entry
            }
        }
        var results: [ReplayResult] = []
        var resultCells: [SweepCell] = []
        var refused: [(cell: SweepCell, reason: String)] = []
        var missing: [SweepCell] = []
        for trace in manifest.traces {
            for policy in manifest.policies {
                var row: [(cell: SweepCell, result: ReplayResult)] = []
                for capacity in manifest.capacities {
                    let cell = SweepCell(trace: trace, policy: policy, capacity: capacity)
                    if let entry = found[cell] {
                        if let result = entry.record.result { row.append((cell, result)) }
                        else { refused.append((cell, entry.record.refusal ?? "")) }
                    } else {
                        missing.append(cell)
                    }
                }
                // Stable: equal capacities (two fractions of a tiny working set) keep the manifest's order.
                let sorted = row.enumerated().sorted { a, b in
                    (a.element.result.capacity ?? .max, a.offset) < (b.element.result.capacity ?? .max, b.offset)
                }.map(\.element)
                results += sorted.map(\.result)
                resultCells += sorted.map(\.cell)
            }
        }
        let duplicated = expected.compactMap { cell in duplicatePlaces[cell].map { (cell: cell, places: $0) } }
        var merge = SweepMerge(manifest: manifest, results: results, resultCells: resultCells, refused: refused, missing: missing,
                               duplicated: duplicated, damaged: contents.damaged, foreign: foreign, versions: versions.sorted())
        merge.builds = builds.sorted()
        for (cell, entry) in found {
            let files = Set((duplicatePlaces[cell] ?? [entry.place]).map(_file(of:)))
            if files.count == 1, let file = files.first { merge._filesWithSoleRecords.insert(file) }
        }
        return merge
    }

    /// The file of a record's place (`DIR/cells/NAME.jsonl:LINE`).
    static func _file(of place: String) -> String {
        guard let colon = place.lastIndex(of: ":") else { return place }
        return String(place[..<colon])
    }

    /// ``results`` as `compare` reports them: a trace's policy has one result per capacity, so
    /// where two of the sweep's capacities resolve to one size (fractions of a small working
    /// set), the first is kept. (``results`` keeps every cell, for `sweep-report`.)
    public var distinctResults: [ReplayResult] { _distinct.results }

    /// ``distinctResults``, and the cells of the results it leaves out.
    private var _distinct: (results: [ReplayResult], collapsed: [(kept: SweepCell, dropped: SweepCell, capacity: Int)]) {
        var kept: [ReplayResult] = []
        var collapsed: [(kept: SweepCell, dropped: SweepCell, capacity: Int)] = []
        var first: [String: SweepCell] = [:]
        for (cell, result) in zip(resultCells, results) {
            guard let capacity = result.capacity else { kept.append(result); continue }
            let key = "\(cell.trace)\u{0}\(cell.policy)\u{0}\(capacity)"
            if let earlier = first[key] {
                collapsed.append((earlier, cell, capacity))
            } else {
                first[key] = cell
                kept.append(result)
            }
        }
        return (kept, collapsed)
    }

    /// Remarks for people: damaged, foreign and duplicated records, the replays' warnings (a
    /// policy that cached nothing), refused cells and mixed versions.
    public var notes: [String] {
        var notes: [String] = []
        for entry in _distinct.collapsed {
            notes.append("\(entry.dropped.description): capacity \(entry.dropped.capacity.label) resolves to \(entry.capacity), as \(entry.kept.capacity.label) does; reported once, as compare does")
        }
        // A damaged line names no cell; once every cell has a record, it is a leftover of a cell
        // already run again, and the file holding it can go unless it holds a cell's only record.
        for place in damaged {
            let redo = !missing.isEmpty ? "rerun the sweep to redo its cell"
                : _filesWithSoleRecords.contains(Self._file(of: place))
                ? "every cell of the sweep is recorded; keep the file, which holds the only record of other cells"
                : "every cell of the sweep is recorded elsewhere; the file can be deleted"
            notes.append("\(place): record cut short or damaged; ignored (\(redo))")
        }
        if !foreign.isEmpty {
            notes.append("\(foreign.count) record(s) of cells not in this sweep ignored, first \(foreign[0])")
        }
        for entry in duplicated {
            notes.append("\(entry.cell.description): recorded \(entry.places.count) times with equal results (\(entry.places.joined(separator: ", "))); the first is kept")
        }
        // What replay and compare print as warnings, with the trace they came from; once for cells
        // whose capacities resolve alike (reported once, above), as their results are.
        var warned = Set<String>()
        for (cell, result) in zip(resultCells, results) {
            for warning in result.warnings {
                let note = "\(cell.trace): \(warning)"
                if warned.insert(note).inserted { notes.append(note) }
            }
        }
        if let first = refused.first {
            notes.append("\(refused.count) cell(s) refused by their policy, e.g. \(first.cell.description): \(first.reason)")
        }
        if versions.count > 1 { notes.append("records were written by cachebench versions \(versions.joined(separator: ", "))") }
        if builds.count > 1 {
            notes.append("records were written by \(builds.count) builds of the program (\(builds.joined(separator: ", "))): "
                         + "if a policy's code changed between them, its cells mix old and new code (sweep into a new folder to redo them)")
        }
        return notes
    }

    /// The merged report: `compare`'s `{ "trace", "results" }` (`trace` when the sweep has one
    /// trace), plus `traces`, `cells` (expected), `missing` and `duplicated` (cells as `trace`,
    /// `policy`, `capacity`), `refused` (cells with the policy's `reason`), `versions`, `builds` and `notes`.
    public var json: JSONValue {
        func cellJSON(_ cell: SweepCell) -> JSONValue {
            .object([("trace", .string(cell.trace)), ("policy", .string(cell.policy)), ("capacity", .string(cell.capacity.label))])
        }
        var fields: [(String, JSONValue)] = []
        if manifest.traces.count == 1 { fields.append(("trace", .string(manifest.traces[0]))) }
        fields += [
            ("traces", .array(manifest.traces.map { .string($0) })),
            ("results", .array(distinctResults.map(\.json))),
            ("cells", .int(manifest.cells.count)),
            ("missing", .array(missing.map(cellJSON))),
            ("refused", .array(refused.map { entry in
                var fields = [("reason", JSONValue.string(entry.reason))]
                if case .object(let cell) = cellJSON(entry.cell) { fields = cell + fields }
                return .object(fields)
            })),
            ("duplicated", .array(duplicated.map { cellJSON($0.cell) })),
            ("versions", .array(versions.map { .string($0) })),
            ("builds", .array(builds.map { .string($0) })),
            ("notes", .array(notes.map { .string($0) })),
        ]
        return .object(fields)
    }

    /// One ``CompareResult`` per trace with results, for `compare`'s renderers.
    public var perTrace: [CompareResult] {
        manifest.traces.compactMap { trace in
            let mine = distinctResults.filter { $0.trace == trace }
            return mine.isEmpty ? nil : CompareResult(trace: trace, results: mine, workingSet: nil,
                                                      wallSeconds: mine.reduce(0) { $0 + $1.seconds }, notes: [])
        }
    }

    /// The report in `format`: JSON as ``json``; CSV one row per cell; table and Markdown one
    /// `compare` matrix per trace, then the missing cells and notes.
    public func render(as format: ReportFormat) -> String {
        switch format {
        case .json: return json.serialized(pretty: true) + "\n"
        case .csv: return ReplayReport.renderRows(distinctResults, as: .csv)
        case .table, .markdown:
            var out = perTrace.map { CompareReport.render($0, as: format) }.joined(separator: "\n")
            if !missing.isEmpty {
                out += "\nmissing: \(missing.count) of \(manifest.cells.count) cells\n"
                for cell in missing {
                    out += format == .markdown ? "- " + ReplayReport.markdownCell(cell.description) + "\n"
                                               : "  " + ReplayReport.displayText(cell.description) + "\n"
                }
            }
            for note in notes { out += "note: \(note)\n" }
            return out
        }
    }
}
