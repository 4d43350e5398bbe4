// libFuzzer entry point for the trace readers; built by Scripts/fuzz-readers.sh together with
// Sources/CacheBench/Trace/*.swift and Sources/CacheBench/Decompression. The first byte picks the reader (CSV, oracleGeneral, or
// whatever format detection finds) and the read size; the rest is the input.

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzReaders(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    guard size > 0 else { return 0 }
    let bytes = Array(UnsafeBufferPointer(start: data + 1, count: size - 1))
    let source = ByteSource(bytes: bytes, name: "fuzz", readSize: Int(data[0] >> 2) + 1)
    var batch: [Request] = []
    do {
        var reader: any TraceReader
        switch data[0] & 3 {
        case 0: reader = CSVTraceReader(source: source)
        case 1: reader = OracleGeneralReader(source: source, recordsPerChunk: 3)
        default:
            let prefix = try source.peek(upTo: TraceFormatDetection.prefixLength)
            guard let entry = TraceFormatDetection.detect(prefix) else { return 0 }
            reader = try entry.open(source, TraceSpec(path: "fuzz"))
        }
        while try reader.nextBatch(&batch) {
            for request in batch where request.size < 0 || request.size > 1 << 53 || !request.time.isFinite {
                fatalError("reader produced an invalid request: \(request)")
            }
        }
    } catch {
        if error.line == nil && error.offset == nil { fatalError("unlocated error: \(error)") }
    }
    return 0
}
