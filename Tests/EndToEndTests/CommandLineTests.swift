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

    static func run(_ arguments: [String], stdin: Data? = nil, program: String = "cachebench") throws -> Result {
        let process = Process()
        process.executableURL = executable(named: program)
        process.arguments = arguments
        process.currentDirectoryURL = root
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

    @Test("--help on every command", arguments: [["--help"], ["replay", "--help"], ["policies", "--help"], ["help", "replay"]])
    func help(arguments: [String]) throws {
        let result = try CLI.run(arguments)
        #expect(result.status == 0)
        #expect(result.stdout.contains("USAGE"))
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
        #expect(try CLI.run(["convert", "Traces/lirs-cs.csv"]).status == 2)
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
}
