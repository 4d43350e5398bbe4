import Foundation
import Testing
import TestSupport

/// Runs the built `cachebench` executable the way a user would.
enum CLI {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// The `cachebench` executable beside the test bundle.
    static var executable: URL { executable(named: "cachebench") }

    /// The executable `name` beside the test bundle (SwiftPM builds it because this target depends on it).
    static func executable(named name: String) -> URL {
        let candidates = [Bundle.main.bundleURL, Bundle.main.bundleURL.deletingLastPathComponent()]
            + Bundle.allBundles.map { $0.bundleURL.deletingLastPathComponent() }
        for directory in candidates {
            let url = directory.appendingPathComponent(name)
            if FileManager.default.isExecutableFile(atPath: url.path) { return url }
        }
        return root.appendingPathComponent(".build/debug/\(name)")
    }

    struct Result {
        var status: Int32
        var stdout: String
        var stderr: String
        var json: [String: Any]? { (try? JSONSerialization.jsonObject(with: Data(stdout.utf8))) as? [String: Any] }
    }

    /// Runs `program` with `arguments` from the repository's root (or `directory`); `environment`
    /// is added to the test's own.
    static func run(_ arguments: [String], stdin: Data? = nil, program: String = "cachebench",
                    environment: [String: String] = [:], directory: URL? = nil) throws -> Result {
        let process = Process()
        process.executableURL = executable(named: program)
        process.arguments = arguments
        process.currentDirectoryURL = directory ?? root
        if !environment.isEmpty {
            process.environment = ProcessInfo.processInfo.environment.merging(environment) { _, given in given }
        }
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        let input = Pipe()
        process.standardInput = stdin == nil ? FileHandle.nullDevice : input
        // The child may exit before reading all its input (a usage error); that must not kill the tests.
        signal(SIGPIPE, SIG_IGN)
        try process.run()
        let writer = DispatchGroup()
        if let stdin {
            DispatchQueue.global().async(group: writer) {
                try? input.fileHandleForWriting.write(contentsOf: stdin)
                try? input.fileHandleForWriting.close()
            }
        }
        let outData = out.fileHandleForReading.readDataToEndOfFile()
        let errData = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        writer.wait()
        return Result(status: process.terminationStatus, stdout: String(decoding: outData, as: UTF8.self),
                      stderr: String(decoding: errData, as: UTF8.self))
    }
}

@Suite("cachebench command line")
struct CommandLineTests {
    @Test("replay prints the contract's JSON with libCacheSim's lru miss count")
    func replayJSON() throws {
        let result = try CLI.run(["replay", "Traces/cloudPhysicsIO.og.csv", "--policy", "lru", "--capacity", "128MiB",
                                  "--columns", "time=1,key=2,size=3", "--format", "json"])
        #expect(result.status == 0, "\(result.stderr)")
        let json = try #require(result.json)
        for field in ["policy", "trace", "capacity", "countLimit", "ignoreSize", "requests", "hits", "misses", "hitRatio",
                      "missRatio", "byteRequests", "byteHits", "byteHitRatio", "evictions", "skipped", "seconds",
                      "requestsPerSecond", "trim"] {
            #expect(json[field] != nil, "missing \(field)")
        }
        #expect(json["policy"] as? String == "lru")
        #expect(json["capacity"] as? Int == 134_217_728)
        #expect(json["capacitySource"] as? String == "option")
        #expect(json["requests"] as? Int == 113_872)
        #expect(json["misses"] as? Int == 93_374)
        let trim = try #require(json["trim"] as? [String: Any])
        for field in ["count", "totalNanoseconds", "p50Nanoseconds", "p99Nanoseconds", "maxNanoseconds"] {
            #expect(trim[field] is Int, "missing trim.\(field)")
        }
        #expect((trim["count"] as? Int ?? 0) > 0)
    }

