import Foundation
import Testing

#if canImport(FoundationXML)
import FoundationXML
import TestSupport
#endif

/// A fresh path in the temporary directory, removed by the caller.
private func scratchPath(_ suffix: String) -> String {
    scratchDirectory.appendingPathComponent("cachebench-e2e-\(UUID().uuidString)\(suffix)").path
}

@Suite("compare, mrc and the regression gate from the command line")
struct CompareCommandTests {
    static let base = ["compare", "Traces/lirs-cs.csv", "--policies", "lru,fifo", "--capacities", "100,700,1400", "--ignore-size"]

    @Test("compare --format json prints { trace, results } with one replay object per (policy, capacity)")
    func json() throws {
        let result = try CLI.run(Self.base + ["--format", "json"])
        #expect(result.status == 0, "\(result.stderr)")
        let json = try #require(result.json)
        #expect(json["trace"] as? String == "Traces/lirs-cs.csv")
        let results = try #require(json["results"] as? [[String: Any]])
        #expect(results.count == 6)
        #expect(results.map { $0["policy"] as? String ?? "" } == ["lru", "lru", "lru", "fifo", "fifo", "fifo"])
        #expect(results.map { $0["capacity"] as? Int ?? 0 } == [100, 700, 1400, 100, 700, 1400])
        for entry in results {
            for field in ["policy", "trace", "capacity", "countLimit", "ignoreSize", "requests", "hits", "misses", "hitRatio",
                          "missRatio", "byteRequests", "byteHits", "byteHitRatio", "evictions", "skipped", "seconds",
                          "requestsPerSecond", "trim", "method"] {
                #expect(entry[field] != nil, "missing \(field)")
            }
        }
        // The same number as a separate replay (libCacheSim's LRU on cs at 1,400 objects: 1,409 misses).
        #expect(results[2]["misses"] as? Int == 1409)
        let replay = try CLI.run(["replay", "Traces/lirs-cs.csv", "--policy", "fifo", "--capacity", "700", "--ignore-size", "--format", "json"])
        #expect(replay.json?["misses"] as? Int == results[4]["misses"] as? Int)
    }

    @Test("a count limit reaches the policies that have one; the others are named in a note, in every format")
    func countLimitNote() throws {
        let arguments = ["compare", "Traces/lirs-cs.csv", "--policies", "s3fifo,lru", "--capacities", "100", "--count-limit", "5"]
        let json = try CLI.run(arguments + ["--format", "json"])
        #expect(json.status == 0, "\(json.stderr)")
        let results = try #require(json.json?["results"] as? [[String: Any]])
        #expect(results.map { $0["countLimit"] is NSNull } == [true, false])
        let notes = json.json?["notes"] as? [String] ?? []
        #expect(notes.contains { $0.hasPrefix("s3fifo: no count limit, so the limit of 5 objects does not apply") }, "\(notes)")
        // CSV has no place for it: standard error has it, and standard output stays CSV.
        let csv = try CLI.run(arguments + ["--format", "csv"])
        #expect(csv.status == 0 && csv.stderr.contains("note: s3fifo: no count limit"), "\(csv.stderr)")
        #expect(csv.stdout.split(separator: "\n").count == 3)
    }

