@testable import CacheBench
import EvictionPolicies
import Foundation
import Testing
import TestSupport

/// The library's SplitMix64 as a `RandomNumberGenerator`, so random traces and sizes replay from a seed.
private struct SweepRandom: RandomNumberGenerator {
    var source: SplitMix64
    init(seed: UInt64) { source = SplitMix64(seed: seed) }
    mutating func next() -> UInt64 { source.next() }
}

/// A small random trace (skewed keys, sizes, a few sets, deletes and memory warnings, unless
/// `onlyGets`) in a fresh file.
private func randomTrace(seed: UInt64, rows: Int = 1500, onlyGets: Bool = false) throws -> String {
    var random = SweepRandom(seed: seed)
    var text = "timestamp,key,size,op\n"
    for row in 0..<rows {
        let key = Int.random(in: 0..<40, using: &random) * Int.random(in: 1...6, using: &random)
        let op = Int.random(in: 0..<100, using: &random)
        let kind = onlyGets || op < 90 ? "get" : op < 95 ? "set" : op < 99 ? "delete" : "memory-warning"
        text += "\(row),k\(key),\(100 + key * 37 % 900),\(kind)\n"
    }
    return try temporaryFile(text)
}

private func scratchFolder() -> String {
    scratchDirectory.appendingPathComponent("cachebench-sweep-\(UUID().uuidString)").path
}

@Suite("sweeps: cells, shards, records and merging")
struct SweepTests {
    @Test("shards: greedy by size, hand-worked: 10,7,5,4,3,1 over two shards is {10,4,1} and {7,5,3}")
    func handWorkedAssignment() {
        let spec = SweepSpec(traces: ["a", "b", "c", "d", "e", "f"], policies: ["fifo"])
        let plan = SweepPlan(spec: spec, traceBytes: [5, 10, 1, 7, 3, 4], shardCount: 2)
        #expect(plan.traces(ofShard: 0) == [1, 2, 5])   // b (10), c (1), f (4)
        #expect(plan.traces(ofShard: 1) == [0, 3, 4])   // a (5), d (7), e (3)
        #expect(plan.shardBytes == [15, 15])
    }

    @Test("shards: every trace in exactly one shard, the same plan from any listing order, within LPT's 4/3 bound")
    func assignmentProperties() {
        var random = SweepRandom(seed: 19)
        for round in 0..<200 {
            let count = Int.random(in: 1...40, using: &random)
            let traces = (0..<count).map { "t\(round)-\($0)" }
            let sizes = traces.map { _ in Int.random(in: 0...1_000_000, using: &random) }
            for shards in 1...7 {
                let plan = SweepPlan(spec: SweepSpec(traces: traces, policies: ["fifo"]), traceBytes: sizes, shardCount: shards)
                let covered = (0..<shards).flatMap(plan.traces(ofShard:)).sorted()
                #expect(covered == Array(traces.indices))
                // The same traces listed in another order get the same shards.
                let order = traces.indices.shuffled(using: &random)
                let shuffled = SweepPlan(spec: SweepSpec(traces: order.map { traces[$0] }, policies: ["fifo"]),
                                         traceBytes: order.map { sizes[$0] }, shardCount: shards)
                for (position, original) in order.enumerated() {
                    #expect(shuffled.shardOfTrace[position] == plan.shardOfTrace[original])
                }
                let weights = sizes.map { max(1, $0) }
                let lowerBound = max(Double(weights.reduce(0, +)) / Double(shards), Double(weights.max() ?? 0))
                let heaviest = (0..<shards).map { s in plan.traces(ofShard: s).reduce(0) { $0 + weights[$1] } }.max() ?? 0
                #expect(Double(heaviest) <= lowerBound * 4 / 3 + 1, "round \(round), \(shards) shards")
            }
        }
    }

