// Library-use benchmark: EvictionPolicies caches as an app holds them (String keys, class values)
// against Foundation's NSCache and the straightforward Swift LRU most apps write (a Dictionary of
// class nodes on a doubly linked list), measured side by side in one process.
//
// Usage: swift run -c release library-benchmark [--keys N] [--rounds N]
import EvictionPolicies
import Foundation

final class Image {
    let pixels: Int
    init(pixels: Int) { self.pixels = pixels }
}

/// The LRU most apps write: a dictionary of class nodes on a doubly linked list.
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

func argument(_ name: String, default value: Int) -> Int {
    guard let i = CommandLine.arguments.firstIndex(of: name), i + 1 < CommandLine.arguments.count,
          let parsed = Int(CommandLine.arguments[i + 1]) else { return value }
    return parsed
}

let keyCount = argument("--keys", default: 200_000)
let rounds = argument("--rounds", default: 5)
let keys = (0..<keyCount).map { "https://images.example.com/feed/\($0).jpg" }
let nsKeys = keys.map { $0 as NSString }
let values = (0..<keyCount).map { Image(pixels: $0) }
var shuffled = Array(0..<keyCount)
var generator = SystemRandomNumberGenerator()
shuffled.shuffle(using: &generator)
let order = shuffled

/// Seconds that `body` takes.
func seconds(_ body: () -> Int) -> (seconds: Double, check: Int) {
    let start = DispatchTime.now().uptimeNanoseconds
    let check = body()
    return (Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9, check)
}

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
            for i in order { cache.setValue(values[i], forKey: keys[i], cost: 1) }
            return cache.count
        }
        let get = seconds {
            var found = 0
            for i in order where cache.value(forKey: keys[i]) != nil { found += 1 }
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
contenders.append(Contender(name: "straightforward Swift LRU") {
    let cache = StraightforwardLRU(countLimit: keyCount)
    let set = seconds {
        for i in order { cache.setValue(values[i], forKey: keys[i]) }
        return 0
    }
    let get = seconds {
        var found = 0
        for i in order where cache.value(forKey: keys[i]) != nil { found += 1 }
        return found
    }
    precondition(get.check == keyCount, "the straightforward LRU lost entries")
    return (set.seconds, get.seconds)
})
contenders.append(Contender(name: "Foundation NSCache") {
    let cache = NSCache<NSString, Image>()
    cache.countLimit = keyCount
    let set = seconds {
        for i in order { cache.setObject(values[i], forKey: nsKeys[i], cost: 1) }
        return 0
    }
    let get = seconds {
        var found = 0
        for i in order where cache.object(forKey: nsKeys[i]) != nil { found += 1 }
        return found
    }
    precondition(get.check == keyCount, "NSCache lost entries")
    return (set.seconds, get.seconds)
})

// Rounds interleave the caches, so each round's ratios compare runs a few hundred milliseconds
// apart: on a shared machine, load shifts between rounds far more than within one. A ratio is
// the median of the per-round ratios; ops/s is each cache's best round.
// Each round starts with a different cache, so no cache always follows the same one.
var times = contenders.map { _ in [(set: Double, get: Double)]() }
for round in 0..<rounds {
    for step in 0..<contenders.count {
        let index = (round + step) % contenders.count
        times[index].append(contenders[index].round())
    }
}

func median(_ values: [Double]) -> Double {
    let sorted = values.sorted()
    let middle = sorted.count / 2
    return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
}

/// How many times faster the first contender is than contender `index`: the median over rounds.
@MainActor
func speedup(over index: Int, _ pass: KeyPath<(set: Double, get: Double), Double>) -> Double {
    median((0..<rounds).map { times[index][$0][keyPath: pass] / times[0][$0][keyPath: pass] })
}

func millions(_ seconds: Double) -> String { String(format: "%.2fM", Double(keyCount) / seconds / 1e6) }
print("\(keyCount) String keys, class values, \(rounds) rounds with the caches interleaved; ops/s of each cache's best round, ratios the median of per-round ratios\n")
print("| cache | set ops/s | get ops/s | LRUCache ÷ this (set) | LRUCache ÷ this (get) |")
print("|---|---:|---:|---:|---:|")
for (index, contender) in contenders.enumerated() {
    let bestSet = times[index].map(\.set).min() ?? .nan
    let bestGet = times[index].map(\.get).min() ?? .nan
    print("| \(contender.name) | \(millions(bestSet)) | \(millions(bestGet)) | \(String(format: "%.2f×", speedup(over: index, \.set))) | \(String(format: "%.2f×", speedup(over: index, \.get))) |")
}
if let straightforward = contenders.firstIndex(where: { $0.name == "straightforward Swift LRU" }),
   let nsCache = contenders.firstIndex(where: { $0.name == "Foundation NSCache" }) {
    print("\nLRUCache vs NSCache: set \(String(format: "%.1f", speedup(over: nsCache, \.set)))×, get \(String(format: "%.1f", speedup(over: nsCache, \.get)))× (target ≥ 5×)")
    print("LRUCache vs straightforward LRU: set \(String(format: "%.1f", speedup(over: straightforward, \.set)))×, get \(String(format: "%.1f", speedup(over: straightforward, \.get)))× (target ≥ 2×)")
}
