import Foundation

/// Computes ``TraceAnalysis`` in one pass over a trace.
///
/// Memory: per distinct object about 90 bytes (its slot in an open-addressing key map, its
/// request count, first and last size, last time and request index, window mark, and 16 bytes
/// of the reuse-distance tree), plus one record per window and one counter per distinct size,
/// request count and TTL. Time: O(log objects) per request for the reuse distance, plus
/// O(objects log objects) for the popularity fit.
public enum TraceAnalyzer {
    /// Reuse-time bins kept; a longer reuse time widens the bins.
    static let reuseTimeBins = 100_000

    /// The most rate windows one analysis keeps (about 40 MB of them): a window far shorter than
    /// the trace's span is refused rather than allowed to exhaust memory.
    public static let maximumWindows = 1_000_000

    /// Analyses every row of `reader`; `window` is the request-rate window in trace seconds.
    ///
    /// - Throws: ``TraceError`` from the reader, or a malformed-input error naming the request at
    ///   which the trace spans more than ``maximumWindows`` windows.
    ///
    /// `locate` turns a refusal of row `row` into an error placed at its line or byte (a fresh
    /// reader finds them: ``TraceReader/error(atRow:reason:)``); by default the error names the row.
    public static func analyze(_ reader: inout some TraceReader, window: Double = 300,
                               locate: ((_ row: Int, _ reason: String) -> TraceError)? = nil) throws(TraceError) -> TraceAnalysis {
        var state = _AnalyzerState(window: window)
        var batch: [Request] = []
        var row = 0
        while try reader.nextBatch(&batch) {
            for request in batch {
                row += 1
                guard state.add(request) else {
                    let reason = "request \(row) (time \(request.time)) falls more than \(maximumWindows) windows of \(window) s after the first: choose a longer rate window"
                    throw locate?(row, reason) ?? TraceError(.malformed, file: reader.name, reason: reason)
                }
            }
        }
        // As replay: nothing to analyze is bad input, not a report of zeros.
        guard row > 0 else {
            throw TraceError(.malformed, file: reader.name, reason: "the trace has no rows (empty file, or a header alone)")
        }
        return state.finish()
    }

    /// Least squares of log(frequency) on log(rank), ranks from 1; returns (−slope, R²).
    ///
    /// R² is 0 where it is 0/0 (every object requested as often), as traceAnalyzer reports it
    /// (`popularity.cpp`: a correlation that is not finite counts as 0).
    static func zipfFit(_ sortedFrequencies: [Int]) -> (Double, Double) {
        let n = Double(sortedFrequencies.count)
        guard sortedFrequencies.count >= 2 else { return (0, 0) }
        // Every object requested as often: uniform popularity, Zipf's α = 0 exactly (the sums
        // below would leave rounding noise of 1e-30), and no variation for R² to explain.
        if sortedFrequencies.first == sortedFrequencies.last { return (0, 0) }
        var sx = 0.0, sy = 0.0
        for (i, f) in sortedFrequencies.enumerated() { sx += log(Double(i + 1)); sy += log(Double(f)) }
        let mx = sx / n, my = sy / n
        var sxy = 0.0, sxx = 0.0, syy = 0.0
        for (i, f) in sortedFrequencies.enumerated() {
            let dx = log(Double(i + 1)) - mx, dy = log(Double(f)) - my
            sxy += dx * dy; sxx += dx * dx; syy += dy * dy
        }
        guard sxx > 0 else { return (0, 0) }
        return (-sxy / sxx, syy > 0 ? sxy * sxy / (sxx * syy) : 0)
    }

    /// `⌊log₂ value⌋` for value ≥ 1, 0 below.
    static func log2Bin(_ value: Int) -> Int { value < 1 ? 0 : Int.bitWidth - 1 - value.leadingZeroBitCount }

    /// traceAnalyzer's log-1.5 bin of a request distance ≥ 1.
    static func log15Bin(_ value: Int) -> Int { value < 1 ? 0 : Int(log(Double(value)) / log(1.5)) }
}

