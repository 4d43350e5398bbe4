import EvictionPolicies
import TestSupport
import Testing

/// YYDiskCache written from EvictionPolicies.docc/YYCache.md and YYDiskCache.m / YYKVStorage.m: an
/// array of manifest rows (size, last access second, rowid), and a timer pass at start + k·interval
/// that re-sorts the rows by (last_access_time, rowid) for each trim, in C int arithmetic.
struct ReferenceYYDiskCache: ReferenceModel {
    struct Row { var key: Int; var size: Int; var atime: Int; var rowid: Int }
    var rows: [Row] = []
    var costLimit: Int
    var countLimit: Int
    var ageLimit: Double
    var interval: Double
    var freeDiskSpaceLimit = 0
    var diskFreeSpace = 0
    var now = 0.0
    var start: Double?
    var tick = 1
    var nextRowid = 1

    var count: Int { rows.count }
    var totalCost: Int { rows.reduce(0) { $0 + $1.size } }
    var timestamp: Int { Int(now.rounded(.down)) }
    var ordered: [Row] { rows.sorted { ($0.atime, $0.rowid) < ($1.atime, $1.rowid) } }

    mutating func lookup(_ key: Int) -> (hit: Bool, passes: [Pass]) {
        guard let i = rows.firstIndex(where: { $0.key == key }) else { return (false, []) }
        rows[i].atime = timestamp
        return (true, [])
    }

    mutating func get(_ key: Int, cost: Int) -> (hit: Bool, passes: [Pass]) {
        if lookup(key).hit { return (true, []) }
        return (false, set(key, cost: cost))
    }

    mutating func set(_ key: Int, cost: Int) -> [Pass] {
        guard cost > 0 else { return [] }
        rows.removeAll { $0.key == key }
        rows.append(Row(key: key, size: cost, atime: timestamp, rowid: nextRowid))
        nextRowid += 1
        return []
    }

    mutating func delete(_ key: Int) -> (removed: Bool, passes: [Pass]) {
        guard let i = rows.firstIndex(where: { $0.key == key }) else { return (false, []) }
        rows.remove(at: i)
        return (true, [])
    }

    mutating func event(_ event: CacheEvent) -> [Pass] { [] }

    mutating func removeAll(_ deleted: inout [Int]) {
        deleted += ordered.map(\.key)
        rows.removeAll()
    }

    mutating func deleteRow(_ key: Int, _ deleted: inout [Int]) {
        rows.removeAll { $0.key == key }
        deleted.append(key)
    }

    mutating func trimToCost(_ limit: Int, _ deleted: inout [Int]) {
        if limit >= Int(Int32.max) { return }
        let maxSize = Int32(truncatingIfNeeded: limit)
        if maxSize <= 0 { removeAll(&deleted); return }
        var total = Int32(truncatingIfNeeded: rows.reduce(0) { $0 + Int(Int32(truncatingIfNeeded: $1.size)) })
        if total < 0 || total <= maxSize { return }
        for row in ordered where total > maxSize {
            deleteRow(row.key, &deleted)
            total = total &- Int32(truncatingIfNeeded: row.size)
        }
    }

    mutating func pass() -> [Pass] {
        var deleted: [Int] = []
        trimToCost(costLimit, &deleted)
        if countLimit < Int(Int32.max) {
            if countLimit <= 0 { removeAll(&deleted) }
            for row in ordered where rows.count > countLimit { deleteRow(row.key, &deleted) }
        }
        if ageLimit <= 0 {
            removeAll(&deleted)
        } else if Double(timestamp) > ageLimit {
            let age = Int((Double(timestamp) - ageLimit).rounded(.towardZero))
            if age > 0 && age < Int(Int32.max) {
                for row in ordered where row.atime < age { deleteRow(row.key, &deleted) }
            }
        }
        if freeDiskSpaceLimit > 0 {
            let totalBytes = Int(Int32(truncatingIfNeeded: rows.reduce(0) { $0 + Int(Int32(truncatingIfNeeded: $1.size)) }))
            let need = freeDiskSpaceLimit - max(0, diskFreeSpace - totalCost)
            if totalBytes > 0 && need > 0 {
                trimToCost(Int(Int32(truncatingIfNeeded: max(0, totalBytes - need))), &deleted)
            }
        }
        return deleted.isEmpty ? [] : [Pass(kind: .deferred, keys: deleted)]
    }

