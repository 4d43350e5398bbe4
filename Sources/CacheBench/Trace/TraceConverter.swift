/// Converts a trace to libCacheSim's `oracleGeneral` or `lcs` (v1) binary format as libCacheSim's
/// `traceConv` does, byte for byte, so that the same requests can be replayed by libCacheSim's
/// `cachesim` beside cachebench.
///
/// Every `get` row of non-zero size of a sampled object becomes one 24-byte record `{u32 time,
/// u64 id, u32 size, i64 next}`, where `next` is the 1-based index of the next record with the
/// same id, or "never" (-1 in oracleGeneral, `Int64.max` in lcs, as traceConv writes them). An
/// lcs file starts with traceConv's 8 KiB header of trace statistics (``LCSHeaderStatistics``).
/// Zero-size rows of a text trace (CSV, txt) are left out and take no place in the next-access
/// chain, as traceConv's CSV reader skips them; a binary trace's (oracleGeneral, lcs, vscsi, twr)
/// are written, as traceConv reads those backwards, where their readers' skip does not apply (and
/// a Twitter `get` of value size 0 keeps its key's size). Numeric keys are kept as the numbers
/// they are. Rows the format cannot express
/// (`set`, `delete`, events) are left out and counted. With a ``SpatialSampler``, only the objects
/// it keeps are written, the same objects traceConv's `--sample-ratio` keeps. Two passes over the
/// input: the first finds each record's next access (O(records) memory: 8 bytes each, plus a map
/// of distinct keys; lcs adds about 150 bytes per object while it builds the header's statistics
/// as traceConv's C++ maps order them), the second writes through
/// ``AtomicFile``, so the target is whole or untouched.
public enum TraceConverter {
    /// The binary formats `convert` writes.
    public enum OutputFormat: String, Sendable, CaseIterable {
        /// libCacheSim's oracleGeneral: 24-byte records, -1 for "never".
        case oracleGeneral = "oracle-general"
        /// libCacheSim's lcs v1 (traceConv's `-f lcs`): the 8 KiB statistics header, then
        /// oracleGeneral's records with `Int64.max` for "never".
        case lcs
    }

    /// What a conversion wrote.
    public struct Summary: Sendable, Equatable {
        /// Records written.
        public var records: Int
        /// Rows left out because the format has no operations.
        public var leftOut: Int
        /// Zero-size rows left out.
        public var zeroSize: Int
        /// Records whose size was replaced (``Options/removeSizeChange``).
        public var sizesChanged: Int
        /// Requests left out because the sampler did not keep their object.
        public var sampledOut: Int = 0
        /// Records whose whole seconds do not fit the records' 32-bit time and were written
        /// modulo 2^32, as traceConv writes them (a trace of epoch milliseconds, say).
        public var timesWrapped: Int = 0
    }

    /// How to convert.
    public struct Options: Sendable, Equatable {
        /// Give every record of an object one size, as traceConv's `--remove-size-change` does,
        /// for systems that cannot change an object's size: its first size in oracleGeneral, its
        /// last in lcs (traceConv builds lcs files reading backward).
        public var removeSizeChange: Bool
        /// The format to write.
        public var format: OutputFormat
        /// Keep only the objects this sampler keeps (`nil`: every object).
        public var sampler: SpatialSampler?

        /// Creates options.
        public init(removeSizeChange: Bool = false, format: OutputFormat = .oracleGeneral, sampler: SpatialSampler? = nil) {
            self.removeSizeChange = removeSizeChange
            self.format = format
            self.sampler = sampler
        }
    }

