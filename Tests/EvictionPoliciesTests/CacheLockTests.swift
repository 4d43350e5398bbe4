import Dispatch
@testable import EvictionPolicies
import Foundation
import Synchronization
import Testing

/// What the threads of a lock test share: a plain counter only the lock protects, and a count of
/// holders that would exceed 1 if two threads were ever inside together.
private final class Shared: @unchecked Sendable {
    let lock = _CacheLock()
    var counter = 0
    var inside = 0
    var overlaps = 0
    deinit { lock.deallocate() }
    /// Runs `body` holding the lock under test.
    func locked(_ body: () -> Void) {
        lock.lock()
        body()
        lock.unlock()
    }
}

/// Runs `body(thread)` on `threads` threads of their own, started together, and waits for all.
private func onThreads(_ threads: Int, _ body: @escaping @Sendable (Int) -> Void) {
    let done = DispatchSemaphore(value: 0)
    let start = DispatchSemaphore(value: 0)
    for index in 0..<threads {
        let thread = Thread {
            start.wait()
            body(index)
            done.signal()
        }
        thread.start()
    }
    for _ in 0..<threads { start.signal() }
    for _ in 0..<threads { done.wait() }
}

@Suite("The lock behind Cache: mutual exclusion, waiters that always get in")
struct CacheLockTests {
    @Test("16 threads, 20,000 increments each of an unprotected counter: none lost, never two holders")
    func mutualExclusion() {
        let shared = Shared()
        let threads = 16, increments = 20_000
        onThreads(threads) { _ in
            for _ in 0..<increments {
                shared.locked {
                    shared.inside += 1
                    if shared.inside != 1 { shared.overlaps += 1 }
                    shared.counter += 1
                    shared.inside -= 1
                }
            }
        }
        #expect(shared.counter == threads * increments)
        #expect(shared.overlaps == 0)
    }

    @Test("a holder that keeps the lock 20 ms at a time: every waiter gets in, through every waiting stage")
    func longHolder() {
        let shared = Shared()
        let threads = 6, rounds = 5
        onThreads(threads) { index in
            for _ in 0..<rounds {
                shared.locked {
                    shared.counter += 1
                    // Thread 0 holds the lock long enough for the others to spin, yield and sleep.
                    if index == 0 { usleep(20_000) }
                }
            }
        }
        #expect(shared.counter == threads * rounds)
    }

    #if !canImport(Darwin)
    @Test("while a waiter's handoff request is raised, no other thread takes even a free lock; lowered, it does")
    func handoffRequestKeepsOthersOut() {
        // The request is how a waiter that polls every 50 µs gets in against a thread that
        // releases and retakes the lock in a loop (measured without it: gets waiting 0.2 s).
        // Raised here by hand, as the waiter's slow path raises it.
        let lock = _CacheLock()
        defer { lock.deallocate() }
        lock._request.pointee.store(1, ordering: .releasing)
        let entered = Atomic<Bool>(false)
        let done = DispatchSemaphore(value: 0)
        let thread = Thread {
            lock.lock()
            entered.store(true, ordering: .releasing)
            lock.unlock()
            done.signal()
        }
        thread.start()
        usleep(50_000)
        let enteredWhileRaised = entered.load(ordering: .acquiring)
        #expect(!enteredWhileRaised, "a thread took the lock past a raised handoff request")
        lock._request.pointee.store(0, ordering: .releasing)
        done.wait()
        let enteredOnceLowered = entered.load(ordering: .acquiring)
        #expect(enteredOnceLowered)
    }
    #endif

    @Test("Cache on 8 threads: gets, sets and removes of shared keys keep count and values consistent")
    func cacheUnderContention() {
        let cache = Cache<Int, Int>(policy: .lru, countLimit: 64, observesSystemEvents: false)
        let wrongValues = Atomic<Int>(0)
        onThreads(8) { index in
            for step in 0..<5_000 {
                let key = (step &* 31 &+ index) % 128
                switch step % 3 {
                case 0: cache[key] = key &* 7
                case 1: if let value = cache[key], value != key &* 7 { wrongValues.add(1, ordering: .relaxed) }
                default: if step % 9 == 2 { cache.removeValue(forKey: key) }
                }
            }
        }
        #expect(wrongValues.load(ordering: .relaxed) == 0)
        #expect(cache.count <= 64)
        let resident = (0..<128).filter { cache.contains($0) }.count
        #expect(resident == cache.count)
    }

    @Test("a RecordingCache takes over its cache's system-event subscription: each event is recorded, and reaches the cache again once the wrapper is gone")
    func recordingTakesOverSystemEvents() throws {
        let cache = Cache<Int, Int>(observesSystemEvents: false)
        // What the cache holds on Apple platforms when it subscribes itself.
        cache._systemEvents = _SystemEventRelay { _ in }
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("takeover-\(UUID().uuidString).csv")
        defer { try? FileManager.default.removeItem(at: url) }
        let recorder = try TraceRecorder(url: url)
        do {
            let recording = RecordingCache(cache, recorder: recorder)
            recording.setValue(1, forKey: 1)
            try #require(cache._systemEvents as? _SystemEventRelay).send(.memoryWarning)
            #expect(recording.count == 0)
        }
        try recorder.finish()
        let rows = try String(contentsOf: url, encoding: .utf8).split(separator: "\n")
        #expect(rows.last?.hasSuffix(",memory-warning") == true, "\(rows)")
        cache.setValue(2, forKey: 2)
        try #require(cache._systemEvents as? _SystemEventRelay).send(.memoryWarning)
        #expect(cache.count == 0)
    }
}
