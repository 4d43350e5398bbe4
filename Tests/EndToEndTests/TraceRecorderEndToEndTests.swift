import EvictionPolicies
import Foundation
import Testing
import TestSupport

@Suite("TraceRecorder: an app session recorded through Cache replays with the same hits")
struct TraceRecorderEndToEndTests {
    /// A feed-like session: Zipf-skewed image keys, a store after every miss, some removals and
    /// memory warnings (which the cache is told to ignore, as the research policies do in replay).
    func session(_ policy: CachePolicy, hashingKeys: Bool, to url: URL) throws -> (hits: Int, gets: Int) {
        let recorder = try TraceRecorder(url: url, hashingKeys: hashingKeys ? 0x5eed : nil)
        let cache = RecordingCache(Cache<String, Data>(policy: policy, costLimit: 60_000, memoryWarningResponse: .ignore,
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
}

