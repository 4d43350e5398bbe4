import Foundation
import Testing

/// The hostile cases of `Scripts/hostile-cases.sh` (issue 14: no data loss, no crash, no hang),
/// each run against the built executable. A case checks the exit code, the message, standard
/// output and the state of every file involved (target untouched, no temporary left); its one
/// output line, on failure, says CRASH, HANG, LOST, WRONG or FAIL and why.
@Suite("Hostile cases: no data loss, no crash, no hang")
struct HostileCaseTests {
    static let script = CLI.root.appendingPathComponent("Scripts/hostile-cases.sh").path

    static func bash(_ arguments: [String]) throws -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["bash", script] + arguments
        var environment = ProcessInfo.processInfo.environment
        environment["CB"] = CLI.executable.path
        environment["HOSTILE_TIMEOUT"] = "60"
        process.environment = environment
        let out = Pipe()
        process.standardOutput = out
        process.standardError = out
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self))
    }

    static let cases: [String] = {
        guard let listed = try? bash(["--list"]), listed.status == 0 else { return ["list-failed"] }
        return listed.output.split(separator: "\n").map(String.init)
    }()

    @Test("each hostile case", arguments: cases)
    func hostile(_ name: String) throws {
        let result = try Self.bash(["--case", name])
        #expect(result.status == 0, "\(name): \(result.output)")
    }

    @Test("the cases cover every item of the issue (at least 55 cases)")
    func coverage() {
        #expect(Self.cases.count >= 55)
    }
}
