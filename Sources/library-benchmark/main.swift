// Library-use benchmark: EvictionPolicies caches as an app holds them (String keys, class values)
// against Foundation's NSCache and the straightforward Swift LRU most apps write (a Dictionary of
// class nodes on a doubly linked list), measured side by side in one process.
//
// Usage: swift run -c release library-benchmark [options]; --help lists them.
import EvictionPolicies
import Foundation

let usage = """
    usage: library-benchmark [--keys N] [--rounds N] [--access uniform|shuffled|zipf] [--short-keys] [--only NAME[|NAME…]]
                             [--per-round]
           library-benchmark --disk [--rounds N] [--trim-files N]
           library-benchmark --lock-latency
           library-benchmark --limit-change

    Sets every key once into each cache, then gets as many keys, and prints set and get
    throughput side by side, with the caches interleaved in each round. The thread-safe caches
    (Cache, the straightforward LRU behind a lock, NSCache) also run on two threads, and so does
    StripedCache (8 independent LRU stripes: not one exact LRU order, so no target applies).

    --disk compares DiskCache with a FileManager file-per-key cache written like SDWebImage's:
    set and get of 4 KiB, 64 KiB and 1 MiB values, then the time to trim N files (default
    100000) to a quarter.

    --lock-latency times single gets on Cache while another thread stores in a loop (the wait's
    p50, p99 and maximum).

    --limit-change times the cold paths of a Cache of a million entries, for each named policy:
    lowering the cost limit to half and raising it back (a drain and refill), and two memory
    warnings with an eviction handler set (a trim to half, then removing all). Then it prints the
    heap such a cache holds full, after a memory warning that trims it to 5 %, and when filled
    with only as many entries (the storage a purge did not give back is the difference); then the
    same for Caches over app-library models, purged by removing 95 % of the keys.

      --keys N        distinct keys (default 200000)
      --rounds N      rounds; ratios are the median of per-round ratios (default 5)
      --access A      the keys the get pass asks for: uniform (each key once, in the random
                      order the set pass used; the default), shuffled (each key once, in a
                      random order of its own) or zipf (Zipf(1.0) over the keys, popular ones
                      scattered)
      --short-keys    keys of at most 15 bytes ("feed/123.jpg"), which Swift stores inline,
                      instead of image URLs (about 40 bytes, on the heap)
      --only NAME     run only the caches whose name contains NAME, or any of several names
                      separated by | (for profiling: "Cache (LRU)|LRUCache behind")
      --per-round     also print every round's get ops/s per cache, in the order the rounds ran

    The last row is not a cache: it reads each key's bytes and its value, the memory work every
    cache shares. A cache's get cannot be faster than it, so it bounds every ratio between caches.

    The row "LRUCache behind a class method, no lock" is the bare policy called as a class's
    method the optimiser does not inline: what any cache held as a class pays before its lock,
    against which Cache's lock and bookkeeping are measured.
    """
if CommandLine.arguments.contains("--help") || CommandLine.arguments.contains("-h") {
    print(usage)
    exit(0)
}
if CommandLine.arguments.contains("--limit-change") {
    runLimitChange(entries: 1_000_000)
    print("")
    runPurgeMemory(entries: 1_000_000)
    print("")
    runLibraryPurgeMemory(entries: 1_000_000)
    exit(0)
}
if CommandLine.arguments.contains("--lock-latency") {
    runLockLatency(samples: 5_000)
    exit(0)
}
if CommandLine.arguments.contains("--disk") {
    do {
        try runDiskBenchmark()
        exit(0)
    } catch {
        print("library-benchmark: \(error)")
        exit(1)
    }
}

final class Image: Sendable {
    let pixels: Int
    init(pixels: Int) { self.pixels = pixels }
}

/// The LRU most apps write: a dictionary of class nodes on a doubly linked list.
/// Whether a get found an image the app can draw. Every get pass reads the value it found, as an
/// app does: without it the optimiser may drop the returned value's retain for some caches and not
/// others (it did for the bare policies), and the rows would stop measuring the same work.
@inline(__always)
func isDrawable(_ image: Image?) -> Bool { (image?.pixels ?? -1) >= 0 }

final class StraightforwardLRU {
    final class Node {
        let key: String
        var value: Image
        var previous: Node?
        var next: Node?
        init(key: String, value: Image) { self.key = key; self.value = value }
    }
    private var nodes: [String: Node] = [:]
    private var head: Node?
    private var tail: Node?
    private let countLimit: Int
    init(countLimit: Int) { self.countLimit = countLimit }

