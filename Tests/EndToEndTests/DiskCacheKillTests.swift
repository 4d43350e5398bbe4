import EvictionPolicies
import Foundation
import Testing
import TestSupport

/// Kills `disk-cache-crash-writer` with SIGKILL at random moments, over and over on one
/// directory, and after each kill opens the cache the way a relaunched app would.
@Suite("DiskCache survives SIGKILL")
struct DiskCacheKillTests {
    static var writer: URL { CLI.executable.deletingLastPathComponent().appendingPathComponent("disk-cache-crash-writer") }

    static func fnv1a<Bytes: Sequence<UInt8>>(_ bytes: Bytes) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in bytes { hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01b3 }
        return hash
    }

    /// The version a value written by the writer for `key` carries, or `nil` if its bytes are not
    /// exactly such a value (torn, mixed with another, or for another key).
    static func version(of data: Data, key: String) -> UInt64? {
        let bytes = [UInt8](data)
        guard bytes.count >= 24 else { return nil }
        func word(_ offset: Int) -> UInt64 { (0..<8).reduce(0) { $0 | UInt64(bytes[offset + $1]) << (8 * $1) } }
        guard word(8) == fnv1a(key.utf8), word(16) == fnv1a(bytes[24...]) else { return nil }
        return word(0)
    }

    @Test("a directory another process has open is refused at once; the kill releases it")
    func anotherProcessHoldsTheDirectory() throws {
        let directory = scratchDirectory.appendingPathComponent("disk-cache-held-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let process = Process()
        process.executableURL = Self.writer
        process.arguments = [directory.path, "1"]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        var received = Data()
        while !received.starts(with: Data("ready\n".utf8)) {
            let chunk = output.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            received += chunk
        }
        #expect(received.starts(with: Data("ready\n".utf8)))
        var refusal: DiskCacheError?
        do { _ = try DiskCache(directory: directory) } catch let error as DiskCacheError { refusal = error }
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        #expect(refusal?.code == EWOULDBLOCK, "opened beside a live writer: \(String(describing: refusal))")
        // The kernel dropped the killed writer's lock: a relaunch opens and reads its entries.
        let cache = try DiskCache(directory: directory)
        #expect(cache.count <= 48)
    }

    @Test("1,000 kills at random moments: no torn or wrong value, no acknowledged entry lost, no removed value back")
    func killAtRandomMoments() throws {
        let directory = scratchDirectory.appendingPathComponent("disk-cache-kill-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let trials = 1_000
        var acknowledged: [String: UInt64] = [:]       // key → newest acknowledged version
        var removed: [String: UInt64] = [:]            // key → newest acknowledged removal
        var mayBeRemoved: [String: UInt64] = [:]       // key → newest removal begun
        var removals = 0
        var checked = 0, acknowledgements = 0, killedMidRun = 0
        var verified: [String: (data: Data, version: UInt64)] = [:]
        var random = SystemRandomNumberGenerator()
        let started = Date()
        for trial in 1...trials {
            let process = Process()
            process.executableURL = Self.writer
            process.arguments = [directory.path, String(trial)]
            let output = Pipe()
            process.standardOutput = output
            process.standardError = FileHandle.nullDevice
            try process.run()
            // One trial in ten is killed while it starts or opens the cache. Of the others, half
            // are killed at a random moment timed from the writer's `ready`, and half after a
            // random number of the writer's lines (up to 20, past its first removal) and a
            // moment more: on a loaded machine, where a write's fsync takes longer than the
            // timed window, those still reach the removals and the writes that follow them.
            var received = Data()
            if trial % 10 != 0 {
                let lines = trial % 10 >= 5 ? Int.random(in: 0...20, using: &random) : 0
                while !received.starts(with: Data("ready\n".utf8)) || received.lazy.filter({ $0 == 0x0A }).count < 1 + lines {
                    let chunk = output.fileHandleForReading.availableData
                    if chunk.isEmpty { break }
                    received += chunk
                }
            }
            usleep(UInt32.random(in: 0...(trial % 10 >= 5 ? 3_000 : 20_000), using: &random))
            if process.isRunning { killedMidRun += 1 }
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            received += output.fileHandleForReading.readDataToEndOfFile()
            let lines = String(decoding: received, as: UTF8.self)
            for line in lines.split(separator: "\n") {
                let fields = line.split(separator: " ")
                // Each line is one write(2) of under PIPE_BUF bytes: it arrives whole or not at all.
                guard fields.count >= 2, let version = UInt64(fields[1]) else { continue }
                let key = String(fields[0])
                switch fields.count == 3 ? fields[2] : "" {
                case "removing": mayBeRemoved[key] = version
                case "removed":
                    removed[key] = version
                    removals += 1
                default:
                    acknowledged[key] = max(acknowledged[key] ?? 0, version)
                    acknowledgements += 1
                }
            }
            // Relaunch: open the cache and read every key the writer uses.
            let cache = try DiskCache(directory: directory)
            for n in 0..<48 {
                let key = "https://images.example.com/\(n).jpg"
                let data = try cache.data(forKey: key)
                if let data {
                    // Bytes already verified in an earlier trial are compared whole (memcmp);
                    // new ones are checked against the hashes they carry.
                    let version: UInt64
                    if let seen = verified[key], seen.data == data {
                        version = seen.version
                    } else {
                        version = try #require(Self.version(of: data, key: key), "trial \(trial): \(key) holds a torn or wrong value")
                        verified[key] = (data, version)
                    }
                    #expect(version >= acknowledged[key] ?? 0, "trial \(trial): \(key) went back to version \(version)")
                    #expect(version > removed[key] ?? 0, "trial \(trial): \(key)'s version \(version) came back after its removal")
                    checked += 1
                } else if let set = acknowledged[key] {
                    // Gone: only a removal begun after the newest acknowledged set may explain it.
                    #expect((mayBeRemoved[key] ?? 0) > set, "trial \(trial): acknowledged \(key) was lost")
                }
            }
        }
        let seconds = Date().timeIntervalSince(started)
        print("DiskCache kill test: \(trials) trials (\(killedMidRun) killed while running), \(acknowledgements) acknowledged writes, \(removals) acknowledged removals, "
              + "\(checked) entries checked, \(acknowledged.count) keys acknowledged, torn or lost: 0 unless reported above; "
              + String(format: "%.1f s", seconds))
        #expect(acknowledgements > 0 && removals > 0 && killedMidRun > trials / 2)
    }
}