    @Test("every format renders; csv and markdown have a header and one row")
    func formats() throws {
        for format in ["table", "csv", "markdown"] {
            let result = try CLI.run(["replay", "Traces/lirs-cs.csv", "--policy", "fifo", "--capacity", "150", "--format", format])
            #expect(result.status == 0)
            #expect(result.stdout.contains("fifo"))
        }
        let csv = try CLI.run(["replay", "Traces/lirs-cs.csv", "--policy", "fifo", "--capacity", "150", "--format", "csv"])
        #expect(csv.stdout.split(separator: "\n").count == 2)
    }

    @Test("standard input as -; the working-set default reads it once (a kept copy serves the second pass)")
    func standardInput() throws {
        let trace = try Data(contentsOf: CLI.root.appendingPathComponent("Traces/lirs-cs.csv"))
        let result = try CLI.run(["replay", "-", "--policy", "lru", "--capacity", "150", "--format", "json"], stdin: trace)
        #expect(result.status == 0)
        #expect(result.json?["misses"] as? Int == 6657)
        let file = try CLI.run(["replay", "Traces/lirs-cs.csv", "--policy", "lru", "--format", "json"])
        #expect(file.json?["capacitySource"] as? String == "working-set-10%")
        #expect(file.json?["capacity"] as? Int == 140)
        let noCapacity = try CLI.run(["replay", "-", "--policy", "lru", "--format", "json"], stdin: trace)
        #expect(noCapacity.status == 0)
        #expect(noCapacity.json?["capacity"] as? Int == 140)
        #expect(noCapacity.json?["misses"] as? Int == file.json?["misses"] as? Int)
    }

    @Test("exit codes: usage 2, unopenable 66, malformed 65 with nothing on stdout")
    func exitCodes() throws {
        #expect(try CLI.run(["replay", "Traces/lirs-cs.csv", "--policy", "nope"]).status == 2)
        #expect(try CLI.run(["replay", "Traces/lirs-cs.csv"]).status == 2)
        #expect(try CLI.run(["replay", "Traces/lirs-cs.csv", "--policy", "lru", "--capacity", "12XB"]).status == 2)
        #expect(try CLI.run(["replay", "Traces/lirs-cs.csv", "--policy", "lru", "--frobnicate"]).status == 2)
        #expect(try CLI.run(["frobnicate"]).status == 2)
        let missing = try CLI.run(["replay", "Traces/does-not-exist.csv", "--policy", "lru", "--capacity", "10"])
        #expect(missing.status == 66)
        #expect(missing.stderr.contains("does-not-exist.csv"))
        let bad = try CLI.run(["replay", "-", "--policy", "lru", "--capacity", "10", "--format", "json"],
                              stdin: Data("timestamp,key,size\n1,1,1\n2,2,oops\n".utf8))
        #expect(bad.status == 65)
        #expect(bad.stdout.isEmpty)
        #expect(bad.stderr.contains("-:3: size 'oops' is not a whole number"))
    }