/// The running state of one analysis; objects are dense indices into parallel arrays.
struct _AnalyzerState {
    var result = TraceAnalysis()
    private var map = _KeySlotMap()
    private var count: ContiguousArray<Int32> = []
    private var firstSize: ContiguousArray<Int> = [], lastSize: ContiguousArray<Int> = []
    private var lastSecond: ContiguousArray<Int64> = [], lastIndex: ContiguousArray<Int> = []
    private var lastWindow: ContiguousArray<Int32> = [], hitsInWindow: ContiguousArray<UInt8> = []
    private var changed: ContiguousArray<Bool> = []
    private var axis = _ReuseDistanceAxis()
    private var requestsBySize: [Int: (requests: Int, objects: Int)] = [:]
    private var ttls: [Int: Int] = [:]
    private var started = false
    /// The first request's time in whole seconds, where the rate windows start.
    private var firstSecond = 0.0
    private var rowsByOperation = [Int](repeating: 0, count: Operation.allCases.count)

    init(window: Double) { result.rateWindow = window }

    private static func histogramAdd(_ histogram: inout [Int], _ bin: Int) {
        if bin >= histogram.count { histogram += repeatElement(0, count: bin - histogram.count + 1) }
        histogram[bin] += 1
    }

    /// Counts `request`; `false` (nothing counted) when its rate window is past ``TraceAnalyzer/maximumWindows``.
    mutating func add(_ request: Request) -> Bool {
        if request.operation == .get && request.size > 0 && started {
            let offset = (request.time.rounded(.down) - firstSecond) / result.rateWindow
            if offset.isFinite && offset >= Double(TraceAnalyzer.maximumWindows) { return false }
        }
        rowsByOperation[Int(request.operation.rawValue)] += 1
        if request.operation == .set && request.ttl > 0 { result.setsWithTTL += 1; ttls[Int(request.ttl), default: 0] += 1 }
        guard request.operation == .get else { return true }
        guard request.size > 0 else { result.zeroSizeRequests += 1; return true }
        if !started {
            result.firstTime = request.time
            firstSecond = request.time.rounded(.down)
            result.smallestSize = request.size
            started = true
        }
        result.lastTime = request.time
        let index = result.requests
        result.requests += 1
        result.requestBytes &+= request.size
        result.smallestSize = min(result.smallestSize, request.size)
        result.largestSize = max(result.largestSize, request.size)
        if request.ttl > 0 { result.requestsWithTTL += 1; ttls[Int(request.ttl), default: 0] += 1 }
        // Whole seconds, as traceAnalyzer's 32-bit clock; windows from the first request's second,
        // so a CSV with decimal times and its conversion fall in the same windows.
        let second = Int64(request.time.isFinite ? max(-9e15, min(9e15, request.time.rounded(.down))) : 0)
        let offset = (request.time.rounded(.down) - firstSecond) / result.rateWindow
        let slot = Int(offset.isFinite ? max(0, min(offset.rounded(.down), 1e8)) : 0)
        if slot >= result.windows.count {
            result.windows += repeatElement(TraceAnalysis.Window(), count: slot - result.windows.count + 1)
        }
        result.windows[slot].requests += 1
        result.windows[slot].bytes &+= request.size
        var object = Int(map.find(request.key))
        if object < 0 {
            object = count.count
            map.insert(request.key, slot: Int32(object))
            count.append(1)
            firstSize.append(request.size); lastSize.append(request.size)
            lastSecond.append(second); lastIndex.append(index)
            lastWindow.append(Int32(slot)); hitsInWindow.append(1)
            changed.append(false)
            result.objectBytes &+= request.size
            result.windows[slot].objects += 1
            result.windows[slot].newObjects += 1
            result.windows[slot].oneHitObjects += 1
            requestsBySize[request.size, default: (0, 0)].objects += 1
            _ = axis.request(object)
        } else {
            count[object] &+= 1
            if lastSize[object] != request.size {
                result.sizeChanges += 1
                if !changed[object] { changed[object] = true; result.objectsWithSizeChanges += 1 }
                lastSize[object] = request.size
            }
            if lastWindow[object] != Int32(slot) {
                lastWindow[object] = Int32(slot); hitsInWindow[object] = 1
                result.windows[slot].objects += 1
                result.windows[slot].oneHitObjects += 1
            } else if hitsInWindow[object] == 1 {
                hitsInWindow[object] = 2
                result.windows[slot].oneHitObjects -= 1
            }
            let seconds = max(0, second &- lastSecond[object])
            var bin = Double(seconds) / result.reuseTimeBin
            while bin >= Double(TraceAnalyzer.reuseTimeBins) {
                // Twice as wide: bins 2j and 2j + 1 become bin j, exactly.
                var merged = [Int](repeating: 0, count: (result.reuseTimeHistogram.count + 1) / 2)
                for (k, count) in result.reuseTimeHistogram.enumerated() { merged[k / 2] += count }
                result.reuseTimeHistogram = merged
                result.reuseTimeBin *= 2
                bin = Double(seconds) / result.reuseTimeBin
            }
            Self.histogramAdd(&result.reuseTimeHistogram, Int(bin))
            Self.histogramAdd(&result.requestsSinceHistogram, TraceAnalyzer.log15Bin(index - lastIndex[object]))
            if let distance = axis.request(object) {
                Self.histogramAdd(&result.reuseDistanceHistogram, distance == 0 ? 0 : TraceAnalyzer.log2Bin(distance) + 1)
            }
            lastSecond[object] = second
            lastIndex[object] = index
        }
        requestsBySize[request.size, default: (0, 0)].requests += 1
        Self.histogramAdd(&result.sizeHistogramByRequests, TraceAnalyzer.log2Bin(request.size))
        return true
    }

