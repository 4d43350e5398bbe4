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

/// Seconds for `body`, the best of `rounds` runs (the least disturbed by other load).
@MainActor
func best(_ body: () -> Int) -> (seconds: Double, check: Int) {
    var bestTime = Double.infinity
    var check = 0
    for _ in 0..<rounds {
        let start = DispatchTime.now().uptimeNanoseconds
        check = body()
        bestTime = min(bestTime, Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9)
    }
    return (bestTime, check)
}

struct Row {
    var name: String
    var set: Double
    var get: Double
}
var rows: [Row] = []

// Every cache holds all keys (no eviction), so set and get measure the structures themselves.
@MainActor
func measure<P: EvictionPolicy>(_ name: String, _ make: () -> P) -> Row where P.Key == String, P.Value == Image {
    var cache = make()
    let set = best {
        cache = make()
        for i in order { cache.setValue(values[i], forKey: keys[i], cost: 1) }
        return cache.count
    }
    let get = best {
        var found = 0
        for i in order where cache.value(forKey: keys[i]) != nil { found += 1 }
        return found
    }
    precondition(get.check == keyCount, "\(name) lost entries")
    return Row(name: name, set: Double(keyCount) / set.seconds, get: Double(keyCount) / get.seconds)
}

do {
    // The limits are constants; a configuration error would be a bug in this benchmark.
    let lru = try LRUCache<String, Image>(capacity: nil, countLimit: keyCount)
    let sieve = try SieveCache<String, Image>(capacity: keyCount)
    let fifo = try FIFOCache<String, Image>(capacity: nil, countLimit: keyCount)
    rows.append(measure("EvictionPolicies LRUCache") { lru })
    rows.append(measure("EvictionPolicies SieveCache") { sieve })
    rows.append(measure("EvictionPolicies FIFOCache") { fifo })

    var simple = StraightforwardLRU(countLimit: keyCount)
    let lruSet = best {
        simple = StraightforwardLRU(countLimit: keyCount)
        for i in order { simple.setValue(values[i], forKey: keys[i]) }
        return 0
    }
    let lruGet = best {
        var found = 0
        for i in order where simple.value(forKey: keys[i]) != nil { found += 1 }
        return found
    }
    rows.append(Row(name: "straightforward Swift LRU", set: Double(keyCount) / lruSet.seconds, get: Double(keyCount) / lruGet.seconds))

    var nsCache = NSCache<NSString, Image>()
    let nsSet = best {
        nsCache = NSCache<NSString, Image>()
        nsCache.countLimit = keyCount
        for i in order { nsCache.setObject(values[i], forKey: nsKeys[i], cost: 1) }
        return 0
    }
    let nsGet = best {
        var found = 0
        for i in order where nsCache.object(forKey: nsKeys[i]) != nil { found += 1 }
        return found
    }
    rows.append(Row(name: "Foundation NSCache", set: Double(keyCount) / nsSet.seconds, get: Double(keyCount) / nsGet.seconds))
} catch {
    print("library-benchmark: \(error)")
    exit(1)
}

let baseline = rows[0]
let lruRow = rows.first { $0.name == "straightforward Swift LRU" }
let nsRow = rows.first { $0.name == "Foundation NSCache" }
print("\(keyCount) String keys, class values, best of \(rounds) rounds; ops/s\n")
print("| cache | set ops/s | get ops/s | LRUCache ÷ this (set) | LRUCache ÷ this (get) |")
print("|---|---:|---:|---:|---:|")
for row in rows {
    func millions(_ x: Double) -> String { String(format: "%.2fM", x / 1e6) }
    print("| \(row.name) | \(millions(row.set)) | \(millions(row.get)) | \(String(format: "%.2f×", baseline.set / row.set)) | \(String(format: "%.2f×", baseline.get / row.get)) |")
}
if let lruRow, let nsRow {
    print("\nLRUCache vs NSCache: set \(String(format: "%.1f", baseline.set / nsRow.set))×, get \(String(format: "%.1f", baseline.get / nsRow.get))× (target ≥ 5×)")
    print("LRUCache vs straightforward LRU: set \(String(format: "%.1f", baseline.set / lruRow.set))×, get \(String(format: "%.1f", baseline.get / lruRow.get))× (target ≥ 2×)")
}
