// `library-benchmark --disk`: DiskCache against a file-per-key cache written the way
// SDWebImage's SDDiskCache works, side by side in one process, rounds interleaved.
import EvictionPolicies
import Foundation

/// A disk cache the way SDWebImage 5's `SDDiskCache` is written: one file per key named by a hash
/// of the key, `FileManager.createFile` to store (no temporary file, no fsync), `Data(contentsOf:)`
/// to read, and `removeExpiredData`'s trim: enumerate every file with its date and size, then
/// delete the oldest until the total is under half the size limit.
final class FileManagerDiskCache {
    let directory: URL
    let fileManager = FileManager()

    init(directory: URL) throws {
        self.directory = directory
        try fileManager.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    func path(_ key: String) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in key.utf8 { hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01b3 }
        return directory.appendingPathComponent(String(hash, radix: 16)).path
    }

    func setData(_ data: Data, forKey key: String) {
        if !fileManager.fileExists(atPath: directory.path) {
            try? fileManager.createDirectory(at: directory, withIntermediateDirectories: true)
        }
        let created = fileManager.createFile(atPath: path(key), contents: data, attributes: nil)
        precondition(created, "could not write \(path(key))")
    }

    func data(forKey key: String) -> Data? {
        try? Data(contentsOf: URL(fileURLWithPath: path(key)))
    }

    /// `removeExpiredData`'s size pass: returns the number of files deleted.
    func trim(toHalfOf sizeLimit: Int) throws -> Int {
        let keys: [URLResourceKey] = [.isDirectoryKey, .contentModificationDateKey, .fileSizeKey]
        var files: [(url: URL, date: Date, size: Int)] = []
        var total = 0
        for url in try fileManager.contentsOfDirectory(at: directory, includingPropertiesForKeys: keys) {
            let values = try url.resourceValues(forKeys: Set(keys))
            if values.isDirectory == true { continue }
            let size = values.fileSize ?? 0
            total += size
            files.append((url, values.contentModificationDate ?? .distantPast, size))
        }
        guard total > sizeLimit else { return 0 }
        var deleted = 0
        for file in files.sorted(by: { $0.date < $1.date }) where total > sizeLimit / 2 {
            try fileManager.removeItem(at: file.url)
            total -= file.size
            deleted += 1
        }
        return deleted
    }
}

