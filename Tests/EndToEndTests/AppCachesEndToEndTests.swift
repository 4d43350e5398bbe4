import Foundation
import Testing
import TestSupport

@Suite("end to end: the app caches of issue 8 and --tier from the command line")
struct AppCachesEndToEndTests {
    func json(_ text: String) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
    }

    @Test("every new model replays the image feed and lists its parameters")
    func models() throws {
        for policy in ["sd-memory", "sd-disk", "pin-memory", "kingfisher", "nuke-lru", "nuke-clock", "yy-disk"] {
            let result = try Command.run(["replay", "Traces/image-feed.csv", "--policy", policy, "--capacity", "200MiB",
                                          "--format", "json"])
            #expect(result.status == 0, "\(policy): \(result.err)")
            let object = try json(result.out)
            #expect(object["requests"] as? Int == 100_000, "\(policy)")
            #expect(object["policyMetrics"] is [String: Any], "\(policy)")
        }
        let list = try Command.run(["policies"])
        for line in ["yy-disk", "--option inline-threshold=20480", "sd-memory", "--option held-window=20", "[APPROXIMATION]"] {
            #expect(list.out.contains(line), "missing \(line)")
        }
    }

    @Test("replay --tier prints memory and disk hits apart, in JSON and in the table")
    func tier() throws {
        let arguments = ["replay", "Traces/image-feed.csv", "--tier", "memory=yy-lru,disk=yy-disk", "--capacity", "100MiB",
                         "--disk-capacity", "1GiB", "--disk-option", "age-limit=3600", "--tier-promote-cost", "zero"]
        let result = try Command.run(arguments + ["--format", "json"])
        #expect(result.status == 0, "\(result.err)")
        let object = try json(result.out)
        let tiers = try #require(object["tiers"] as? [String: Any])
        let memory = try #require(tiers["memory"] as? [String: Any]), disk = try #require(tiers["disk"] as? [String: Any])
        #expect(object["policy"] as? String == "memory=yy-lru,disk=yy-disk")
        #expect(tiers["memoryCost"] as? String == "zero")
        #expect(disk["capacity"] as? Int == 1 << 30 && disk["policy"] as? String == "yy-disk")
        let memoryHits = try #require(memory["hits"] as? Int), diskHits = try #require(disk["hits"] as? Int)
        #expect(object["hits"] as? Int == memoryHits + diskHits && diskHits > 0)
        let metrics = try #require(disk["policyMetrics"] as? [String: Any])
        #expect(metrics["fileEntries"] is Int)
        let table = try Command.run(arguments)
        for line in ["memory tier", "disk tier", "yy-disk, 1 GiB", "memory copies cost  zero"] {
            #expect(table.out.contains(line), "missing '\(line)' in:\n\(table.out)")
        }
    }

    /// A fraction given for the memory tier is the memory tier's: the disk tier keeps its own
    /// default (10 % of the working set), or takes a fraction of its own.
    @Test("replay --tier: --capacity's fraction is the memory tier's; --disk-capacity takes fractions too")
    func tierFractions() throws {
        func capacities(_ extra: [String]) throws -> (memory: Int?, memorySource: String?, disk: Int?, diskSource: String?) {
            let result = try Command.run(["replay", "Traces/zipf.csv", "--tier", "memory=lru,disk=lru", "--format", "json"] + extra)
            #expect(result.status == 0, "\(result.err)")
            let tiers = try #require(try json(result.out)["tiers"] as? [String: Any])
            let memory = try #require(tiers["memory"] as? [String: Any]), disk = try #require(tiers["disk"] as? [String: Any])
            return (memory["capacity"] as? Int, memory["capacitySource"] as? String, disk["capacity"] as? Int, disk["capacitySource"] as? String)
        }
        let absolute = try capacities(["--capacity", "1MiB"])
        let workingSet = try #require(absolute.disk) * 10
        #expect(absolute.diskSource == "working-set-10%")
        let half = try capacities(["--capacity", "0.5"])
        #expect(half.memorySource == "working-set-fraction" && half.disk == absolute.disk && half.diskSource == "working-set-10%", "\(half)")
        let both = try capacities(["--capacity", "1MiB", "--disk-capacity", "30%"])
        #expect(both.memory == 1 << 20 && both.diskSource == "working-set-fraction", "\(both)")
        #expect(abs((both.disk ?? 0) - workingSet * 3 / 10) <= 10, "\(both) of \(workingSet)")
    }

    @Test("--tier usage errors exit 2 with a message")
    func usage() throws {
        let cases: [[String]] = [
            ["--tier", "memory=yy-lru"],
            ["--tier", "memory=yy-lru,disk=yy-disk", "--policy", "lru"],
            ["--policy", "lru", "--disk-capacity", "1GiB"],
            ["--tier", "memory=yy-lru,disk=nope"],
            ["--tier", "memory=yy-lru,disk=yy-disk", "--tier-promote-cost", "half"],
            ["--tier", "memory=yy-lru,disk=yy-disk", "--disk-option", "colour=blue"],
            ["--tier", "memory=yy-lru,disk=yy-disk", "--threads", "2"],
        ]
        for extra in cases {
            let result = try Command.run(["replay", "Traces/image-feed.csv", "--capacity", "10MiB"] + extra)
            #expect(result.status == 2, "\(extra): \(result.status) \(result.err)")
            #expect(!result.err.isEmpty && result.out.isEmpty, "\(extra)")
        }
        // The disk tier's own limit is named by its own flag, not the memory tier's.
        let diskCount = try Command.run(["replay", "Traces/image-feed.csv", "--tier", "memory=yy-lru,disk=yy-disk",
                                         "--disk-count-limit", "0"])
        #expect(diskCount.status == 2 && diskCount.err.contains("--disk-count-limit 0: must be greater than 0"), "\(diskCount.err)")
        // What the disk tier's policy refuses is named by the disk tier's flags.
        let refusals: [([String], String)] = [
            (["--tier", "memory=lru,disk=s3fifo", "--disk-capacity", "1MiB", "--disk-count-limit", "5"],
             "--disk-count-limit: policy s3fifo has no count limit"),
            (["--tier", "memory=lru,disk=clock", "--disk-capacity", "1MiB", "--disk-option", "bits=99"], "--disk-option bits=99: expected"),
            (["--tier", "memory=lru,disk=clock", "--disk-capacity", "1MiB", "--disk-option", "colour=red"],
             "--disk-option colour: unknown option for policy clock"),
        ]
        for (extra, message) in refusals {
            let result = try Command.run(["replay", "Traces/image-feed.csv", "--capacity", "10MiB"] + extra)
            #expect(result.status == 2 && result.err.contains(message), "\(extra): \(result.err)")
        }
    }

    /// SDWebImage's disk `block-size` rounds sizes up to whole blocks. With `--ignore-size` every
    /// size is 1, so a block size given then is a contradiction: refused, whichever command and
    /// tier it reaches, by its own flag; without it, or at its default, the run goes ahead.
    @Test("a parameter that works on sizes (sd-disk's block-size, yy-disk's inline-threshold) is refused with --ignore-size, in every command and tier")
    func sizeParameterWithSizesIgnored() throws {
        let refused: [([String], String)] = [
            (["replay", "Traces/image-feed.csv", "--policy", "sd-disk", "--capacity", "100", "--ignore-size", "--option", "block-size=4096"],
             "--option block-size=4096"),
            (["compare", "Traces/image-feed.csv", "--policies", "lru,sd-disk", "--capacities", "100", "--ignore-size",
              "--option", "block-size=4096"], "block-size=4096"),
            (["replay", "Traces/image-feed.csv", "--tier", "memory=lru,disk=sd-disk", "--capacity", "10", "--disk-capacity", "100",
              "--ignore-size", "--disk-option", "block-size=4096"], "--disk-option block-size=4096"),
            // YYDiskCache's inline threshold compares a value's length in bytes.
            (["replay", "Traces/image-feed.csv", "--policy", "yy-disk", "--capacity", "100", "--ignore-size", "--option", "inline-threshold=0"],
             "--option inline-threshold=0"),
        ]
        for (arguments, message) in refused {
            let result = try Command.run(arguments)
            #expect(result.status == 2 && result.out.isEmpty && result.err.contains(message), "\(arguments): \(result.status) \(result.err)")
            #expect(result.err.contains("sizes are ignored"), "\(arguments): \(result.err)")
        }
        for arguments in [["replay", "Traces/image-feed.csv", "--policy", "sd-disk", "--capacity", "1MiB", "--option", "block-size=4096"],
                          ["replay", "Traces/image-feed.csv", "--policy", "sd-disk", "--capacity", "100", "--ignore-size"]] {
            let result = try Command.run(arguments)
            #expect(result.status == 0, "\(arguments): \(result.err)")
        }
    }

    /// Replays `rows` (a CSV with a header) and returns (requests, hits) from the JSON report.
    func replayCounts(_ rows: String, _ arguments: [String]) throws -> (requests: Int?, hits: Int?) {
        let path = scratchDirectory.appendingPathComponent("cachebench-vector-\(UUID().uuidString).csv")
        try Data(("timestamp,key,size,op\n" + rows).utf8).write(to: path)
        defer { try? FileManager.default.removeItem(at: path) }
        let result = try Command.run(["replay", path.path, "--capacity", "1000", "--format", "json"] + arguments)
        #expect(result.status == 0, "\(result.err)")
        let report = try json(result.out)
        return (report["requests"] as? Int, report["hits"] as? Int)
    }

    @Test("library vectors through the command line: YYMemoryCache's Y1 and Nuke's NK1 tell LRU from FIFO and CLOCK")
    func libraryVectors() throws {
        // Y1, then a probe: countLimit 2; set a, set b, get a, set c evicts b (a was used), so the
        // gets of a hit and b misses. FIFO would evict a instead.
        let y1 = "0,a,1,set\n0,b,1,set\n0,a,1,get\n0,c,1,set\n0,a,1,get\n0,b,1,get\n"
        #expect(try replayCounts(y1, ["--policy", "yy-lru", "--count-limit", "2"]) == (3, 2))
        #expect(try replayCounts(y1, ["--policy", "fifo", "--count-limit", "2"]) == (3, 1))
        // NK1, then probes: countLimit 3; set a, b, c, get each, set d. LRU evicts a, so each
        // probe of a, b, c misses in turn (a miss inserts and evicts the next); CLOCK finds every
        // entry referenced, sweeps once and takes d, so a, b and c hit and d misses.
        let nk1 = "0,a,1,set\n0,b,1,set\n0,c,1,set\n0,a,1,get\n0,b,1,get\n0,c,1,get\n0,d,1,set\n"
            + "0,a,1,get\n0,b,1,get\n0,c,1,get\n0,d,1,get\n"
        #expect(try replayCounts(nk1, ["--policy", "nuke-lru", "--count-limit", "3"]) == (7, 3))
        #expect(try replayCounts(nk1, ["--policy", "nuke-clock", "--count-limit", "3"]) == (7, 6))
    }

    @Test("a terminate row reaches the policies: sd-disk cleans up synchronously")
    func terminate() throws {
        let path = scratchDirectory.appendingPathComponent("cachebench-terminate-\(UUID().uuidString).csv")
        try Data("timestamp,key,size,op\n0,1,600,get\n1,2,600,get\n2,,,terminate\n".utf8).write(to: path)
        defer { try? FileManager.default.removeItem(at: path) }
        let result = try Command.run(["replay", path.path, "--policy", "sd-disk", "--capacity", "1000", "--format", "json"])
        #expect(result.status == 0, "\(result.err)")
        let trim = try #require(try json(result.out)["trim"] as? [String: Any])
        let caller = try #require(trim["caller"] as? [String: Any])
        #expect(caller["count"] as? Int == 1)
        #expect(try json(result.out)["evictions"] as? Int == 2)
    }
}