    mutating func advance(to time: Double) -> [Pass] {
        guard let start else {
            self.start = time
            now = time
            return []
        }
        guard time > now else { return [] }
        var passes: [Pass] = []
        while start + Double(tick) * interval <= time {
            now = start + Double(tick) * interval
            passes += pass()
            tick += 1
        }
        now = time
        return passes
    }
}

@Suite("yy-disk: YYCache 1.0.4 YYDiskCache / YYKVStorage (EvictionPolicies.docc/YYCache.md)")
struct YYDiskCacheTests {
    typealias Cache = YYDiskCache<String, Int>

    func fiveInOneSecond(readK1Later: Bool) throws -> [String] {
        var cache = try Cache.make(countLimit: 3)
        var observer = EvictionRecorder<String, Int>()
        cache.advance(to: 0, observer: &observer)
        for i in 1...5 { cache.insert(i, forKey: "k\(i)", cost: 10, observer: &observer) }
        #expect(cache.count == 5 && observer.evicted.isEmpty, "nothing is evicted on write")
        if readK1Later {
            cache.advance(to: 1, observer: &observer)
            _ = cache.lookup("k1", observer: &observer)
        }
        cache.advance(to: 60, observer: &observer)
        #expect(observer.passes == [.deferred] && cache.count == 3)
        return observer.evicted
    }

    @Test("YD1: countLimit 3, k1…k5 saved in one second: the 60 s tick deletes k1, k2")
    func yd1() throws {
        #expect(try fiveInOneSecond(readK1Later: false) == ["k1", "k2"])
    }

    @Test("YD1: if k1 was read a second later, the tick deletes k2, k3")
    func yd1ReadLater() throws {
        #expect(try fiveInOneSecond(readK1Later: true) == ["k2", "k3"])
    }

    @Test("within one second a read does not reorder (rowid decides), but a re-save gets a new rowid")
    func wholeSeconds() throws {
        var read = try Cache.make(countLimit: 1)
        var resaved = try Cache.make(countLimit: 1)
        var observer = EvictionRecorder<String, Int>()
        read.advance(to: 5, observer: &observer)
        resaved.advance(to: 5, observer: &observer)
        read.insert(1, forKey: "a", cost: 1, observer: &observer)
        read.insert(2, forKey: "b", cost: 1, observer: &observer)
        resaved.insert(1, forKey: "a", cost: 1, observer: &observer)
        resaved.insert(2, forKey: "b", cost: 1, observer: &observer)
        read.advance(to: 5.9, observer: &observer)
        resaved.advance(to: 5.9, observer: &observer)
        _ = read.lookup("a", observer: &observer)                 // still second 5, rowid 1
        resaved.insert(3, forKey: "a", cost: 1, observer: &observer) // second 5, rowid 3
        read.advance(to: 65, observer: &observer)
        #expect(observer.take() == ["a"])
        resaved.advance(to: 65, observer: &observer)
        #expect(observer.take() == ["b"])
    }

    @Test("a cost limit of INT_MAX bytes or more is never enforced (_trimToCost's guard)")
    func costLimitAtIntMax() throws {
        var cache = try Cache.make(capacity: 2_147_483_647)
        var observer = EvictionRecorder<String, Int>()
        cache.advance(to: 0, observer: &observer)
        for i in 0..<3 { cache.insert(i, forKey: "k\(i)", cost: 1_000_000_000, observer: &observer) }
        cache.advance(to: 600, observer: &observer)
        #expect(observer.evicted.isEmpty && cache.totalCost == 3_000_000_000)
    }

    @Test("the total is read as a C int: above 2 GiB it wraps negative and the cost trim gives up")
    func totalWraps() throws {
        var cache = try Cache.make(capacity: 1_000_000)
        var observer = EvictionRecorder<String, Int>()
        cache.advance(to: 0, observer: &observer)
        cache.insert(1, forKey: "a", cost: 1_500_000_000, observer: &observer)
        cache.insert(2, forKey: "b", cost: 1_500_000_000, observer: &observer)
        cache.advance(to: 60, observer: &observer)                 // 3e9 reads as -1294967296
        #expect(observer.evicted.isEmpty)
        #expect(cache.remove("b", observer: &observer) == 2)
        cache.advance(to: 120, observer: &observer)                // 1.5e9 > 1e6: a goes
        #expect(observer.evicted == ["a"])
    }

