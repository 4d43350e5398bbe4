import CacheBench
import CacheBenchCommandLine
import Foundation
import TestSupport
import Testing

@Suite("cachebench generate: deterministic synthetic traces")
struct GenerateTests {
    /// Generates into a temporary file and returns its text.
    func generate(_ kind: String, seed: UInt64 = 1, requests: Int? = nil, _ options: [String: String] = [:]) throws -> String {
        let path = scratchDirectory.appendingPathComponent("cachebench-gen-\(UUID().uuidString).csv").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        try TraceGeneration.run(kind: kind, seed: seed, requests: requests, options: GeneratorOptions(options), output: path)
        return try String(contentsOfFile: path, encoding: .utf8)
    }

    /// Reads a trace back with the replay reader.
    func read(_ text: String) throws -> [Request] {
        var reader = try TraceSpec(path: try temporaryFile(text)).open()
        var all: [Request] = []
        var batch: [Request] = []
        while try reader.nextBatch(&batch) { all += batch }
        return all
    }

    @Test("SplitMix64 and xoshiro256** match their reference implementations")
    func referenceVectors() {
        var split = SplitMix64(seed: 0)
        #expect(split.next() == 0xe220_a839_7b1d_cdaf)
        var xoshiro = Xoshiro256StarStar(state: (1, 2, 3, 4))
        #expect((0..<5).map { _ in xoshiro.next() } == [11520, 0, 1_509_978_240, 1_215_971_899_390_074_240, 1_216_172_134_540_287_360])
    }

    @Test("bounded draws stay in range and cover it")
    func bounded() {
        var random = Xoshiro256StarStar(seed: 3)
        var seen = Set<Int>()
        for _ in 0..<10_000 {
            let value = random.next(in: -3...3)
            #expect((-3...3).contains(value))
            seen.insert(value)
            let unit = random.nextUnit()
            #expect(unit >= 0 && unit < 1)
        }
        #expect(seen.count == 7)
    }

    @Test("the Zipf sampler's frequencies match 1/k^alpha")
    func zipfFrequencies() {
        let sampler = ZipfSampler(count: 1_000, alpha: 1.0)
        let harmonic = (1...1_000).reduce(0.0) { $0 + 1 / Double($1) }
        #expect(abs(sampler.probability(ofRank: 1) - 1 / harmonic) < 1e-12)
        #expect(abs(sampler.probability(ofRank: 10) - 0.1 / harmonic) < 1e-12)
        var random = Xoshiro256StarStar(seed: 11)
        var counts = [Int](repeating: 0, count: 1_001)
        let draws = 200_000
        for _ in 0..<draws { counts[sampler.next(using: &random)] += 1 }
        for k in [1, 2, 10, 100] {
            let p = sampler.probability(ofRank: k)
            let sigma = (Double(draws) * p * (1 - p)).squareRoot()
            #expect(abs(Double(counts[k]) - Double(draws) * p) < 5 * sigma, "rank \(k): \(counts[k]) draws")
        }
        #expect(ZipfSampler(count: 4, alpha: 0).probability(ofRank: 3) == 0.25)
        #expect(ZipfSampler(count: 1, alpha: 2).rank(forUnit: 0.999) == 1)
    }

    @Test("the same seed gives the same trace; another seed another")
    func deterministic() throws {
        for kind in ["zipf", "image-feed"] {
            let a = try generate(kind, seed: 5, requests: 3_000)
            #expect(a == (try generate(kind, seed: 5, requests: 3_000)))
            #expect(a != (try generate(kind, seed: 6, requests: 3_000)))
        }
    }

    @Test("zipf: header, one get per request, one size per object within bounds")
    func zipf() throws {
        let text = try generate("zipf", requests: 5_000, ["objects": "300", "alpha": "0.8", "min-size": "1KiB", "max-size": "4KiB"])
        #expect(text.hasPrefix("timestamp,key,size,op\n"))
        let rows = try read(text)
        #expect(rows.count == 5_000 && rows.allSatisfy { $0.operation == .get })
        var sizes: [UInt64: Int] = [:]
        for row in rows {
            #expect((1...300).contains(row.key) && (1_024...4_096).contains(row.size))
            #expect(sizes[row.key, default: row.size] == row.size)
            sizes[row.key] = row.size
        }
        #expect(Set(sizes.values).count > 10)
        #expect(rows.last?.time == 4_999)
    }