    /// Converts `trace` into `path`, written whole or not at all.
    public static func convert(_ trace: TraceSpec, to path: String, options: Options = Options()) throws(CacheBenchError) -> Summary {
        // The output is opened first: a path that cannot be written fails before the long pass,
        // and an interrupt during either pass removes the temporary file. A one-shot input (standard
        // input, a pipe) is read once: ``TraceSpec`` keeps the copy the second pass reads.
        let file: AtomicFile
        do { file = try AtomicFile(path: path) } catch { throw CacheBenchError(error) }
        let lcs = options.format == .lcs
        // Pass 1: each record's key, then a backward pass turns keys into next indices in place.
        // For lcs, each object's request count and last size, and the first and last times.
        var next: [Int64] = []
        var objects: [UInt64: (size: Int, count: Int)] = [:]
        var leftOut = 0, zeroSize = 0, sampledOut = 0, requestBytes = 0, rows = 0
        var firstTime: Int64 = 0, lastTime: Int64 = 0, started = false
        // The rows traceConv's backward read meets (see ``TraceSpec/keepsZeroSizeRows``).
        var trace = trace
        trace.keepsZeroSizeRows = true
        var dropsZeroSize = true
        do {
            var reader = try trace.open()
            dropsZeroSize = reader is CSVTraceReader
            var batch: [Request] = []
            while try reader.nextBatch(&batch) {
                rows += batch.count
                for request in batch {
                    if request.operation != .get { leftOut += 1; continue }
                    // traceConv's header starts at the trace's first request, sampled or not, and
                    // even when it is a row of size 0 it drops: reading backwards, its reader
                    // skips such a row by reading the one above, and at the top there is none,
                    // so the row's time is the last it read.
                    if !started { firstTime = wholeSeconds(request.time); started = true }
                    if request.size == 0 && dropsZeroSize { zeroSize += 1; continue }
                    if let sampler = options.sampler, !sampler.keeps(request.key) { sampledOut += 1; continue }
                    next.append(Int64(bitPattern: request.key))
                    if lcs {
                        lastTime = wholeSeconds(request.time)
                        Self.count(request.size, in: &objects[request.key, default: (0, 0)])   // one hash
                        requestBytes &+= request.size
                    }
                }
            }
        } catch {
            file.discard()
            throw .trace(error)
        }
        // As replay: an empty trace is bad input, not an empty output.
        guard rows > 0 else {
            file.discard()
            throw .trace(TraceError(.malformed, file: trace.path, reason: "the trace has no rows (empty file, or a header alone)"))
        }
        let never: Int64 = lcs ? .max : -1
        var lastSeen: [Int64: Int64] = [:]
        lastSeen.reserveCapacity(1 << 16)
        // For lcs: the objects by last request, latest first (the order traceConv, reading
        // backward, meets them).
        var objectsByLastRequest: [(id: UInt64, size: Int, count: Int)] = []
        for index in stride(from: next.count - 1, through: 0, by: -1) {
            let key = next[index]
            if let seen = lastSeen[key] {
                next[index] = seen
            } else {
                next[index] = never
                if lcs, let object = objects[UInt64(bitPattern: key)] {
                    objectsByLastRequest.append((UInt64(bitPattern: key), object.size, object.count))
                }
            }
            lastSeen[key] = Int64(index + 1)
        }
        lastSeen = [:]

        // Pass 2: write the records through the one atomic writer (whole, or the target untouched).
        var written = 0, sizesChanged = 0, timesWrapped = 0
        var firstSize: [UInt64: UInt32] = [:]
        do throws(CacheBenchError) {
            var chunk: [UInt8] = []
            chunk.reserveCapacity(24 << 14)
            if lcs {
                if options.removeSizeChange { requestBytes = objects.values.reduce(0) { $0 &+ $1.size &* $1.count } }
                let statistics = LCSHeaderStatistics(objects: objectsByLastRequest, rows: rows, requests: next.count,
                                                     requestBytes: requestBytes, startTime: firstTime, endTime: lastTime)
                objectsByLastRequest = []
                chunk += statistics.header(version: 1)
            }
            var reader: any TraceReader
            do throws(TraceError) { reader = try trace.open() } catch { throw .trace(error) }
            var batch: [Request] = []
            var rowsBefore = 0
            while true {
                do throws(TraceError) {
                    guard try reader.nextBatch(&batch) else { break }
                } catch { throw .trace(error) }
                defer { rowsBefore += batch.count }
                for (row, request) in zip((rowsBefore + 1)..., batch) where request.operation == .get && (request.size > 0 || !dropsZeroSize) {
                    if let sampler = options.sampler, !sampler.keeps(request.key) { continue }
                    guard written < next.count else {
                        throw .trace(TraceError(.malformed, file: trace.path, reason: "the trace changed between the two passes (more rows the second time)"))
                    }
                    var size = request.size
                    if options.removeSizeChange {
                        let pinned: Int
                        if lcs {
                            pinned = objects[request.key]?.size ?? size
                        } else if let first = firstSize[request.key] {
                            pinned = Int(first)
                        } else {
                            pinned = size
                            firstSize[request.key] = UInt32(truncatingIfNeeded: size)
                        }
                        if pinned != size { sizesChanged += 1 }
                        size = pinned
                    }
                    guard size <= Int(UInt32.max) else {
                        // traceConv would truncate the size; refused instead, at the row's line
                        // or byte, which a fresh reader finds.
                        let reason = "size \(size) does not fit the 32-bit size of \(options.format.rawValue) records"
                        let located: TraceError
                        do throws(TraceError) {
                            var locator = try trace.open()
                            located = locator.error(atRow: row, reason: reason)
                        } catch { located = error }
                        throw .trace(located)
                    }
                    // The u32 time: whole seconds modulo 2^32, as traceConv's assignment to its
                    // `uint32_t` field truncates them.
                    let seconds = wholeSeconds(request.time)
                    if seconds > Int64(UInt32.max) || seconds < 0 { timesWrapped += 1 }
                    append(UInt32(truncatingIfNeeded: seconds), to: &chunk)
                    append(request.key, to: &chunk)
                    append(UInt32(size), to: &chunk)
                    append(next[written], to: &chunk)
                    written += 1
                }
                if chunk.count >= 24 << 13 {
                    do { try file.write(chunk) } catch { throw .output(error.description) }
                    chunk.removeAll(keepingCapacity: true)
                }
            }
            do { try file.write(chunk) } catch { throw .output(error.description) }
            guard written == next.count else {
                throw .trace(TraceError(.malformed, file: trace.path, reason: "the trace changed between the two passes (fewer rows the second time)"))
            }
            do { try file.commit() } catch { throw .output(error.description) }
        } catch {
            file.discard()
            throw error
        }
        return Summary(records: written, leftOut: leftOut, zeroSize: zeroSize, sizesChanged: sizesChanged, sampledOut: sampledOut,
                       timesWrapped: timesWrapped)
    }

    /// One more request of an object, whose last size is now `size`.
    @inline(__always)
    private static func count(_ size: Int, in object: inout (size: Int, count: Int)) {
        object.size = size
        object.count += 1
    }

    /// Whole seconds as traceConv keeps them (its 64-bit `clock_time`; the lcs header's first
    /// and last times): a NaN or negative time is 0, one past 2^63 is clamped.
    private static func wholeSeconds(_ time: Double) -> Int64 {
        let seconds = time.rounded(.down)
        guard seconds >= 0 && !seconds.isNaN else { return 0 }
        // traceConv's `(int64_t)strtod(…)` on x86 gives the "integer indefinite" 0x8000…0 from
        // 2^63 on, whose low 32 bits, the record's time, are 0.
        return seconds >= 0x1p63 ? .min : Int64(seconds)
    }

    private static func append<T: FixedWidthInteger>(_ value: T, to bytes: inout [UInt8]) {
        withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) }
    }
}
