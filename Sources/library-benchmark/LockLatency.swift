// How long a get waits behind a thread that stores in a loop: the case a fair-enough lock must
// serve (an app's main thread reading while a decoding thread fills the cache).
import EvictionPolicies
import Foundation

/// One writer thread stores into `Cache(countLimit: 1000)` back to back while this thread times
/// `samples` single gets, 100 µs apart; prints the wait's p50, p99 and maximum.
func runLockLatency(samples: Int) {
    let cache = Cache<Int, Int>(policy: .lru, countLimit: 1_000, observesSystemEvents: false)
    for key in 0..<1_000 { cache[key] = key }
    let stop = StopFlag()
    let writer = Thread {
        var i = 0
        while !stop.isSet {
            cache[i % 1_000] = i
            i &+= 1
        }
    }
    writer.start()
    usleep(20_000)
    var waits: [Double] = []
    waits.reserveCapacity(samples)
    var found = 0
    for i in 0..<samples {
        usleep(100)
        let start = DispatchTime.now().uptimeNanoseconds
        if cache[i % 1_000] != nil { found += 1 }
        waits.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1_000)
    }
    stop.set()
    waits.sort()
    func quantile(_ q: Double) -> Double { waits[min(waits.count - 1, Int(Double(waits.count) * q))] }
    print("get behind a writer storing in a loop, \(samples) gets 100 µs apart (\(found) found):")
    print(String(format: "  p50 %.1f µs, p99 %.1f µs, max %.1f µs", quantile(0.5), quantile(0.99), waits.last ?? 0))
}

/// A flag one thread sets and another polls, behind a lock (the benchmark runs on macOS before 15, where `Atomic` is not available).
final class StopFlag: @unchecked Sendable {
    private let lock = NSLock()
    private var value = false
    var isSet: Bool { lock.lock(); defer { lock.unlock() }; return value }
    func set() { lock.lock(); value = true; lock.unlock() }
}
