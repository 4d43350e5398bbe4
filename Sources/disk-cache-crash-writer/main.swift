// The writer the DiskCache kill test (Tests/EndToEndTests/DiskCacheKillTests.swift) kills with
// SIGKILL at random moments: it stores entries as fast as it can and prints `KEY VERSION` on
// standard output, flushed, each time `setData` has returned, so that the test knows which
// entries were acknowledged before the kill. One operation in eight is a removal, printed as
// `KEY VERSION removing` before it starts and `KEY VERSION removed` once it returned.
//
// Usage: disk-cache-crash-writer DIRECTORY TRIAL. It prints `ready` once the cache is open.
//
// Each value describes itself, so the test can check any value it finds, acknowledged or not:
// bytes 0-7 the version, 8-15 the FNV-1a hash of the key, 16-23 the FNV-1a hash of bytes 24...,
// then pseudo-random bytes (0 to 4,096 of them).
import EvictionPolicies
import Foundation

func fnv1a<Bytes: Sequence<UInt8>>(_ bytes: Bytes) -> UInt64 {
    var hash: UInt64 = 0xcbf2_9ce4_8422_2325
    for byte in bytes { hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01b3 }
    return hash
}

func littleEndian(_ value: UInt64) -> [UInt8] { (0..<8).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) } }

let arguments = CommandLine.arguments
guard arguments.count == 3, let trial = UInt64(arguments[2]) else {
    FileHandle.standardError.write(Data("usage: disk-cache-crash-writer DIRECTORY TRIAL\n".utf8))
    exit(2)
}
do {
    let cache = try DiskCache(directory: URL(fileURLWithPath: arguments[1]))
    // The test times its kill from this line, so that kills land among the writes.
    FileHandle.standardOutput.write(Data("ready\n".utf8))
    var random = SystemRandomNumberGenerator()
    for index in 0..<UInt64(100_000) {
        let key = "https://images.example.com/\(UInt64.random(in: 0..<48, using: &random)).jpg"
        let version = trial &* 1_000_000 &+ index
        // One operation in eight removes the key instead: announced before it starts (a kill
        // during it may or may not have removed the entry), acknowledged once it returned (the
        // entry and every older value must then stay gone).
        if index % 8 == 7 {
            FileHandle.standardOutput.write(Data("\(key) \(version) removing\n".utf8))
            try cache.removeData(forKey: key)
            FileHandle.standardOutput.write(Data("\(key) \(version) removed\n".utf8))
            continue
        }
        var body = [UInt8](repeating: 0, count: Int.random(in: 0...4_096, using: &random))
        var state = UInt64.random(in: 1...UInt64.max, using: &random)
        for i in body.indices {
            state ^= state << 13
            state ^= state >> 7
            state ^= state << 17
            body[i] = UInt8(truncatingIfNeeded: state)
        }
        let value = littleEndian(version) + littleEndian(fnv1a(key.utf8)) + littleEndian(fnv1a(body)) + body
        try cache.setData(Data(value), forKey: key)
        // One unbuffered write: the line is out of the process before the next set begins.
        FileHandle.standardOutput.write(Data("\(key) \(version)\n".utf8))
    }
} catch {
    FileHandle.standardError.write(Data("disk-cache-crash-writer: \(error)\n".utf8))
    exit(1)
}
