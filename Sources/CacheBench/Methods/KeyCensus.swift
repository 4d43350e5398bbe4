import Dispatch

import _CSupport

/// Every key's request count and size over the measured part of a trace, counted while the
/// trace is read for sampling, for the control variate of ``MiniatureSimulation``.
///
/// Keys are stored by their sample hash (``SpatialSample/hash(_:salt:)``), which the reader
/// computes anyway to sample: it is a bijection of 64-bit keys, so two keys never share it, and
/// whether a key is in a sample of any ratio is read off it (`hash < keepBelow`).
///
/// An open-addressing table (linear probing, at most 70 % full) of 16-byte slots: 23 to 46 bytes
/// per distinct key. One probe sequence per request, no allocation but the table's doubling.
/// Counts and sizes saturate at `UInt32.max` (a model's input, not a reported figure).
/// The reader hands each batch over (``enqueue(hashes:sizes:)``) to be counted on the census's
/// own thread, so the table's cache misses overlap the decoding of the next batches.
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
    private var mask: Int
    /// 64 − log2(slots): a slot index is the top bits of the hash times 2^64/φ (Fibonacci hashing),
    /// so keys spread whatever bits they differ in.
    private var shift: UInt64
    /// Distinct keys counted.
    private(set) var keys = 0

    /// An empty census.
    init() {
        slots = Array(repeating: _Slot(hash: 0, count: 0, size: 0), count: 1 << 12)
        mask = slots.count - 1
        shift = 64 - 12
    }

    @inline(__always)
    private static func home(_ hash: UInt64, shift: UInt64) -> Int {
        Int(truncatingIfNeeded: (hash &* 0x9E37_79B9_7F4A_7C15) >> shift)
    }

    private var claimed = false
    private let queue = DispatchQueue(label: "cachebench.key-census")
    /// At most this many batches wait to be counted: the reader waits rather than queue a whole trace.
    private let inFlight = DispatchSemaphore(value: 4)

    /// Counts the batch (as ``add(hashes:sizes:)``) on the census's thread.
    func enqueue(hashes: [UInt64], sizes: [Int]) {
        inFlight.wait()
        queue.async { [self] in
            add(hashes: hashes, sizes: sizes)
            inFlight.signal()
        }
    }

    /// Returns once every batch handed over has been counted.
    func settle() { queue.sync {} }

    /// This census for the first read of the trace, `nil` for the next ones (a comparison in
    /// several waves reads the trace again; its keys are counted once).
    func claim() -> _KeyCensus? {
        defer { claimed = true }
        return claimed ? nil : self
    }

    /// Counts one request of each key whose sample hash is in `hashes`, of the size at the same
    /// index of `sizes`. Amortised O(1) per request; the table is reached once per batch (in
    /// place, without a check or a copy per request), and grows before the batch so that it
    /// stays under 70 % full even if every key is new.
    func add(hashes: [UInt64], sizes: [Int]) {
        while (keys + hashes.count) * 10 > slots.count * 7 { grow() }
        let (mask, shift) = (self.mask, self.shift)
        var added = 0
        // A request's slot is a cache miss in a table of tens of megabytes: the slot of the
        // request `lookahead` places on is loaded while this one is counted, so the misses overlap.
        let lookahead = 16
        slots.withUnsafeMutableBufferPointer { table in
            guard let base = table.baseAddress else { return }
            for (index, (hash, size)) in zip(hashes, sizes).enumerated() {
                if index &+ lookahead < hashes.count {
                    _cs_prefetch(base + Self.home(hashes[index &+ lookahead], shift: shift))
                }
                let size32 = UInt32(clamping: size)
                var i = Self.home(hash, shift: shift)
                while true {
                    let count = table[i].count
                    if count == 0 {
                        table[i] = _Slot(hash: hash, count: 1, size: size32)
                        added += 1
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
        }
        keys += added
    }

    private func grow() {
        let old = slots
        slots = Array(repeating: _Slot(hash: 0, count: 0, size: 0), count: old.count * 2)
        mask = slots.count - 1
        shift -= 1
        for slot in old where slot.count > 0 {
            var i = Self.home(slot.hash, shift: shift)
            while slots[i].count != 0 { i = (i + 1) & mask }
            slots[i] = slot
        }
    }

    /// The keys whose sample hash is below `keepBelow` (every key when `nil`), grouped by
    /// request count: what ``_RequestCountModel`` needs. O(slots + groups · log groups).
    func groups(keepBelow: UInt64?) -> [_RequestCountModel.Group] {
        settle()
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