    func value(forKey key: String) -> Image? {
        guard let node = nodes[key] else { return nil }
        moveToHead(node)
        return node.value
    }

    func setValue(_ value: Image, forKey key: String) {
        if let node = nodes[key] {
            node.value = value
            moveToHead(node)
            return
        }
        let node = Node(key: key, value: value)
        nodes[key] = node
        node.next = head
        head?.previous = node
        head = node
        if tail == nil { tail = node }
        if nodes.count > countLimit, let last = tail {
            unlink(last)
            nodes[last.key] = nil
        }
    }

    private func moveToHead(_ node: Node) {
        guard head !== node else { return }
        unlink(node)
        node.next = head
        head?.previous = node
        head = node
        if tail == nil { tail = node }
    }

    private func unlink(_ node: Node) {
        node.previous?.next = node.next
        node.next?.previous = node.previous
        if head === node { head = node.next }
        if tail === node { tail = node.previous }
        node.previous = nil
        node.next = nil
    }
}

/// The straightforward LRU behind an `NSLock`, as an app shares one between threads.
final class LockedStraightforwardLRU: @unchecked Sendable {
    private let lock = NSLock()
    private let cache: StraightforwardLRU
    init(countLimit: Int) { cache = StraightforwardLRU(countLimit: countLimit) }
    func value(forKey key: String) -> Image? { lock.lock(); defer { lock.unlock() }; return cache.value(forKey: key) }
    func setValue(_ value: Image, forKey key: String) { lock.lock(); defer { lock.unlock() }; cache.setValue(value, forKey: key) }
}

/// The value after option `name`, or `nil` when the option is absent or has no value.
func option(_ name: String) -> String? {
    guard let i = CommandLine.arguments.firstIndex(of: name), i + 1 < CommandLine.arguments.count else { return nil }
    return CommandLine.arguments[i + 1]
}

/// The whole number after option `name` (from 1 to `maximum`), or `value` when the option is absent;
/// anything else ends the run with exit code 2, as a usage error.
func argument(_ name: String, default value: Int, maximum: Int = 100_000_000) -> Int {
    guard CommandLine.arguments.contains(name) else { return value }
    guard let text = option(name), let number = Int(text), (1...maximum).contains(number) else {
        print("library-benchmark: \(name) takes a whole number from 1 to \(maximum), \(option(name).map { "not '\($0)'" } ?? "and none was given")")
        exit(2)
    }
    return number
}

let keyCount = argument("--keys", default: 200_000)
let rounds = argument("--rounds", default: 5)
let shortKeys = CommandLine.arguments.contains("--short-keys")
let keys = (0..<keyCount).map { shortKeys ? "feed/\($0).jpg" : "https://images.example.com/feed/\($0).jpg" }
let nsKeys = keys.map { $0 as NSString }
let values = (0..<keyCount).map { Image(pixels: $0) }
var shuffled = Array(0..<keyCount)
var generator = SystemRandomNumberGenerator()
shuffled.shuffle(using: &generator)
let order = shuffled

/// The keys the get pass asks for: each key once in random order (`uniform`, the default), or
/// `zipf`: as many requests drawn from Zipf(1.0) over the keys, the popular ones scattered in memory
/// (ranks map to keys through the shuffle), the way an app's feed revisits its popular images.
let access = option("--access") ?? "uniform"
let getOrder: [Int]
switch access {
case "uniform":
    getOrder = order
case "shuffled":
    // Not the set pass's order: entries stored one after another in a cache's arrays (and the
    // straightforward LRU's nodes, allocated one after another) are then read scattered, as an
    // app's gets read them, rather than streamed.
    var reshuffled = shuffled
    reshuffled.shuffle(using: &generator)
    getOrder = reshuffled
case "zipf":
    var cumulative = [Double](repeating: 0, count: keyCount)
    var total = 0.0
    for rank in 0..<keyCount {
        total += 1 / Double(rank + 1)
        cumulative[rank] = total
    }
    getOrder = (0..<keyCount).map { _ in
        let target = Double.random(in: 0..<total, using: &generator)
        var low = 0, high = keyCount - 1
        while low < high {
            let middle = (low + high) / 2
            if cumulative[middle] < target { low = middle + 1 } else { high = middle }
        }
        return shuffled[low]
    }
default:
    print("library-benchmark: --access is uniform, shuffled or zipf, not \(access)")
    exit(2)
}

