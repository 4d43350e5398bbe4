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
}
