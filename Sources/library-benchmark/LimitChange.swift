// How long the cold paths take on a full cache: a limit change drains the policy and refills one
// made for the new limits (O(n) policy operations), and a memory warning evicts or drains with an
// eviction handler listening. These are the pauses an app pays, often on the main thread, when it
// lowers (or raises) a limit or the system warns on a large cache.
import _CSupport
import EvictionPolicies
import Foundation

/// Fills `Cache(costLimit: entries)` (every entry of cost 1) for each named policy, then times
/// lowering the cost limit to half and raising it back, and two memory warnings with an eviction
/// handler set (a trim to half, then removing all); prints milliseconds and nanoseconds per entry.
func runLimitChange(entries: Int) {
    print("cold paths on a full cache of \(entries) Int keys of cost 1, with an eviction handler for the memory warnings:")
    print("| policy | lower costLimit to half | raise it back | memory warning, trim to half | memory warning, remove all |")
    print("|---|---:|---:|---:|---:|")
    for policy in [CachePolicy.lru, .fifo, .clock, .sieve, .s3fifo, .twoQueue, .arc, .lirs, .lfu, .tinyLFU] {
        let cache = Cache<Int, Int>(policy: policy, costLimit: entries, observesSystemEvents: false)
        for key in 0..<entries { cache.setValue(key, forKey: key, cost: 1) }
        /// Milliseconds `body` took, and nanoseconds per entry of the `count` it worked through.
        func timed(over count: Int, _ body: () -> Void) -> String {
            let start = DispatchTime.now().uptimeNanoseconds
            body()
            let nanoseconds = Double(DispatchTime.now().uptimeNanoseconds - start)
            return String(format: "%.0f ms (%.0f ns/entry)", nanoseconds / 1e6, nanoseconds / Double(max(count, 1)))
        }
        let lower = timed(over: entries) { cache.costLimit = entries / 2 }
        let kept = cache.count
        let raise = timed(over: kept) { cache.costLimit = entries }
        let heard = Counter()
        cache.evictionHandler = { _, _, _ in heard.add() }
        cache.memoryWarningResponse = .trim(toFraction: 0.5)
        let trim = timed(over: kept) { cache.handle(.memoryWarning) }
        let trimmedTo = cache.count
        cache.memoryWarningResponse = .removeAll
        let removeAll = timed(over: trimmedTo) { cache.handle(.memoryWarning) }
        precondition(cache.count == 0 && heard.value == kept, "\(policy): the handler heard \(heard.value) of \(kept) entries")
        print("| \(policy) | \(lower) | \(raise) | \(trim) | \(removeAll) |")
    }
}

/// The heap a `Cache` of each named policy holds, in MB: full with `entries` String keys (about 40
/// bytes, as image URLs), after a memory warning that trims it to 5 %, and, for scale, a cache
/// filled with only as many entries. Storage a purge did not give back shows as the difference
/// between the last two. (0 where the allocator does not report its heap.)
func runPurgeMemory(entries: Int) {
    print("heap held by a Cache of \(entries) String keys (about 40 bytes) and class values, in MB:")
    print("| policy | full | after a memory warning trimming to 5 % | a cache of as many entries, filled | kept beyond that |")
    print("|---|---:|---:|---:|---:|")
    for policy in [CachePolicy.lru, .fifo, .clock, .sieve, .s3fifo, .twoQueue, .arc, .lirs, .lfu, .tinyLFU] {
        purgeRow(policy.rawValue, entries: entries, purge: { $0.handle(.memoryWarning) }) {
            Cache<String, PurgedImage>(policy: policy, costLimit: entries, memoryWarningResponse: .trim(toFraction: 0.05),
                                       observesSystemEvents: false)
        }
    }
}