// Each pass reads its keys and values from arrays laid out in the pass's own order, as an app
// has the key of each request in hand. Indexing the 200,000-key array at random instead cost
// every cache a harness cache miss per operation (about 40 ns, 12 % of a bare policy's get)
// before the cache saw the key. The key strings themselves stay where they were made, in index
// order, so each cache still meets them scattered, as the values.
let setKeys = order.map { keys[$0] }, setNSKeys = order.map { nsKeys[$0] }, setValues = order.map { values[$0] }
let getKeys = getOrder.map { keys[$0] }, getNSKeys = getOrder.map { nsKeys[$0] }, getValues = getOrder.map { values[$0] }


/// One cache under test: a fresh set pass over every key, then a get pass over every key.
struct Contender {
    var name: String
    /// Runs one round; returns the seconds of the set pass and of the get pass.
    var round: @MainActor () -> (set: Double, get: Double)
}

// Every cache holds all keys (no eviction), so set and get measure the structures themselves.
@MainActor
func contender<P: EvictionPolicy>(_ name: String, _ make: @escaping () -> P) -> Contender
where P.Key == String, P.Value == Image {
    Contender(name: name) {
        var cache = make()
        let set = seconds {
            for (key, value) in zip(setKeys, setValues) { cache.setValue(value, forKey: key, cost: 1) }
            return cache.count
        }
        let get = seconds {
            var found = 0
            for key in getKeys where isDrawable(cache.value(forKey: key)) { found += 1 }
            return found
        }
        precondition(set.check == keyCount && get.check == keyCount, "\(name) lost entries")
        return (set.seconds, get.seconds)
    }
}

var contenders: [Contender] = []
do {
    // The limits are constants; a configuration error would be a bug in this benchmark.
    let lru = try LRUCache<String, Image>(capacity: nil, countLimit: keyCount)
    let sieve = try SieveCache<String, Image>(capacity: keyCount)
    let fifo = try FIFOCache<String, Image>(capacity: nil, countLimit: keyCount)
    contenders.append(contender("EvictionPolicies LRUCache") { lru })
    contenders.append(contender("EvictionPolicies SieveCache") { sieve })
    contenders.append(contender("EvictionPolicies FIFOCache") { fifo })
} catch {
    print("library-benchmark: \(error)")
    exit(1)
}
/// The bare LRUCache behind the methods of a final class, without a lock: what any cache held as
/// a class pays that a struct inlined into the caller's loop does not (a call the optimiser
/// keeps, the key retained for it, and no overlap of one get's cache misses with the next's).
/// Measured in session 27, this alone read 0.75 to 0.79 of the inlined LRUCache's get, as
/// `Cache` did with its lock removed: it is the reference for the lock's and the bookkeeping's cost.
final class ClassHeldLRU {
    var policy: LRUCache<String, Image>
    init(_ policy: LRUCache<String, Image>) { self.policy = policy }
    @inline(never) func value(forKey key: String) -> Image? { policy.value(forKey: key) }
    @inline(never) func setValue(_ value: Image, forKey key: String) { policy.setValue(value, forKey: key, cost: 1) }
}
do {
    let empty = try LRUCache<String, Image>(capacity: nil, countLimit: keyCount)
    contenders.append(Contender(name: "EvictionPolicies LRUCache behind a class method, no lock") {
        let cache = ClassHeldLRU(empty)
        let set = seconds {
            for (key, value) in zip(setKeys, setValues) { cache.setValue(value, forKey: key) }
            return cache.policy.count
        }
        let get = seconds {
            var found = 0
            for key in getKeys where isDrawable(cache.value(forKey: key)) { found += 1 }
            return found
        }
        precondition(set.check == keyCount && get.check == keyCount, "the class-held LRUCache lost entries")
        return (set.seconds, get.seconds)
    })
} catch {
    print("library-benchmark: \(error)")
    exit(1)
}
contenders.append(Contender(name: "straightforward Swift LRU") {
    let cache = StraightforwardLRU(countLimit: keyCount)
    let set = seconds {
        for (key, value) in zip(setKeys, setValues) { cache.setValue(value, forKey: key) }
        return 0
    }
    let get = seconds {
        var found = 0
        for key in getKeys where isDrawable(cache.value(forKey: key)) { found += 1 }
        return found
    }
    precondition(get.check == keyCount, "the straightforward LRU lost entries")
    return (set.seconds, get.seconds)
})
contenders.append(Contender(name: "Foundation NSCache") {
    let cache = NSCache<NSString, Image>()
    cache.countLimit = keyCount
    let set = seconds {
        for (key, value) in zip(setNSKeys, setValues) { cache.setObject(value, forKey: key, cost: 1) }
        return 0
    }
    let get = seconds {
        var found = 0
        for key in getNSKeys where isDrawable(cache.object(forKey: key)) { found += 1 }
        return found
    }
    precondition(get.check == keyCount, "NSCache lost entries")
    return (set.seconds, get.seconds)
})