    @Test("--shard K/N and Slurm's array variables")
    func shardParsing() throws {
        #expect(try SweepShard.parse("2/4") == SweepShard(index: 1, count: 4))
        #expect(try SweepShard.parse("1/1") == .whole)
        for bad in ["0/4", "5/4", "x", "1/0", "1/2/3", "-1/4", "/4"] {
            #expect(throws: InvalidValueError.self, "\(bad)") { try SweepShard.parse(bad) }
        }
        #expect(try SweepShard.slurm([:]) == nil)
        let env = ["SLURM_ARRAY_TASK_ID": "5", "SLURM_ARRAY_TASK_COUNT": "4", "SLURM_ARRAY_TASK_MIN": "4"]
        #expect(try SweepShard.slurm(env) == SweepShard(index: 1, count: 4))
        // --array=0-15:4 gives IDs 0, 4, 8, 12.
        let stepped = ["SLURM_ARRAY_TASK_ID": "8", "SLURM_ARRAY_TASK_COUNT": "4", "SLURM_ARRAY_TASK_MIN": "0", "SLURM_ARRAY_TASK_STEP": "4"]
        #expect(try SweepShard.slurm(stepped) == SweepShard(index: 2, count: 4))
        #expect(throws: SweepError.self) { try SweepShard.slurm(["SLURM_ARRAY_TASK_ID": "9", "SLURM_ARRAY_TASK_COUNT": "4"]) }
        #expect(throws: SweepError.self) { try SweepShard.slurm(["SLURM_ARRAY_TASK_ID": "1"]) }
        // With MAX, as every Slurm since 14.03 sets it: a range agrees with the count; a list
        // (--array=3,7 gives COUNT 2, MIN 3, MAX 7, STEP 1) does not, and no task can place itself.
        let ranged = ["SLURM_ARRAY_TASK_ID": "8", "SLURM_ARRAY_TASK_COUNT": "4", "SLURM_ARRAY_TASK_MIN": "0",
                      "SLURM_ARRAY_TASK_MAX": "12", "SLURM_ARRAY_TASK_STEP": "4"]
        #expect(try SweepShard.slurm(ranged) == SweepShard(index: 2, count: 4))
        let alone = ["SLURM_ARRAY_TASK_ID": "5", "SLURM_ARRAY_TASK_COUNT": "1", "SLURM_ARRAY_TASK_MIN": "5", "SLURM_ARRAY_TASK_MAX": "5"]
        #expect(try SweepShard.slurm(alone) == .whole)
        for (id, count, maximum) in [("3", "2", "7"), ("7", "2", "7"), ("0", "4", "6"), ("1", "4", "6"), ("0", "4", "2"), ("2", "4", "15")] {
            let list = ["SLURM_ARRAY_TASK_ID": id, "SLURM_ARRAY_TASK_COUNT": count, "SLURM_ARRAY_TASK_MIN": id == "3" || id == "7" ? "3" : "0",
                        "SLURM_ARRAY_TASK_MAX": maximum, "SLURM_ARRAY_TASK_STEP": "1"]
            #expect(throws: SweepError.self, "\(list)") { try SweepShard.slurm(list) }
        }
        #expect(throws: SweepError.self) {
            try SweepShard.slurm(["SLURM_ARRAY_TASK_ID": "0", "SLURM_ARRAY_TASK_COUNT": "1", "SLURM_ARRAY_TASK_MAX": "x"])
        }
        #expect(throws: SweepError.self) {
            try SweepShard.slurm(["SLURM_ARRAY_TASK_ID": "0", "SLURM_ARRAY_TASK_COUNT": "4", "SLURM_ARRAY_TASK_MAX": String(Int.max)])
        }
        let extreme = ["SLURM_ARRAY_TASK_ID": String(Int.max), "SLURM_ARRAY_TASK_COUNT": "4", "SLURM_ARRAY_TASK_MIN": String(Int.min)]
        #expect(throws: SweepError.self) { try SweepShard.slurm(extreme) }
    }

    @Test("capacities: one key per value (0.010 is 0.01), decimal labels, keys read back")
    func capacityKeys() throws {
        let list = try CapacityList.parse("0.010,0.2,64MiB,0.001")
        let capacities = list.items.map(SweepCapacity.init)
        #expect(capacities.map(\.key) == ["fraction:1/100", "fraction:1/5", "size:67108864", "fraction:1/1000"])
        #expect(capacities.map(\.label) == ["0.01", "0.2", "67108864", "0.001"])
        #expect(SweepCapacity(.fraction(numerator: 1, denominator: 3)).label == "1/3")
        #expect(SweepCapacity(try CapacityList.parse("0.01").items[0]) == capacities[0])
        for capacity in capacities { #expect(SweepCapacity(key: capacity.key) == capacity) }
        for bad in ["size:0", "fraction:3/2", "fraction:1", "bytes:5", "size:x"] { #expect(SweepCapacity(key: bad) == nil, "\(bad)") }
        // Duplicates by value are dropped from a spec.
        #expect(SweepSpec(traces: ["t"], policies: ["lru"], capacities: list.items + [.fraction(numerator: 10, denominator: 1000)])
            .capacities.count == 4)
    }

    @Test("a cell's identity follows the trace's content, not its path; settings that change results change it")
    func identities() throws {
        let text = "timestamp,key,size\n0,a,1\n1,b,2\n"
        let first = try temporaryFile(text), second = try temporaryFile(text), other = try temporaryFile(text + "2,c,3\n")
        defer { for path in [first, second, other] { try? FileManager.default.removeItem(atPath: path) } }
        let a = try TraceIdentity.of(path: first), b = try TraceIdentity.of(path: second), c = try TraceIdentity.of(path: other)
        #expect(a == b && a != c && a.bytes == text.utf8.count)
        let cell = SweepCell(trace: first, policy: "lru", capacity: SweepCapacity(.size(10)))
        let moved = SweepCell(trace: second, policy: "lru", capacity: SweepCapacity(.size(10)))
        let key = SweepSpec(traces: [first], policies: ["lru"]).configurationKey
        #expect(cell.identity(trace: a, configurationKey: key) == moved.identity(trace: b, configurationKey: key))
        #expect(cell.identity(trace: a, configurationKey: key) != cell.identity(trace: c, configurationKey: key))
        let ignoring = SweepSpec(traces: [first], policies: ["lru"], ignoreSize: true).configurationKey
        let optioned = SweepSpec(traces: [first], policies: ["lru"], options: PolicyOptions(["k": "v"])).configurationKey
        #expect(Set([key, ignoring, optioned]).count == 3)
        #expect(throws: TraceError.self) { try TraceIdentity.of(path: "/nonexistent/trace.csv") }
    }

    @Test("a record keeps its result's warnings in the result, still reads an older record's beside it, and refuses a capacity below 1")
    func recordWarnings() throws {
        let path = try randomTrace(seed: 2, rows: 300)
        defer { try? FileManager.default.removeItem(atPath: path) }
        var result = try Replay.run(ReplayJob(trace: TraceSpec(path: path), policy: "lru", capacity: 5000))
        result.warnings = ["lru at capacity 5000: a test's warning"]
        let cell = SweepCell(trace: path, policy: "lru", capacity: SweepCapacity(.size(5000)))
        let traceIdentity = try TraceIdentity.of(path: path)
        let record = SweepRecord(cell: cell, identity: cell.identity(trace: traceIdentity, configurationKey: "k"),
                                 traceIdentity: traceIdentity, configurationKey: "k", shard: "1/1", result: result)
        let read = try #require(SweepRecord(line: Substring(record.line)))
        #expect(read == record && read.result?.warnings == result.warnings)
        // Rewritten as a record of the previous layout (the warnings beside the result), with its check.
        func signed(_ body: String) -> Substring { Substring(String(body.dropLast()) + ", \"check\": \"" + _FNV1a64.hex(of: body) + "\"}") }
        let body = String(record.line.dropLast(30)) + "}"
        let older = body.replacingOccurrences(of: ", \"warnings\": [\"lru at capacity 5000: a test's warning\"]}", with: "}")
            .dropLast() + ", \"warnings\": [\"lru at capacity 5000: a test's warning\"]}"
        #expect(older.components(separatedBy: "warnings").count == 2 && older.hasSuffix("]}"), "\(older)")
        #expect(SweepRecord(line: signed(String(older)))?.result?.warnings == result.warnings)
        // A hand-edited capacity no run can have, with its check recomputed: not a record.
        let negative = body.replacingOccurrences(of: "\"capacity\": 5000,", with: "\"capacity\": -10,")
        #expect(negative != body)
        #expect(SweepRecord(line: signed(negative)) == nil)
    }

    @Test("a record line reads back equal; every cut and every changed byte is detected")
    func recordIntegrity() throws {
        let path = try randomTrace(seed: 1, rows: 300)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let result = try Replay.run(ReplayJob(trace: TraceSpec(path: path), policy: "yy-lru", capacity: 5000))
        let cell = SweepCell(trace: path, policy: "yy-lru", capacity: SweepCapacity(.size(5000)))
        let traceIdentity = try TraceIdentity.of(path: path)
        let record = SweepRecord(cell: cell, identity: cell.identity(trace: traceIdentity, configurationKey: "k"),
                                 traceIdentity: traceIdentity, configurationKey: "k", shard: "1/1", result: result)
        let line = record.line
        #expect(SweepRecord(line: Substring(line)) == record)
        #expect(!line.contains("\n"))
        let bytes = Array(line.utf8)
        for cut in 0..<bytes.count {
            #expect(SweepRecord(line: Substring(String(decoding: bytes[..<cut], as: UTF8.self))) == nil, "cut at \(cut)")
        }
        var random = SweepRandom(seed: 7)
        for _ in 0..<300 {
            var damaged = bytes
            let at = Int.random(in: 0..<damaged.count, using: &random)
            damaged[at] = damaged[at] == UInt8(ascii: "7") ? UInt8(ascii: "8") : UInt8(ascii: "7")
            #expect(SweepRecord(line: Substring(String(decoding: damaged, as: UTF8.self))) == nil, "byte \(at)")
        }
    }

    @Test("JSON reader: replay objects read back to the same text; malformed documents are refused")
    func jsonReader() throws {
        let path = try randomTrace(seed: 2, rows: 200)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let result = try Replay.run(ReplayJob(trace: TraceSpec(path: path), policy: "nuke-lru", capacity: 3000))
        let text = result.json.serialized(pretty: true)
        let parsed = try #require(JSONValue.parse(Substring(text)))
        #expect(parsed.serialized(pretty: true) == text)
        #expect(ReplayResult(json: parsed) == result)
        let tricky = "{\"a\": [1, -2.5e-3, true, false, null, \"q\\\"\\\\\\n\\u00e9\\ud83d\\ude00\"], \"b\": {}}"
        #expect(JSONValue.parse(Substring(tricky))?["a"]?.arrayValue?.last?.stringValue == "q\"\\\né😀")
        for bad in ["", "{", "[1,]", "{\"a\" 1}", "01", "1 2", "\"\u{01}\"", "tru", "{\"a\": 1,}", "\"\\ud800\""] {
            #expect(JSONValue.parse(Substring(bad)) == nil, "\(bad)")
        }
    }

    /// The sweep of the differential tests: three random traces, policies that exercise the
    /// stack-distance pass, a library model with events, and fractions with a size.
    private static func smallSweep(_ traces: [String]) throws -> SweepSpec {
        SweepSpec(traces: traces, policies: ["fifo", "lru", "sieve", "s3fifo", "yy-lru"],
                  capacities: try CapacityList.parse("0.01,0.1,0.4,20000").items, threads: 2)
    }

    @Test("merged results equal compare's for the same cells, value for value, over two shards")
    func mergeEqualsCompare() throws {
        // The first has gets alone, so LRU comes from the stack-distance pass there.
        let traces = try (0..<3).map { try randomTrace(seed: 100 + UInt64($0), onlyGets: $0 == 0) }
        let folder = scratchFolder()
        defer { for path in traces + [folder] { try? FileManager.default.removeItem(atPath: path) } }
        let spec = try Self.smallSweep(traces)
        let plan = SweepPlan.make(spec, shardCount: 2)
        var cellsRun = 0
        for index in 0..<2 { cellsRun += try Sweep.run(plan, shard: SweepShard(index: index, count: 2), directory: folder).cellsRun }
        #expect(cellsRun == 3 * 5 * 4)
        let merged = try SweepMerge.load(directory: folder)
        #expect(merged.missing.isEmpty && merged.duplicated.isEmpty && merged.damaged.isEmpty)
        #expect(merged.versions == [ToolVersion.current])
        for trace in traces {
            let compared = try Compare.run(CompareJob(trace: TraceSpec(path: trace), policies: spec.policies,
                                                      capacities: CapacityList(spec.capacities), threads: 2))
            let mine = merged.results.filter { $0.trace == trace }
            // Warnings included: a record keeps them.
            #expect(mine.map(\.withoutTimings) == compared.results.map(\.withoutTimings))
        }
        #expect(merged.results.filter { $0.method == .stackDistance }.count == 4)
        // The JSON is compare's shape: the replay objects under "results".
        let json = merged.json
        #expect(json["results"]?.arrayValue?.count == 60)
        #expect(json["missing"]?.arrayValue?.isEmpty == true)
    }

    @Test("rerun skips recorded cells; a damaged record is named, redone, and never duplicated")
    func resumeAndRepair() throws {
        let traces = try (0..<3).map { try randomTrace(seed: 200 + UInt64($0)) }
        let folder = scratchFolder()
        defer { for path in traces + [folder] { try? FileManager.default.removeItem(atPath: path) } }
        let spec = try Self.smallSweep(traces)
        let plan = SweepPlan.make(spec, shardCount: 3)
        let first = try Sweep.run(plan, shard: SweepShard(index: 0, count: 3), directory: folder)
        #expect(first.cellsRun == 20)
        var merged = try SweepMerge.load(directory: folder)
        #expect(merged.missing.count == 40)
        // A rerun of the same shard does nothing; the whole sweep as one shard does the rest.
        #expect(try Sweep.run(plan, shard: SweepShard(index: 0, count: 3), directory: folder).cellsRun == 0)
        let whole = SweepPlan.make(spec, shardCount: 1)
        let rest = try Sweep.run(whole, shard: .whole, directory: folder)
        #expect(rest.cellsRun == 40 && rest.cellsSkipped == 20)
        let reference = try SweepMerge.load(directory: folder).results.map(\.withoutTimings)

        // Cut a record file inside its last line, as a copy cut short would.
        let cells = folder + "/" + SweepRecordStore.recordsFolder
        let name = try #require(try FileManager.default.contentsOfDirectory(atPath: cells).sorted().first)
        let data = try Data(contentsOf: URL(fileURLWithPath: cells + "/" + name))
        try data.prefix(data.count - 40).write(to: URL(fileURLWithPath: cells + "/" + name))
        merged = try SweepMerge.load(directory: folder)
        #expect(merged.damaged == ["\(folder)/cells/\(name):20"])
        #expect(merged.missing.count == 1)
        #expect(merged.notes.contains { $0.hasPrefix("\(folder)/cells/\(name):20") && $0.hasSuffix("(rerun the sweep to redo its cell)") })
        let repair = try Sweep.run(whole, shard: .whole, directory: folder)
        #expect(repair.cellsRun == 1 && repair.cellsSkipped == 59)
        merged = try SweepMerge.load(directory: folder)
        #expect(merged.missing.isEmpty && merged.duplicated.isEmpty)
        // The damaged line stays in its file, but no longer asks for a rerun: its cell has one. The
        // file's other 19 lines are their cells' only records, so it must stay.
        #expect(merged.notes.contains { $0.hasPrefix("\(folder)/cells/\(name):20") && $0.contains("keep the file") })
        #expect(!merged.notes.contains { $0.contains("rerun the sweep") || $0.contains("can be deleted") })
        #expect(merged.results.map(\.withoutTimings).map(\.counters) == reference.map(\.counters))
        // Once those 19 records are copied to another file, the damaged file holds nothing of its own.
        let whole19 = try #require(data.prefix(data.count - 40).lastIndex(of: UInt8(ascii: "\n")))
        try data.prefix(whole19 + 1).write(to: URL(fileURLWithPath: cells + "/copy.jsonl"))
        merged = try SweepMerge.load(directory: folder)
        #expect(merged.missing.isEmpty && merged.duplicated.count == 19)
        #expect(merged.notes.contains { $0.hasPrefix("\(folder)/cells/\(name):20") && $0.contains("the file can be deleted") })
        #expect(!merged.notes.contains { $0.contains("keep the file") })
    }

    @Test("the folders a failed start made go again, nested or one letter long; a folder with anything in it stays")
    func removeEmptyFolders() throws {
        let base = scratchFolder()
        defer { try? FileManager.default.removeItem(atPath: base) }
        for records in [base + "/S/cells", base + "//q/cells/"] {
            let outermost = try #require(try Folders.make(records))
            #expect(outermost == base)
            SweepRecordStore.removeEmptyFolders(from: records, upTo: outermost)
            #expect(!FileManager.default.fileExists(atPath: base), "\(records)")
        }
        try FileManager.default.createDirectory(atPath: base, withIntermediateDirectories: true)
        // Another run's file in the folder: the folder stays, and so does everything above it.
        _ = try Folders.make(base + "/T/cells")
        try "x".write(toFile: base + "/T/cells/r.jsonl", atomically: false, encoding: .utf8)
        SweepRecordStore.removeEmptyFolders(from: base + "/T/cells", upTo: base)
        #expect(FileManager.default.fileExists(atPath: base + "/T/cells/r.jsonl"))
    }

    @Test("a record that checks itself but disagrees with itself (a relabelled policy or capacity) is not read")
    func forgedRecords() throws {
        let trace = try randomTrace(seed: 620, onlyGets: true)
        let folder = scratchFolder()
        defer { for path in [trace, folder] { try? FileManager.default.removeItem(atPath: path) } }
        let spec = SweepSpec(traces: [trace], policies: ["fifo"], capacities: try CapacityList.parse("10").items, ignoreSize: true)
        _ = try Sweep.run(SweepPlan.make(spec, shardCount: 1), shard: .whole, directory: folder)
        let cells = folder + "/" + SweepRecordStore.recordsFolder
        let file = try #require(try FileManager.default.contentsOfDirectory(atPath: cells).first)
        let text = try String(contentsOfFile: cells + "/" + file, encoding: .utf8)
        let line = try #require(text.split(separator: "\n").first)
        let record = try #require(SweepRecord(line: line))
        var relabelled = record
        relabelled.cell.policy = "lru"
        #expect(SweepRecord(line: Substring(relabelled.line)) == nil)
        var otherCapacity = record
        otherCapacity.cell.capacity = SweepCapacity(.size(11))
        #expect(SweepRecord(line: Substring(otherCapacity.line)) == nil)
        #expect(SweepRecord(line: Substring(record.line)) != nil)
    }

    @Test("a policy option spelled by its libCacheSim alias or in capitals is applied, as compare applies it")
    func optionSpellings() throws {
        let trace = try randomTrace(seed: 610, rows: 3000, onlyGets: true)
        defer { try? FileManager.default.removeItem(atPath: trace) }
        func hits(_ key: String?) throws -> [Int] {
            let folder = scratchFolder()
            defer { try? FileManager.default.removeItem(atPath: folder) }
            let spec = SweepSpec(traces: [trace], policies: ["s3fifo", "fifo"], capacities: try CapacityList.parse("5,12").items,
                                 ignoreSize: true, options: PolicyOptions(key.map { [$0: "0.4"] } ?? [:]))
            _ = try Sweep.run(SweepPlan.make(spec, shardCount: 1), shard: .whole, directory: folder)
            return try SweepMerge.load(directory: folder).results.filter { $0.policy == "s3fifo" }.map(\.hits)
        }
        let canonical = try hits("small-ratio")
        #expect(try hits(nil) != canonical, "the option must change the outcome for the test to mean anything")
        #expect(try hits("fifo-size-ratio") == canonical)
        #expect(try hits("SMALL-RATIO") == canonical)
    }

    @Test("sweep-report says why a (trace, policy, size) is left out: refused by its policy, not recorded, or no baseline misses")
    func reductionSaysWhyLeftOut() throws {
        let traces = try (0..<2).map { try randomTrace(seed: 500 + UInt64($0), onlyGets: true) }
        let folder = scratchFolder()
        defer { for path in traces + [folder] { try? FileManager.default.removeItem(atPath: path) } }
        // LIRS takes no cache under 3 objects: its two cells at 1 are recorded as refusals.
        let spec = SweepSpec(traces: traces, policies: ["fifo", "lirs"], capacities: try CapacityList.parse("1,50").items, ignoreSize: true)
        _ = try Sweep.run(SweepPlan.make(spec, shardCount: 1), shard: .whole, directory: folder)
        let merged = try SweepMerge.load(directory: folder)
        #expect(merged.refused.count == 2 && merged.missing.isEmpty)
        let reduction = try MissRatioReduction(merged, baseline: "fifo")
        #expect(reduction.skipped == 2)
        #expect(reduction.markdown.contains("2 (trace, policy, size) left out: 2 refused by their policy"), "\(reduction.markdown)")
        #expect(!reduction.markdown.contains("no misses"))
    }

    @Test("cells recorded by another build of the program are kept but counted, and merge notes the mixed builds")
    func otherBuilds() throws {
        let build = try #require(ToolVersion.build)
        #expect(build.count == 16 && build.allSatisfy(\.isHexDigit))
        let traces = try (0..<2).map { try randomTrace(seed: 400 + UInt64($0)) }
        let folder = scratchFolder()
        defer { for path in traces + [folder] { try? FileManager.default.removeItem(atPath: path) } }
        let spec = SweepSpec(traces: traces, policies: ["fifo", "lru"], capacities: try CapacityList.parse("0.1,0.3").items)
        let plan = SweepPlan.make(spec, shardCount: 1)
        _ = try Sweep.run(plan, shard: .whole, directory: folder)
        var merged = try SweepMerge.load(directory: folder)
        #expect(merged.builds == [build] && !merged.notes.contains { $0.contains("builds") })

        // The records of the first trace as an earlier build of the program (a policy edited and
        // rebuilt since) would have written them; each line still checks itself.
        let cells = folder + "/" + SweepRecordStore.recordsFolder
        let first = try #require(try FileManager.default.contentsOfDirectory(atPath: cells).sorted()
            .first { $0.hasPrefix((traces[0] as NSString).lastPathComponent) })
        let text = try String(contentsOfFile: cells + "/" + first, encoding: .utf8)
        let rewritten = try text.split(separator: "\n").map { line -> String in
            var record = try #require(SweepRecord(line: line))
            record.build = "00000000000000ab"
            return record.line
        }
        #expect(rewritten.count == 4)
        try (rewritten.joined(separator: "\n") + "\n").write(toFile: cells + "/" + first, atomically: true, encoding: .utf8)

        let rerun = try Sweep.run(plan, shard: .whole, directory: folder)
        #expect(rerun.cellsRun == 0 && rerun.cellsSkipped == 8 && rerun.cellsOfOtherBuilds == 4)
        merged = try SweepMerge.load(directory: folder)
        #expect(merged.builds == ["00000000000000ab", build].sorted())
        #expect(merged.notes.contains { $0.hasPrefix("records were written by 2 builds of the program") })
        #expect(merged.json["builds"]?.arrayValue?.count == 2)

        // A record that names no build (written before builds were recorded) counts as this build's.
        let old = try text.split(separator: "\n").map { line -> String in
            var record = try #require(SweepRecord(line: line))
            record.build = nil
            #expect(!record.line.contains("\"build\""))
            return record.line
        }
        try (old.joined(separator: "\n") + "\n").write(toFile: cells + "/" + first, atomically: true, encoding: .utf8)
        #expect(try Sweep.run(plan, shard: .whole, directory: folder).cellsOfOtherBuilds == 0)
        #expect(try SweepMerge.load(directory: folder).builds == [build])
    }

    @Test("a record whose check holds but whose counts no replay gives (hits above requests, negative, no time) is no record")
    func impossibleRecords() throws {
        let trace = try randomTrace(seed: 500)
        let folder = scratchFolder()
        defer { for path in [trace, folder] { try? FileManager.default.removeItem(atPath: path) } }
        let spec = SweepSpec(traces: [trace], policies: ["lru"], capacities: try CapacityList.parse("0.3").items)
        _ = try Sweep.run(SweepPlan.make(spec, shardCount: 1), shard: .whole, directory: folder)
        let record = try #require(try SweepRecordStore(directory: folder).read().entries.first?.record)
        #expect(SweepRecord(line: Substring(record.line)) == record)
        let result = try #require(record.result)
        var edits: [(String, (inout ReplayResult) -> Void)] = [
            ("hits above requests", { $0.counters.hits = $0.counters.requests + 1 }),
            ("negative hits", { $0.counters.hits = Int.min }),
            ("byte hits above byte requests", { $0.counters.byteHits = $0.counters.byteRequests + 1 }),
            ("infinite time", { $0.seconds = .infinity }),
        ]
        edits.append(("negative requests", { $0.counters.requests = -1 }))
        for (name, edit) in edits {
            var forged = record
            var changed = result
            edit(&changed)
            forged.result = changed
            #expect(SweepRecord(line: Substring(forged.line)) == nil, "\(name)")
        }
    }

    @Test("the same cells recorded twice are kept once and named; a folder of another sweep is refused")
    func duplicatesAndForeignFolders() throws {
        let trace = try randomTrace(seed: 300)
        let folder = scratchFolder(), copy = scratchFolder()
        defer { for path in [trace, folder, copy] { try? FileManager.default.removeItem(atPath: path) } }
        let spec = SweepSpec(traces: [trace], policies: ["fifo", "lru"], capacities: try CapacityList.parse("0.1,0.3").items)
        let plan = SweepPlan.make(spec, shardCount: 1)
        _ = try Sweep.run(plan, shard: .whole, directory: folder)
        // A second, independent run of the same sweep, whose records are then copied in.
        _ = try Sweep.run(plan, shard: .whole, directory: copy)
        let name = try #require(try FileManager.default.contentsOfDirectory(atPath: copy + "/cells").first)
        try FileManager.default.copyItem(atPath: copy + "/cells/" + name, toPath: folder + "/cells/copy-" + name)
        let merged = try SweepMerge.load(directory: folder)
        #expect(merged.results.count == 4 && merged.missing.isEmpty)
        #expect(merged.duplicated.count == 4)
        #expect(merged.json["duplicated"]?.arrayValue?.count == 4)

        let other = SweepSpec(traces: [trace], policies: ["fifo"], capacities: spec.capacities)
        #expect {
            try Sweep.run(SweepPlan.make(other, shardCount: 1), shard: .whole, directory: folder)
        } throws: { error in
            guard case .sweep(.folderHoldsAnotherSweep(let folderNamed, let difference)) = error as? CacheBenchError else { return false }
            return folderNamed == folder && difference == "its policies include lru, which this run does not name"
        }
        #expect(throws: CacheBenchError.self) { try SweepMerge.load(directory: scratchFolder()) }

        // A sweep.json that is not a manifest is someone's file: refused, and left as it was.
        let foreign = scratchFolder()
        defer { try? FileManager.default.removeItem(atPath: foreign) }
        try FileManager.default.createDirectory(atPath: foreign, withIntermediateDirectories: true)
        try "{\"important\":\"user data\"}\n".write(toFile: foreign + "/sweep.json", atomically: false, encoding: .utf8)
        #expect {
            try Sweep.run(plan, shard: .whole, directory: foreign)
        } throws: { error in
            guard case .trace(let trace) = error as? CacheBenchError else { return false }
            return trace.kind == .malformed && trace.reason.contains("not a sweep manifest")
        }
        #expect(try String(contentsOfFile: foreign + "/sweep.json", encoding: .utf8) == "{\"important\":\"user data\"}\n")

        // Two different sweeps preparing one new folder at once: exactly one of them owns it.
        for round in 0..<10 {
            let shared = scratchFolder()
            defer { try? FileManager.default.removeItem(atPath: shared) }
            let manifests = [SweepManifest(spec), SweepManifest(other)]
            let outcomes = Locked<[Bool]>([])
            DispatchQueue.concurrentPerform(iterations: 2) { i in
                let claimed = (try? SweepRecordStore(directory: shared).prepare(for: manifests[i])) != nil
                outcomes.update { $0.append(claimed) }
            }
            #expect(outcomes.value.filter { $0 }.count == 1, "round \(round)")
        }
    }

    @Test("a cell its policy refuses (LIRS at 1 object) is recorded as refused; the trace's other cells run")
    func refusedCells() throws {
        let trace = try randomTrace(seed: 400, rows: 500)
        let folder = scratchFolder()
        defer { for path in [trace, folder] { try? FileManager.default.removeItem(atPath: path) } }
        let spec = SweepSpec(traces: [trace], policies: ["lirs", "fifo"], capacities: try CapacityList.parse("1,50").items,
                             ignoreSize: true)
        let summary = try Sweep.run(SweepPlan.make(spec, shardCount: 1), shard: .whole, directory: folder)
        #expect(summary.cellsRun == 4)
        let merged = try SweepMerge.load(directory: folder)
        #expect(merged.missing.isEmpty)
        #expect(merged.refused.map(\.cell.description) == ["\(trace) lirs 1"])
        #expect(merged.results.map { "\($0.policy) \($0.capacity ?? 0)" } == ["lirs 50", "fifo 1", "fifo 50"])
        #expect(merged.json["refused"]?.arrayValue?.count == 1)
        // The refusal is recorded: a rerun has nothing to do.
        #expect(try Sweep.run(SweepPlan.make(spec, shardCount: 1), shard: .whole, directory: folder).cellsRun == 0)
    }

    @Test("a replay's warning (a policy that cached nothing) is recorded with its cell and given by merge as a note")
    func warningsKept() throws {
        // Gets only: a run with sets, deletes or events is not one that merely admitted nothing.
        let trace = try randomTrace(seed: 500, rows: 400, onlyGets: true)
        let folder = scratchFolder()
        defer { for path in [trace, folder] { try? FileManager.default.removeItem(atPath: path) } }
        // One byte holds no object of the trace: every policy caches nothing there.
        let spec = SweepSpec(traces: [trace], policies: ["fifo", "sieve"], capacities: try CapacityList.parse("1,0.5").items)
        _ = try Sweep.run(SweepPlan.make(spec, shardCount: 1), shard: .whole, directory: folder)
        let merged = try SweepMerge.load(directory: folder)
        let warned = merged.results.filter { !$0.warnings.isEmpty }
        #expect(warned.map { "\($0.policy) \($0.capacity ?? 0)" } == ["fifo 1", "sieve 1"])
        let notes = merged.notes.filter { $0.contains("cached nothing") }
        #expect(notes.count == 2 && notes.allSatisfy { $0.hasPrefix("\(trace): ") })
        #expect(merged.json["notes"]?.arrayValue?.count == merged.notes.count)
        // The same warnings as a replay of the cell gives.
        let replayed = try Replay.run(ReplayJob(trace: TraceSpec(path: trace), policy: "fifo", capacity: 1))
        #expect(warned.first?.warnings == replayed.warnings)
        // A record without warnings has no field for them, so the lines of older sweeps read the same.
        let cells = folder + "/cells"
        let file = try #require(try FileManager.default.contentsOfDirectory(atPath: cells).first { $0.hasSuffix(".jsonl") })
        let lines = try String(contentsOfFile: cells + "/" + file, encoding: .utf8).split(separator: "\n")
        #expect(lines.filter { $0.contains("\"warnings\"") }.count == 2)
        for line in lines { #expect(SweepRecord(line: line)?.line == String(line)) }
    }

    @Test("policies named by alias or in capitals (twoq, LRU) run and match replay's miss counts")
    func aliasedPolicies() throws {
        let trace = try randomTrace(seed: 401, rows: 800, onlyGets: true)
        let folder = scratchFolder()
        defer { for path in [trace, folder] { try? FileManager.default.removeItem(atPath: path) } }
        let spec = SweepSpec(traces: [trace], policies: ["twoq", "LRU"], capacities: try CapacityList.parse("20").items,
                             ignoreSize: true)
        #expect(try Sweep.run(SweepPlan.make(spec, shardCount: 1), shard: .whole, directory: folder).cellsRun == 2)
        let merged = try SweepMerge.load(directory: folder)
        #expect(merged.missing.isEmpty && merged.refused.isEmpty)
        #expect(merged.results.map(\.policy) == ["2q", "lru"])
        for result in merged.results {
            let replayed = try Replay.run(ReplayJob(trace: TraceSpec(path: trace), policy: result.policy, capacity: 20, ignoreSize: true))
            #expect(replayed.misses == result.misses, "\(result.policy)")
        }
    }
}
