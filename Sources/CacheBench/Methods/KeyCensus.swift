import _CSupport

/// The request count and size of every key of a nested sample of the trace (the census), over
/// the measured part of a trace, counted while the trace is read for sampling, for the control
/// variate of ``MiniatureSimulation``.
///
/// Keys are stored by their sample hash (``SpatialSample/hash(_:salt:)``), which the reader
/// computes anyway to sample: it is a bijection of 64-bit keys, so two keys never share it, and
/// whether a key is in a sample of any ratio is read off it (`hash < keepBelow`). The census
/// counts the keys whose hash is at most ``maxHash``, a sample of its own that holds every
/// miniature's sample (it never falls below the stream's threshold, see ``claim(covering:)``).
///
/// Counting every key of a large trace costs a cache miss per request in a table of tens of
/// megabytes. With a key budget, the census is a fixed-size SHARDS sample instead: when it holds
/// `maximumKeys` keys, its threshold halves and the keys above it are dropped, so the table stays
/// under a few megabytes (in the processor's caches) and the census ends as the largest
/// power-of-two fraction of the key space that fits the budget. A key under the final threshold
/// was under every earlier one, so its count is complete.
///
/// An open-addressing table (linear probing, at most 70 % full) of 16-byte slots: 23 to 46 bytes
/// per counted key; with a budget of `K` keys, at most `16 · 2^⌈log2(K / 0.7)⌉` bytes plus a
/// batch's growth. One probe sequence per counted request, no allocation but the table's
/// doubling and the rare halving. Counts and sizes saturate at `UInt32.max` (a model's input,
/// not a reported figure). A lane on the thread beside the reader's calls ``add(_:)`` once per
/// batch, with the rows the reader gathered (``_CensusFeed``); only keys under the threshold
/// reach the table.
final class _KeyCensus: @unchecked Sendable {
    struct _Slot {
        /// The key's sample hash; meaningful when `count > 0`.
        var hash: UInt64
        /// Requests of the key counted so far; 0 marks an empty slot.
        var count: UInt32
        /// The key's size at its last request.
        var size: UInt32
    }

    private var slots: [_Slot]
    /// A table the size of ``slots`` that a halving refills, once there has been one: the two
    /// exist together during a rebuild anyway, so keeping it costs no peak memory.
    private var spare: [_Slot] = []
    private var mask: Int
    /// 64 − log2(slots): a slot index is the top bits of the hash times 2^64/φ (Fibonacci hashing),
    /// so keys spread whatever bits they differ in.
    private var shift: UInt64
    /// Distinct keys counted.
    private(set) var keys = 0
    /// Whether a measured row was a set or a delete (the reader's thread writes it, the counting
    /// lane never reads it; it is read after the run): then a key's first get need not miss,
    /// and the keys counted do not bound the misses from below.
    var sawOtherOperations = false
    /// The census counts the keys whose sample hash is at most this (`.max`: every key).
    private(set) var maxHash: UInt64
    /// The threshold never falls below this: the keys of the stream's sample are all counted.
    private var floorHash: UInt64 = 0
    /// When the census holds this many keys, its threshold halves; `nil` for a fixed ratio.
    private let maximumKeys: Int?

    /// An empty census of the keys a sample at `ratio` keeps (every key at 1), or, with
    /// `maximumKeys`, of every key until it holds that many, then of the largest power-of-two
    /// fraction of the key space that keeps it under.
    init(ratio: Double = 1, maximumKeys: Int? = nil) {
        slots = Array(repeating: _Slot(hash: 0, count: 0, size: 0), count: 1 << 12)
        mask = slots.count - 1
        shift = 64 - 12
        maxHash = RequestWindow(sampleRatio: ratio).keepBelow.map { $0 == 0 ? 0 : $0 - 1 } ?? .max
        self.maximumKeys = maximumKeys.map { max(1, $0) }
    }

    /// The fraction of the key space the census counts: 1 for every key.
    var ratio: Double { maxHash == .max ? 1 : (Double(maxHash) + 1) / 0x1p64 }

    @inline(__always)
    private static func home(_ hash: UInt64, shift: UInt64) -> Int {
        Int(truncatingIfNeeded: (hash &* 0x9E37_79B9_7F4A_7C15) >> shift)
    }

    private var claimed = false

    /// This census for the first read of the trace through `stream`, `nil` for the next ones (a
    /// comparison in several waves reads the trace again; its keys are counted once). The census
    /// widens to the stream's sample if it was narrower (every key when the stream keeps all),
    /// so every sampled key is counted.
    func claim(covering stream: RequestWindow) -> _KeyCensus? {
        defer { claimed = true }
        guard !claimed else { return nil }
        floorHash = stream.keepBelow.map { $0 == 0 ? 0 : $0 - 1 } ?? .max
        maxHash = max(maxHash, floorHash)
        return self
    }

    /// Counts one request of each key whose sample hash is in `hashes` and at most ``maxHash``,
    /// of the size at the same index of `sizes`. Amortised O(1) per request.
    func add(hashes: [UInt64], sizes: [Int]) {
        var rows = _CensusRows()
        for (hash, size) in zip(hashes, sizes) { rows.append(hash: hash, size: size) }
        add(rows)
    }

    /// Counts one request of each of `rows` whose sample hash is at most ``maxHash``, in order.
    /// Amortised O(1) per row.
    func add(_ rows: _CensusRows) {
        rows.withRows { hashes, sizes in
            let count = min(hashes.count, sizes.count)
            var index = 0
            while true {
                if keys * 10 >= slots.count * 7 { grow() }
                let limit = maxHash > floorHash ? maximumKeys ?? .max : .max
                if keys >= limit { halve(); continue }
                guard index < count else { return }
                index = countRequests(hashes, sizes, from: index, upTo: count, limit: limit)
            }
        }
    }

