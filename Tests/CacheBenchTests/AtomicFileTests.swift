@testable import CacheBench
import Foundation
import Testing
import TestSupport

@Suite("AtomicFile: every output is written whole or not at all")
struct AtomicFileTests {
    /// A fresh folder, removed by the caller.
    func folder() throws -> String {
        let path = scratchDirectory.appendingPathComponent("cachebench-atomic-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    func contents(_ folder: String) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: folder).sorted()
    }

    @Test("a committed file replaces the target and leaves no temporary")
    func commitReplaces() throws {
        let dir = try folder()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let target = dir + "/out.txt"
        try "old\n".write(toFile: target, atomically: false, encoding: .utf8)
        let file = try AtomicFile(path: target)
        try file.write("new ")
        try file.write(Array(repeating: UInt8(ascii: "x"), count: 3 << 20))
        // Until the commit, the target is the old file.
        #expect(try String(contentsOfFile: target, encoding: .utf8) == "old\n")
        try file.commit()
        let data = try Data(contentsOf: URL(fileURLWithPath: target))
        #expect(data.count == 4 + (3 << 20))
        #expect(try contents(dir) == ["out.txt"])
    }

    @Test("a write failure after any number of bytes leaves the target as it was", arguments: [0, 1, 4095, 1 << 20, (1 << 20) + 7])
    func failureKeepsTarget(failAfter: Int) throws {
        let dir = try folder()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let target = dir + "/out.bin"
        try "precious\n".write(toFile: target, atomically: false, encoding: .utf8)
        let file = try AtomicFile(path: target, faultAfterBytes: failAfter)
        var caught: OutputError?
        do throws(OutputError) {
            for _ in 0..<5 { try file.write(Array(repeating: UInt8(7), count: 600_000)) }
            try file.commit()
        } catch { caught = error }
        #expect(caught?.description == "\(target): cannot write: \(String(cString: strerror(ENOSPC)))")
        #expect(try String(contentsOfFile: target, encoding: .utf8) == "precious\n")
        #expect(try contents(dir) == ["out.bin"])
    }

    @Test("an uncommitted file is discarded")
    func dropDiscards() throws {
        let dir = try folder()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        do {
            let file = try AtomicFile(path: dir + "/never.txt")
            try file.write("partial")
        }
        #expect(try contents(dir) == [])
    }

    @Test("commitAll renames nothing when one file fails")
    func commitAllIsAllOrNothing() throws {
        let dir = try folder()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try "a\n".write(toFile: dir + "/a", atomically: false, encoding: .utf8)
        let first = try AtomicFile(path: dir + "/a")
        try first.write("first")
        let second = try AtomicFile(path: dir + "/b", faultAfterBytes: 2)
        try second.write("sec") // buffered: fails on the flush in commitAll
        #expect(throws: OutputError.self) { try AtomicFile.commitAll([first, second]) }
        #expect(try String(contentsOfFile: dir + "/a", encoding: .utf8) == "a\n")
        #expect(try contents(dir) == ["a"])
    }

    @Test("a missing folder or a folder as target is an error naming the path")
    func unwritableTargets() throws {
        let dir = try folder()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        #expect(throws: OutputError(path: dir + "/no/x.svg", errno: ENOENT)) { try AtomicFile(path: dir + "/no/x.svg") }
        #expect(throws: OutputError(path: dir, reason: "is a directory")) { try AtomicFile(path: dir) }
    }

    @Test("a symbolic link is followed: the file it names is replaced, the link kept")
    func symlinkFollowed() throws {
        let dir = try folder()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try "old".write(toFile: dir + "/real", atomically: false, encoding: .utf8)
        try FileManager.default.createSymbolicLink(atPath: dir + "/link", withDestinationPath: dir + "/real")
        let file = try AtomicFile(path: dir + "/link")
        try file.write("new")
        try file.commit()
        #expect(try String(contentsOfFile: dir + "/real", encoding: .utf8) == "new")
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: dir + "/link") == dir + "/real")
    }

    @Test("a device is written in place, never replaced")
    func deviceInPlace() throws {
        let file = try AtomicFile(path: "/dev/null")
        try file.write("discarded")
        try file.commit()
        var info = stat()
        #expect(stat("/dev/null", &info) == 0 && (info.st_mode & S_IFMT) == S_IFCHR)
    }

    @Test("sameFile sees through spellings and links")
    func sameFile() throws {
        let dir = try folder()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try "x".write(toFile: dir + "/t.csv", atomically: false, encoding: .utf8)
        try FileManager.default.createSymbolicLink(atPath: dir + "/l.csv", withDestinationPath: dir + "/t.csv")
        #expect(AtomicFile.sameFile(dir + "/t.csv", dir + "/./t.csv"))
        #expect(AtomicFile.sameFile(dir + "/t.csv", dir + "/l.csv"))
        #expect(AtomicFile.sameFile(dir + "/new.svg", dir + "/../" + (dir as NSString).lastPathComponent + "/new.svg"))
        #expect(!AtomicFile.sameFile(dir + "/t.csv", dir + "/u.csv"))
        #expect(!AtomicFile.sameFile("-", dir + "/t.csv"))
        #expect(AtomicFile.sameFile("-", "-"))
    }
}
