import Foundation

/// The statistics of a trace that libCacheSim's `traceAnalyzer` prints in its summary, computed
/// the same way so the two can be compared number for number.
///
/// Definitions (as traceAnalyzer's): requests are `get` rows of non-zero size; an object's size
/// is its size at first request; the compulsory miss ratio is objects over requests (and object
/// bytes over requested bytes); request rates are per complete window of trace time; the Zipf
/// α is minus the slope of the least-squares line through (log rank, log frequency) over every
/// object, with its R².
public struct TraceAnalysis: Sendable, Equatable {
    /// `get` rows of non-zero size.
    public var requests = 0
    /// Distinct keys requested.
    public var objects = 0
    /// Bytes requested.
    public var requestBytes = 0
    /// Bytes of the distinct objects, each at its first size (the working set).
    public var objectBytes = 0
    /// Rows by operation (`get`, `set`, `delete`, events), zero-size gets included.
    public var operations: [String: Int] = [:]
    /// Zero-size `get` rows, which replay and traceAnalyzer skip.
    public var zeroSizeRequests = 0
    /// Requests of an object whose size differs from its first size.
    public var sizeChanges = 0
    /// The first and last request times, in trace seconds.
    public var firstTime = 0.0, lastTime = 0.0
    /// `objectsByRequestCount[i]`: objects requested exactly `i + 1` times, for i < 8.
    public var objectsByRequestCount: [Int] = []
    /// The request counts of the 8 most requested objects, most first.
    public var topFrequencies: [Int] = []
    /// The fitted Zipf exponent and the fit's R² (0 when fewer than two objects).
    public var zipfAlpha = 0.0, zipfR2 = 0.0
    /// The window for request rates, in trace seconds.
    public var rateWindow = 300.0
    /// Requests per second in the slowest and the busiest complete window (0 if none is complete).
    public var minimumRate = 0.0, maximumRate = 0.0

    /// Objects requested once over all objects.
    public var oneHitWonderRatio: Double { objects == 0 ? 0 : Double(objectsByRequestCount.first ?? 0) / Double(objects) }
}

/// Computes ``TraceAnalysis`` in one pass over a trace.
///
/// Memory: one dictionary entry per distinct object (key, request count, first size: about 40
/// bytes with the dictionary's overhead), plus one counter per rate window; O(requests) time
/// plus O(objects log objects) for the popularity fit.
public enum TraceAnalyzer {
    /// Analyses every row of `reader`; `window` is the request-rate window in trace seconds.
    public static func analyze(_ reader: inout some TraceReader, window: Double = 300) throws(TraceError) -> TraceAnalysis {
        var result = TraceAnalysis()
        result.rateWindow = window
        var perObject: [UInt64: (count: Int, size: Int)] = [:]
        var windows: [Int] = []
        var batch: [Request] = []
        var started = false
        while try reader.nextBatch(&batch) {
            for request in batch {
                result.operations[request.operation.name, default: 0] += 1
                guard request.operation == .get else { continue }
                guard request.size > 0 else { result.zeroSizeRequests += 1; continue }
                if !started { result.firstTime = request.time; started = true }
                result.lastTime = request.time
                result.requests += 1
                result.requestBytes += request.size
                let slot = Int(max(0, ((request.time - result.firstTime) / window).rounded(.down)).clamped(to: 1e9))
                if slot >= windows.count { windows += repeatElement(0, count: slot - windows.count + 1) }
                windows[slot] += 1
                if let seen = perObject[request.key] {
                    perObject[request.key] = (seen.count + 1, seen.size)
                    if seen.size != request.size { result.sizeChanges += 1 }
                } else {
                    perObject[request.key] = (1, request.size)
                    result.objectBytes += request.size
                }
            }
        }
        result.objects = perObject.count
        var histogram = [Int](repeating: 0, count: 8)
        var frequencies: [Int] = []
        frequencies.reserveCapacity(perObject.count)
        for (_, object) in perObject {
            if object.count <= 8 { histogram[object.count - 1] += 1 }
            frequencies.append(object.count)
        }
        perObject = [:]
        result.objectsByRequestCount = histogram
        frequencies.sort(by: >)
        result.topFrequencies = Array(frequencies.prefix(8))
        (result.zipfAlpha, result.zipfR2) = zipfFit(frequencies)
        // The last window is cut short by the end of the trace, so only complete ones count.
        let complete = windows.dropLast()
        if let low = complete.min(), let high = complete.max() {
            result.minimumRate = Double(low) / window
            result.maximumRate = Double(high) / window
        }
        return result
    }

    /// Least squares of log(frequency) on log(rank), ranks from 1; returns (−slope, R²).
    static func zipfFit(_ sortedFrequencies: [Int]) -> (Double, Double) {
        let n = Double(sortedFrequencies.count)
        guard sortedFrequencies.count >= 2 else { return (0, 0) }
        var sx = 0.0, sy = 0.0
        for (i, f) in sortedFrequencies.enumerated() { sx += log(Double(i + 1)); sy += log(Double(f)) }
        let mx = sx / n, my = sy / n
        var sxy = 0.0, sxx = 0.0, syy = 0.0
        for (i, f) in sortedFrequencies.enumerated() {
            let dx = log(Double(i + 1)) - mx, dy = log(Double(f)) - my
            sxy += dx * dy; sxx += dx * dx; syy += dy * dy
        }
        guard sxx > 0 else { return (0, 0) }
        return (-sxy / sxx, syy > 0 ? sxy * sxy / (sxx * syy) : 1)
    }
}

extension Double {
    fileprivate func clamped(to limit: Double) -> Double { isFinite ? Swift.min(self, limit) : 0 }
}