    /// Counts `hashes[from..<upTo]` in place, until the table needs to grow or the census holds
    /// `limit` keys; returns the index of the first request not yet counted.
    private func countRequests(_ hashes: UnsafeBufferPointer<UInt64>, _ sizes: UnsafeBufferPointer<UInt32>,
                               from start: Int, upTo end: Int, limit: Int) -> Int {
        let (mask, shift, maxHash) = (self.mask, self.shift, self.maxHash)
        let full = min(limit, slots.count * 7 / 10)
        var keys = self.keys
        defer { self.keys = keys }
        // A request's slot may be a cache miss, to memory rather than the last-level cache when the
        // trace streaming through evicts the table: the slot of the request `lookahead` places on
        // is loaded while this one is counted, so the misses overlap. 64 rather than 16 cut the
        // census lane's CPU time by a tenth on a 10M-request trace (8 MB table).
        let lookahead = 64
        return slots.withUnsafeMutableBufferPointer { table in
            guard let base = table.baseAddress else { return end }
            var index = start
            while index < end {
                if index &+ lookahead < end {
                    _cs_prefetch(base + Self.home(hashes[index &+ lookahead], shift: shift))
                }
                let hash = hashes[index]
                let size32 = sizes[index]
                index += 1
                guard hash <= maxHash else { continue }
                var i = Self.home(hash, shift: shift)
                while true {
                    let count = table[i].count
                    if count == 0 {
                        table[i] = _Slot(hash: hash, count: 1, size: size32)
                        keys += 1
                        if keys >= full { return index }
                        break
                    }
                    if table[i].hash == hash {
                        table[i].count = count == .max ? count : count + 1
                        table[i].size = size32
                        break
                    }
                    i = (i + 1) & mask
                }
            }
            return index
        }
    }

    private func grow() {
        rebuild(slotCount: slots.count * 2)
    }

    /// Halves the fraction of the key space counted (not below the floor) and drops the keys
    /// above it.
    private func halve() {
        maxHash = max(maxHash >> 1, floorHash)
        rebuild(slotCount: slots.count)
    }

    /// The table again at `slotCount` slots, with the keys under the threshold. O(slots), in
    /// place through buffer pointers (no exclusivity check per slot); a halving refills the
    /// previous table of the same size, kept as ``spare``, rather than faulting in fresh pages.
    private func rebuild(slotCount: Int) {
        let empty = _Slot(hash: 0, count: 0, size: 0)
        var fresh: [_Slot] = []
        swap(&fresh, &spare)
        if fresh.count == slotCount {
            fresh.withUnsafeMutableBufferPointer { $0.update(repeating: empty) }
        } else {
            fresh = Array(repeating: empty, count: slotCount)
        }
        let mask = slotCount - 1, shift = UInt64(64 - slotCount.trailingZeroBitCount), maxHash = self.maxHash
        var keys = 0
        fresh.withUnsafeMutableBufferPointer { table in
            slots.withUnsafeBufferPointer { old in
                for slot in old where slot.count > 0 && slot.hash <= maxHash {
                    var i = Self.home(slot.hash, shift: shift)
                    while table[i].count != 0 { i = (i + 1) & mask }
                    table[i] = slot
                    keys += 1
                }
            }
        }
        // The old table is the next halving's, when it is of the size the census now has.
        if slots.count == slotCount { spare = slots }
        slots = fresh
        self.mask = mask
        self.shift = shift
        self.keys = keys
    }

    /// The counted keys whose sample hash is below `keepBelow` (every counted key when `nil`),
    /// grouped by request count: what ``_RequestCountModel`` needs. O(slots + groups · log groups).
    func groups(keepBelow: UInt64?) -> [_RequestCountModel.Group] {
        if let known = grouped[keepBelow] { return known }
        let groups = tally(keepBelow: keepBelow)
        grouped[keepBelow] = groups
        return groups
    }

    /// ``groups(keepBelow:)`` already made, by threshold (`nil` for every key): the
    /// models of a blend share them. Counting is over by the time they are asked for.
    private var grouped: [UInt64?: [_RequestCountModel.Group]] = [:]

    private func tally(keepBelow: UInt64?) -> [_RequestCountModel.Group] {
        // Most keys have small counts: those are tallied in an array, the rare large ones in a dictionary.
        let direct = 4096
        var small = Array(repeating: (keys: 0.0, bytes: 0.0), count: direct)
        var large: [UInt32: (keys: Double, bytes: Double)] = [:]
        let threshold = keepBelow ?? .max
        for slot in slots where slot.count > 0 && (keepBelow == nil || slot.hash < threshold) {
            if Int(slot.count) < direct {
                small[Int(slot.count)].keys += 1
                small[Int(slot.count)].bytes += Double(slot.size)
            } else {
                large[slot.count, default: (0, 0)].keys += 1
                large[slot.count, default: (0, 0)].bytes += Double(slot.size)
            }
        }
        var groups: [_RequestCountModel.Group] = []
        for (count, tally) in small.enumerated() where tally.keys > 0 {
            groups.append(.init(requests: Double(count), keys: tally.keys, bytes: tally.bytes))
        }
        for (count, tally) in large.sorted(by: { $0.key < $1.key }) {
            groups.append(.init(requests: Double(count), keys: tally.keys, bytes: tally.bytes))
        }
        return groups
    }
}