/// XOR of `key`'s UTF-8 bytes taken eight at a time: reads every byte, as any hash must, and
/// does nothing else with them.
func readEveryByte(_ key: String) -> Int {
    key.utf8.withContiguousStorageIfAvailable { bytes in
        let raw = UnsafeRawBufferPointer(bytes)
        var folded: UInt64 = UInt64(raw.count)
        var offset = 0
        while offset + 8 <= raw.count {
            folded ^= raw.loadUnaligned(fromByteOffset: offset, as: UInt64.self)
            offset += 8
        }
        while offset < raw.count {
            folded ^= UInt64(raw[offset])
            offset += 1
        }
        return Int(truncatingIfNeeded: folded)
    } ?? key.utf8.count
}

// Not a cache: the memory work every cache above shares (read each byte of the key, touch the
// value object) without hashing or any structure. Its time is a floor that no cache can go
// below, which bounds the ratios between caches.
contenders.append(Contender(name: "floor: read the key's bytes and the value") {
    let set = seconds {
        var sum = 0
        for (key, value) in zip(setKeys, setValues) { sum &+= readEveryByte(key) &+ value.pixels }
        return sum
    }
    let get = seconds {
        var found = 0
        for (key, value) in zip(getKeys, getValues) where readEveryByte(key) != -1 && value.pixels >= 0 { found += 1 }
        return found
    }
    precondition(get.check == keyCount, "the floor lost entries")
    return (set.seconds, get.seconds)
})

// The thread-safe caches: EvictionPolicies' Cache, the straightforward LRU behind a lock, and
// NSCache, on one thread and on two (each thread sets and gets half of the keys, interleaved).
/// One pass of `operation` over the positions `0..<count` of a pass's arrays, split between
/// `threads` threads; returns the hits.
func split(_ count: Int, threads: Int, _ operation: @escaping @Sendable (Int) -> Bool) -> Int {
    if threads == 1 { return (0..<count).reduce(0) { $0 + (operation($1) ? 1 : 0) } }
    let counts = UnsafeMutableBufferPointer<Int>.allocate(capacity: threads)
    defer { counts.deallocate() }
    nonisolated(unsafe) let shared = counts
    DispatchQueue.concurrentPerform(iterations: threads) { thread in
        var found = 0
        var i = thread
        while i < count {
            if operation(i) { found += 1 }
            i += threads
        }
        shared[thread] = found
    }
    return counts.reduce(0, +)
}

/// A thread-safe cache under test: its set and get, each for one position in its pass's arrays.
@MainActor
func threadSafe(_ name: String, threads: Int, _ make: @escaping @MainActor () -> (set: @Sendable (Int) -> Void, get: @Sendable (Int) -> Bool)) -> Contender {
    Contender(name: threads == 1 ? name : "\(name), \(threads) threads") {
        let cache = make()
        let set = seconds { split(setKeys.count, threads: threads) { cache.set($0); return true } }
        let get = seconds { split(getKeys.count, threads: threads, cache.get) }
        precondition(get.check == keyCount, "\(name) lost entries")
        return (set.seconds, get.seconds)
    }
}