    @Test("named values in any case, - and _ ignored: estimators, census, memory warnings, admission, groups, tiers")
    func namedValuesAnyCase() throws {
        for arguments in [["mrc", "Traces/lirs-ps.csv", "--policy", "fifo", "--estimator", "CV"],
                          ["mrc", "Traces/lirs-ps.csv", "--policy", "fifo", "--estimator", "cv_lru"],
                          ["mrc", "Traces/lirs-ps.csv", "--policy", "fifo", "--census-ratio", "AUTO"],
                          ["replay", "Traces/image-feed.csv", "--policy", "yy-lru", "--memory-warning", "Remove_All"],
                          ["replay", "Traces/lirs-ps.csv", "--policy", "lru", "--capacity", "100", "--admission", "bloom_filter"],
                          ["compare", "Traces/lirs-ps.csv", "--policies", "Research", "--capacities", "100", "--format", "csv"]] {
            let result = try CLI.run(arguments)
            #expect(result.status == 0, "\(arguments): \(result.stderr)")
        }
        // A tier's names are the registry's, whatever their spelling: one pair, labelled alike.
        let tiers = try CLI.run(["compare", "Traces/image-feed.csv", "--tier", "Memory=YY-LRU,DISK=YY-Disk",
                                 "--capacities", "10MiB", "--format", "json"])
        #expect(tiers.status == 0, "\(tiers.stderr)")
        let labels = (tiers.json?["results"] as? [[String: Any]])?.compactMap { $0["policy"] as? String }
        #expect(labels == ["memory=yy-lru,disk=yy-disk"])
        let twice = try CLI.run(["compare", "Traces/image-feed.csv", "--tier", "memory=yy-lru,disk=yy-disk",
                                 "--tier", "memory=YY-LRU,disk=YY-Disk", "--capacities", "10MiB"])
        #expect(twice.status == 2 && twice.stderr.contains("twice"), "\(twice.stderr)")
        // mrc takes the policy's options as replay does: at --sample 1 its point is the replay's.
        for bits in ["1", "2"] {
            let curve = try CLI.run(["mrc", "Traces/zipf.csv", "--policy", "clock", "--sample", "1", "--capacities", "100",
                                     "--ignore-size", "--option", "bits=\(bits)", "--format", "json"])
            let replay = try CLI.run(["replay", "Traces/zipf.csv", "--policy", "clock", "--capacity", "100", "--ignore-size",
                                      "--option", "bits=\(bits)", "--format", "json"])
            let point = (curve.json?["results"] as? [[String: Any]])?.first
            #expect(curve.status == 0 && point?["hits"] as? Int == replay.json?["hits"] as? Int, "\(curve.stderr)")
        }
        // A CSV layout for a binary trace would go unused: refused, whether the format is given or found.
        let binary = try CLI.run(["replay", "Traces/cloudPhysicsIO.oracleGeneral.bin", "--policy", "lru", "--capacity", "100",
                                  "--columns", "key=2"])
        #expect(binary.status == 65 && binary.stdout.isEmpty && binary.stderr.contains("a CSV layout (--columns or --header) was given"), "\(binary.stderr)")
    }

    @Test("mrc: capacities a policy refuses (LIRS's smallest) are left out with a note, chosen or given; all refused is an error")
    func mrcLeavesOutRefusedPoints() throws {
        let chosen = try CLI.run(["mrc", "Traces/lirs-gli.csv", "--policy", "lirs", "--ignore-size", "--format", "json"])
        #expect(chosen.status == 0, "\(chosen.stderr)")
        let notes = chosen.json?["notes"] as? [String] ?? []
        #expect(notes.contains { $0.hasPrefix("lirs at capacity ") && $0.contains(": not run, the policy refuses it") }, "\(notes)")
        let points = (chosen.json?["results"] as? [[String: Any]])?.count ?? 0
        #expect(points > 20)
        let given = try CLI.run(["mrc", "Traces/lirs-gli.csv", "--policy", "lirs", "--ignore-size", "--capacities", "2,100", "--format", "json"])
        #expect(given.status == 0 && (given.json?["results"] as? [[String: Any]])?.count == 1, "\(given.stderr)")
        #expect((given.json?["notes"] as? [String] ?? []).contains { $0.hasPrefix("lirs at capacity 2: not run") }, "\(given.stdout)")
        let none = try CLI.run(["mrc", "Traces/lirs-gli.csv", "--policy", "lirs", "--ignore-size", "--capacities", "1,2"])
        #expect(none.status == 2 && none.stdout.isEmpty && none.stderr.contains("--capacities 1: must be at least 3"), "\(none.stderr)")
        // The sampling note counts the sample's requests from a run at the ratio itself.
        let sampled = try CLI.run(["mrc", "Traces/cloudPhysicsIO.oracleGeneral.bin", "--policy", "sieve", "--capacities", "1MiB,512MiB",
                                   "--sample", "0.1", "--format", "json"])
        let note = (sampled.json?["notes"] as? [String])?.first ?? ""
        #expect(note.contains("of 113872 requests") && !note.contains("(113872 of 113872") && note.contains("1 of 2 capacities sampled more"), "\(note)")
    }

