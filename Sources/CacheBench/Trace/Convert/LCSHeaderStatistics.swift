import Foundation

/// The statistics libCacheSim's `traceConv` stores in the 8 KiB header of an lcs trace it
/// writes, computed from the same inputs the same way, and that header's bytes.
///
/// The layout (little-endian, packed) is `u64 start magic, u64 version`, 8000 bytes of
/// statistics, 168 unused bytes and the end magic; the statistics are the request and object
/// counts and bytes, the first and last times, read/write/delete counts, the smallest and
/// largest object sizes, the 16 most common object sizes with their share of objects, the 16
/// highest request counts, the 16 most common request counts with their share of objects, the
/// Zipf exponent (minus the least-squares slope of log count on log rank, summed in rank order
/// as libCacheSim's `linear_regression`), and the tenant and TTL tables (one tenant and one
/// TTL, 0, here: no cachebench reader keeps them).
///
/// Where two sizes (or two counts) are equally common, traceConv's order comes from the
/// iteration order of a C++ `unordered_map` and an unstable sort; ``_LibstdcxxOrder`` reproduces
/// both, so equally common entries are listed (and cut at 16) as traceConv lists them.
struct LCSHeaderStatistics {
    /// The statistics' own version, as traceConv writes it.
    static let statisticsVersion: Int64 = 1
    static let listLength = 16

    var requests: Int64 = 0, objects: Int64 = 0
    var requestBytes: Int64 = 0, objectBytes: Int64 = 0
    var startTime: Int64 = 0, endTime: Int64 = 0
    var smallestSize: Int64 = 0, largestSize: Int64 = 0
    var commonSizes: [(value: Int64, share: Float)] = []
    var highestCounts: [Int64] = []
    var commonCounts: [(value: Int32, share: Float)] = []
    var zipfAlpha = 0.0

    /// Statistics of records whose objects are `objects` (id, the size the header counts, which
    /// is traceConv's last size, and request count), in the order traceConv's object map
    /// receives them: by last request, latest first. `rows` is the input's row count, from
    /// which traceConv sizes that map. O(objects + distinct sizes · log) time.
    init(objects: [(id: UInt64, size: Int, count: Int)], rows: Int, requests: Int, requestBytes: Int, startTime: Int64, endTime: Int64) {
        self.requests = Int64(requests)
        self.requestBytes = Int64(requestBytes)
        self.startTime = startTime
        self.endTime = endTime
        self.objects = Int64(objects.count)
        // traceConv's maps, in libstdc++'s iteration order: the object map, then the size map
        // filled from it.
        var objectMap = _LibstdcxxOrder.UnorderedMap()
        objectMap.reserve(UInt64(rows / 100 + 10_000))
        var byID: [UInt64: (size: Int, count: Int)] = [:]
        byID.reserveCapacity(objects.count)
        for object in objects {
            objectMap.insert(object.id)
            byID[object.id] = (object.size, object.count)
        }
        var sizeMap = _LibstdcxxOrder.UnorderedMap()
        var bySize: [Int64: Int] = [:], byCount: [Int: Int] = [:]
        smallestSize = .max
        for id in objectMap.keys {
            guard let object = byID[id] else { continue }
            let size = Int64(object.size)
            objectBytes += size
            sizeMap.insert(UInt64(bitPattern: size))
            bySize[size, default: 0] += 1
            byCount[object.count, default: 0] += 1
            smallestSize = min(smallestSize, size)
            largestSize = max(largestSize, size)
        }
        let n = Float(self.objects)
        var sizes = sizeMap.keys.map { (size: Int64(bitPattern: $0), objects: bySize[Int64(bitPattern: $0)] ?? 0) }
        _LibstdcxxOrder.sort(&sizes) { $0.objects > $1.objects }
        commonSizes = sizes.prefix(Self.listLength).map { ($0.size, Float(Int32(clamping: $0.objects)) / n) }
        // Request counts are distinct keys, so sorting them by count is unambiguous; traceConv then
        // re-sorts that vector by how many objects share each count.
        var counts = byCount.sorted { $0.key > $1.key }.map { (count: $0.key, objects: $0.value) }
        highestCounts = counts.prefix(Self.listLength).map { Int64($0.count) }
        zipfAlpha = Self.zipfAlpha(counts)
        _LibstdcxxOrder.sort(&counts) { $0.objects > $1.objects }
        commonCounts = counts.prefix(Self.listLength).map { (Int32(clamping: $0.count), Float(Int32(clamping: $0.objects)) / n) }
    }

    /// Minus the slope of log(count) on log(rank) over every object, ranks 1... in descending
    /// count order, with traceConv's sums (plain running sums, not centred).
    private static func zipfAlpha(_ countsDescending: [(count: Int, objects: Int)]) -> Double {
        var sx = 0.0, sy = 0.0, sxy = 0.0, sxx = 0.0
        var rank = 0
        for (count, objects) in countsDescending {
            let y = log(Double(count))
            for _ in 0..<objects {
                rank += 1
                let x = log(Double(rank))
                sx += x; sy += y; sxy += x * y; sxx += x * x
            }
        }
        let n = Double(rank)
        return -((n * sxy - sx * sy) / (n * sxx - sx * sx))
    }

    /// The 8192-byte lcs header for records of `version`.
    func header(version: Int) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: LCSLayout.headerSize)
        func put<T: FixedWidthInteger>(_ value: T, _ offset: Int) {
            withUnsafeBytes(of: value.littleEndian) { raw in
                for (i, byte) in raw.enumerated() { bytes[offset + i] = byte }
            }
        }
        put(LCSLayout.magic, 0)
        put(UInt64(version), 8)
        let s = 16   // the statistics
        for (i, value) in [Self.statisticsVersion, requests, objects, requestBytes, objectBytes, startTime, endTime].enumerated() {
            put(value, s + 8 * i)
        }
        // +56, +64, +72: read, write and delete counts: 0, as traceConv writes for inputs without operations.
        put(smallestSize, s + 80)
        put(largestSize, s + 88)
        for (i, entry) in commonSizes.enumerated() {
            put(entry.value, s + 96 + 8 * i)
            put(entry.share.bitPattern, s + 224 + 4 * i)
        }
        for (i, value) in highestCounts.enumerated() { put(value, s + 288 + 8 * i) }
        for (i, entry) in commonCounts.enumerated() {
            put(entry.value, s + 416 + 4 * i)
            put(entry.share.bitPattern, s + 480 + 4 * i)
        }
        // A NaN (one object) as C's division leaves it, positive; Swift's arithmetic NaN is negative on x86.
        put((zipfAlpha.isNaN ? Double.nan : zipfAlpha).bitPattern, s + 544)
        // One tenant (0) with every request, and one TTL (0) with every request.
        put(Int32(1), s + 552)
        put(Float(1).bitPattern, s + 620)
        put(Int32(1), s + 684)
        put(Float(1).bitPattern, s + 760)
        put(LCSLayout.magic, LCSLayout.headerSize - 8)
        return bytes
    }
}
