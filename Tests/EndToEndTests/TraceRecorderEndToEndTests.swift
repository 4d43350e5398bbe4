import EvictionPolicies
import Foundation
import Testing
import TestSupport

@Suite("TraceRecorder: an app session recorded through Cache replays with the same hits")
struct TraceRecorderEndToEndTests {
    /// A feed-like session: Zipf-skewed image keys, a store after every miss, some removals and
    /// memory warnings, which the cache answers with `response`.
    func session(_ policy: CachePolicy, hashingKeys: Bool, response: MemoryWarningResponse = .ignore,
                 to url: URL) throws -> (hits: Int, gets: Int) {
        let recorder = try TraceRecorder(url: url, hashingKeys: hashingKeys ? 0x5eed : nil)
        let cache = RecordingCache(Cache<String, Data>(policy: policy, costLimit: 60_000, memoryWarningResponse: response,
                                                       observesSystemEvents: false), recorder: recorder)
        // Any session will do: the replay must match whatever the app saw.
        var rng = SystemRandomNumberGenerator()
        var hits = 0, gets = 0
        for step in 0..<20_000 {
            // Zipf-like: rank r with probability ∝ 1/r over 2,000 keys, by inversion of a power law.
            let rank = Int(pow(2_000.0, Double.random(in: 0..<1, using: &rng)))
            let key = "https://images.example.com/feed/\(rank).jpg?size=\"large\",v=2"
            switch step % 97 {
            case 13:
                cache.removeValue(forKey: key)
            case 50:
                cache.handle(.memoryWarning)
            default:
                gets += 1
                if cache.value(forKey: key) != nil {
                    hits += 1
                } else {
                    cache.setValue(Data(count: 8), forKey: key, cost: 100 + rank * 37 % 4_000)
                }
            }
        }
        try recorder.finish()
        return (hits, gets)
    }

    @Test("lru and sieve, keys in clear and hashed", arguments: [(CachePolicy.lru, false), (.sieve, true), (.lru, true)])
    func replaysWithTheSameHits(policy: CachePolicy, hashed: Bool) throws {
        let url = scratchDirectory.appendingPathComponent("recorded-\(UUID().uuidString).csv")
        defer { try? FileManager.default.removeItem(at: url) }
        let app = try session(policy, hashingKeys: hashed, to: url)
        #expect(app.hits > 1_000 && app.hits < app.gets)
        let result = try Command.run(["replay", url.path, "--policy", policy.rawValue, "--capacity", "60000", "--format", "json"])
        #expect(result.status == 0, "\(result.err)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(result.out.utf8)) as? [String: Any])
        #expect(object["hits"] as? Int == app.hits)
        #expect(object["requests"] as? Int == app.gets)
        #expect(object["skipped"] as? Int == 0)
    }

    /// The replay answers memory warnings as the Cache did (`--memory-warning`): removing all,
    /// trimming through the policy's own victims (LRU, SIEVE) or oldest set first (S3-FIFO, ARC).
    @Test("memory warnings answered as the Cache answered them",
          arguments: [(CachePolicy.lru, MemoryWarningResponse.removeAll, "remove-all"), (.lru, .trim(toFraction: 0.5), "trim:0.5"),
                      (.sieve, .trim(toFraction: 0.3), "trim:30%"), (.s3fifo, .trim(toFraction: 0.5), "trim:0.5"),
                      (.arc, .removeAll, "remove-all"), (.arc, .trim(toFraction: 0.5), "trim:0.5"), (.lfu, .ignore, "ignore")])
    func memoryWarnings(policy: CachePolicy, response: MemoryWarningResponse, spelling: String) throws {
        let url = scratchDirectory.appendingPathComponent("recorded-\(UUID().uuidString).csv")
        defer { try? FileManager.default.removeItem(at: url) }
        let app = try session(policy, hashingKeys: false, response: response, to: url)
        #expect(app.hits > 1_000 && app.hits < app.gets)
        let result = try Command.run(["replay", url.path, "--policy", policy.rawValue, "--capacity", "60000",
                                      "--memory-warning", spelling, "--format", "json"])
        #expect(result.status == 0, "\(result.err)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(result.out.utf8)) as? [String: Any])
        #expect(object["hits"] as? Int == app.hits)
        #expect(object["requests"] as? Int == app.gets)
        // Without the response, the replay keeps what the app dropped: more hits.
        if response != .ignore {
            let plain = try Command.run(["replay", url.path, "--policy", policy.rawValue, "--capacity", "60000", "--format", "json"])
            let plainObject = try JSONSerialization.jsonObject(with: Data(plain.out.utf8)) as? [String: Any]
            #expect((plainObject?["hits"] as? Int ?? 0) > app.hits)
        }
    }