    @Test("--help on every command", arguments: [["--help"], ["replay", "--help"], ["policies", "--help"], ["help", "replay"], ["help", "--help"], ["help"],
                                                 ["help", "replay", "--help"]])
    func help(arguments: [String]) throws {
        let result = try CLI.run(arguments)
        #expect(result.status == 0)
        #expect(result.stdout.contains("USAGE"))
    }

    @Test("help takes one command name and nothing more, as every command refuses a stray word")
    func helpWithStrayWords() throws {
        for arguments in [["help", "replay", "extra"], ["help", "replay", "compare"], ["help", "nosuch"]] {
            let result = try CLI.run(arguments)
            #expect(result.status == 2 && result.stdout.isEmpty, "\(arguments)")
        }
    }

    @Test("--help COMMAND prints the command's help, as help COMMAND does")
    func helpBeforeTheCommand() throws {
        for (spelling, command) in [("--help", "replay"), ("-h", "compare"), ("--help", "generate")] {
            let result = try CLI.run([spelling, command])
            let expected = try CLI.run(["help", command])
            #expect(result.status == 0 && result.stdout == expected.stdout, "\(spelling) \(command)")
            #expect(result.stdout.hasPrefix("USAGE: cachebench \(command) "), "\(spelling) \(command)")
        }
        let stray = try CLI.run(["--help", "replay", "extra"])
        #expect(stray.status == 2 && stray.stdout.isEmpty)
    }

    @Test("a chart named for another image format is refused, with nothing written")
    func chartsAreSVG() throws {
        let folder = scratchDirectory.appendingPathComponent("charts-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let png = folder.appendingPathComponent("chart.PNG").path
        for arguments in [["compare", "Traces/zipf.csv", "--policies", "lru", "--capacity", "100", "--ignore-size", "--plot", png],
                          ["mrc", "Traces/zipf.csv", "--points", "4", "--ignore-size", "--plot", png],
                          ["replay", "Traces/zipf.csv", "--policy", "lru", "--capacity", "100", "--ignore-size",
                           "--report-interval", "1000req", "--plot-intervals", png]] {
            let result = try CLI.run(arguments)
            #expect(result.status == 2 && result.stdout.isEmpty && result.stderr.contains("charts are SVG"), "\(arguments)")
            #expect(!FileManager.default.fileExists(atPath: png), "\(arguments)")
        }
        let svg = folder.appendingPathComponent("chart.svg").path
        let drawn = try CLI.run(["mrc", "Traces/zipf.csv", "--points", "4", "--ignore-size", "--plot", svg])
        #expect(drawn.status == 0 && FileManager.default.fileExists(atPath: svg))
    }

    /// Each command's help lists its options, --help among them, and its exit codes.
    @Test("every command's help has its options and its exit status",
          arguments: ["replay", "compare", "mrc", "sweep", "sweep-report", "merge", "analyze", "convert", "generate", "policies"])
    func helpSections(command: String) throws {
        let result = try CLI.run([command, "--help"])
        #expect(result.status == 0)
        #expect(result.stdout.contains("OPTIONS:") && result.stdout.contains("-h, --help") && result.stdout.contains("EXIT STATUS:"),
                "\(command)")
        #expect(result.stdout.contains("--output "), "\(command)")
    }

