/// Converts a trace to libCacheSim's `oracleGeneral` binary format as libCacheSim's `traceConv`
/// does, byte for byte, so that the same requests can be replayed by libCacheSim's `cachesim`
/// beside cachebench.
///
/// Every `get` row of non-zero size becomes one 24-byte record `{u32 time, u64 id, u32 size,
/// i64 next}`, where `next` is the 1-based index of the next record with the same id, or -1.
/// Zero-size rows are left out and take no place in the next-access chain, as traceConv's readers
/// skip them; numeric keys are kept as the numbers they are. Rows the format cannot express
/// (`set`, `delete`, events) are left out and counted. Two passes over the input: the first finds
/// each record's next access (O(records) memory: 8 bytes each, plus a map of distinct keys), the
/// second writes through ``AtomicFile``, so the target is whole or untouched.
public enum TraceConverter {
    /// What a conversion wrote.
    public struct Summary: Sendable, Equatable {
        /// Records written.
        public var records: Int
        /// Rows left out because the format has no operations.
        public var leftOut: Int
        /// Zero-size rows left out.
        public var zeroSize: Int
        /// Records whose size was replaced by the object's first size (``Options/keepFirstSize``).
        public var sizesChanged: Int
    }

    /// How to convert.
    public struct Options: Sendable, Equatable {
        /// Give every record of an object the size of its first record, as traceConv's
        /// `--remove-size-change` does, for systems that cannot change an object's size.
        public var keepFirstSize: Bool

        /// Creates options.
        public init(keepFirstSize: Bool = false) { self.keepFirstSize = keepFirstSize }
    }

    /// Converts `trace` into `path`, written whole or not at all.
    public static func convert(_ trace: TraceSpec, to path: String, options: Options = Options()) throws(CacheBenchError) -> Summary {
        // The output is opened first: a path that cannot be written fails before the long pass,
        // and an interrupt during either pass removes the temporary file. A one-shot input (standard
        // input, a pipe) is read once: ``TraceSpec`` keeps the copy the second pass reads.
        let file: AtomicFile
        do { file = try AtomicFile(path: path) } catch { throw CacheBenchError(error) }
        // Pass 1: each record's key, then a backward pass turns keys into next indices in place.
        var next: [Int64] = []
        var leftOut = 0, zeroSize = 0
        do {
            var reader = try trace.open()
            var batch: [Request] = []
            while try reader.nextBatch(&batch) {
                for request in batch {
                    if request.operation != .get { leftOut += 1 } else if request.size == 0 { zeroSize += 1 } else {
                        next.append(Int64(bitPattern: request.key))
                    }
                }
            }
        } catch {
            file.discard()
            throw .trace(error)
        }
        var lastSeen: [Int64: Int64] = [:]
        lastSeen.reserveCapacity(1 << 16)
        for index in stride(from: next.count - 1, through: 0, by: -1) {
            let key = next[index]
            next[index] = lastSeen[key] ?? -1
            lastSeen[key] = Int64(index + 1)
        }
        lastSeen = [:]

        // Pass 2: write the records through the one atomic writer (whole, or the target untouched).
        var written = 0, sizesChanged = 0
        var firstSize: [UInt64: UInt32] = [:]
        do throws(CacheBenchError) {
            var reader: any TraceReader
            do throws(TraceError) { reader = try trace.open() } catch { throw .trace(error) }
            var batch: [Request] = []
            var chunk: [UInt8] = []
            chunk.reserveCapacity(24 << 14)
            while true {
                do throws(TraceError) {
                    guard try reader.nextBatch(&batch) else { break }
                } catch { throw .trace(error) }
                for request in batch where request.operation == .get && request.size > 0 {
                    guard written < next.count else {
                        throw .trace(TraceError(.malformed, file: trace.path, reason: "the trace changed between the two passes (more rows the second time)"))
                    }
                    guard request.size <= Int(UInt32.max) else {
                        throw .trace(TraceError(.malformed, file: trace.path,
                                                reason: "record \(written + 1): size \(request.size) does not fit oracleGeneral's 32-bit size"))
                    }
                    var size = UInt32(request.size)
                    if options.keepFirstSize {
                        if let first = firstSize[request.key] {
                            if first != size { sizesChanged += 1 }
                            size = first
                        } else {
                            firstSize[request.key] = size
                        }
                    }
                    // Whole seconds, clamped to the u32 field (a NaN or negative time writes 0).
                    let seconds = request.time.rounded(.down)
                    append(seconds >= 0 && seconds.isFinite ? UInt32(min(seconds, Double(UInt32.max))) : 0, to: &chunk)
                    append(request.key, to: &chunk)
                    append(size, to: &chunk)
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
        return Summary(records: written, leftOut: leftOut, zeroSize: zeroSize, sizesChanged: sizesChanged)
    }

    private static func append<T: FixedWidthInteger>(_ value: T, to bytes: inout [UInt8]) {
        withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) }
    }
}
