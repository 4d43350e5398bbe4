
/// Converts a trace to libCacheSim's `oracleGeneral` binary format, as libCacheSim's `traceConv`
/// does, so that the same requests can be replayed by libCacheSim's `cachesim` beside cachebench.
///
/// Every `get` row becomes one 24-byte record `{u32 time, u64 id, u32 size, i64 next}`, where
/// `next` is the 1-based index of the next record with the same id, or -1. Rows the format
/// cannot express (`set`, `delete`, events) are left out and counted. Two passes over the input:
/// the first finds each record's next access (O(records) memory: 8 bytes each), the second writes.
public enum OracleGeneralWriter {
    /// What a conversion wrote.
    public struct Summary: Sendable, Equatable {
        /// Records written.
        public var records: Int
        /// Rows left out because the format has no operations.
        public var leftOut: Int
    }

    /// Converts `trace` into `path`, written whole or not at all.
    public static func convert(_ trace: TraceSpec, to path: String) throws(CacheBenchError) -> Summary {
        // The output is opened first: a path that cannot be written fails before the long pass,
        // and an interrupt during either pass removes the temporary file.
        let file: AtomicFile
        do { file = try AtomicFile(path: path) } catch { throw CacheBenchError(error) }
        // Pass 1: each record's key, then a backward pass turns keys into next indices in place.
        var next: [Int64] = []
        var leftOut = 0
        do {
            var reader = try trace.open()
            var batch: [Request] = []
            while try reader.nextBatch(&batch) {
                for request in batch {
                    if request.operation == .get { next.append(Int64(bitPattern: request.key)) } else { leftOut += 1 }
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
        var written = 0
        do {
            var reader = try trace.open()
            var batch: [Request] = []
            var chunk: [UInt8] = []
            chunk.reserveCapacity(24 << 14)
            while try reader.nextBatch(&batch) {
                for request in batch where request.operation == .get {
                    guard request.size <= Int(UInt32.max) else {
                        throw CacheBenchError.trace(TraceError(.malformed, file: trace.path, reason: "record \(written + 1): size \(request.size) does not fit oracleGeneral's 32-bit size"))
                    }
                    guard written < next.count else {
                        throw CacheBenchError.trace(TraceError(.malformed, file: trace.path, reason: "the trace changed between the two reads (more rows the second time)"))
                    }
                    append(UInt32(clamping: Int64(request.time.rounded(.down))), to: &chunk)
                    append(request.key, to: &chunk)
                    append(UInt32(request.size), to: &chunk)
                    append(next[written], to: &chunk)
                    written += 1
                }
                if chunk.count >= 24 << 13 {
                    try file.write(chunk)
                    chunk.removeAll(keepingCapacity: true)
                }
            }
            try file.write(chunk)
            guard written == next.count else {
                throw CacheBenchError.trace(TraceError(.malformed, file: trace.path, reason: "the trace changed between the two reads (fewer rows the second time)"))
            }
            try file.commit()
        } catch let error as TraceError {
            file.discard()
            throw .trace(error)
        } catch let error as OutputError {
            throw CacheBenchError(error)
        } catch let error as CacheBenchError {
            file.discard()
            throw error
        } catch {
            file.discard()
            throw .output("\(path): cannot write: \(error)")
        }
        return Summary(records: written, leftOut: leftOut)
    }

    private static func append<T: FixedWidthInteger>(_ value: T, to bytes: inout [UInt8]) {
        withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) }
    }
}