    @Test("age is idle time in whole seconds: deleted once last_access_time < time(NULL) − ageLimit")
    func age() throws {
        var cache = try Cache.make(options: ["age-limit": "100"])
        var observer = EvictionRecorder<String, Int>()
        cache.advance(to: 0, observer: &observer)
        cache.insert(1, forKey: "a", cost: 1, observer: &observer)
        cache.advance(to: 50.7, observer: &observer)
        _ = cache.lookup("a", observer: &observer)                 // last access: second 50
        cache.advance(to: 150, observer: &observer)                // ticks 60, 120: cutoffs -, 20
        #expect(cache.contains("a"))
        cache.advance(to: 1e12, observer: &observer)               // tick 180: cutoff 80 > 50
        #expect(observer.evicted == ["a"] && observer.passes == [.deferred])
    }

    @Test("values over 20480 bytes are files, the rest inline blobs; the report's policyMetrics count both")
    func inlineThreshold() throws {
        var cache = try Cache.make()
        var observer = EvictionRecorder<String, Int>()
        cache.insert(1, forKey: "a", cost: 20_480, observer: &observer)
        cache.insert(2, forKey: "b", cost: 20_481, observer: &observer)
        cache.insert(3, forKey: "c", cost: 100, observer: &observer)
        cache.insert(4, forKey: "c", cost: 100_000, observer: &observer)
        cache.insert(5, forKey: "d", cost: 0, observer: &observer)   // an empty value is not saved
        #expect(cache.count == 3 && !cache.contains("d"))
        #expect(cache.extraMetrics == [PolicyMetric("inlineEntries", 1), PolicyMetric("fileEntries", 2),
                                       PolicyMetric("inlineWrites", 2), PolicyMetric("fileWrites", 2)])
        let files = try Cache.make(options: ["inline-threshold": "0"])
        let sqlite = try Cache.make(options: ["inline-threshold": "none"])
        #expect(files.inlineThreshold == 0 && sqlite.inlineThreshold == .max)
    }

    @Test("free space: below free-disk-space-limit, the tick trims the cost by the shortfall")
    func freeSpace() throws {
        var cache = try Cache.make(options: ["free-disk-space-limit": "500", "disk-free-space": "1000"])
        var observer = EvictionRecorder<String, Int>()
        cache.advance(to: 0, observer: &observer)
        cache.insert(1, forKey: "a", cost: 300, observer: &observer)
        cache.insert(2, forKey: "b", cost: 300, observer: &observer)
        cache.advance(to: 60, observer: &observer)                 // free 400: trim to 600 − 100
        #expect(observer.evicted == ["a"] && cache.totalCost == 300)
        #expect(throws: PolicyConfigurationError.self) { try Cache.make(options: ["free-disk-space-limit": "1"]) }
    }

    @Test("events do nothing to the disk")
    func events() throws {
        var cache = try Cache.make()
        var observer = EvictionRecorder<String, Int>()
        cache.insert(1, forKey: "a", cost: 1, observer: &observer)
        for event in CacheEvent.allCases { cache.handle(event, observer: &observer) }
        #expect(cache.count == 1)
    }

    @Test("differential: random sequences against the reference", arguments: 1...16)
    func differential(seed: UInt64) throws {
        var rng = SeededRandom(seed: seed)
        let capacity = Bool.random(using: &rng) ? Int.random(in: 1...60, using: &rng) : nil
        let countLimit = Bool.random(using: &rng) ? Int.random(in: 1...8, using: &rng) : nil
        let age = Bool.random(using: &rng) ? Double(Int.random(in: 0...30, using: &rng)) / 2 : nil
        let interval = [1.0, 2.5, 7][Int.random(in: 0..<3, using: &rng)]
        let free = seed % 3 == 0 ? Int.random(in: 10...60, using: &rng) : 0
        var options = ["auto-trim-interval": "\(interval)"]
        if let age { options["age-limit"] = "\(age)" }
        if free > 0 {
            options["free-disk-space-limit"] = "\(free)"
            options["disk-free-space"] = "80"
        }
        var cache = try YYDiskCache<Int, Int>.make(capacity: capacity, countLimit: countLimit, options: options)
        var reference = ReferenceYYDiskCache(costLimit: capacity ?? .max, countLimit: countLimit ?? .max,
                                             ageLimit: age ?? .infinity, interval: interval,
                                             freeDiskSpaceLimit: free, diskFreeSpace: 80)
        var mix = OperationMix(keys: Int.random(in: 4...30, using: &rng), maxCost: Int.random(in: 0...12, using: &rng))
        mix.terminate = true
        expectSameDecisions(&cache, &reference, mix.make(count: 3_000, using: &rng),
                            label: "seed \(seed) \(options) capacity \(capacity ?? -1) count \(countLimit ?? -1)")
    }
}