@Suite("end to end: compare --tier")
struct CompareTierEndToEndTests {
    @Test("compare --tier without --policies, in JSON, with the regression gate keyed by the pair's name")
    func compareTier() throws {
        let arguments = ["compare", "Traces/image-feed.csv", "--tier", "memory=yy-lru,disk=yy-disk", "--tier",
                         "memory=nuke-clock,disk=sd-disk", "--capacities", "50MiB,100MiB", "--disk-capacity", "1GiB"]
        let result = try Command.run(arguments + ["--format", "json"])
        #expect(result.status == 0, "\(result.err)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(result.out.utf8)) as? [String: Any])
        let results = try #require(object["results"] as? [[String: Any]])
        #expect(results.map { $0["policy"] as? String ?? "" } == ["memory=yy-lru,disk=yy-disk", "memory=yy-lru,disk=yy-disk",
                                                                 "memory=nuke-clock,disk=sd-disk", "memory=nuke-clock,disk=sd-disk"])
        #expect(results.allSatisfy { ($0["tiers"] as? [String: Any])?["disk"] != nil })
        let baseline = scratchDirectory.appendingPathComponent("cachebench-tier-baseline-\(UUID().uuidString).json")
        try Data(result.out.utf8).write(to: baseline)
        defer { try? FileManager.default.removeItem(at: baseline) }
        let gated = try Command.run(arguments + ["--baseline", baseline.path])
        #expect(gated.status == 0, "\(gated.err)")
        let twice = try Command.run(["compare", "Traces/image-feed.csv", "--tier", "memory=yy-lru,disk=yy-disk",
                                     "--tier", "memory=yy-lru,disk=yy-disk", "--capacity", "1MiB"])
        #expect(twice.status == 2 && twice.err.contains("twice"))
        let noDisk = try Command.run(["compare", "Traces/image-feed.csv", "--policies", "lru", "--disk-capacity", "1GiB"])
        #expect(noDisk.status == 2)
    }
}