    mutating func finish() -> TraceAnalysis {
        for operation in Operation.allCases where rowsByOperation[Int(operation.rawValue)] > 0 {
            result.operations[operation.name] = rowsByOperation[Int(operation.rawValue)]
        }
        result.objects = count.count
        var histogram = [Int](repeating: 0, count: 8)
        var byFrequency: [Int: Int] = [:]
        var frequencies: [Int] = []
        frequencies.reserveCapacity(count.count)
        for c in count {
            let n = Int(c)
            if n <= 8 { histogram[n - 1] += 1 }
            byFrequency[n, default: 0] += 1
            frequencies.append(n)
        }
        for size in firstSize { Self.histogramAdd(&result.sizeHistogramByObjects, TraceAnalyzer.log2Bin(size)) }
        result.objectsByRequestCount = histogram
        result.frequencyCounts = byFrequency.sorted { $0.key > $1.key }.map { .init(frequency: $0.key, objects: $0.value) }
        frequencies.sort(by: >)
        result.topFrequencies = Array(frequencies.prefix(8))
        (result.zipfAlpha, result.zipfR2) = TraceAnalyzer.zipfFit(frequencies)
        result.commonSizes = requestsBySize.sorted { ($0.value.requests, -$0.key) > ($1.value.requests, -$1.key) }.prefix(16)
            .map { .init(size: $0.key, requests: $0.value.requests, objects: $0.value.objects) }
        result.commonTTLs = ttls.sorted { ($0.value, -$0.key) > ($1.value, -$1.key) }.prefix(16).map { .init(ttl: $0.key, requests: $0.value) }
        // The last window is cut short by the end of the trace, so only complete ones count; a
        // trace shorter than one window has the rates of the whole trace (over at least 1 s).
        let complete = result.windows.dropLast().map(\.requests)
        if let low = complete.min(), let high = complete.max() {
            result.minimumRate = Double(low) / result.rateWindow
            result.maximumRate = Double(high) / result.rateWindow
        } else {
            result.minimumRate = Double(result.requests) / result.wholeTraceSeconds
            result.maximumRate = result.minimumRate
        }
        let completeObjects = result.windows.dropLast().map(\.objects)
        if let low = completeObjects.min(), let high = completeObjects.max() {
            result.minimumObjectRate = Double(low) / result.rateWindow
            result.maximumObjectRate = Double(high) / result.rateWindow
        } else {
            result.minimumObjectRate = Double(result.objects) / result.wholeTraceSeconds
            result.maximumObjectRate = result.minimumObjectRate
        }
        return result
    }
}
