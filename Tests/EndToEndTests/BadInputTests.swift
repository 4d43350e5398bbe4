import Foundation
import Testing
import TestSupport

/// One malformed input or invocation, what `cachebench` must exit with, and what its message names.
struct BadInput: Sendable, CustomTestStringConvertible {
    enum Trace: Sendable {
        case none
        case text(String)
        case bytes([UInt8])
        case path(String)
    }

    var name: String
    var trace: Trace
    var arguments: [String]
    var exitCode: Int32
    /// A fragment the one-line message must contain (`$TRACE` stands for the trace's path).
    var message: String

    var testDescription: String { name }

    static let header = "timestamp,key,size\n"

    /// The table summarised in the README ("What bad input gives").
    static let all: [BadInput] = [
        BadInput(name: "empty file", trace: .text(""), arguments: [], exitCode: 65, message: "$TRACE: the trace has no rows"),
        BadInput(name: "header only", trace: .text(header), arguments: [], exitCode: 65, message: "$TRACE: the trace has no rows"),
        BadInput(name: "missing columns", trace: .text(header + "1,2,3\n4,5\n"), arguments: [], exitCode: 65,
                 message: "$TRACE:3: expected at least 3 columns, found 2"),
        BadInput(name: "non-numeric size", trace: .text(header + "1,2,big\n"), arguments: [], exitCode: 65,
                 message: "$TRACE:2: size 'big' is not a whole number"),
        BadInput(name: "negative size", trace: .text(header + "1,2,-3\n"), arguments: [], exitCode: 65,
                 message: "$TRACE:2: size -3 is negative"),
        BadInput(name: "signed zero size is not read as negative", trace: .text(header + "1,2,-0\n"), arguments: [], exitCode: 65,
                 message: "$TRACE:2: size '-0' is not a whole number"),
        BadInput(name: "size over 2^53", trace: .text(header + "1,2,9007199254740993\n"), arguments: [], exitCode: 65,
                 message: "$TRACE:2: size exceeds 2^53"),
        BadInput(name: "empty key", trace: .text(header + "1,,3\n"), arguments: [], exitCode: 65, message: "$TRACE:2: empty key"),
        BadInput(name: "unknown op", trace: .text("timestamp,key,size,op\n1,2,3,evict\n"), arguments: [], exitCode: 65,
                 message: "$TRACE:2: unknown operation 'evict'"),
        BadInput(name: "CRLF line endings are accepted", trace: .text("timestamp,key,size\r\n1,2,3\r\n2,2,3\r\n"),
                 arguments: [], exitCode: 0, message: ""),
        BadInput(name: "last line without newline is accepted", trace: .text(header + "1,2,3\n2,2,3"), arguments: [],
                 exitCode: 0, message: ""),
        BadInput(name: "NUL byte", trace: .bytes(Array((header + "1,2").utf8) + [0] + Array(",3\n".utf8)), arguments: [],
                 exitCode: 65, message: "$TRACE:2: NUL byte"),
        BadInput(name: "invalid UTF-8", trace: .bytes(Array((header + "1,k").utf8) + [0xFF, 0xFE] + Array(",3\n".utf8)),
                 arguments: [], exitCode: 65, message: "$TRACE:2: key is not valid UTF-8"),
        BadInput(name: "1 MB line", trace: .text(header + "1," + String(repeating: "k", count: 1_000_000) + ",3\n"),
                 arguments: [], exitCode: 65, message: "$TRACE:2: line is longer than 65536 bytes"),
        BadInput(name: "truncated binary record", trace: .bytes([UInt8](repeating: 1, count: 24 * 3 + 10)),
                 arguments: ["--trace-format", "oracle-general"], exitCode: 65, message: "$TRACE: byte 72: truncated record"),
        BadInput(name: "binary file read as CSV", trace: .bytes([5, 0, 0, 0, 7, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 255, 255, 255, 255, 255, 255, 255, 255, 10]),
                 arguments: ["--trace-format", "csv"], exitCode: 65, message: "$TRACE: byte 0: read as CSV text as asked, but the content is oracleGeneral binary"),
        BadInput(name: "nonexistent path", trace: .path("/nonexistent/trace.csv"), arguments: [], exitCode: 66,
                 message: "/nonexistent/trace.csv: cannot open"),
        BadInput(name: "a directory", trace: .path("/tmp"), arguments: [], exitCode: 66, message: "/tmp: cannot open: is a directory"),
        // Reading /proc/self/mem from offset 0 fails with EIO even for root, unlike a chmod 000 file.
        BadInput(name: "unreadable file", trace: .path("/proc/self/mem"), arguments: ["--trace-format", "csv"], exitCode: 66,
                 message: "/proc/self/mem: read failed"),
        BadInput(name: "conflicting options", trace: .text(header + "1,2,3\n"),
                 arguments: ["--trace-format", "oracle-general", "--columns", "key=2"], exitCode: 2,
                 message: "--columns and --header apply to CSV traces"),
        BadInput(name: "unknown policy", trace: .text(header + "1,2,3\n"), arguments: ["--policy", "belady-plus"],
                 exitCode: 2, message: "unknown policy 'belady-plus'"),
        BadInput(name: "capacity 0", trace: .text(header + "1,2,3\n"), arguments: ["--capacity", "0"], exitCode: 2,
                 message: "--capacity 0: must be greater than 0"),
        BadInput(name: "capacity with a bad suffix", trace: .text(header + "1,2,3\n"), arguments: ["--capacity", "64MiBs"],
                 exitCode: 2, message: "--capacity 64MiBs: unknown size suffix 'mibs'"),
        BadInput(name: "--columns out of range", trace: .text(header + "1,2,3\n"), arguments: ["--columns", "key=9"],
                 exitCode: 65, message: "$TRACE:2: expected at least 9 columns, found 3"),
        BadInput(name: "--columns malformed", trace: .text(header + "1,2,3\n"), arguments: ["--columns", "key=0"],
                 exitCode: 2, message: "--columns key=0: column for key must be a whole number from 1 to 4096"),
        BadInput(name: "unknown --option key", trace: .text(header + "1,2,3\n"), arguments: ["--option", "colour=red"],
                 exitCode: 2, message: "--option colour: unknown option for policy lru"),
        BadInput(name: "an --option refused under libCacheSim's name is named as given",
                 trace: .text(header + "1,2,3\n"), arguments: ["--policy", "s3fifo", "--option", "fifo-size-ratio=NaN"],
                 exitCode: 2, message: "--option fifo-size-ratio=NaN: expected"),
        BadInput(name: "an empty option value", trace: .text(header + "1,2,3\n"), arguments: ["--columns", ""],
                 exitCode: 2, message: "--columns needs a value, not an empty one"),
        BadInput(name: "libCacheSim's txt format name reads its text (an object per line)",
                 trace: .text("42932745\n42932746\n42932745\n"),
                 arguments: ["--trace-format", "txt", "--ignore-size"], exitCode: 0, message: ""),
        BadInput(name: "an option whose value was left out, before another option", trace: .text(header + "1,2,3\n"),
                 arguments: ["--policy", "--capacity", "10"], exitCode: 2, message: "--policy needs a value (--capacity is an option)"),
        BadInput(name: "an option whose value was left out, before a flag given as --flag=", trace: .text(header + "1,2,3\n"),
                 arguments: ["--format", "--capacity=10"], exitCode: 2, message: "--format needs a value (--capacity is an option)"),
        BadInput(name: "--option without =", trace: .text(header + "1,2,3\n"), arguments: ["--option", "colour"],
                 exitCode: 2, message: "--option colour: expected KEY=VALUE"),
        BadInput(name: "an offline policy on several threads", trace: .text(header + "1,2,3\n"),
                 arguments: ["--policy", "beladysize", "--threads", "2"], exitCode: 2,
                 message: "--threads: beladysize needs the future in the trace's order"),
        BadInput(name: "unknown flag", trace: .text(header + "1,2,3\n"), arguments: ["--fast"], exitCode: 2,
                 message: "unknown option --fast"),
        BadInput(name: "--format unknown", trace: .text(header + "1,2,3\n"), arguments: ["--format", "yaml"], exitCode: 2,
                 message: "--format yaml: expected one of table, json, csv, markdown"),
        // Compressed traces (content-detected whatever the name): the compressed byte offset at fault.
        BadInput(name: "zstd frame header cut short", trace: .bytes([0x28, 0xB5, 0x2F, 0xFD, 0x20]), arguments: [],
                 exitCode: 65, message: "$TRACE: byte 5: zstd: truncated frame header"),
        BadInput(name: "zstd content checksum wrong",
                 trace: .bytes([0x28, 0xB5, 0x2F, 0xFD, 0x24, 0x03, 0x19, 0x00, 0x00] + Array("abc".utf8) + [1, 2, 3, 4]),
                 arguments: [], exitCode: 65, message: "$TRACE: byte 12: zstd: content checksum 0x04030201 does not match"),
        BadInput(name: "gzip member cut short", trace: .bytes([0x1F, 0x8B, 8, 0, 0, 0, 0, 0, 0, 3, 0x4B]), arguments: [],
                 exitCode: 65, message: "$TRACE: byte 11: gzip: truncated"),
        BadInput(name: "gzip header cut short names the first member", trace: .bytes([0x1F, 0x8B, 8]), arguments: [],
                 exitCode: 65, message: "gzip: truncated: the input ends inside member 1"),
        BadInput(name: "vscsi cut before its version shows, asked for", trace: .bytes([UInt8](repeating: 7, count: 48)),
                 arguments: ["--trace-format", "vscsi"], exitCode: 65,
                 message: "$TRACE: byte 48: truncated: 48 bytes, fewer than the 80 a vscsi trace needs"),
        BadInput(name: "a sampled capacity below the policy's minimum, named as given",
                 trace: .text(header + (0..<400).map { "\($0),\($0 % 97),1\n" }.joined()),
                 arguments: ["--policy", "lirs", "--capacity", "100", "--sample", "0.01"], exitCode: 2,
                 message: "--capacity 100 with --sample 0.01 is 1 for the sampled cache: must be at least 3"),
        BadInput(name: "a sampled option value the policy refuses, named as given",
                 trace: .text(header + (0..<400).map { "\($0),\($0 % 97),1\n" }.joined()),
                 arguments: ["--policy", "car", "--capacity", "1000", "--option", "p=3000", "--sample", "0.5"], exitCode: 2,
                 message: "--option p=3000 with --sample 0.5 is 1500 for the sampled cache: expected a value between 0 and 500"),
        BadInput(name: "xz-compressed trace", trace: .bytes([0xFD, 0x37, 0x7A, 0x58, 0x5A, 0x00, 0, 4, 0xE6, 0xD6, 0xB4, 0x46]), arguments: [],
                 exitCode: 65, message: "$TRACE: byte 0: compressed (xz) trace: not supported; decompress it first"),
    ]
}

