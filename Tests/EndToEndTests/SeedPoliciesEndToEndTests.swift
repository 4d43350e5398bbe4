import Foundation
import Testing

/// Runs the built `cachebench` executable, as a user or a script would.
enum Command {
    static let repository = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// The executable beside the test bundle (`swift test` builds it), or under .build/debug.
    static var executable: URL? {
        let candidates = [
            URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("cachebench"),
            Bundle.main.bundleURL.deletingLastPathComponent().appendingPathComponent("cachebench"),
            repository.appendingPathComponent(".build/debug/cachebench"),
        ]
        return candidates.first { FileManager.default.isExecutableFile(atPath: $0.path) }
    }

    /// Runs `cachebench arguments` in the repository; returns the exit code and both streams.
    static func run(_ arguments: [String]) throws -> (status: Int32, out: String, err: String) {
        let executable = try #require(Self.executable, "the cachebench executable was not built")
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        process.currentDirectoryURL = repository
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        let outData = out.fileHandleForReading.readDataToEndOfFile()
        let errData = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: outData, as: UTF8.self), String(decoding: errData, as: UTF8.self))
    }
}

@Suite("end to end: the seed library models from the command line")
struct SeedPoliciesEndToEndTests {
    @Test("replay Traces/image-feed.csv --policy yy-lru prints hit ratios and caller/deferred trims")
    func replayYY() throws {
        let result = try Command.run(["replay", "Traces/image-feed.csv", "--policy", "yy-lru"])
        #expect(result.status == 0, "\(result.err)")
        for line in ["policy          yy-lru", "(working-set-10%)", "requests        100000 (", "hit ratio", "byte hit ratio",
                     "other rows      0 sets, 0 deletes, 8 events", "trim latency", "  caller        8 passes", "  deferred"] {
            #expect(result.out.contains(line), "missing '\(line)' in:\n\(result.out)")
        }
    }

    @Test("af-lru uses the library's 100 MiB and reports its purges as deferred")
    func replayAFJSON() throws {
        let result = try Command.run(["replay", "Traces/image-feed.csv", "--policy", "af-lru", "--format", "json"])
        #expect(result.status == 0, "\(result.err)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(result.out.utf8)) as? [String: Any])
        #expect(object["capacity"] as? Int == 104_857_600)
        #expect(object["capacitySource"] as? String == "library-default")
        let trim = try #require(object["trim"] as? [String: Any])
        let deferred = try #require(trim["deferred"] as? [String: Any])
        let caller = try #require(trim["caller"] as? [String: Any])
        #expect((deferred["count"] as? Int ?? 0) > 100)
        #expect(caller["count"] as? Int == 5, "one removeAllImages per memory warning; backgrounds do nothing")
    }

    @Test("afi-lru rejects a preferred size above its capacity with exit 2")
    func afiPrecondition() throws {
        let result = try Command.run(["replay", "Traces/image-feed.csv", "--policy", "afi-lru", "--option", "preferred=1.5"])
        #expect(result.status == 2)
        #expect(result.err.contains("preferred"))
    }

    @Test("policies lists every seed model; nscache-darwin is marked an approximation")
    func policies() throws {
        let result = try Command.run(["policies"])
        #expect(result.status == 0)
        for name in ["nscache", "foundation-nscache", "nscache-darwin", "af-lru", "afi-lru", "yy-lru"] {
            #expect(result.out.contains("\n\(name) ") || result.out.hasPrefix("\(name) "), "\(name) missing")
        }
        #expect(result.out.contains("[APPROXIMATION]"))
    }

    @Test("generate image-feed writes a replayable CSV")
    func generate() throws {
        let result = try Command.run(["generate", "image-feed", "--seed", "3", "--requests", "25"])
        #expect(result.status == 0, "\(result.err)")
        let lines = result.out.split(separator: "\n")
        #expect(lines.first == "timestamp,key,size,op")
        #expect(lines.filter { $0.hasSuffix(",get") }.count == 25)
        #expect(try Command.run(["generate", "scan-of-doom"]).status == 2)
        // A kind in any case, as policy names: the same trace.
        #expect(try Command.run(["generate", "IMAGE-FEED", "--seed", "3", "--requests", "25"]).out == result.out)
    }
}
