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

    @Test("commitAll puts back the targets it replaced when a later rename fails")
    func commitAllRollsBack() throws {
        let dir = try folder()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try "old report\n".write(toFile: dir + "/report", atomically: false, encoding: .utf8)
        let files = try ["report", "new-chart", "chart"].map { name in
            let file = try AtomicFile(path: dir + "/" + name)
            try file.write("new " + name)
            return file
        }
        // After the files are open, the last target becomes a folder with a file in it: its
        // rename fails once the first two are already in place.
        try FileManager.default.createDirectory(atPath: dir + "/chart/inside", withIntermediateDirectories: true)
        #expect(throws: OutputError.self) { try AtomicFile.commitAll(files) }
        #expect(try String(contentsOfFile: dir + "/report", encoding: .utf8) == "old report\n")
        #expect(try contents(dir) == ["chart", "report"])
        #expect(try contents(dir + "/chart") == ["inside"])
    }

    @Test("a name for an open descriptor is written through it: a shell's >> keeps its content")
    func openDescriptorInPlace() throws {
        let dir = try folder()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try "kept\n".write(toFile: dir + "/log", atomically: false, encoding: .utf8)
        let descriptor = open(dir + "/log", O_WRONLY | O_APPEND)
        #expect(descriptor >= 0)
        defer { close(descriptor) }
        for spelling in ["/dev/fd/\(descriptor)", "/proc/self/fd/\(descriptor)"] where FileManager.default.fileExists(atPath: spelling) {
            let file = try AtomicFile(path: spelling)
            try file.write("added\n")
            try file.commit()
        }
        let text = try String(contentsOfFile: dir + "/log", encoding: .utf8)
        #expect(text.hasPrefix("kept\nadded\n"), "\(text)")
        #expect(try contents(dir) == ["log"])
    }

    @Test("a dangling link makes the file it names; a name near the 255-byte limit still gets a temporary")
    func danglingLinkAndLongName() throws {
        let dir = try folder()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try FileManager.default.createSymbolicLink(atPath: dir + "/link", withDestinationPath: "made.txt")
        let linked = try AtomicFile(path: dir + "/link")
        try linked.write("through the link")
        try linked.commit()
        #expect(try String(contentsOfFile: dir + "/made.txt", encoding: .utf8) == "through the link")
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: dir + "/link") == "made.txt")
        let long = String(repeating: "b", count: 250)
        let file = try AtomicFile(path: dir + "/" + long)
        try file.write("long")
        try file.commit()
        #expect(try contents(dir) == [long, "link", "made.txt"])
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


    @Test("a loop of links, or a chain of more than 40, is an error (ELOOP): no link is replaced by a file")
    func linkLoops() throws {
        let dir = try folder()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try FileManager.default.createSymbolicLink(atPath: dir + "/a", withDestinationPath: "b")
        try FileManager.default.createSymbolicLink(atPath: dir + "/b", withDestinationPath: "a")
        // A chain of 45 links ending at a file not yet made: the kernel follows at most 40.
        for n in 0..<45 { try FileManager.default.createSymbolicLink(atPath: dir + "/c\(n)", withDestinationPath: "c\(n + 1)") }
        for name in ["a", "b", "c0"] {
            #expect(throws: OutputError(path: dir + "/" + name, errno: ELOOP)) { try AtomicFile(path: dir + "/" + name) }
        }
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: dir + "/a") == "b")
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: dir + "/b") == "a")
        #expect(try contents(dir).count == 47)
        // A chain the kernel follows still writes the file at its end, through every link.
        let file = try AtomicFile(path: dir + "/c20")
        try file.write("end")
        try file.commit()
        #expect(try String(contentsOfFile: dir + "/c45", encoding: .utf8) == "end")
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: dir + "/c44") == "c45")
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
        // A dangling link names the file a write through it would create, relative or absolute.
        try FileManager.default.createSymbolicLink(atPath: dir + "/link.svg", withDestinationPath: "b.svg")
        try FileManager.default.createSymbolicLink(atPath: dir + "/far.svg", withDestinationPath: dir + "/c.svg")
        #expect(AtomicFile.sameFile(dir + "/link.svg", dir + "/b.svg"))
        #expect(AtomicFile.sameFile(dir + "/b.svg", dir + "/link.svg"))
        #expect(AtomicFile.sameFile(dir + "/far.svg", dir + "/c.svg"))
        #expect(!AtomicFile.sameFile(dir + "/link.svg", dir + "/c.svg"))
        #expect(!AtomicFile.sameFile("-", dir + "/t.csv"))
        #expect(AtomicFile.sameFile("-", "-"))
    }
}

@Suite("Trace passes: every pass reads the file the first one opened")
struct TracePassTests {
    /// The keys of every request `spec` reads, from its first byte.
    func keys(_ spec: TraceSpec) throws -> [UInt64] {
        var reader = try spec.open()
        var batch: [Request] = []
        var keys: [UInt64] = []
        while try reader.nextBatch(&batch) { keys += batch.map(\.key) }
        return keys
    }

    @Test("a trace replaced or deleted between passes is still the one read")
    func replacedBetweenPasses() throws {
        let folder = scratchDirectory.appendingPathComponent("cachebench-passes-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = folder + "/t.csv", other = folder + "/u.csv"
        try "timestamp,key,size\n1,1,10\n2,2,10\n3,1,10\n".write(toFile: path, atomically: false, encoding: .utf8)
        try "timestamp,key,size\n1,7,10\n".write(toFile: other, atomically: false, encoding: .utf8)
        let spec = TraceSpec(path: path)
        let first = try keys(spec)
        #expect(first.count == 3)
        // As `mv u.csv t.csv` between the pass that sizes the cache and the replay.
        #expect(rename(other, path) == 0)
        #expect(try keys(spec) == first)
        #expect(unlink(path) == 0)
        #expect(try keys(spec) == first)
        // A copy of the spec shares its input; a new spec opens the name afresh.
        let copy = spec
        #expect(try keys(copy) == first)
        #expect(throws: TraceError.self) { _ = try keys(TraceSpec(path: path)) }
        // A copy given another path (as a sweep fills in a template) reads that path.
        let third = folder + "/v.csv"
        try "timestamp,key,size\n1,9,10\n".write(toFile: third, atomically: false, encoding: .utf8)
        var moved = spec
        moved.path = third
        #expect(try keys(moved) == [9])
    }

    @Test("two passes read one open file at once without moving each other's place")
    func interleavedPasses() throws {
        let folder = scratchDirectory.appendingPathComponent("cachebench-passes-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = folder + "/t.csv"
        // Long enough for several reads of each source.
        var text = "timestamp,key,size\n"
        for i in 0..<200_000 { text += "\(i),\(i % 977),10\n" }
        try text.write(toFile: path, atomically: false, encoding: .utf8)
        let spec = TraceSpec(path: path)
        var a = try spec.open(), b = try spec.open()
        var batchA: [Request] = [], batchB: [Request] = []
        var keysA: [UInt64] = [], keysB: [UInt64] = []
        var moreA = true, moreB = true
        while moreA || moreB {
            if moreA { moreA = try a.nextBatch(&batchA); if moreA { keysA += batchA.map(\.key) } }
            if moreB { moreB = try b.nextBatch(&batchB); if moreB { keysB += batchB.map(\.key) } }
        }
        #expect(keysA.count == 200_000)
        #expect(keysA == keysB)
    }
}