    /// A session on the app's clock through a library model with a timer or a time to live, its
    /// memory warnings answered with `response` and some background transitions: the replay's
    /// model keeps its timer's beat and its time across each warning as the Cache's does, so the
    /// hits are the app's.
    func timedSession<Policy: EvictionPolicy>(_: Policy.Type, options: PolicyOptions, response: MemoryWarningResponse,
                                              to url: URL) throws -> (hits: Int, gets: Int)
    where Policy.Key == String, Policy.Value == CacheEntry<Data> {
        let time = SessionTime()
        let recorder = try TraceRecorder(url: url, clock: time.clock)
        let cache = RecordingCache(try Cache<String, Data>(policyType: Policy.self, costLimit: 60_000, options: options,
                                                           clock: time.clock, memoryWarningResponse: response,
                                                           observesSystemEvents: false), recorder: recorder)
        var generator = SeededGenerator(seed: 29)
        var hits = 0, gets = 0
        // The app's first call comes a while after it made the cache, whose timer started then.
        time.seconds = 1.75
        for step in 0..<6_000 {
            let rank = Int(pow(400.0, Double.random(in: 0..<1, using: &generator)))
            let key = "https://images.example.com/feed/\(rank).jpg"
            if step % 211 == 100 {
                cache.handle(.memoryWarning)
            } else if step % 1_013 == 500 {
                cache.handle(.background)
            } else {
                gets += 1
                if cache.value(forKey: key) != nil { hits += 1 } else { cache.setValue(Data(count: 8), forKey: key, cost: 100 + rank * 37 % 900) }
            }
            // Quarter seconds, exact in the trace's six decimals.
            time.seconds += 0.25 * Double(Int.random(in: 0...2, using: &generator))
        }
        try recorder.finish()
        return (hits, gets)
    }

    @Test("library models with timers and clocks (yy-lru, pin-memory, kingfisher, nuke-lru) replay with the app's hits across memory warnings and backgrounds",
          arguments: [(MemoryWarningResponse.removeAll, "remove-all"), (.trim(toFraction: 0.5), "trim:0.5")])
    func timedLibraryModels(response: MemoryWarningResponse, spelling: String) throws {
        func check<Policy: EvictionPolicy>(_ type: Policy.Type, _ name: String, _ options: [String: String]) throws
        where Policy.Key == String, Policy.Value == CacheEntry<Data> {
            let url = scratchDirectory.appendingPathComponent("recorded-\(name)-\(UUID().uuidString).csv")
            defer { try? FileManager.default.removeItem(at: url) }
            let app = try timedSession(type, options: PolicyOptions(options), response: response, to: url)
            #expect(app.hits > 200 && app.hits < app.gets, "\(name)")
            let result = try Command.run(["replay", url.path, "--policy", name, "--capacity", "60000", "--memory-warning", spelling]
                                         + options.sorted { $0.key < $1.key }.flatMap { ["--option", "\($0.key)=\($0.value)"] }
                                         + ["--format", "json"])
            #expect(result.status == 0, "\(name): \(result.err)")
            let object = try JSONSerialization.jsonObject(with: Data(result.out.utf8)) as? [String: Any]
            #expect(object?["hits"] as? Int == app.hits, "\(name) \(options)")
            #expect(object?["requests"] as? Int == app.gets, "\(name)")
        }
        // YYMemoryCache and PINCache also with their own removal on memory warnings off, so that
        // the cache's trim to half acts on a full model.
        for removesAll in ["true", "false"] {
            try check(YYMemoryCache<String, CacheEntry<Data>>.self, "yy-lru", ["age-limit": "3", "remove-all-on-memory-warning": removesAll])
            try check(PINMemoryCache<String, CacheEntry<Data>>.self, "pin-memory", ["age-limit": "3", "remove-all-on-memory-warning": removesAll])
        }
        try check(KingfisherMemoryStorage<String, CacheEntry<Data>>.self, "kingfisher", ["clean-interval": "4"])
        try check(NukeLRUCache<String, CacheEntry<Data>>.self, "nuke-lru", ["ttl": "3"])
    }