/// The same measure for app-library models chosen by type: full, after removing 95 % of the keys
/// (`removeValue`, the way an app drops a feed's images; most models remove everything on a
/// memory warning), and a cache of the survivors only; then for the research policies an app
/// can choose only by type.
func runLibraryPurgeMemory(entries: Int) {
    print("heap held by a Cache over a library model, \(entries) String keys and class values, in MB:")
    print("| model | full | after removing 95 % of the keys | a cache of as many entries, filled | kept beyond that |")
    print("|---|---:|---:|---:|---:|")
    typealias Entry = CacheEntry<PurgedImage>
    func row<P: EvictionPolicy>(_ type: P.Type, options: PolicyOptions = PolicyOptions()) where P.Key == String, P.Value == Entry {
        purgeRow(P.descriptor.name, entries: entries,
                 purge: { cache in for i in 0..<entries where i % 20 != 0 { cache.removeValue(forKey: purgedKey(i)) } }) {
            try? Cache<String, PurgedImage>(policyType: type, costLimit: entries, options: options, observesSystemEvents: false)
        }
    }
    row(YYMemoryCache<String, Entry>.self)
    row(PINMemoryCache<String, Entry>.self)
    row(NukeLRUCache<String, Entry>.self, options: PolicyOptions(["entry-cost-limit": "1"]))
    row(AFAutoPurgingImageCache<String, Entry>.self)
    row(CorelibsNSCache<String, Entry>.self)
    row(DarwinNSCacheApproximation<String, Entry>.self)
    row(KingfisherMemoryStorage<String, Entry>.self)
    print("")
    // The research policies an app can only choose by type: the same measure.
    print("heap held by a Cache over a research policy chosen by type, \(entries) String keys and class values, in MB:")
    print("| policy | full | after removing 95 % of the keys | a cache of as many entries, filled | kept beyond that |")
    print("|---|---:|---:|---:|---:|")
    row(SLRUCache<String, Entry>.self)
    row(MQCache<String, Entry>.self)
    row(LRUKCache<String, Entry>.self)
    row(LFUDACache<String, Entry>.self)
    row(LFUCppCache<String, Entry>.self)
    row(SizeCache<String, Entry>.self)
    row(S3FIFOdCache<String, Entry>.self)
    row(ARCv0Cache<String, Entry>.self)
    row(FIFOMergeCache<String, Entry>.self)
    row(LRUProbCache<String, Entry>.self)
    row(FlashProbCache<String, Entry>.self)
    row(LeCaRCache<String, Entry>.self)
    row(CacheusCache<String, Entry>.self)
    row(LHDCache<String, Entry>.self)
    row(RandomCache<String, Entry>.self)
    row(RandomTwoCache<String, Entry>.self)
    row(RandomLRUCache<String, Entry>.self)
    row(HyperbolicCache<String, Entry>.self)
}

/// The value of the purge measures: a class, as an app's images are.
final class PurgedImage {
    let pixels: Int
    init(_ pixels: Int) { self.pixels = pixels }
}

/// The purge measures' `i`th key, about 40 bytes, as an image URL.
func purgedKey(_ i: Int) -> String { "https://images.example.com/feed/\(i).jpg" }

/// One row of a purge measure: the heap of a cache `make` gives filled with `entries` keys, after
/// `purge`, and of a second one filled with only as many entries as the purge left.
func purgeRow(_ name: String, entries: Int, purge: (Cache<String, PurgedImage>) -> Void,
              make: () -> Cache<String, PurgedImage>?) {
    func megabytes(_ body: () -> Void) -> Double {
        let before = _cs_heap_in_use()
        body()
        return (Double(_cs_heap_in_use()) - Double(before)) / 1_048_576
    }
    var cache = make()
    let full = megabytes { for i in 0..<entries { cache?.setValue(PurgedImage(i), forKey: purgedKey(i), cost: 1) } }
    let released = megabytes { if let cache { purge(cache) } }
    let kept = cache?.count ?? 0
    cache = nil
    var small = make()
    let floor = megabytes { for i in 0..<kept { small?.setValue(PurgedImage(i), forKey: purgedKey(i), cost: 1) } }
    small = nil
    let after = full + released
    let columns = [full, after, floor, after - floor].map { String(format: "%.1f", $0) }
    print("| \(name) | " + columns.joined(separator: " | ") + " |")
}

/// A count the eviction handler adds to; the handler runs on the calling thread, after the lock.
final class Counter: @unchecked Sendable {
    private(set) var value = 0
    func add() { value += 1 }
}
