import EvictionPolicies
import TestSupport
import Testing

/// SDDiskCache's removeExpiredData written from EvictionPolicies.docc/SDWebImage.md: an array of files
/// with a date and the order it was set; the clean-up deletes the expired files, then, over the
/// limit, the oldest until strictly below half of it.
struct ReferenceSDDiskCache: ReferenceModel {
    var files: [(key: Int, size: Int, date: Double, stamp: Int)] = []
    var maxDiskSize: Int
    var maxDiskAge: Double
    var accessDates: Bool
    var blockSize: Int
    var now = 0.0
    var clock = 0

    var count: Int { files.count }
    var totalCost: Int { files.reduce(0) { $0 + $1.size } }

    mutating func stamp(_ i: Int) {
        clock += 1
        files[i].date = now
        files[i].stamp = clock
    }

    mutating func lookup(_ key: Int) -> (hit: Bool, passes: [Pass]) {
        guard let i = files.firstIndex(where: { $0.key == key }) else { return (false, []) }
        if accessDates { stamp(i) }
        return (true, [])
    }

    mutating func get(_ key: Int, cost: Int) -> (hit: Bool, passes: [Pass]) {
        if lookup(key).hit { return (true, []) }
        return (false, set(key, cost: cost))
    }

    mutating func set(_ key: Int, cost: Int) -> [Pass] {
        let size = (max(cost, 0) + blockSize - 1) / blockSize * blockSize
        if let i = files.firstIndex(where: { $0.key == key }) {
            files[i].size = size
            stamp(i)
        } else {
            files.append((key, size, 0, 0))
            stamp(files.count - 1)
        }
        return []
    }

    mutating func delete(_ key: Int) -> (removed: Bool, passes: [Pass]) {
        guard let i = files.firstIndex(where: { $0.key == key }) else { return (false, []) }
        files.remove(at: i)
        return (true, [])
    }

    mutating func clean(_ kind: TrimKind) -> [Pass] {
        let expired = maxDiskAge < 0 ? [] : files.filter { $0.date <= now - maxDiskAge }.map(\.key)
        files.removeAll { expired.contains($0.key) }
        var victims = expired
        var size = totalCost
        if maxDiskSize > 0 && size > maxDiskSize {
            for file in files.sorted(by: { ($0.date, $0.stamp) < ($1.date, $1.stamp) }) {
                victims.append(file.key)
                size -= file.size
                if size < maxDiskSize / 2 { break }
            }
            files.removeAll { victims.contains($0.key) }
        }
        return victims.isEmpty ? [] : [Pass(kind: kind, keys: victims)]
    }

    mutating func event(_ event: CacheEvent) -> [Pass] {
        switch event {
        case .background: clean(.deferred)
        case .terminate: clean(.caller)
        case .memoryWarning: []
        }
    }

    mutating func advance(to time: Double) -> [Pass] {
        now = max(now, time)
        return []
    }
}

@Suite("sd-disk: SDWebImage 5.21.5 SDDiskCache removeExpiredData (EvictionPolicies.docc/SDWebImage.md)")
struct SDDiskCacheTests {
    typealias Cache = SDDiskCache<String, Int>

    @Test("SD1: maxDiskSize 1000, five 300 B files accessed in order; background deletes f1…f4 (300 < 500)")
    func sd1() throws {
        var cache = try Cache.make(capacity: 1000)
        var observer = EvictionRecorder<String, Int>()
        for i in 1...5 {
            cache.advance(to: Double(i), observer: &observer)
            cache.insert(i, forKey: "f\(i)", cost: 300, observer: &observer)
        }
        #expect(observer.evicted.isEmpty && cache.totalCost == 1500, "nothing is evicted on write")
        cache.handle(.background, observer: &observer)
        #expect(observer.evicted == ["f1", "f2", "f3", "f4"] && observer.passes == [.deferred])
        #expect(cache.contains("f5") && cache.count == 1)
    }

    @Test("the size phase goes by access date by default (5.20+), by modification date when configured")
    func expireType() throws {
        for type in ["access", "modification"] {
            var cache = try Cache.make(capacity: 1000, options: ["expire-type": type])
            var observer = EvictionRecorder<String, Int>()
            cache.insert(1, forKey: "a", cost: 400, observer: &observer)
            cache.advance(to: 1, observer: &observer)
            cache.insert(2, forKey: "b", cost: 400, observer: &observer)
            cache.advance(to: 2, observer: &observer)
            cache.insert(3, forKey: "c", cost: 400, observer: &observer)
            cache.advance(to: 3, observer: &observer)
            _ = cache.lookup("a", observer: &observer)                // refreshes a's access date only
            cache.handle(.terminate, observer: &observer)               // 1200 > 1000: down below 500
            #expect(observer.evicted == (type == "access" ? ["b", "c"] : ["a", "b"]), "\(type)")
            #expect(observer.passes == [.caller])
        }
    }