@Suite("Bad input: clear errors, the contract's exit codes, nothing half-written")
struct BadInputTests {
    @Test("each malformed input or invocation", arguments: BadInput.all)
    func badInput(_ input: BadInput) throws {
        var path: String
        var cleanup: String?
        switch input.trace {
        case .none: path = "-"
        case .path(let given): path = given
        case .text(let text):
            path = try Self.write(Data(text.utf8))
            cleanup = path
        case .bytes(let bytes):
            path = try Self.write(Data(bytes))
            cleanup = path
        }
        defer { if let cleanup { try? FileManager.default.removeItem(atPath: cleanup) } }
        let output = scratchDirectory.appendingPathComponent("cachebench-out-\(UUID().uuidString).json").path
        defer { try? FileManager.default.removeItem(atPath: output) }

        var arguments = ["replay", path]
        if !input.arguments.contains("--policy") { arguments += ["--policy", "lru"] }
        if !input.arguments.contains("--capacity") { arguments += ["--capacity", "100"] }
        arguments += input.arguments + ["--format", "json", "--output", output]
        if input.arguments.contains("--format") { arguments = ["replay", path, "--policy", "lru", "--capacity", "100"] + input.arguments }

        let result = try CLI.run(arguments)
        #expect(result.status == input.exitCode, "\(result.stderr)")
        #expect(result.stdout.isEmpty, "nothing on standard output")
        if input.exitCode == 0 {
            #expect(FileManager.default.fileExists(atPath: output))
            return
        }
        let lines = result.stderr.split(separator: "\n")
        #expect(lines.count == 1, "one line: \(result.stderr)")
        let expected = input.message.replacingOccurrences(of: "$TRACE", with: path)
        #expect(result.stderr.contains(expected), "\(result.stderr) should contain \(expected)")
        #expect(!FileManager.default.fileExists(atPath: output), "no --output file after a failure")
    }

    @Test("the table covers at least 25 cases")
    func coverage() {
        #expect(BadInput.all.count >= 25)
    }

    static func write(_ data: Data) throws -> String {
        let url = scratchDirectory.appendingPathComponent("cachebench-bad-\(UUID().uuidString).csv")
        try data.write(to: url)
        return url.path
    }
}
