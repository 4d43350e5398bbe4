import Foundation

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
        guard trace.isRewindable else {
            throw .usage(UsageError("convert needs a trace file, not standard input (it reads the trace twice)"))
        }
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
        } catch { throw .trace(error) }
        var lastSeen: [Int64: Int64] = [:]
        lastSeen.reserveCapacity(1 << 16)
        for index in stride(from: next.count - 1, through: 0, by: -1) {
            let key = next[index]
            next[index] = lastSeen[key] ?? -1
            lastSeen[key] = Int64(index + 1)
        }
        lastSeen = [:]

        // Pass 2: write the records beside the target, then rename.
        let url = URL(fileURLWithPath: path)
        let temporary = url.deletingLastPathComponent()
            .appendingPathComponent(".\(url.lastPathComponent).\(ProcessInfo.processInfo.processIdentifier).tmp")
        guard FileManager.default.createFile(atPath: temporary.path, contents: nil),
              let handle = try? FileHandle(forWritingTo: temporary) else {
            throw .output("\(path): cannot write")
        }
        var written = 0
        do throws(TraceError) {
            var reader = try trace.open()
            var batch: [Request] = []
            var chunk = Data()
            chunk.reserveCapacity(24 << 14)
            while try reader.nextBatch(&batch) {
                for request in batch where request.operation == .get {
                    guard request.size <= Int(UInt32.max) else {
                        throw TraceError(.malformed, file: trace.path, reason: "record \(written + 1): size \(request.size) does not fit oracleGeneral's 32-bit size")
                    }
                    append(UInt32(clamping: Int64(request.time.rounded(.down))), to: &chunk)
                    append(request.key, to: &chunk)
                    append(UInt32(request.size), to: &chunk)
                    append(next[written], to: &chunk)
                    written += 1
                }
                if chunk.count >= 24 << 13 {
                    try? handle.write(contentsOf: chunk)
                    chunk.removeAll(keepingCapacity: true)
                }
            }
            try? handle.write(contentsOf: chunk)
            try? handle.close()
        } catch {
            try? handle.close()
            try? FileManager.default.removeItem(at: temporary)
            throw .trace(error)
        }
        do {
            if FileManager.default.fileExists(atPath: url.path) { _ = try FileManager.default.replaceItemAt(url, withItemAt: temporary) }
            else { try FileManager.default.moveItem(at: temporary, to: url) }
        } catch {
            try? FileManager.default.removeItem(at: temporary)
            throw .output("\(path): cannot write: \(error.localizedDescription)")
        }
        return Summary(records: written, leftOut: leftOut)
    }

    private static func append<T: FixedWidthInteger>(_ value: T, to data: inout Data) {
        withUnsafeBytes(of: value.littleEndian) { data.append(contentsOf: $0) }
    }
}