/// Runs the disk benchmark and prints its tables.
@MainActor
func runDiskBenchmark() throws {
    let rounds = argument("--rounds", default: 3)
    let trimFiles = argument("--trim-files", default: 100_000)
    let root = FileManager.default.temporaryDirectory.appendingPathComponent("disk-benchmark-\(UUID().uuidString)")
    defer { try? FileManager.default.removeItem(at: root) }
    var generator = SystemRandomNumberGenerator()
    print("DiskCache against a FileManager file-per-key cache written like SDWebImage's SDDiskCache; \(rounds) rounds, "
          + "the caches interleaved in each round; ops/s of each cache's best round, ratios the median of per-round ratios.\n")
    print("| value size | operation | DiskCache (durable: fsync file and directory) | DiskCache (durable: false) | FileManager (SDWebImage-like) | FileManager ÷ DiskCache durable | FileManager ÷ DiskCache non-durable |")
    print("|---|---|---:|---:|---:|---:|---:|")
    for (size, count) in [(4 << 10, 200), (64 << 10, 100), (1 << 20, 20)] {
        let payload = Data((0..<size).map { UInt8(truncatingIfNeeded: $0 &* 131) })
        let keys = (0..<count).map { "https://images.example.com/\(size)/\($0).jpg" }
        // Times per round: [set or get][contender].
        var setTimes: [[Double]] = [[], [], []], getTimes: [[Double]] = [[], [], []]
        for round in 0..<rounds {
            for contender in [0, 1, 2].shuffled(using: &generator) {
                let directory = root.appendingPathComponent("\(size)-\(round)-\(contender)")
                if contender == 2 {
                    let cache = try FileManagerDiskCache(directory: directory)
                    setTimes[2].append(seconds { for key in keys { cache.setData(payload, forKey: key) }; return 0 }.seconds)
                    let get = seconds { keys.shuffled().reduce(0) { $0 + (cache.data(forKey: $1)?.count ?? 0) } }
                    precondition(get.check == size * count, "the FileManager cache lost entries")
                    getTimes[2].append(get.seconds)
                } else {
                    let cache = try DiskCache(directory: directory, durable: contender == 0)
                    var failure: Error?
                    setTimes[contender].append(seconds {
                        do { for key in keys { try cache.setData(payload, forKey: key) } } catch { failure = error }
                        return 0
                    }.seconds)
                    let get = seconds {
                        var total = 0
                        do { for key in keys.shuffled() { total += try cache.data(forKey: key)?.count ?? 0 } } catch { failure = error }
                        return total
                    }
                    if let failure { throw failure }
                    precondition(get.check == size * count, "DiskCache lost entries")
                    getTimes[contender].append(get.seconds)
                }
                try? FileManager.default.removeItem(at: directory)
            }
        }
        for (name, times) in [("set", setTimes), ("get", getTimes)] {
            let rate = { (i: Int) in String(format: "%.0f", Double(count) / (times[i].min() ?? .nan)) }
            let ratio = { (i: Int) in String(format: "%.2f×", median((0..<rounds).map { times[2][$0] / times[i][$0] })) }
            print("| \(size >> 10) KiB | \(name) | \(rate(0)) | \(rate(1)) | \(rate(2)) | \(ratio(0)) | \(ratio(1)) |")
        }
    }
    print("\nA ratio below 1× means DiskCache is slower. Durable sets wait for two fsyncs each, which the FileManager cache "
          + "(like SDWebImage) never does: there the file system bounds the figure, not the code.\n")

    // Trimming: the same files under both caches, then each brings them down to half the limit.
    let fileSize = 1_024
    let payload = Data(count: fileSize)
    let limit = trimFiles * fileSize / 2
    let ours = root.appendingPathComponent("trim-diskcache"), theirs = root.appendingPathComponent("trim-filemanager")
    do {
        let cache = try DiskCache(directory: ours, durable: false)
        for i in 0..<trimFiles { try cache.setData(payload, forKey: "https://images.example.com/trim/\(i).jpg") }
    }
    let sd = try FileManagerDiskCache(directory: theirs)
    for i in 0..<trimFiles { sd.setData(payload, forKey: "https://images.example.com/trim/\(i).jpg") }
    // DiskCache trims when it opens over a lower limit (the policy evicts down to it, then each
    // write evicts only what it must); SDWebImage's pass enumerates and sorts every file.
    let ourTrim = try seconds {
        let cache = try DiskCache(directory: ours, sizeLimit: limit / 2, durable: false)
        return trimFiles - cache.count
    }
    let theirTrim = try seconds { try sd.trim(toHalfOf: limit) }
    print("| trim \(trimFiles) files of 1 KiB | files deleted | seconds |")
    print("|---|---:|---:|")
    print("| DiskCache: open with the size limit lowered to a quarter of the files (journal replay, directory listing, LRU evictions, unlinks) | \(ourTrim.check) | \(String(format: "%.2f", ourTrim.seconds)) |")
    print("| FileManager (SDWebImage-like): removeExpiredData's size pass, limit half the files, trimmed to half of it | \(theirTrim.check) | \(String(format: "%.2f", theirTrim.seconds)) |")
    print("\nBoth end with a quarter of the files. " + String(format: "Ratio FileManager ÷ DiskCache: %.2f×; per file deleted: DiskCache %.1f µs, FileManager %.1f µs. ",
                   theirTrim.seconds / ourTrim.seconds, ourTrim.seconds / Double(max(ourTrim.check, 1)) * 1e6,
                   theirTrim.seconds / Double(max(theirTrim.check, 1)) * 1e6)
          + "Unlinking the files is the floor for both.")
}

/// Seconds that `body` takes (throwing form).
func seconds(_ body: () throws -> Int) rethrows -> (seconds: Double, check: Int) {
    let start = DispatchTime.now().uptimeNanoseconds
    let check = try body()
    return (Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9, check)
}