    @Test("image-feed: decoded-bitmap sizes, Zipf-skewed keys, events, time moving forward")
    func imageFeed() throws {
        let rows = try read(try generate("image-feed", seed: 2, requests: 60_000))
        let gets = rows.filter { $0.operation == .get }
        #expect(gets.count == 60_000)
        #expect(rows.filter { $0.operation == .memoryWarning }.count == 3)
        #expect(rows.filter { $0.operation == .background }.count == 2)
        #expect(zip(rows, rows.dropFirst()).allSatisfy { $0.time <= $1.time })
        let allowed: Set<Int> = [608_400, 2_433_600, 57_600, 4 * 1170 * 1170, 4 * 1170 * 1463, 4 * 1170 * 613]
        var sizes: [UInt64: Int] = [:]
        var counts: [UInt64: Int] = [:]
        for row in gets {
            #expect(allowed.contains(row.size))
            #expect(sizes[row.key, default: row.size] == row.size, "key \(row.key) changed size")
            sizes[row.key] = row.size
            counts[row.key, default: 0] += 1
        }
        let thumbnails = gets.filter { $0.key < 1_000_000 }.count
        #expect(Double(thumbnails) / Double(gets.count) > 0.8)
        // Popularity is skewed: the busiest 1 % of keys take far more than 1 % of requests.
        let top = counts.values.sorted(by: >).prefix(max(1, counts.count / 100)).reduce(0, +)
        #expect(Double(top) / Double(gets.count) > 0.15)
    }

    #if os(Linux)
    @Test("Traces/image-feed.csv is exactly what 'generate image-feed --seed 1' writes")
    func committedSample() throws {
        let committed = try String(contentsOfFile: Repository.trace("image-feed.csv"), encoding: .utf8)
        #expect(committed == (try generate("image-feed", seed: 1, requests: 100_000)))
    }
    #endif

    @Test("bad kinds and options are usage errors; an unwritable output is exit 74")
    func errors() throws {
        let scratch = scratchDirectory.appendingPathComponent("cachebench-gen-\(UUID().uuidString).csv").path
        defer { try? FileManager.default.removeItem(atPath: scratch) }
        func exitCode(_ kind: String, requests: Int = 1, _ options: [String: String] = [:], output: String? = nil) -> Int32? {
            do {
                try TraceGeneration.run(kind: kind, seed: 1, requests: requests, options: GeneratorOptions(options),
                                        output: output ?? scratch)
                return nil
            } catch { return error.exitCode }
        }
        #expect(exitCode("zipf") == nil)
        #expect(exitCode("nope") == 2)
        #expect(exitCode("zipf", ["revisit": "0.1"]) == 2)
        #expect(exitCode("zipf", ["alpha": "-1"]) == 2)
        #expect(exitCode("zipf", ["min-size": "9", "max-size": "3"]) == 2)
        #expect(exitCode("image-feed", ["objects": "1000000"]) == 2)
        #expect(exitCode("zipf", requests: -1) == 2)
        #expect(exitCode("zipf", output: "/nonexistent-dir/x.csv") == 74)
        // Sizes that add up past 2^63-1 bytes make a trace every reader refuses: none is written.
        let huge = scratchDirectory.appendingPathComponent("cachebench-gen-\(UUID().uuidString).csv").path
        let sizes = ["min-size": "1125899906842624", "max-size": "1125899906842624"]
        #expect(exitCode("zipf", requests: 10_000, sizes, output: huge) == 2)
        #expect(!FileManager.default.fileExists(atPath: huge))
        #expect(exitCode("zipf", requests: 8_191, sizes, output: huge) == nil)
        try? FileManager.default.removeItem(atPath: huge)
    }
}