    @Test("removeAll through the recorder keeps ghost lists as the replay's deletes do: arc, s3fifo and lru replay exactly, with few keys and with enough that evicted ones are forgotten",
          arguments: [(CachePolicy.arc, 120), (.s3fifo, 120), (.lru, 120), (.arc, 8_000), (.s3fifo, 8_000)])
    func removeAllReplaysExactly(policy: CachePolicy, keySpace: Int) throws {
        let url = scratchDirectory.appendingPathComponent("cachebench-removeall-\(UUID().uuidString).csv")
        defer { try? FileManager.default.removeItem(at: url) }
        let recorder = try TraceRecorder(url: url)
        let cache = RecordingCache(Cache<String, Int>(policy: policy, costLimit: 40, observesSystemEvents: false), recorder: recorder)
        var generator = SeededGenerator(seed: 11)
        var hits = 0
        for step in 0..<(keySpace > 1_000 ? 12_000 : 4_000) {
            // A skewed draw, so that ghosts matter; removeAll now and then (with many keys, after
            // enough stores that the wrapper forgets evicted ones: more than 2 × 40 + 1,024).
            let key = "k\(Int(Double(keySpace) * pow(Double.random(in: 0..<1, using: &generator), 2.5)))"
            if step % (keySpace > 1_000 ? 5_000 : 700) == 699 { cache.removeAll(); continue }
            if cache.value(forKey: key) != nil { hits += 1 } else { cache.setValue(step, forKey: key, cost: 1) }
        }
        try recorder.finish()
        let result = try Command.run(["replay", url.path, "--policy", policy.rawValue, "--capacity", "40", "--format", "json"])
        #expect(result.status == 0, "\(result.err)")
        let report = try JSONSerialization.jsonObject(with: Data(result.out.utf8)) as? [String: Any]
        #expect(report?["hits"] as? Int == hits)

        // The trace is closed: what the wrapper does afterwards is not recorded anywhere, nor
        // written to a file opened since (which may reuse the trace's file descriptor).
        let closed = try Data(contentsOf: url)
        let other = scratchDirectory.appendingPathComponent("cachebench-other-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: other) }
        try Data("IMPORTANT".utf8).write(to: other)
        let handle = try FileHandle(forUpdating: other)
        defer { try? handle.close() }
        for step in 0..<20_000 { cache.setValue(step, forKey: "after-\(step)", cost: 1) }
        #expect(try Data(contentsOf: url) == closed)
        #expect(try Data(contentsOf: other) == Data("IMPORTANT".utf8))
    }

    /// Replays `url` with LRU under a count limit of `limit` (costs 0: rows of size 1) and
    /// returns the hits.
    func replayedHits(_ url: URL, countLimit limit: Int) throws -> Int? {
        let result = try Command.run(["replay", url.path, "--policy", "lru", "--count-limit", "\(limit)", "--ignore-size", "--format", "json"])
        #expect(result.status == 0, "\(result.err)")
        let object = try JSONSerialization.jsonObject(with: Data(result.out.utf8)) as? [String: Any]
        return object?["hits"] as? Int
    }

    @Test("keys the replay would read as one (007 and 7, spaces at the ends, empty) or not at all (line feeds, NUL) stay apart; two spellings of é stay one; commas and quotes with combining marks are quoted")
    func keysKeptApart() throws {
        let url = scratchDirectory.appendingPathComponent("recorded-\(UUID().uuidString).csv")
        defer { try? FileManager.default.removeItem(at: url) }
        let keys = ["7", "007", " 7", "7 ", "a", " a", "a ", "", " ", "~", "~7e", "x,y", "q\"r", "caf\u{E9}", "cafe\u{301}",
                    "0", "00", "18446744073709551616", "-7", "line\nbreak", "crlf\r\n", "a\u{0}b", "tab\there", "cr\r",
                    // A comma or quote followed by a combining mark: one Character, equal to neither.
                    "tags=a,\u{301}b", "q\"\u{301}x", "\"\u{301}", ",\u{301}"]
        let recorder = try TraceRecorder(url: url)
        let cache = RecordingCache(Cache<String, Int>(policy: .lru, countLimit: 6, observesSystemEvents: false), recorder: recorder)
        var rng = SeededRandom(seed: 11)
        var hits = 0
        for step in 0..<4_000 {
            let key = keys[min(Int.random(in: 0..<keys.count, using: &rng), Int.random(in: 0..<keys.count, using: &rng))]
            if step % 500 == 499 {
                cache.removeAll()
            } else if cache[key] != nil {
                hits += 1
            } else {
                cache[key] = step
            }
        }
        try recorder.finish()
        #expect(hits > 500)
        #expect(try replayedHits(url, countLimit: 6) == hits)
    }

    @Test("four threads recording through one RecordingCache: the replay has the app's hits")
    func concurrentRecording() throws {
        let url = scratchDirectory.appendingPathComponent("recorded-\(UUID().uuidString).csv")
        defer { try? FileManager.default.removeItem(at: url) }
        let recorder = try TraceRecorder(url: url)
        let cache = RecordingCache(Cache<Int, Int>(policy: .lru, countLimit: 50, observesSystemEvents: false), recorder: recorder)
        let hits = HitCount()
        DispatchQueue.concurrentPerform(iterations: 4) { thread in
            var rng = SeededRandom(seed: UInt64(thread + 1))
            var mine = 0
            for _ in 0..<5_000 {
                let key = Int.random(in: 0..<100, using: &rng)
                if cache.value(forKey: key) != nil { mine += 1 } else { cache.setValue(key, forKey: key) }
            }
            hits.add(mine)
        }
        try recorder.finish()
        #expect(try replayedHits(url, countLimit: 50) == hits.total)
    }
}

/// The session's clock, moved by the test.
final class SessionTime: @unchecked Sendable {
    var seconds = 0.0
    var clock: CacheClock { CacheClock { self.seconds } }
}

/// Hits summed across threads (a lock, not `Atomic`: the tests build for macOS 10.15 too).
final class HitCount: @unchecked Sendable {
    private let lock = NSLock()
    private var value = 0
    func add(_ n: Int) { lock.lock(); value += n; lock.unlock() }
    var total: Int { lock.lock(); defer { lock.unlock() }; return value }
}