// One thread: plain loops, as the bare policies and NSCache above run, so the ratios compare
// the caches and not the harness.
contenders.append(Contender(name: "EvictionPolicies Cache (LRU)") {
    let cache = Cache<String, Image>(policy: .lru, countLimit: keyCount, observesSystemEvents: false)
    let set = seconds {
        for (key, value) in zip(setKeys, setValues) { cache.setValue(value, forKey: key, cost: 1) }
        return cache.count
    }
    let get = seconds {
        var found = 0
        for key in getKeys where isDrawable(cache.value(forKey: key)) { found += 1 }
        return found
    }
    precondition(set.check == keyCount && get.check == keyCount, "Cache lost entries")
    return (set.seconds, get.seconds)
})
contenders.append(Contender(name: "locked straightforward LRU") {
    let cache = LockedStraightforwardLRU(countLimit: keyCount)
    let set = seconds {
        for (key, value) in zip(setKeys, setValues) { cache.setValue(value, forKey: key) }
        return 0
    }
    let get = seconds {
        var found = 0
        for key in getKeys where isDrawable(cache.value(forKey: key)) { found += 1 }
        return found
    }
    precondition(get.check == keyCount, "the locked LRU lost entries")
    return (set.seconds, get.seconds)
})

// Two threads: each cache behind the same closures, so the harness costs all three alike.
let sharedSetKeys = setKeys, sharedSetValues = setValues, sharedGetKeys = getKeys
nonisolated(unsafe) let sharedSetNSKeys = setNSKeys, sharedGetNSKeys = getNSKeys
for threads in [2] {
    contenders.append(threadSafe("EvictionPolicies Cache (LRU)", threads: threads) {
        let cache = Cache<String, Image>(policy: .lru, countLimit: keyCount, observesSystemEvents: false)
        return ({ cache.setValue(sharedSetValues[$0], forKey: sharedSetKeys[$0], cost: 1) }, { isDrawable(cache.value(forKey: sharedGetKeys[$0])) })
    })
    contenders.append(threadSafe("EvictionPolicies StripedCache (LRU, 8 stripes)", threads: threads) {
        // Keys spread over the stripes unevenly: a stripe's count is binomial, with a standard
        // deviation of √(7N/64). Room for six deviations more in every stripe (8 × 6 × √(7N/64)
        // ≈ 16√N in all; 3.6 % at the default 200,000 keys, 35 % at 2,000) keeps every key, as in
        // every other row.
        let headroom = Int((16 * Double(keyCount).squareRoot()).rounded(.up))
        let cache = StripedCache<String, Image>(policy: .lru, stripes: 8, countLimit: keyCount + headroom,
                                                observesSystemEvents: false)
        return ({ cache.setValue(sharedSetValues[$0], forKey: sharedSetKeys[$0], cost: 1) }, { isDrawable(cache.value(forKey: sharedGetKeys[$0])) })
    })
    contenders.append(threadSafe("locked straightforward LRU", threads: threads) {
        let cache = LockedStraightforwardLRU(countLimit: keyCount)
        return ({ cache.setValue(sharedSetValues[$0], forKey: sharedSetKeys[$0]) }, { isDrawable(cache.value(forKey: sharedGetKeys[$0])) })
    })
    contenders.append(threadSafe("Foundation NSCache", threads: threads) {
        nonisolated(unsafe) let cache = NSCache<NSString, Image>()
        cache.countLimit = keyCount
        return ({ cache.setObject(sharedSetValues[$0], forKey: sharedSetNSKeys[$0], cost: 1) },
                { isDrawable(cache.object(forKey: sharedGetNSKeys[$0])) })
    })
}

if let wanted = option("--only") {
    let names = wanted.split(separator: "|").map(String.init)
    contenders.removeAll { contender in !names.contains { contender.name.localizedCaseInsensitiveContains($0) } }
}

// Rounds interleave the caches, so each round's ratios compare runs a few hundred milliseconds
// apart: on a shared machine, load shifts between rounds far more than within one. A ratio is
// the median of the per-round ratios; ops/s is each cache's best round.
// Each round runs the caches in a new random order: what ran just before a cache (the state of
// the allocator and the processor caches it left) differs from round to round.
var times = contenders.map { _ in [(set: Double, get: Double)]() }
for _ in 0..<rounds {
    for index in contenders.indices.shuffled(using: &generator) {
        times[index].append(contenders[index].round())
    }
}

func median(_ values: [Double]) -> Double {
    let sorted = values.sorted()
    let middle = sorted.count / 2
    return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
}

/// How many times faster contender `faster` is than contender `index`: the median over rounds.
@MainActor
func speedup(of faster: Int = 0, over index: Int, _ pass: KeyPath<(set: Double, get: Double), Double>) -> Double {
    median((0..<rounds).map { times[index][$0][keyPath: pass] / times[faster][$0][keyPath: pass] })
}