    @Test("expiry: files dated at or before now − max-disk-age go first; negative never expires, 0 expires all")
    func expiry() throws {
        var cache = try Cache.make(options: ["max-disk-age": "10"])
        var observer = EvictionRecorder<String, Int>()
        cache.insert(1, forKey: "a", cost: 1, observer: &observer)     // t = 0
        cache.advance(to: 5, observer: &observer)
        cache.insert(2, forKey: "b", cost: 1, observer: &observer)
        cache.advance(to: 10, observer: &observer)
        cache.handle(.background, observer: &observer)                  // 0 <= 10 − 10: a goes
        #expect(observer.take() == ["a"])
        cache.advance(to: 14.9, observer: &observer)
        cache.handle(.background, observer: &observer)
        #expect(observer.take().isEmpty)
        var never = try Cache.make(options: ["max-disk-age": "-1"])
        never.insert(1, forKey: "a", cost: 1, observer: &observer)
        never.advance(to: 1e12, observer: &observer)
        never.handle(.background, observer: &observer)
        #expect(never.count == 1)
        var zero = try Cache.make(options: ["max-disk-age": "0"])
        zero.insert(1, forKey: "a", cost: 1, observer: &observer)
        zero.handle(.terminate, observer: &observer)
        #expect(zero.count == 0)
    }

    @Test("the default maxDiskAge is one week; a memory warning does nothing to the disk")
    func week() throws {
        var cache = try Cache.make()
        var observer = EvictionRecorder<String, Int>()
        cache.insert(1, forKey: "a", cost: 1, observer: &observer)
        cache.advance(to: 604_799, observer: &observer)
        cache.handle(.memoryWarning, observer: &observer)
        cache.handle(.background, observer: &observer)
        #expect(cache.count == 1)
        cache.advance(to: 604_800, observer: &observer)
        cache.handle(.background, observer: &observer)
        #expect(cache.count == 0)
    }

    @Test("block-size rounds sizes up to whole blocks, as NSURLTotalFileAllocatedSizeKey does")
    func blocks() throws {
        var cache = try Cache.make(options: ["block-size": "4096"])
        var observer = EvictionRecorder<String, Int>()
        cache.insert(1, forKey: "a", cost: 1, observer: &observer)
        cache.insert(2, forKey: "b", cost: 4096, observer: &observer)
        cache.insert(3, forKey: "c", cost: 4097, observer: &observer)
        cache.insert(4, forKey: "d", cost: 0, observer: &observer)
        #expect(cache.totalCost == 4096 + 4096 + 8192)
    }

    @Test("options are validated")
    func options() throws {
        #expect(throws: PolicyConfigurationError.self) { try Cache.make(options: ["expire-type": "creation"]) }
        #expect(throws: PolicyConfigurationError.self) { try Cache.make(options: ["block-size": "0"]) }
        #expect(throws: PolicyConfigurationError.self) { try Cache.make(countLimit: 2) }
    }

    @Test("differential: random sequences against the reference", arguments: 1...16)
    func differential(seed: UInt64) throws {
        var rng = SeededRandom(seed: seed)
        let capacity = Bool.random(using: &rng) ? Int.random(in: 1...60, using: &rng) : nil
        let age = [-1.0, 0, 3, 8, 20, 604_800][Int.random(in: 0..<6, using: &rng)]
        let access = Bool.random(using: &rng)
        let block = [1, 1, 4][Int.random(in: 0..<3, using: &rng)]
        let options = ["max-disk-age": "\(age)", "expire-type": access ? "access" : "modification", "block-size": "\(block)"]
        var cache = try SDDiskCache<Int, Int>.make(capacity: capacity, options: options)
        var reference = ReferenceSDDiskCache(maxDiskSize: capacity ?? 0, maxDiskAge: age, accessDates: access, blockSize: block)
        var mix = OperationMix(keys: Int.random(in: 4...30, using: &rng), maxCost: Int.random(in: 0...12, using: &rng))
        mix.terminate = true
        expectSameDecisions(&cache, &reference, mix.make(count: 3_000, using: &rng),
                            label: "seed \(seed) \(options) capacity \(capacity ?? 0)")
    }
}