    @Test("mrc: --max-requests bounds the working set its points come from; notes reach CSV (stderr) and Markdown")
    func mrcWindowAndNotes() throws {
        // The first 1,000 rows of lirs-ps hold 548 objects (the whole trace 3,083): the curve ends
        // there, and replay's default is 10 % of them, as cachesim's -n 1000 gives 54.
        let prefix = try CLI.run(["mrc", "Traces/lirs-ps.csv", "--ignore-size", "--points", "4", "--max-requests", "1000",
                                  "--format", "csv"])
        #expect(prefix.status == 0, "\(prefix.stderr)")
        #expect(prefix.stdout.split(separator: "\n").last?.hasPrefix("548 objects,548,") == true, "\(prefix.stdout)")
        let replay = try CLI.run(["replay", "Traces/lirs-ps.csv", "--policy", "lru", "--ignore-size", "--max-requests", "1000",
                                  "--format", "json"])
        #expect(replay.json?["capacity"] as? Int == 54)
        // A fallback to simulation (mix.csv deletes keys LRU may hold) is said in every format.
        let csv = try CLI.run(["mrc", "Traces/mix.csv", "--ignore-size", "--points", "2", "--format", "csv"])
        #expect(csv.status == 0 && csv.stderr.contains("note: lru: simulated per capacity"), "\(csv.stderr)")
        #expect(!csv.stdout.contains("note"))
        let markdown = try CLI.run(["mrc", "Traces/mix.csv", "--ignore-size", "--points", "2", "--format", "markdown"])
        #expect(markdown.stdout.contains("- note: lru: simulated per capacity"), "\(markdown.stdout)")
        // A sampled curve's setting on an exact one is named, not silently dropped.
        let exact = try CLI.run(["mrc", "Traces/lirs-cs.csv", "--ignore-size", "--points", "2", "--estimator", "shards"])
        #expect(exact.status == 0 && exact.stderr.contains("--estimator applies to miniature simulations"), "\(exact.stderr)")
    }