func millions(_ seconds: Double) -> String { String(format: "%.2fM", Double(keyCount) / seconds / 1e6) }
print("\(keyCount) String keys (\(shortKeys ? "short, inline" : "image URLs")), class values, get access \(access), \(rounds) rounds with the caches interleaved; ops/s of each cache's best round, ratios the median of per-round ratios\n")
let reference = contenders.first?.name ?? "none"
print("| cache | set ops/s | get ops/s | \(reference) ÷ this (set) | \(reference) ÷ this (get) |")
print("|---|---:|---:|---:|---:|")
for (index, contender) in contenders.enumerated() {
    let bestSet = times[index].map(\.set).min() ?? .nan
    let bestGet = times[index].map(\.get).min() ?? .nan
    print("| \(contender.name) | \(millions(bestSet)) | \(millions(bestGet)) | \(String(format: "%.2f×", speedup(over: index, \.set))) | \(String(format: "%.2f×", speedup(over: index, \.get))) |")
}
if CommandLine.arguments.contains("--per-round") {
    print("\n| cache | get ops/s per round |")
    print("|---|---|")
    for (index, contender) in contenders.enumerated() {
        print("| \(contender.name) | \(times[index].map { millions($0.get) }.joined(separator: " ")) |")
    }
}
/// "A vs B: set x×, get y× (target)" for the contenders named `a` and `b`, when both ran.
@MainActor
func comparison(_ a: String, _ b: String, _ label: String, target: String) {
    guard let faster = contenders.firstIndex(where: { $0.name == a }), let slower = contenders.firstIndex(where: { $0.name == b }) else { return }
    print("\(label): set \(String(format: "%.2f", speedup(of: faster, over: slower, \.set)))×, get \(String(format: "%.2f", speedup(of: faster, over: slower, \.get)))× (\(target))")
}
print("")
comparison("EvictionPolicies Cache (LRU)", "Foundation NSCache", "Cache vs NSCache, 1 thread", target: "target ≥ 5×")
comparison("EvictionPolicies Cache (LRU), 2 threads", "Foundation NSCache, 2 threads", "Cache vs NSCache, 2 threads", target: "target ≥ 5×")
comparison("EvictionPolicies Cache (LRU)", "locked straightforward LRU", "Cache vs locked straightforward LRU, 1 thread", target: "target ≥ 2×")
comparison("EvictionPolicies Cache (LRU), 2 threads", "locked straightforward LRU, 2 threads", "Cache vs locked straightforward LRU, 2 threads", target: "target ≥ 2×")
comparison("EvictionPolicies StripedCache (LRU, 8 stripes), 2 threads", "Foundation NSCache, 2 threads", "StripedCache (not exact LRU) vs NSCache, 2 threads", target: "not a target: approximate order")
comparison("EvictionPolicies StripedCache (LRU, 8 stripes), 2 threads", "locked straightforward LRU, 2 threads", "StripedCache (not exact LRU) vs locked straightforward LRU, 2 threads", target: "not a target: approximate order")
comparison("EvictionPolicies Cache (LRU)", "EvictionPolicies LRUCache", "Cache vs the bare LRUCache it wraps, 1 thread", target: "target ≥ 0.91×: within 10 %")
comparison("EvictionPolicies Cache (LRU)", "EvictionPolicies LRUCache behind a class method, no lock", "Cache vs the same LRUCache behind a class method without a lock, 1 thread", target: "what the lock and the bookkeeping cost")

if let straightforward = contenders.firstIndex(where: { $0.name == "straightforward Swift LRU" }),
   let nsCache = contenders.firstIndex(where: { $0.name == "Foundation NSCache" }) {
    print("\nLRUCache vs NSCache: set \(String(format: "%.2f", speedup(over: nsCache, \.set)))×, get \(String(format: "%.2f", speedup(over: nsCache, \.get)))× (target ≥ 5×)")
    print("LRUCache vs straightforward LRU: set \(String(format: "%.2f", speedup(over: straightforward, \.set)))×, get \(String(format: "%.2f", speedup(over: straightforward, \.get)))× (target ≥ 2×)")
    if let floor = contenders.firstIndex(where: { $0.name.hasPrefix("floor") }) {
        print("Bound: the floor's get is \(String(format: "%.2f", speedup(of: floor, over: nsCache, \.get)))× NSCache's and \(String(format: "%.2f", speedup(of: floor, over: straightforward, \.get)))× the straightforward LRU's; no cache's get ratio can exceed these.")
    }
}
