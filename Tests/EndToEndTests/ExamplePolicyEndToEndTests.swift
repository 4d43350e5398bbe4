import Foundation
import Testing
import TestSupport

/// The `example-policy` executable: LIP, a policy defined only in that target, registered beside
/// the standard ones, run through `policies`, `replay`, `compare` and the regression gate.
@Suite("An executable of one's own runs its policy through every command")
struct ExamplePolicyEndToEndTests {
    static func example(_ arguments: [String], stdin: Data? = nil) throws -> CLI.Result {
        try CLI.run(arguments, stdin: stdin, program: "example-policy")
    }

    /// LIP the slow, obvious way: an array from most to least recently used; a new key enters at
    /// the end (the next victim), a hit moves its key to the front.
    static func referenceHits(_ keys: [String], capacity: Int) -> Int {
        var order: [String] = []
        var hits = 0
        for key in keys {
            if let position = order.firstIndex(of: key) {
                hits += 1
                order.remove(at: position)
                order.insert(key, at: 0)
            } else {
                if order.count == capacity { order.removeLast() }
                order.append(key)
            }
        }
        return hits
    }

    /// The keys of a bundled CSV trace whose rows are all gets (`timestamp,key,size,op`).
    static func keys(ofTrace path: String) throws -> [String] {
        let text = try String(contentsOf: CLI.root.appendingPathComponent(path), encoding: .utf8)
        return text.split(separator: "\n").dropFirst().map { line in
            let fields = line.split(separator: ",")
            return String(fields[1])
        }
    }

    @Test("errors that point at a command name the executable that printed them")
    func errorsNameTheExecutable() throws {
        for arguments in [["replay", "Traces/zipf.csv", "--policy", "nosuch"], ["compare", "Traces/zipf.csv"],
                          ["mrc", "Traces/zipf.csv", "--bogus", "1"]] {
            let result = try Self.example(arguments)
            #expect(result.status == 2, "\(arguments)")
            #expect(result.stderr.hasPrefix("example-policy: ") && result.stderr.contains("'example-policy "), "\(result.stderr)")
            #expect(!result.stderr.contains("cachebench"), "\(result.stderr)")
        }
    }

    @Test("policies lists the registered policy after the standard ones; cachebench itself does not know it")
    func listed() throws {
        let listed = try Self.example(["policies", "--format", "csv"])
        #expect(listed.status == 0, "\(listed.stderr)")
        let names = listed.stdout.split(separator: "\n").dropFirst().map { String($0.prefix { $0 != "," }) }
        #expect(names.last == "lip")
        #expect(names.contains("lru") && names.contains("nuke-clock"))
        let standard = try CLI.run(["replay", "Traces/zipf.csv", "--policy", "lip", "--capacity", "10", "--ignore-size"])
        #expect(standard.status == 2)
        #expect(standard.stderr.contains("unknown policy 'lip'"))
    }

    @Test("a hand-worked scan: LIP keeps its hot key where LRU loses it")
    func handWorked() throws {
        // Capacity 2. LIP: A miss [A]; A hit; B miss enters last [A B]; C evicts B [A C]; D evicts C [A D];
        // A hit: 2 hits. LRU: A, A hit, B [B A], C evicts A [C B], D evicts B [D C], A miss: 1 hit.
        let trace = "timestamp,key,size\n" + ["A", "A", "B", "C", "D", "A"].enumerated()
            .map { "\($0.offset),\($0.element),1\n" }.joined()
        let replay = try Self.example(["replay", "-", "--policy", "lip", "--capacity", "2", "--ignore-size",
                                       "--format", "json"], stdin: Data(trace.utf8))
        #expect(replay.status == 0, "\(replay.stderr)")
        let json = try #require(replay.json)
        #expect(json["policy"] as? String == "lip")
        #expect(json["requests"] as? Int == 6)
        #expect(json["hits"] as? Int == 2)
        #expect(json["evictions"] as? Int == 2)

        let compare = try Self.example(["compare", "-", "--policies", "lip,lru", "--capacity", "2", "--ignore-size",
                                         "--format", "json"], stdin: Data(trace.utf8))
        #expect(compare.status == 0, "\(compare.stderr)")
        let results = try #require(compare.json?["results"] as? [[String: Any]])
        #expect(results.map { $0["policy"] as? String } == ["lip", "lru"])
        #expect(results.map { $0["hits"] as? Int } == [2, 1])
    }