    @Test("policies lists every policy as JSON")
    func policies() throws {
        let result = try CLI.run(["policies", "--format", "json"])
        #expect(result.status == 0)
        let list = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [[String: Any]])
        let names = Set(list.compactMap { $0["name"] as? String })
        #expect(names.isSuperset(of: ["fifo", "lifo", "lru"]))
    }

    @Test("--output writes the whole report to a file")
    func output() throws {
        let path = scratchDirectory.appendingPathComponent("cachebench-\(UUID().uuidString).json").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        let result = try CLI.run(["replay", "Traces/lirs-cs.csv", "--policy", "lru", "--capacity", "150", "--format", "json", "--output", path])
        #expect(result.status == 0 && result.stdout.isEmpty)
        let written = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path))) as? [String: Any]
        #expect(written?["misses"] as? Int == 6657)
        let unwritable = try CLI.run(["replay", "Traces/lirs-cs.csv", "--policy", "lru", "--capacity", "150", "--output", "/nonexistent-dir/x.json"])
        #expect(unwritable.status == 74)
    }

    @Test("a closed standard output fails the report (74) and a closed standard input fails '-' (66), neither read nor written elsewhere")
    func closedStandardDescriptors() throws {
        func shell(_ script: String) throws -> CLI.Result {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/bin/bash")
            // $0 is the executable; the script closes a descriptor before exec-ing it.
            process.arguments = ["-c", script, CLI.executable(named: "cachebench").path]
            process.currentDirectoryURL = CLI.root
            let out = Pipe(), err = Pipe()
            process.standardOutput = out
            process.standardError = err
            process.standardInput = FileHandle.nullDevice
            try process.run()
            let outData = out.fileHandleForReading.readDataToEndOfFile()
            let errData = err.fileHandleForReading.readDataToEndOfFile()
            process.waitUntilExit()
            return CLI.Result(status: process.terminationStatus, stdout: String(decoding: outData, as: UTF8.self),
                              stderr: String(decoding: errData, as: UTF8.self))
        }
        let noStdout = try shell(#"exec "$0" replay Traces/lirs-cs.csv --policy lru --capacity 150 >&-"#)
        #expect(noStdout.status == 74, "\(noStdout.stderr)")
        let noStdin = try shell(#"exec "$0" replay - --policy lru --capacity 150 <&-"#)
        #expect(noStdin.status == 66, "\(noStdin.stderr)")
        #expect(noStdin.stdout.isEmpty && noStdin.stderr.contains("standard input is closed"), "\(noStdin.stderr)")
        // A reader that goes away and a file-size limit fail the write: 74, no temporary left.
        let dir = scratchDirectory.appendingPathComponent("cachebench-pipe-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let piped = try shell(#"cd "$(mktemp -d)" && "$0" generate zipf --requests 1000000 | head -c 1 > /dev/null; exit ${PIPESTATUS[0]}"#)
        #expect(piped.status == 74 && piped.stderr.contains("Broken pipe"), "\(piped.stderr)")
        let limited = try shell(#"ulimit -f 8; exec "$0" generate zipf --requests 100000 --output "# + dir + #"/big.csv"#)
        #expect(limited.status == 74, "\(limited.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir).isEmpty)
        // `/dev/stdout` is the descriptor the shell set up: `>>` keeps what the file held.
        try "kept\n".write(toFile: dir + "/log", atomically: false, encoding: .utf8)
        let appended = try shell(#"exec "$0" generate zipf --requests 3 --output /dev/stdout >> "# + dir + #"/log"#)
        #expect(appended.status == 0, "\(appended.stderr)")
        #expect(try String(contentsOfFile: dir + "/log", encoding: .utf8).hasPrefix("kept\ntimestamp,"))
        // Standard input redirected from the trace: writing the trace is refused (2), as by name.
        try FileManager.default.copyItem(atPath: CLI.root.path + "/Traces/lirs-cs.csv", toPath: dir + "/in.csv")
        let overwrite = try shell(#"exec "$0" convert - --output "# + dir + #"/in.csv < "# + dir + #"/in.csv"#)
        #expect(overwrite.status == 2 && overwrite.stderr.contains("is the input trace"), "\(overwrite.stderr)")
        // An open but empty standard input is still an empty trace: bad input, not a missing one.
        let empty = try CLI.run(["replay", "-", "--policy", "lru", "--capacity", "150"], stdin: Data())
        #expect(empty.status == 65, "\(empty.stderr)")
    }

    @Test("--threads replays through one shared, locked cache and counts every request once")
    func threads() throws {
        let result = try CLI.run(["replay", "Traces/lirs-sprite.csv", "--policy", "lru", "--capacity", "700",
                                  "--threads", "2", "--format", "json"])
        #expect(result.status == 0, "\(result.stderr)")
        let json = try #require(result.json)
        #expect(json["threads"] as? Int == 2)
        #expect(json["requests"] as? Int == 133_996)
        let hits = try #require(json["hits"] as? Int)
        #expect(hits > 100_000)   // about 87.7 % on one thread; interleaving moves it only slightly
        #expect(try CLI.run(["replay", "Traces/lirs-cs.csv", "--policy", "lru", "--threads", "0"]).status == 2)
    }

    @Test("convert writes libCacheSim's own oracleGeneral file byte for byte")
    func convert() throws {
        let path = scratchDirectory.appendingPathComponent("cachebench-\(UUID().uuidString).bin").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        let result = try CLI.run(["convert", "Traces/cloudPhysicsIO.og.csv", "--columns", "time=1,key=2,size=3", "--output", path])
        #expect(result.status == 0, "\(result.stderr)")
        let ours = try Data(contentsOf: URL(fileURLWithPath: path))
        let theirs = try Data(contentsOf: CLI.root.appendingPathComponent("Traces/cloudPhysicsIO.oracleGeneral.bin"))
        #expect(ours == theirs)
        #expect(result.stderr.contains("wrote 113872 records to "), "\(result.stderr)")
        #expect(try CLI.run(["convert", "Traces/lirs-cs.csv"]).status == 2)
        // Standard output is refused as such, not as a missing --output.
        let toStdout = try CLI.run(["convert", "Traces/lirs-cs.csv", "--output", "-"])
        #expect(toStdout.status == 2 && toStdout.stdout.isEmpty && toStdout.stderr.contains("--output -: convert writes a file"), "\(toStdout.stderr)")
    }

    @Test("analyze --plot makes a missing folder and fills it; a bad trace leaves neither folder nor report")
    func analyzePlots() throws {
        let base = scratchDirectory.appendingPathComponent("analyze-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: base) }
        let folder = base.appendingPathComponent("plots").path
        let result = try CLI.run(["analyze", "Traces/zipf.csv", "--plot", folder, "--format", "json"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.json?["requests"] as? Int == 50_000)
        let written = (try? FileManager.default.contentsOfDirectory(atPath: folder))?.sorted()
        #expect(written == ["one-hit-wonders.svg", "popularity.svg", "request-rate.svg", "reuse-distance.svg",
                            "reuse-time.svg", "sizes.svg"])

        let bad = base.appendingPathComponent("bad.csv").path
        try Data("timestamp,key,size\n1,a,10\n2,b,ten\n".utf8).write(to: URL(fileURLWithPath: bad))
        let other = base.appendingPathComponent("other").path
        let refused = try CLI.run(["analyze", bad, "--plot", other])
        #expect(refused.status == 65 && refused.stdout.isEmpty, "\(refused.stderr)")
        #expect(refused.stderr.contains("bad.csv:3"))
        #expect(!FileManager.default.fileExists(atPath: other))

        // A write that fails takes away every folder the run made, not only the innermost.
        let nested = base.appendingPathComponent("made/by/run").path
        let unwritable = try CLI.run(["analyze", "Traces/zipf.csv", "--plot", nested, "--output", "/dev/full"])
        #expect(unwritable.status == 74 && unwritable.stdout.isEmpty, "\(unwritable.stderr)")
        #expect(!FileManager.default.fileExists(atPath: base.appendingPathComponent("made").path))

        // No plot may be the trace or the report: usage errors, and every file as it was.
        let traceFolder = base.appendingPathComponent("trace-here").path
        try FileManager.default.createDirectory(atPath: traceFolder, withIntermediateDirectories: true)
        let traceNamedLikeAPlot = traceFolder + "/sizes.svg"
        let original = try Data(contentsOf: CLI.root.appendingPathComponent("Traces/lirs-ps.csv"))
        try original.write(to: URL(fileURLWithPath: traceNamedLikeAPlot))
        let overInput = try CLI.run(["analyze", traceNamedLikeAPlot, "--plot", traceFolder])
        #expect(overInput.status == 2 && overInput.stdout.isEmpty && overInput.stderr.contains("input trace"), "\(overInput.stderr)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: traceNamedLikeAPlot)) == original)
        #expect(try FileManager.default.contentsOfDirectory(atPath: traceFolder) == ["sizes.svg"])
        let reportFolder = base.appendingPathComponent("report-here").path
        let overReport = try CLI.run(["analyze", "Traces/lirs-ps.csv", "--output", reportFolder + "/popularity.svg", "--plot", reportFolder])
        #expect(overReport.status == 2 && overReport.stderr.contains("same file"), "\(overReport.stderr)")
        #expect(!FileManager.default.fileExists(atPath: reportFolder))

        // An empty trace, or a header alone, is bad input for analyze and convert as for replay.
        let empty = base.appendingPathComponent("empty.csv").path, header = base.appendingPathComponent("header.csv").path
        try Data().write(to: URL(fileURLWithPath: empty))
        try Data("timestamp,key,size\n".utf8).write(to: URL(fileURLWithPath: header))
        for trace in [empty, header] {
            let analyzed = try CLI.run(["analyze", trace])
            #expect(analyzed.status == 65 && analyzed.stdout.isEmpty && analyzed.stderr.contains("no rows"), "\(analyzed.stderr)")
            let converted = base.appendingPathComponent("converted.bin").path
            let conversion = try CLI.run(["convert", trace, "--output", converted])
            #expect(conversion.status == 65 && conversion.stderr.contains("no rows"), "\(conversion.stderr)")
            #expect(!FileManager.default.fileExists(atPath: converted))
        }
    }

    @Test("--memory-warning: hand-worked on a four-row trace; bad spellings and unsupported runs are usage errors")
    func memoryWarningResponse() throws {
        // LRU, capacity 100: a misses, a hits, a warning, a again: a miss if the warning emptied the cache.
        let trace = Data("timestamp,key,size,op\n0,a,10,get\n1,a,10,get\n2,,,memory-warning\n3,a,10,get\n".utf8)
        for (response, hits, evictions) in [("policy", 2, 0), ("ignore", 2, 0), ("remove-all", 1, 1), ("trim:0.5", 1, 1), ("trim:100%", 2, 0)] {
            let result = try CLI.run(["replay", "-", "--policy", "lru", "--capacity", "100", "--memory-warning", response,
                                      "--format", "json"], stdin: trace)
            #expect(result.status == 0, "\(response): \(result.stderr)")
            #expect(result.json?["hits"] as? Int == hits && result.json?["evictions"] as? Int == evictions, "\(response)")
        }
        for bad in ["trim:1.5", "trim:", "everything", "trim:-1%"] {
            let result = try CLI.run(["replay", "-", "--policy", "lru", "--capacity", "100", "--memory-warning", bad], stdin: trace)
            #expect(result.status == 2 && result.stdout.isEmpty && result.stderr.contains("--memory-warning"), "\(bad)")
        }
        let threaded = try CLI.run(["replay", "-", "--policy", "lru", "--capacity", "100", "--memory-warning", "remove-all",
                                    "--threads", "2"], stdin: trace)
        #expect(threaded.status == 2 && threaded.stderr.contains("--memory-warning cannot be combined"))
    }

    @Test("an argument that is not UTF-8 (a file name) is a usage error, not a file read or written under another name")
    func argumentsNotUTF8() throws {
        let folder = scratchDirectory.appendingPathComponent("cachebench-utf8-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        // The shell passes the byte 0xFF as it is; Process would take text.
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", "cd \"$1\" && cp \"$2\" \"$(printf 'in\\377.csv')\" && \"$0\" compare \"$2\" --policies lru --capacities 10 --output \"$(printf 'out\\377.json')\"",
                             CLI.executable.path, folder, CLI.root.appendingPathComponent("Traces/lirs-cs.csv").path]
        let err = Pipe()
        process.standardError = err
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        let message = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 2 && message.contains("argument 8 is not valid UTF-8"), "\(message)")
        // Only the copied trace: no output under a replaced name.
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder).count == 1)
    }
}
