// libFuzzer entry point for the trace readers; built by Scripts/fuzz-readers.sh together with
// Sources/CacheBench/Trace/*.swift. The first byte picks the reader, the rest is the input.

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzReaders(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    guard size > 0 else { return 0 }
    let bytes = Array(UnsafeBufferPointer(start: data + 1, count: size - 1))
    let source = ByteSource(bytes: bytes, name: "fuzz", readSize: Int(data[0] >> 1) + 1)
    var reader: any TraceReader = data[0] & 1 == 0
        ? CSVTraceReader(source: source)
        : OracleGeneralReader(source: source, recordsPerChunk: 3)
    var batch: [Request] = []
    do {
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
