import Foundation
import Testing
import TestSupport

@Suite("Compressed traces are read in place")
struct CompressedTraceTests {
    /// `Tests/Fixtures/zstd/og192k-level3.zst` and a gzip of the same bytes are the first 8192
    /// records of the bundled cloudPhysicsIO oracleGeneral trace.
    static func prefix() throws -> String {
        let bytes = try Data(contentsOf: CLI.root.appendingPathComponent("Traces/cloudPhysicsIO.oracleGeneral.bin")).prefix(196_608)
        let url = scratchDirectory.appendingPathComponent("cachebench-og-\(UUID().uuidString).oracleGeneral.bin")
        try bytes.write(to: url)
        return url.path
    }

    @Test("replaying a .zst file, or the same bytes on standard input, equals replaying the uncompressed file")
    func zstdReplay() throws {
        let plain = try Self.prefix()
        defer { try? FileManager.default.removeItem(atPath: plain) }
        let compressed = "Tests/Fixtures/zstd/og192k-level3.zst"
        let options = ["--policy", "lru", "--capacity", "64MB", "--format", "json"]
        let expected = try CLI.run(["replay", plain] + options)
        #expect(expected.status == 0, "\(expected.stderr)")
        let fromFile = try CLI.run(["replay", compressed] + options)
        let stdin = try Data(contentsOf: CLI.root.appendingPathComponent(compressed))
        let fromStdin = try CLI.run(["replay", "-", "--trace-format", "oracle-general"] + options, stdin: stdin)
        for result in [fromFile, fromStdin] {
            #expect(result.status == 0, "\(result.stderr)")
            for key in ["requests", "hits", "misses", "byteHits", "evictions"] {
                #expect(Self.number(result.json, key) != nil && Self.number(result.json, key) == Self.number(expected.json, key), "\(key)")
            }
        }
    }

    /// A numeric field anywhere in a replay report.
    static func number(_ json: [String: Any]?, _ key: String) -> Double? {
        guard let json else { return nil }
        if let value = json[key] as? Double { return value }
        for value in json.values {
            if let nested = value as? [String: Any], let found = number(nested, key) { return found }
        }
        return nil
    }
}
