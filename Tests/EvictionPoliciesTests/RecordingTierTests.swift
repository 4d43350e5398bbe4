@testable import EvictionPolicies
import Foundation
import TestSupport
import Testing

/// The disk and tiered recorders: every call through them, synchronous or `async`, becomes the
/// row the replay reads, and `removeAll` becomes a delete of each key stored, as the replay needs.
@Suite("RecordingDiskCache and RecordingTieredCache")
struct RecordingTierTests {
    /// The (key, op) of each row of the trace at `url`, after its header; keyless rows have an
    /// empty key.
    func rows(_ url: URL) throws -> [String] {
        try String(contentsOf: url, encoding: .utf8).split(separator: "\n").dropFirst().map { line in
            let fields = line.split(separator: ",", omittingEmptySubsequences: false)
            return "\(fields[1]) \(fields[3])"
        }
    }

    func scratch(_ name: String) -> URL {
        scratchDirectory.appendingPathComponent("\(name)-\(UUID().uuidString)")
    }

    @Test("a disk cache's reads, writes, removals and removeAll, synchronous and async, are the trace's rows")
    func disk() async throws {
        let (folder, trace) = (scratch("recorded-disk"), scratch("recorded-disk.csv"))
        defer { for url in [folder, trace] { try? FileManager.default.removeItem(at: url) } }
        let recorder = try TraceRecorder(url: trace)
        let disk = RecordingDiskCache(try DiskCache(directory: folder), recorder: recorder)
        // The synchronous forms (in an async function, Swift picks the async overloads).
        func synchronousSteps() throws {
            try disk.setData(Data(count: 10), forKey: "a")
            #expect(try disk.data(forKey: "a")?.count == 10)
            #expect(try disk.data(forKey: "b") == nil)
            try disk.setData(Data(count: 20), forKey: "b")
            try disk.removeData(forKey: "a")
        }
        try synchronousSteps()
        try await disk.setData(Data(count: 30), forKey: "c")
        #expect(try await disk.data(forKey: "c")?.count == 30)
        try await disk.removeAll()
        #expect(disk.base.count == 0 && disk.base.totalSize == 0)
        try await disk.removeData(forKey: "c")
        try recorder.finish()
        let written = try rows(trace)
        #expect(written == ["a set", "a get", "b get", "a delete", "c set", "c get", "b delete", "c delete", "c delete"], "\(written)")
    }

    @Test("a set that is stored but then throws (its folder not flushed) is recorded before the error")
    func storedSetThatThrows() throws {
        let (folder, trace) = (scratch("recorded-flush"), scratch("recorded-flush.csv"))
        defer { for url in [folder, trace] { try? FileManager.default.removeItem(at: url) } }
        let recorder = try TraceRecorder(url: trace)
        let base = try DiskCache(directory: folder)
        let disk = RecordingDiskCache(base, recorder: recorder)
        base._directorySyncFault = EIO
        #expect(throws: DiskCacheError.self) { try disk.setData(Data(count: 10), forKey: "a") }
        base._directorySyncFault = nil
        #expect(try disk.data(forKey: "a")?.count == 10)
        try recorder.finish()
        #expect(try rows(trace) == ["a set", "a get"])
    }

    @Test("a cost above 2^53 is recorded as 2^53, the most a cost counts for and a trace's size may be")
    func hugeCostsStayReadable() throws {
        let trace = scratch("recorded-huge.csv")
        defer { try? FileManager.default.removeItem(at: trace) }
        let recorder = try TraceRecorder(url: trace)
        let cache = RecordingCache(Cache<String, Int>(observesSystemEvents: false), recorder: recorder)
        cache.setValue(1, forKey: "a", cost: .max)
        _ = cache.value(forKey: "a")
        try recorder.finish()
        let lines = try String(contentsOf: trace, encoding: .utf8).split(separator: "\n").dropFirst()
        let fields: [[Substring]] = lines.map { $0.split(separator: ",", omittingEmptySubsequences: false) }
        let sizes: [Substring] = fields.filter { $0[3] == "set" || $0[3] == "get" }.map { $0[2] }
        #expect(sizes == ["9007199254740992", "9007199254740992"])
    }

    @Test("a tiered cache's lookups (either tier a hit), stores, removals, memory events and removeAll are the trace's rows")
    func tiered() async throws {
        let (folder, trace) = (scratch("recorded-tiered"), scratch("recorded-tiered.csv"))
        defer { for url in [folder, trace] { try? FileManager.default.removeItem(at: url) } }
        let recorder = try TraceRecorder(url: trace)
        let memory = Cache<String, Data>(policy: .lru, costLimit: 1 << 20, observesSystemEvents: false)
        let tiered = RecordingTieredCache(TieredCache(memory: memory, disk: try DiskCache(directory: folder)), recorder: recorder,
                                          size: { $0.count })
        func synchronousSteps() throws {
            try tiered.setValue(Data(count: 10), forKey: "a")
            #expect(try tiered.value(forKey: "a")?.source == .memory)
        }
        try synchronousSteps()
        tiered.handle(.memoryWarning)
        #expect(memory.count == 0, "the memory tier answered the warning (remove all, its default)")
        #expect(try await tiered.value(forKey: "a")?.source == .disk)
        #expect(try await tiered.value(forKey: "a")?.source == .memory, "promoted by the disk hit")
        #expect(try await tiered.value(forKey: "z") == nil)
        try await tiered.setValue(Data(count: 20), forKey: "z")
        try await tiered.removeValue(forKey: "a")
        func synchronousRemoveAll() throws { try tiered.removeAll() }
        try synchronousRemoveAll()
        #expect(memory.count == 0 && tiered.base.disk.count == 0)
        try recorder.finish()
        let written = try rows(trace)
        #expect(written == [" tick", "a set", "a get", " memory-warning", "a get", "a get", "z get", "a delete", "z delete"], "\(written)")
    }
}