    @Test("replay and compare on a bundled trace agree with the reference model at every capacity")
    func bundledTrace() throws {
        let keys = try Self.keys(ofTrace: "Traces/zipf.csv")
        let capacities = [10, 50, 200]
        let expected = capacities.map { Self.referenceHits(keys, capacity: $0) }
        // A capacity under the working set must evict, or the check would not tell LIP from LRU.
        #expect(expected[0] < expected[2])

        for (capacity, hits) in zip(capacities, expected) {
            let replay = try Self.example(["replay", "Traces/zipf.csv", "--policy", "lip", "--capacity", "\(capacity)",
                                           "--ignore-size", "--format", "json"])
            #expect(replay.status == 0, "\(replay.stderr)")
            #expect(replay.json?["requests"] as? Int == keys.count)
            #expect(replay.json?["hits"] as? Int == hits, "replay at \(capacity)")
        }

        let baseline = scratchDirectory.appendingPathComponent("lip-\(UUID().uuidString).json").path
        defer { try? FileManager.default.removeItem(atPath: baseline) }
        let compare = try Self.example(["compare", "Traces/zipf.csv", "--policies", "lip,lru",
                                        "--capacities", capacities.map(String.init).joined(separator: ","),
                                        "--ignore-size", "--format", "json", "--output", baseline])
        #expect(compare.status == 0, "\(compare.stderr)")
        let report = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: baseline))) as? [String: Any]
        let results = try #require(report?["results"] as? [[String: Any]])
        let lip = results.filter { $0["policy"] as? String == "lip" }
        #expect(lip.map { $0["capacity"] as? Int } == capacities)
        #expect(lip.map { $0["hits"] as? Int } == expected)

        // The regression gate reads its own report back: it compares every (policy, capacity) and passes.
        let gate = try Self.example(["compare", "Traces/zipf.csv", "--policies", "lip,lru",
                                     "--capacities", capacities.map(String.init).joined(separator: ","),
                                     "--ignore-size", "--baseline", baseline, "--format", "csv"])
        #expect(gate.status == 0, "\(gate.stderr)")
    }

    @Test("behind an admission rule, on two threads and as either tier, the registered policy runs as a built-in does")
    func everyRunShape() throws {
        let keys = try Self.keys(ofTrace: "Traces/zipf.csv")
        let hits = Self.referenceHits(keys, capacity: 50)
        let base = ["replay", "Traces/zipf.csv", "--ignore-size", "--format", "json"]
        // A size rule that refuses nothing: the same hits as LIP alone, through the admitted run.
        let admitted = try Self.example(base + ["--policy", "lip", "--capacity", "50", "--admission", "size",
                                                "--admission-option", "size=1000000"])
        #expect(admitted.status == 0, "\(admitted.stderr)")
        #expect(admitted.json?["hits"] as? Int == hits)
        #expect((admitted.json?["admission"] as? [String: Any])?["rejected"] as? Int == 0)
        // Two threads interleave requests, so only the totals are fixed.
        let threaded = try Self.example(base + ["--policy", "lip", "--capacity", "50", "--threads", "2"])
        #expect(threaded.status == 0, "\(threaded.stderr)")
        #expect(threaded.json?["requests"] as? Int == keys.count)
        // LIP as the memory tier and as the disk tier.
        for tier in ["memory=lip,disk=lru", "memory=lru,disk=lip"] {
            let tiered = try Self.example(base + ["--tier", tier, "--capacity", "20", "--disk-capacity", "50"])
            #expect(tiered.status == 0, "\(tier): \(tiered.stderr)")
            #expect(tiered.json?["requests"] as? Int == keys.count, "\(tier)")
            let tiers = tiered.json?["tiers"] as? [String: Any]
            #expect(((tiers?["memory"] as? [String: Any])?["policy"] as? String).map { tier.hasPrefix("memory=\($0)") } == true)
        }
    }

    @Test("mrc draws the registered policy's curve, simulated exactly with --sample 1, equal to the reference model")
    func missRatioCurve() throws {
        let keys = try Self.keys(ofTrace: "Traces/zipf.csv")
        let capacities = [10, 50, 200]
        let mrc = try Self.example(["mrc", "Traces/zipf.csv", "--policy", "lip", "--sample", "1",
                                    "--capacities", capacities.map(String.init).joined(separator: ","),
                                    "--ignore-size", "--format", "json"])
        #expect(mrc.status == 0, "\(mrc.stderr)")
        let results = try #require(mrc.json?["results"] as? [[String: Any]])
        #expect(results.map { $0["policy"] as? String } == ["lip", "lip", "lip"])
        #expect(results.map { $0["hits"] as? Int } == capacities.map { Self.referenceHits(keys, capacity: $0) })
    }

    @Test("the usage names the executable that prints it")
    func usageNamesTheExecutable() throws {
        let help = try Self.example(["--help"])
        #expect(help.status == 0)
        #expect(help.stdout.hasPrefix("USAGE: example-policy COMMAND"))
        #expect(help.stdout.contains("Run 'example-policy COMMAND --help'"))
        let replayHelp = try Self.example(["replay", "--help"])
        #expect(replayHelp.stdout.hasPrefix("USAGE: example-policy replay") && !replayHelp.stdout.contains("cachebench"))
        let missing = try Self.example(["replay", "no-such-trace.csv", "--policy", "lip"])
        #expect(missing.status == 66 && missing.stderr.hasPrefix("example-policy: no-such-trace.csv"))
    }
}
