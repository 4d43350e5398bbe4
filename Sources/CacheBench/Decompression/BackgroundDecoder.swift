import Foundation

/// Runs a decoder on its own thread, a few 1 MiB chunks ahead of the reader, so decoding
/// overlaps with whatever consumes the bytes (parsing and replay).
///
/// Memory: `depth` chunks. An error is delivered after the bytes decoded before it.
final class _BackgroundDecoder: DecodedByteStream {
    private let pipe: _Pipe
    private var started = false
    /// The chunk being read by the consumer, and how far.
    private var current: Int?
    private var consumed = 0

    init(_ decoder: any DecodedByteStream, chunkSize: Int = 1 << 20, depth: Int = 4) {
        pipe = _Pipe(decoder: decoder, chunkSize: chunkSize, depth: depth)
    }

    deinit { pipe.cancel() }

    func read(into buffer: UnsafeMutableRawPointer, count: Int) throws(TraceError) -> Int {
        if !started {
            started = true
            let pipe = self.pipe
            let thread = Thread { pipe.produce() }
            thread.name = "cachebench-decode"
            thread.start()
        }
        while true {
            if let chunk = current {
                let available = pipe.counts[chunk] - consumed
                if available > 0 {
                    let n = min(count, available)
                    buffer.copyMemory(from: pipe.chunks[chunk] + consumed, byteCount: n)
                    consumed += n
                    return n
                }
                pipe.release()
                current = nil
            }
            switch pipe.next() {
            case .chunk(let index):
                current = index
                consumed = 0
            case .end:
                return 0
            case .failure(let error):
                throw error
            }
        }
    }
}

/// The chunks shared by the decoding thread and the reader, guarded by one condition variable.
final class _Pipe: @unchecked Sendable {
    enum Next { case chunk(Int), end, failure(TraceError) }

    private let decoder: any DecodedByteStream
    private let chunkSize: Int
    let chunks: [UnsafeMutableRawPointer]
    /// Bytes in each chunk; written by the producer before the chunk is published.
    let counts: UnsafeMutablePointer<Int>
    private let condition = NSCondition()
    private var ready = 0
    private var head = 0
    private var tail = 0
    private var ended = false
    private var failure: TraceError?
    private var cancelled = false

    init(decoder: any DecodedByteStream, chunkSize: Int, depth: Int) {
        self.decoder = decoder
        self.chunkSize = chunkSize
        chunks = (0..<depth).map { _ in UnsafeMutableRawPointer.allocate(byteCount: chunkSize, alignment: 16) }
        counts = .allocate(capacity: depth)
        counts.initialize(repeating: 0, count: depth)
    }

    deinit {
        for chunk in chunks { chunk.deallocate() }
        counts.deallocate()
    }

    /// The decoding thread: fills free chunks until the input ends, fails or the reader goes away.
    func produce() {
        while true {
            condition.lock()
            while ready == chunks.count && !cancelled { condition.wait() }
            let index = tail
            let stop = cancelled
            condition.unlock()
            if stop { return }
            var filled = 0
            var error: TraceError?
            do throws(TraceError) {
                while filled < chunkSize {
                    let n = try decoder.read(into: chunks[index] + filled, count: chunkSize - filled)
                    if n == 0 { break }
                    filled += n
                }
            } catch let e {
                error = e
            }
            condition.lock()
            counts[index] = filled
            if filled > 0 {
                tail = (tail + 1) % chunks.count
                ready += 1
            }
            if error != nil || filled < chunkSize {
                failure = error
                ended = true
            }
            condition.broadcast()
            let done = ended
            condition.unlock()
            if done { return }
        }
    }

    /// Waits for the next decoded chunk.
    func next() -> Next {
        condition.lock()
        defer { condition.unlock() }
        while ready == 0 && !ended { condition.wait() }
        if ready > 0 { return .chunk(head) }
        if let failure { return .failure(failure) }
        return .end
    }

    /// Gives the chunk at the head back to the producer.
    func release() {
        condition.lock()
        head = (head + 1) % chunks.count
        ready -= 1
        condition.broadcast()
        condition.unlock()
    }

    func cancel() {
        condition.lock()
        cancelled = true
        condition.broadcast()
        condition.unlock()
    }
}