    /// A run the policy refuses is left out with a note (as `sweep` records it as refused), so one
    /// impossible cell does not cost the grid; only when nothing is left does compare fail.
    @Test("a capacity a policy refuses: that run is left out with a note; every run refused is an error naming --capacities")
    func refusedCapacityNamesItsFlag() throws {
        let result = try CLI.run(["compare", "Traces/lirs-cs.csv", "--policies", "lirs", "--capacities", "1,2", "--ignore-size"])
        #expect(result.status == 2 && result.stderr.contains("--capacities 1: must be at least 3"), "\(result.stderr)")
        #expect(result.stdout.isEmpty)
        // libCacheSim's usual fractions on a small trace: 0.001 is 1 object, which LIRS refuses.
        let several = try CLI.run(["compare", "Traces/lirs-cs.csv", "--policies", "lru,lirs", "--capacities", "0.001,100", "--ignore-size",
                                   "--format", "csv"])
        #expect(several.status == 0, "\(several.stderr)")
        #expect(several.stdout.split(separator: "\n").dropFirst().map { $0.split(separator: ",").prefix(3).joined(separator: " ") }
                == ["lru Traces/lirs-cs.csv 1", "lru Traces/lirs-cs.csv 100", "lirs Traces/lirs-cs.csv 100"], "\(several.stdout)")
        #expect(several.stderr.contains("note: lirs at capacity 1: not run, the policy refuses it (capacity 1: must be at least 3"),
                "\(several.stderr)")
        let json = try CLI.run(["compare", "Traces/lirs-cs.csv", "--policies", "lru,lirs", "--capacities", "1,100", "--ignore-size",
                                "--format", "json"])
        #expect(json.status == 0 && json.stdout.contains("lirs at capacity 1: not run"), "\(json.stderr)")
        #expect(json.stdout.contains("\"refusals\"") && json.stdout.contains("must be at least 3"), "\(json.stdout)")
        // A baseline that ran LIRS where this run's LIRS refuses: the gate fails (exit 3), naming it.
        let baseline = scratchPath(".json")
        defer { try? FileManager.default.removeItem(atPath: baseline) }
        let save = try CLI.run(["compare", "Traces/lirs-cs.csv", "--policies", "lirs", "--capacities", "3", "--ignore-size", "--format", "json"])
        #expect(save.status == 0 && save.stdout.contains("\"capacity\": 3,"), "\(save.stderr)")
        try Data(save.stdout.replacingOccurrences(of: "\"capacity\": 3,", with: "\"capacity\": 1,").utf8)
            .write(to: URL(fileURLWithPath: baseline))
        let gate = try CLI.run(["compare", "Traces/lirs-cs.csv", "--policies", "lru,lirs", "--capacities", "1,100", "--ignore-size",
                                "--baseline", baseline, "--tolerance", "0"])
        #expect(gate.status == 3 && gate.stderr.contains("regression: lirs at 1 objects: the policy refuses it in this run"),
                "\(gate.status) \(gate.stderr)")
        // An option value a policy refuses is a mistake in the command: an error, naming whose refusal it is.
        let option = try CLI.run(["compare", "Traces/lirs-cs.csv", "--policies", "lru,s3fifo", "--capacities", "100", "--ignore-size",
                                  "--option", "small-ratio=1.5"])
        #expect(option.status == 2 && option.stderr.contains("(policy s3fifo)") && option.stdout.isEmpty, "\(option.stderr)")
    }

    @Test("table, csv and markdown render; csv has one row per run, markdown a matrix of policies by capacity")
    func formats() throws {
        let table = try CLI.run(Self.base)
        #expect(table.status == 0)
        #expect(table.stdout.contains("hit ratio (%)") && table.stdout.contains("lru") && table.stdout.contains("fifo"))
        let csv = try CLI.run(Self.base + ["--format", "csv"])
        #expect(csv.stdout.split(separator: "\n").count == 7)
        let markdown = try CLI.run(Self.base + ["--format", "markdown"])
        #expect(markdown.stdout.contains("| capacity | objects | lru | fifo |"))
        #expect(markdown.stdout.contains("| 1,400 | 1400 | 79.22 | 79.22 |"))
    }

    @Test("--plot and --plot-latency write SVG documents that parse as XML")
    func plots() throws {
        let plot = scratchPath(".svg"), latency = scratchPath(".svg")
        defer { try? FileManager.default.removeItem(atPath: plot); try? FileManager.default.removeItem(atPath: latency) }
        let result = try CLI.run(Self.base + ["--plot", plot, "--plot-latency", latency])
        #expect(result.status == 0, "\(result.stderr)")
        for path in [plot, latency] {
            let data = try Data(contentsOf: URL(fileURLWithPath: path))
            let parser = XMLParser(data: data)
            #expect(parser.parse(), "\(path): \(String(describing: parser.parserError))")
            #expect(String(decoding: data, as: UTF8.self).contains("lirs-cs.csv"))
        }
        #expect(try CLI.run(Self.base + ["--plot", "-"]).status == 2)
        #expect(try CLI.run(Self.base + ["--plot", "/nonexistent-dir/x.svg"]).status == 74)
    }

    @Test("--output and --plot replace an existing file whole")
    func replacesExistingFiles() throws {
        let report = scratchPath(".md"), plot = scratchPath(".svg")
        defer { try? FileManager.default.removeItem(atPath: report); try? FileManager.default.removeItem(atPath: plot) }
        for path in [report, plot] { try Data("old contents that are longer than nothing\n".utf8).write(to: URL(fileURLWithPath: path)) }
        for _ in 0..<2 {
            let result = try CLI.run(Self.base + ["--format", "markdown", "--output", report, "--plot", plot])
            #expect(result.status == 0, "\(result.stderr)")
            #expect(try String(contentsOfFile: report, encoding: .utf8).hasPrefix("trace: "))
            #expect(try String(contentsOfFile: plot, encoding: .utf8).hasPrefix("<?xml"))
        }
        let directory = URL(fileURLWithPath: report).deletingLastPathComponent().path
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: directory).filter { $0.hasSuffix(".tmp") && $0.contains("cachebench-e2e") }
        #expect(leftovers.isEmpty)
    }

    @Test("gate: a baseline saved by compare --format json passes against the same run")
    func gatePasses() throws {
        let baseline = scratchPath(".json")
        defer { try? FileManager.default.removeItem(atPath: baseline) }
        let save = try CLI.run(Self.base + ["--format", "json", "--output", baseline])
        #expect(save.status == 0)
        let check = try CLI.run(Self.base + ["--baseline", baseline, "--tolerance", "0"])
        #expect(check.status == 0, "\(check.stderr)")
        #expect(check.stdout.contains("hit ratio (%)"))
        #expect(!check.stderr.contains("regression"))
    }

    @Test("gate: exit 3, one stderr line per regressed (policy, capacity), and the report still printed")
    func gateRegresses() throws {
        let baseline = scratchPath(".json")
        defer { try? FileManager.default.removeItem(atPath: baseline) }
        let save = try CLI.run(Self.base + ["--format", "json"])
        var json = try #require(save.json)
        var results = try #require(json["results"] as? [[String: Any]])
        // Raise two baselines by 2 points: those runs now look 2 points worse than before.
        for i in [0, 4] { results[i]["hitRatio"] = (results[i]["hitRatio"] as? Double ?? 0) + 0.02 }
        // Raise another by less than the tolerance: not a regression.
        results[2]["hitRatio"] = (results[2]["hitRatio"] as? Double ?? 0) + 0.005
        // Drop one pair: a note, not a failure.
        results.remove(at: 5)
        json["results"] = results
        try JSONSerialization.data(withJSONObject: json).write(to: URL(fileURLWithPath: baseline))

        let check = try CLI.run(Self.base + ["--baseline", baseline, "--tolerance", "1%"])
        #expect(check.status == 3)
        #expect(check.stdout.contains("hit ratio (%)"), "the normal report is printed too")
        let lines = check.stderr.split(separator: "\n").map(String.init)
        let regressions = lines.filter { $0.contains("regression:") }
        #expect(regressions.count == 2, "\(check.stderr)")
        #expect(regressions.contains { $0.contains("lru at 100 objects") })
        #expect(regressions.contains { $0.contains("fifo at 700 objects") })
        #expect(lines.contains { $0.contains("note:") && $0.contains("fifo at 1400 objects") && $0.contains("not in the baseline") })
        // With a tolerance above the drop, the same baseline passes.
        #expect(try CLI.run(Self.base + ["--baseline", baseline, "--tolerance", "0.03"]).status == 0)
    }

    @Test("gate: a malformed baseline is exit 65 and an unreadable one 66, both as FILE: reason, before any work")
    func gateBadBaseline() throws {
        let malformed = scratchPath(".json")
        defer { try? FileManager.default.removeItem(atPath: malformed) }
        try Data("{\"results\": [{\"policy\": \"lru\"".utf8).write(to: URL(fileURLWithPath: malformed))
        let bad = try CLI.run(Self.base + ["--baseline", malformed])
        #expect(bad.status == 65)
        // Cut JSON is located at the line where parsing stopped.
        #expect(bad.stderr.contains("\(malformed):1: "))
        #expect(bad.stdout.isEmpty)
        let wrongShape = scratchPath(".json")
        defer { try? FileManager.default.removeItem(atPath: wrongShape) }
        try Data("{\"policy\": \"lru\", \"hitRatio\": 0.5}".utf8).write(to: URL(fileURLWithPath: wrongShape))
        let shape = try CLI.run(Self.base + ["--baseline", wrongShape])
        #expect(shape.status == 65)
        #expect(shape.stderr.contains("\"results\""))
        let missing = try CLI.run(Self.base + ["--baseline", "/nonexistent-dir/baseline.json"])
        #expect(missing.status == 66)
        #expect(missing.stderr.contains("/nonexistent-dir/baseline.json: "))
    }

    @Test("gate: a boolean where a number belongs, or a string where a boolean does, is malformed; names match in any case")
    func gateBaselineTypes() throws {
        let saved = try CLI.run(Self.base + ["--format", "json"])
        let report = try #require(try JSONSerialization.jsonObject(with: Data(saved.stdout.utf8)) as? [String: Any])
        func gate(_ edit: (inout [String: Any]) -> Void) throws -> CLI.Result {
            var copy = report
            var results = try #require(copy["results"] as? [[String: Any]])
            edit(&results[0])
            copy["results"] = results
            let path = scratchPath(".json")
            defer { try? FileManager.default.removeItem(atPath: path) }
            try JSONSerialization.data(withJSONObject: copy).write(to: URL(fileURLWithPath: path))
            return try CLI.run(Self.base + ["--baseline", path])
        }
        let falseRatio = try gate { $0["hitRatio"] = false; $0["hits"] = nil }
        #expect(falseRatio.status == 65 && falseRatio.stderr.contains("\"hitRatio\" is not a number"), "\(falseRatio.stderr)")
        let stringFlag = try gate { $0["ignoreSize"] = "true" }
        #expect(stringFlag.status == 65 && stringFlag.stderr.contains("\"ignoreSize\""), "\(stringFlag.stderr)")
        let booleanCount = try gate { $0["requests"] = true }
        #expect(booleanCount.status == 65, "\(booleanCount.stderr)")
        let upper = try gate { $0["policy"] = (($0["policy"] as? String) ?? "").uppercased() }
        #expect(upper.status == 0 && !upper.stderr.contains("not in the baseline"), "\(upper.stderr)")
    }

    @Test("charts with many series keep every legend row on the canvas; interval ticks never repeat")
    func chartLayout() throws {
        let plot = scratchPath(".svg"), intervals = scratchPath(".svg"), trace = scratchPath(".csv")
        defer { for path in [plot, intervals, trace] { try? FileManager.default.removeItem(atPath: path) } }
        let many = try CLI.run(["compare", "Traces/lirs-cs.csv", "--policies", "research", "--capacities", "100,1000",
                                "--ignore-size", "--plot", plot])
        #expect(many.status == 0, "\(many.stderr)")
        let svg = try String(contentsOfFile: plot, encoding: .utf8)
        let height = try #require(svg.firstMatch(of: /viewBox="0 0 [0-9.]+ ([0-9.]+)"/).flatMap { Double($0.1) })
        let ys = svg.matches(of: /<text x="[0-9.]+" y="([0-9.]+)"/).compactMap { Double($0.1) }
        #expect(ys.count > 40 && ys.allSatisfy { $0 <= height }, "a text at \(ys.max() ?? 0) on a canvas \(height) high")
        try Data("timestamp,key,size\n0,1,10\n".utf8).write(to: URL(fileURLWithPath: trace))
        let one = try CLI.run(["compare", trace, "--policies", "fifo", "--capacities", "100", "--report-interval", "1req",
                               "--plot-intervals", intervals])
        #expect(one.status == 0, "\(one.stderr)")
        let ticks = try String(contentsOfFile: intervals, encoding: .utf8)
            .matches(of: /text-anchor="middle">([0-9.]+)</).map { String($0.1) }
        #expect(!ticks.isEmpty && Set(ticks).count == ticks.count, "\(ticks)")
    }

    @Test("usage errors are exit 2", arguments: [
        ["compare", "Traces/lirs-cs.csv", "--capacities", "100"],
        ["compare", "Traces/lirs-cs.csv", "--policies", "lru,nope", "--capacities", "100"],
        ["compare", "Traces/lirs-cs.csv", "--policies", "lru,lru", "--capacities", "100"],
        ["compare", "Traces/lirs-cs.csv", "--policies", "lru", "--capacities", "1GiB...1MiB:3"],
        ["compare", "Traces/lirs-cs.csv", "--policies", "lru", "--capacities", "100", "--tolerance", "0.1"],
        ["compare", "Traces/lirs-cs.csv", "--policies", "lru", "--capacities", "100", "--option", "nope=1"],
        ["compare", "Traces/lirs-cs.csv", "--policies", "fifo", "--capacities", "100", "--count-limit", "0"],
        ["compare", "Traces/lirs-cs.csv", "--policies", "fifo", "--capacities", "100", "--threads", "0"],
        ["mrc", "Traces/lirs-cs.csv", "--points", "1"],
        ["mrc", "Traces/lirs-cs.csv", "--points", "4", "--capacities", "10,20"],
    ])
    func usage(_ arguments: [String]) throws {
        let result = try CLI.run(arguments, stdin: arguments.contains("-") ? Data("1,1,1\n".utf8) : nil)
        #expect(result.status == 2, "\(result.stderr)")
        #expect(result.stdout.isEmpty)
    }

    @Test("a policy both a group and the list name runs once, in either order and any spelling; the list naming it twice is an error")
    func policyGroups() throws {
        func policies(_ list: String) throws -> [String] {
            let result = try CLI.run(["compare", "Traces/lirs-cs.csv", "--policies", list, "--capacities", "500", "--ignore-size",
                                      "--no-stack-distance", "--format", "json"])
            #expect(result.status == 0, "\(list): \(result.stderr)")
            return try #require(result.json?["results"] as? [[String: Any]]).map { $0["policy"] as? String ?? "" }
        }
        let groupFirst = try policies("research,lru"), listFirst = try policies("LRU,research")
        #expect(groupFirst.count > 10 && Set(groupFirst).count == groupFirst.count && groupFirst.contains("lru"))
        #expect(Set(listFirst) == Set(groupFirst) && listFirst.count == groupFirst.count && listFirst.first == "lru")
        #expect(try policies("research,research") == groupFirst)
        let twice = try CLI.run(["compare", "Traces/lirs-cs.csv", "--policies", "research,lru,LRU", "--capacities", "500"])
        #expect(twice.status == 2 && twice.stderr.contains("named twice"), "\(twice.stderr)")
    }

    @Test("capacities that resolve to one size run once, and a note says so")
    func capacitiesAlike() throws {
        let result = try CLI.run(["compare", "Traces/lirs-cs.csv", "--policies", "lru", "--capacities", "1KiB,1024,2KiB", "--ignore-size",
                                  "--format", "json"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect((result.json?["results"] as? [Any])?.count == 2)
        let notes = result.json?["notes"] as? [String] ?? []
        #expect(notes.contains { $0.hasPrefix("3 capacities were given and 2 sizes are run") }, "\(notes)")
    }

    @Test("compare reads standard input once when the capacities are explicit")
    func standardInput() throws {
        let trace = try Data(contentsOf: CLI.root.appendingPathComponent("Traces/lirs-cs.csv"))
        let result = try CLI.run(["compare", "-", "--policies", "lru,fifo", "--capacities", "150,1400", "--format", "json"], stdin: trace)
        #expect(result.status == 0, "\(result.stderr)")
        let results = try #require(result.json?["results"] as? [[String: Any]])
        #expect(results.first?["misses"] as? Int == 6657)
    }

    @Test("mrc prints the curve; its JSON is compare's, with lru's exact counts")
    func mrc() throws {
        let table = try CLI.run(["mrc", "Traces/lirs-cs.csv", "--ignore-size", "--points", "8"])
        #expect(table.status == 0, "\(table.stderr)")
        #expect(table.stdout.contains("miss ratio") && table.stdout.contains("stack-distance"))
        let json = try CLI.run(["mrc", "Traces/lirs-cs.csv", "--ignore-size", "--capacities", "150,1400", "--format", "json"])
        let results = try #require(json.json?["results"] as? [[String: Any]])
        #expect(results.map { $0["misses"] as? Int ?? 0 } == [6657, 1409])
        #expect(results.allSatisfy { $0["method"] as? String == "stack-distance" })
        #expect(results.allSatisfy { $0["capacitySource"] as? String == "option" })
        let csv = try CLI.run(["mrc", "Traces/lirs-cs.csv", "--ignore-size", "--points", "5", "--format", "csv"])
        #expect(csv.stdout.hasPrefix("capacity,objects,hitRatio,missRatio"))
        // The points mrc chooses are fractions of the working set, for LRU's pass and MINISIM alike.
        for policy in ["lru", "fifo"] {
            let chosen = try CLI.run(["mrc", "Traces/lirs-cs.csv", "--ignore-size", "--points", "4", "--policy", policy, "--format", "json"])
            let points = try #require(chosen.json?["results"] as? [[String: Any]], "\(chosen.stderr)")
            #expect(points.count == 4 && points.allSatisfy { $0["capacitySource"] as? String == "working-set-fraction" }, "\(policy)")
        }
    }

    @Test("charts name the policy of a curve, mark every point (one interval too), fit long titles and say which names have no points")
    func chartsReadRight() throws {
        let folder = scratchDirectory.appendingPathComponent("charts-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        for sample in ["1", "0.5"] {
            let curve = try CLI.run(["mrc", "Traces/lirs-cs.csv", "--ignore-size", "--policy", "s3fifo", "--points", "4", "--sample", sample,
                                     "--plot", folder + "/mrc.svg"])
            #expect(curve.status == 0, "\(curve.stderr)")
            let mrc = try String(contentsOfFile: folder + "/mrc.svg", encoding: .utf8)
            #expect(mrc.contains("s3fifo miss-ratio curve") && !mrc.contains("LRU miss-ratio curve"))
            #expect(mrc.contains("(estimated from miniature caches)") == (sample != "1"), "--sample \(sample)")
        }
        // One interval: its point is drawn as a marker, not as a polyline of one point alone.
        let one = try CLI.run(["replay", "Traces/lirs-sprite.csv", "--policy", "lru", "--capacity", "100", "--ignore-size",
                               "--report-interval", "200000req", "--plot-intervals", folder + "/one.svg"])
        #expect(one.status == 0, "\(one.stderr)")
        let intervals = try String(contentsOfFile: folder + "/one.svg", encoding: .utf8)
        #expect(intervals.contains("class=\"marker\""))
        // A trace name longer than the canvas is cut with an ellipsis in the visible title.
        let long = folder + "/" + String(repeating: "a-very-long-trace-name-", count: 8) + ".csv"
        try FileManager.default.copyItem(atPath: CLI.root.appendingPathComponent("Traces/loop.csv").path, toPath: long)
        let plotted = try CLI.run(["compare", long, "--policies", "lru,clockpro", "--capacities", "10,100", "--ignore-size",
                                   "--no-stack-distance", "--plot", folder + "/long.svg", "--plot-latency", folder + "/latency.svg"])
        #expect(plotted.status == 0, "\(plotted.stderr)")
        let chart = try String(contentsOfFile: folder + "/long.svg", encoding: .utf8)
        #expect(chart.contains("…</text>"))
        // clockpro never evicts here (libCacheSim's refuses newcomers first): no pass to time, and the legend says so.
        let latency = try String(contentsOfFile: folder + "/latency.svg", encoding: .utf8)
        #expect(latency.contains("clockpro (no points)"), "\(latency.prefix(2000))")
    }

    @Test("the bundled baseline gate passes, as the CI workflow runs it")
    func bundledBaseline() throws {
        // results/baseline.args holds the compare arguments (one per line) that made results/baseline.json;
        // Scripts/make-results.sh and .github/workflows/cachebench.yml read the same file.
        let text = try String(contentsOf: CLI.root.appendingPathComponent("results/baseline.args"), encoding: .utf8)
        let arguments = text.split(separator: "\n").map(String.init).filter { !$0.isEmpty && !$0.hasPrefix("#") }
        let result = try CLI.run(["compare"] + arguments + ["--baseline", "results/baseline.json", "--tolerance", "0"])
        #expect(result.status == 0, "\(arguments): \(result.stderr)")
        #expect(!result.stderr.contains("note:"), "every pair is in the baseline: \(result.stderr)")
    }
}
