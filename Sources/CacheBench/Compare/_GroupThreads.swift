import Dispatch
import Foundation

/// Threads that each run the same group of lanes on every batch of a read of the trace: the
/// calling thread runs group 0, worker *g* runs group *g* (the last group also decodes the next batch:
/// see `Compare.drive`).
///
/// Why not `DispatchQueue.concurrentPerform`: it hands each iteration to whichever of its
/// threads asks first, so from batch to batch a lane moved between threads, and with them between
/// cores, leaving its policy's memory (index, slots, queues: megabytes) in the other core's
/// caches to be fetched again. Kept on one thread, a lane keeps its core's caches; the scheduler
/// keeps a thread that sleeps briefly on the core it left.
///
/// ``run(_:)`` returns only when every group has finished, and the semaphores order each batch's
/// writes before the next batch's reads, as `concurrentPerform` did; hence `@unchecked Sendable`.
/// ``stop()`` ends the workers; it must be called once the read ends, however it ends.
final class _GroupThreads: @unchecked Sendable {
    private let starts: [DispatchSemaphore]
    private let finished = DispatchSemaphore(value: 0)
    /// The batch's work, set by ``run(_:)`` before the workers are started and read by them
    /// after; `nil` tells them to stop.
    private var body: ((Int) -> Void)?

    /// Starts `count - 1` workers (none for a count of 1 or less).
    init(count: Int) {
        starts = (1..<max(1, count)).map { _ in DispatchSemaphore(value: 0) }
        for (i, start) in starts.enumerated() {
            let thread = Thread { [self] in work(group: i + 1, start: start) }
            thread.name = "cachebench-lanes-\(i + 1)"
            thread.start()
        }
    }

    /// Calls `body` with every group number, each on its own thread, and returns when all have returned.
    func run(_ body: @escaping (Int) -> Void) {
        self.body = body
        for start in starts { start.signal() }
        body(0)
        for _ in starts { finished.wait() }
        self.body = nil
    }

    /// Ends the workers and waits until none touches this object any more.
    func stop() {
        body = nil
        for start in starts { start.signal() }
        for _ in starts { finished.wait() }
    }

    private func work(group: Int, start: DispatchSemaphore) {
        while true {
            start.wait()
            guard let body else {
                finished.signal()
                return
            }
            body(group)
            finished.signal()
        }
    }
}
