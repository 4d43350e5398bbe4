import Foundation
import Testing

#if canImport(FoundationXML)
import FoundationXML
import TestSupport
#endif

@Suite("warm-up, caps, sampling, intervals and MINISIM from the command line")
struct WindowCommandTests {
    static let trace = "Traces/zipf.csv"

    @Test("replay --warmup --report-interval --sample: JSON says how many warmed and gives the intervals")
    func replayJSON() throws {
        let result = try CLI.run(["replay", Self.trace, "--policy", "lru", "--capacity", "0.1", "--warmup", "5000req",
                                  "--max-requests", "40000", "--sample", "50%", "--report-interval", "10000req", "--format", "json"])
        #expect(result.status == 0, "\(result.stderr)")
        let json = try #require(result.json)
        #expect(json["capacitySource"] as? String == "working-set-fraction")
        let window = try #require(json["window"] as? [String: Any])
        #expect(window["traceRows"] as? Int == 40000 && window["warmupTraceRows"] as? Int == 5000)
        #expect((window["warmupRequests"] as? Int ?? 0) > 0 && window["sampleRatio"] as? Double == 0.5)
        #expect(window["sampledCapacity"] as? Int == ((json["capacity"] as? Int ?? 0) + 1) / 2
                || window["sampledCapacity"] as? Int == (json["capacity"] as? Int ?? 0) / 2)
        let points = try #require((window["intervals"] as? [String: Any])?["points"] as? [[String: Any]])
        #expect(points.map { $0["start"] as? Double ?? -1 } == [5000, 15000, 25000, 35000])
        #expect(points.reduce(0) { $0 + ($1["requests"] as? Int ?? 0) } == json["requests"] as? Int)
    }

    @Test("--warmup 1h on cloudPhysicsIO counts what libCacheSim's cachesim --warmup-sec=3600 counts")
    func warmupAsLibCacheSim() throws {
        // cachesim Traces/cloudPhysicsIO.oracleGeneral.bin oracleGeneral lru 134217728 --warmup-sec=3600
        // (libCacheSim 0.3.5): 57946 req, miss ratio 0.8190; its requests at exactly 3600 s still warm.
        let result = try CLI.run(["replay", "Traces/cloudPhysicsIO.oracleGeneral.bin", "--policy", "lru",
                                  "--capacity", "134217728", "--warmup", "1h", "--format", "json"])
        #expect(result.status == 0, "\(result.stderr)")
        let json = try #require(result.json)
        let requests = try #require(json["requests"] as? Int), hits = try #require(json["hits"] as? Int)
        // cachesim prints four digits of the miss ratio; the count of requests is exact.
        #expect(requests == 57946 && (Double(requests - hits) / Double(requests) * 10_000).rounded() == 8190)
    }

    @Test("CSV and Markdown carry the window's figures as columns, the same as the JSON's; without a window the columns are the contract's")
    func windowColumns() throws {
        let arguments = ["replay", Self.trace, "--policy", "fifo", "--capacity", "0.1", "--warmup", "3000req",
                         "--max-requests", "30000", "--sample", "0.5", "--sample-seed", "3", "--report-interval", "7000req"]
        let json = try #require(try CLI.run(arguments + ["--format", "json"]).json)
        let window = try #require(json["window"] as? [String: Any])
        let csv = try CLI.run(arguments + ["--format", "csv"])
        #expect(csv.status == 0, "\(csv.stderr)")
        let lines = csv.stdout.split(separator: "\n").map { $0.split(separator: ",", omittingEmptySubsequences: false).map(String.init) }
        #expect(lines.count == 2)
        let row = Dictionary(uniqueKeysWithValues: zip(lines[0], lines[1]))
        #expect(row["hits"] == (json["hits"] as? Int).map(String.init))
        #expect(row["warmup"] == "3000 rows")
        for name in ["warmupTraceRows", "warmupRequests", "maxRequests", "traceRows", "traceRequests", "traceByteRequests",
                     "sampledCapacity", "sampleSeed"] {
            #expect(row[name] == (window[name] as? Int).map(String.init), "\(name)")
        }
        #expect(row["sampleRatio"].flatMap(Double.init) == 0.5)
        let points = (window["intervals"] as? [String: Any])?["points"] as? [Any]
        #expect(row["intervals"] == points.map { String($0.count) } && (points?.count ?? 0) > 1)

        let markdown = try CLI.run(arguments + ["--format", "markdown"])
        #expect(markdown.stdout.hasPrefix("| policy |") && markdown.stdout.contains("| warmupRequests |"))
        let plain = try CLI.run(["replay", Self.trace, "--policy", "fifo", "--capacity", "0.1", "--format", "csv"])
        #expect(plain.status == 0 && !plain.stdout.contains("warmup"))
    }

    @Test("window edges: a warm-up the sample outlasts, events under --sample, decimal interval edges, a warm-up ending in a gap, huge spans, a chart that cannot be written")
    func windowEdges() throws {
        func scratch(_ text: String) throws -> String {
            let path = scratchDirectory.appendingPathComponent("cachebench-window-\(UUID().uuidString).csv").path
            try Data(text.utf8).write(to: URL(fileURLWithPath: path))
            return path
        }
        // 200 rows of keys 0…199 whose sample at 1 % keeps a few; a warm-up past the last kept
        // row leaves none measured, and every kept one counted as warm-up.
        let rows = try scratch("timestamp,key,size\n" + (0..<2_000).map { "\($0),\($0 % 200),1\n" }.joined())
        defer { try? FileManager.default.removeItem(atPath: rows) }
        let sampled = try CLI.run(["replay", rows, "--policy", "lru", "--capacity", "1000", "--sample", "0.02", "--format", "json"])
        let kept = try #require(sampled.json?["requests"] as? Int)
        let outlasted = try CLI.run(["replay", rows, "--policy", "lru", "--capacity", "1000", "--sample", "0.02",
                                     "--warmup", "1999req", "--format", "json"])
        let window = outlasted.json?["window"] as? [String: Any]
        let warmed = window?["warmupRequests"] as? Int ?? -1
        let measured = outlasted.json?["requests"] as? Int ?? -1
        #expect(outlasted.status == 0 && warmed + measured == kept && measured <= 1, "\(warmed) + \(measured) of \(kept)")

        // Memory warnings have no key: a sample keeps all of them.
        let events = try scratch("timestamp,key,size,op\n" + (0..<400).map { $0 % 50 == 49 ? "\($0),,,memory-warning\n" : "\($0),\($0 % 37),10,get\n" }.joined())
        defer { try? FileManager.default.removeItem(atPath: events) }
        for ratio in ["0.1", "0.5", "1"] {
            let run = try CLI.run(["replay", events, "--policy", "af-lru", "--capacity", "1000", "--sample", ratio, "--format", "json"])
            #expect(run.status == 0 && run.json?["events"] as? Int == 8, "\(ratio): \(run.stderr)")
        }

        // Tenths of a second: edges at whole multiples of 0.1 from the start, one row each.
        let tenths = try scratch("timestamp,key,size\n" + (0..<1_000).map { String(format: "%.1f,%d,1\n", Double($0) / 10, $0 % 37) }.joined())
        defer { try? FileManager.default.removeItem(atPath: tenths) }
        let decimal = try CLI.run(["replay", tenths, "--policy", "lru", "--capacity", "10", "--report-interval", "0.1s", "--format", "json"])
        let points = ((decimal.json?["window"] as? [String: Any])?["intervals"] as? [String: Any])?["points"] as? [[String: Any]] ?? []
        #expect(points.count == 1_000 && points.allSatisfy { $0["requests"] as? Int == 1 }, "\(points.count) intervals")

        // A warm-up that ends in a gap: the first interval is the first row's, not an empty one.
        let gap = try scratch("timestamp,key,size\n" + ([0, 1, 2, 3, 4] + Array(100...105)).map { "\($0),\($0 % 3),1\n" }.joined())
        defer { try? FileManager.default.removeItem(atPath: gap) }
        let gapped = try CLI.run(["replay", gap, "--policy", "lru", "--capacity", "3", "--warmup", "5s", "--report-interval", "2s", "--format", "json"])
        let gapPoints = ((gapped.json?["window"] as? [String: Any])?["intervals"] as? [String: Any])?["points"] as? [[String: Any]] ?? []
        #expect(gapPoints.first?["start"] as? Double == 99 && gapPoints.allSatisfy { ($0["requests"] as? Int ?? 0) > 0 }, "\(gapPoints)")

        // Spans too long for a double in seconds, or rows past Int, are usage errors.
        for span in [String(repeating: "9", count: 308) + "d", "99999999999999999999req"] {
            let huge = try CLI.run(["replay", gap, "--policy", "lru", "--capacity", "3", "--warmup", span])
            #expect(huge.status == 2 && huge.stderr.contains("out of range"), "\(huge.stderr)")
        }

        // A chart a device refuses takes the report with it: nothing on standard output.
        let full = try CLI.run(["replay", gap, "--policy", "lru", "--capacity", "3", "--report-interval", "2s", "--plot-intervals", "/dev/full"])
        #expect(full.status == 74 && full.stdout.isEmpty, "\(full.stdout)")
    }

    /// `--max-requests N` reads the first N rows and no more, as libCacheSim's `-n`: a bad row
    /// (or a cut-short record) after them is not this run's; one among them still is (65, at its
    /// line or byte).
    @Test("--max-requests N: a bad row after the first N is never read; a bad row among them is refused")
    func maxRequestsStopsReading() throws {
        var rows = ["timestamp,key,size"]
        for row in 1...20_000 { rows.append("\(row),\(row % 97),\(100 + row % 50)") }
        for bad in [101, 3_001, 17_000] {
            var text = rows
            text[bad] = "\(bad),7,abc"
            let path = try temporaryFile(text.joined(separator: "\n") + "\n")
            defer { try? FileManager.default.removeItem(atPath: path) }
            for cap in [10, bad - 1] {
                let run = try CLI.run(["replay", path, "--policy", "lru", "--capacity", "1MiB", "--max-requests", "\(cap)", "--format", "json"])
                #expect(run.status == 0 && run.json?["requests"] as? Int == cap, "row \(bad), cap \(cap): \(run.stderr)")
            }
            let refused = try CLI.run(["replay", path, "--policy", "lru", "--capacity", "1MiB", "--max-requests", "\(bad)"])
            #expect(refused.status == 65 && refused.stderr.contains("\(path):\(bad + 1):") && refused.stdout.isEmpty, "\(refused.stderr)")
        }
        // An oracleGeneral file cut inside its 101st record.
        let records = try Data(contentsOf: URL(fileURLWithPath: Repository.trace("cloudPhysicsIO.oracleGeneral.bin"))).prefix(24 * 100 + 7)
        let cut = try temporaryFile(Data(records), suffix: ".oracleGeneral.bin")
        defer { try? FileManager.default.removeItem(atPath: cut) }
        let head = try CLI.run(["replay", cut, "--policy", "lru", "--capacity", "1MiB", "--max-requests", "100", "--format", "json"])
        #expect(head.status == 0 && head.json?["window"] != nil, "\(head.stderr)")
        let whole = try CLI.run(["replay", cut, "--policy", "lru", "--capacity", "1MiB"])
        #expect(whole.status == 65 && whole.stderr.contains("byte 2400: truncated record"), "\(whole.stderr)")
    }

    /// A miniature cache scales every size: `preferred=60MiB` of a 100 MiB af-lru is the same
    /// cache as `preferred=0.6`, sampled or not, in replay and in compare.
    @Test("--sample scales sizes given in --option with the capacity")
    func sampleScalesSizeOptions() throws {
        for command in ["replay", "compare"] {
            var hits: [Int] = []
            for option in ["preferred=0.6", "preferred=60MiB"] {
                let capacity = command == "replay" ? ["--capacity", "100MiB"] : ["--capacities", "100MiB"]
                let policy = command == "replay" ? ["--policy", "af-lru"] : ["--policies", "af-lru"]
                let run = try CLI.run([command, "Traces/image-feed.csv"] + policy + capacity + ["--sample", "0.1", "--option", option, "--format", "json"])
                #expect(run.status == 0, "\(run.stderr)")
                let result = command == "replay" ? run.json : (run.json?["results"] as? [[String: Any]])?.first
                hits.append(result?["hits"] as? Int ?? -1)
            }
            #expect(hits[0] == hits[1] && hits[0] > 0, "\(command): \(hits)")
        }
    }

    /// yy-disk's free-space limit keeps `disk-free-space − free-disk-space-limit` bytes on disk:
    /// the same cache as that capacity, so a miniature of it must scale both amounts, written as
    /// bare numbers of bytes or with a unit, as it scales the capacity.
    @Test("--sample scales amounts in the capacity's units given as bare numbers (yy-disk's free-space limit)")
    func sampleScalesAmountOptions() throws {
        func run(_ arguments: [String]) throws -> (hits: Int, evictions: Int) {
            let run = try CLI.run(["replay", "Traces/image-feed.csv", "--policy", "yy-disk", "--sample", "0.1", "--format", "json"] + arguments)
            #expect(run.status == 0, "\(run.stderr)")
            return (run.json?["hits"] as? Int ?? -1, run.json?["evictions"] as? Int ?? -1)
        }
        let byCapacity = try run(["--capacity", "100000000"])
        let bare = try run(["--capacity", "10GB", "--option", "free-disk-space-limit=400000000", "--option", "disk-free-space=500000000"])
        let units = try run(["--capacity", "10GB", "--option", "free-disk-space-limit=400MB", "--option", "disk-free-space=500MB"])
        #expect(bare == units)
        // Unscaled, the free-space limit kept 500 MB of a 50 MB miniature: no eviction at all.
        #expect(bare.evictions > 0 && abs(bare.evictions - byCapacity.evictions) * 100 <= byCapacity.evictions, "\(bare) \(byCapacity)")
        #expect(abs(bare.hits - byCapacity.hits) * 100 <= byCapacity.hits, "\(bare) \(byCapacity)")
    }

    @Test("--capacity 10% is --capacity 0.1; compare takes percentages; 150% is a usage error")
    func percentageCapacities() throws {
        let decimal = try CLI.run(["replay", Self.trace, "--policy", "s3fifo", "--capacity", "0.1", "--format", "json"])
        let percent = try CLI.run(["replay", Self.trace, "--policy", "s3fifo", "--capacity", "10%", "--format", "json"])
        #expect(decimal.status == 0 && percent.status == 0, "\(decimal.stderr) \(percent.stderr)")
        let a = try #require(decimal.json), b = try #require(percent.json)
        #expect(b["capacitySource"] as? String == "working-set-fraction")
        #expect(a["capacity"] as? Int == b["capacity"] as? Int && a["hits"] as? Int == b["hits"] as? Int)
        let compared = try CLI.run(["compare", Self.trace, "--policies", "lru", "--capacities", "5%,0.2", "--format", "json"])
        #expect(compared.status == 0, "\(compared.stderr)")
        let capacities = (compared.json?["results"] as? [[String: Any]])?.compactMap { $0["capacity"] as? Int }
        #expect(capacities?.count == 2)
        // A list that mixes sizes and fractions says, per capacity, which it was.
        let mixed = try CLI.run(["compare", Self.trace, "--policies", "lru,fifo", "--capacities", "1KB,10%", "--format", "json"])
        #expect(mixed.status == 0, "\(mixed.stderr)")
        let rows = try #require(mixed.json?["results"] as? [[String: Any]])
        #expect(rows.map { $0["capacity"] as? Int } == [1000, b["capacity"] as? Int, 1000, b["capacity"] as? Int])
        #expect(rows.map { $0["capacitySource"] as? String }
                == ["option", "working-set-fraction", "option", "working-set-fraction"])
        let refused = try CLI.run(["replay", Self.trace, "--policy", "lru", "--capacity", "150%"])
        #expect(refused.status == 2 && refused.stdout.isEmpty)
        #expect(refused.stderr.contains("--capacity 150%: a percentage of the working set must be above 0 and at most 100"))
    }

    @Test("--plot-intervals writes an SVG that parses; it needs --report-interval")
    func plotIntervals() throws {
        let plot = scratchDirectory.appendingPathComponent("cachebench-e2e-\(UUID().uuidString).svg").path
        defer { try? FileManager.default.removeItem(atPath: plot) }
        let result = try CLI.run(["compare", Self.trace, "--policies", "lru,fifo", "--capacities", "0.05,0.2",
                                  "--report-interval", "2h", "--plot-intervals", plot])
        #expect(result.status == 0, "\(result.stderr)")
        let data = try Data(contentsOf: URL(fileURLWithPath: plot))
        #expect(XMLParser(data: data).parse())
        #expect(String(decoding: data, as: UTF8.self).contains("<polyline"))
        // Every chart cachebench draws opens with the XML declaration, as the others do.
        #expect(String(decoding: data, as: UTF8.self).hasPrefix("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<svg"))
        let refused = try CLI.run(["replay", Self.trace, "--policy", "lru", "--plot-intervals", plot + ".2.svg"])
        #expect(refused.status == 2 && !FileManager.default.fileExists(atPath: plot + ".2.svg"))
        // Runs of one long-named policy differ only at the end of their names: the legend shows
        // each whole, so a printed chart tells them apart.
        let alike = try CLI.run(["compare", Self.trace, "--policies", "caffeine-wtinylfu", "--capacities", "150,151,152",
                                 "--ignore-size", "--report-interval", "2h", "--plot-intervals", plot])
        #expect(alike.status == 0, "\(alike.stderr)")
        let svg = String(decoding: try Data(contentsOf: URL(fileURLWithPath: plot)), as: UTF8.self)
        let legend = svg.components(separatedBy: "</title>").dropFirst().map { String($0.prefix { $0 != "<" }) }
            .filter { $0.hasPrefix("caffeine-wtinylfu @") }
        #expect(legend == ["caffeine-wtinylfu @ 150 objects", "caffeine-wtinylfu @ 151 objects", "caffeine-wtinylfu @ 152 objects"],
                "\(legend)")
    }

    @Test("bad values: exit 2 for ratios 0 or above 1 and bad spans; exit 65 for a warm-up past the end, with no output")
    func badValues() throws {
        let output = scratchDirectory.appendingPathComponent("cachebench-e2e-\(UUID().uuidString).json").path
        defer { try? FileManager.default.removeItem(atPath: output) }
        for arguments in [["replay", Self.trace, "--policy", "lru", "--sample", "0"],
                          ["replay", Self.trace, "--policy", "lru", "--sample", "1.01"],
                          ["compare", Self.trace, "--policies", "lru", "--sample", "-1"],
                          ["mrc", Self.trace, "--policy", "fifo", "--sample", "0"],
                          ["replay", Self.trace, "--policy", "lru", "--warmup", "100"],
                          ["replay", Self.trace, "--policy", "lru", "--max-requests", "0"],
                          ["replay", Self.trace, "--policy", "lru", "--warmup", "10req", "--max-requests", "10"],
                          ["replay", Self.trace, "--policy", "lru", "--warmup", "10req", "--threads", "2"],
                          ["compare", Self.trace, "--policies", "lru", "--sample", "0.5", "--tier", "memory=yy-lru,disk=yy-disk"],
                          ["replay", Self.trace, "--policy", "lru", "--sample-seed", "3"],
                          ["mrc", Self.trace, "--policy", "fifo", "--sample", "0.5", "--sample-seed", "-1"],
                          ["mrc", Self.trace, "--policy", "fifo", "--sample", "0.5", "--min-miniature", "-1"],
                          ["mrc", Self.trace, "--policy", "fifo", "--sample", "0.5", "--estimator", "che"],
                          ["mrc", Self.trace, "--policy", "fifo", "--sample", "0.5", "--estimator"],
                          ["mrc", Self.trace, "--policy", "fifo", "--sample", "0.5", "--census-ratio", "0"],
                          ["mrc", Self.trace, "--policy", "fifo", "--sample", "0.5", "--census-ratio", "1.5"],
                          ["mrc", Self.trace, "--policy", "fifo", "--sample", "0.5", "--census-ratio", "all"],
                          ["mrc", Self.trace, "--policy", "fifo", "--sample", "0.5", "--census-ratio", "0.5", "--estimator", "shards"]] {
            let result = try CLI.run(arguments + ["--output", output])
            #expect(result.status == 2, "\(arguments): \(result.stderr)")
            #expect(!result.stderr.isEmpty && result.stdout.isEmpty)
        }
        let census = try CLI.run(["mrc", Self.trace, "--policy", "fifo", "--sample", "0.5", "--census-ratio", "1.5"])
        #expect(census.stderr.contains("--census-ratio 1.5: the census ratio must be above 0 and at most 1"), "\(census.stderr)")
        for warmup in ["50000req", "1000d"] {
            let result = try CLI.run(["replay", Self.trace, "--policy", "lru", "--warmup", warmup, "--output", output])
            #expect(result.status == 65, "\(warmup)")
            #expect(result.stderr.contains("warm-up") && result.stderr.contains("Traces/zipf.csv"))
        }
        #expect(!FileManager.default.fileExists(atPath: output))
    }

    @Test("libCacheSim's size letters: 64M is 64 MiB")
    func sizeLetters() throws {
        let result = try CLI.run(["replay", Self.trace, "--policy", "lru", "--capacity", "64M", "--format", "json"])
        #expect(result.json?["capacity"] as? Int == 64 << 20)
    }

    @Test("mrc --policy fifo --sample 1 equals compare; the default sample is an estimate marked as such")
    func mrcPolicy() throws {
        let exact = try CLI.run(["mrc", "Traces/lirs-cs.csv", "--policy", "fifo", "--sample", "1", "--capacities", "100,700",
                                 "--ignore-size", "--format", "json"])
        let compare = try CLI.run(["compare", "Traces/lirs-cs.csv", "--policies", "fifo", "--capacities", "100,700",
                                   "--ignore-size", "--format", "json"])
        let misses = { (r: CLI.Result) in ((r.json?["results"] as? [[String: Any]]) ?? []).map { $0["misses"] as? Int ?? -1 } }
        #expect(misses(exact) == misses(compare) && misses(exact).count == 2)
        let sampled = try CLI.run(["mrc", Self.trace, "--policy", "s3fifo", "--sample", "0.2", "--points", "4"])
        #expect(sampled.status == 0, "\(sampled.stderr)")
        #expect(sampled.stdout.contains("s3fifo miss-ratio curve") && sampled.stdout.contains("miniature simulation"))
        // Another seed draws another sample: another estimate, marked with its seed.
        let seeded = try CLI.run(["mrc", Self.trace, "--policy", "s3fifo", "--sample", "0.2", "--points", "4", "--sample-seed", "5"])
        #expect(seeded.status == 0 && seeded.stdout.contains("(seed 5)"), "\(seeded.stderr)")
        #expect(seeded.stdout != sampled.stdout)
        let replayed = try CLI.run(["replay", Self.trace, "--policy", "lru", "--sample", "0.5", "--sample-seed", "2", "--format", "json"])
        #expect((replayed.json?["window"] as? [String: Any])?["sampleSeed"] as? Int == 2, "\(replayed.stderr)")
        let unknown = try CLI.run(["mrc", Self.trace, "--policy", "nope"])
        #expect(unknown.status == 2)
    }
}
