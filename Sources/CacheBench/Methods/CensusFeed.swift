/// The census's rows of a batch: the sample hash and size of each measured request whose hash
/// is at most the census's threshold, in trace order.
///
/// The storage is kept from batch to batch and only grows: the first ``count`` rows are
/// meaningful, the slots after them are scratch. A gatherer writes every row into the slot at
/// ``count`` and advances ``count`` only for the rows it keeps, so keeping a row costs no branch
/// (``gather(upTo:_:)``).
struct _CensusRows {
    private var hashes: [UInt64] = []
    /// Sizes clamped to `UInt32`, as the census keeps them.
    private var sizes: [UInt32] = []
    /// The rows gathered.
    private(set) var count = 0

    /// Appends one row. Amortised O(1).
    mutating func append(hash: UInt64, size: Int) {
        reserve(1)
        hashes[count] = hash
        sizes[count] = UInt32(clamping: size)
        count += 1
    }

    /// Forgets the rows, keeping the storage.
    mutating func removeAll() { count = 0 }

    /// Lets `body` write up to `more` rows from slot ``count`` on: it receives the slots and the
    /// count, which it advances past the rows it keeps. O(more) when the storage grows, else O(1).
    mutating func gather<Result>(upTo more: Int,
                                 _ body: (UnsafeMutableBufferPointer<UInt64>, UnsafeMutableBufferPointer<UInt32>, inout Int) -> Result) -> Result {
        reserve(more)
        var count = self.count
        defer { self.count = min(count, hashes.count) }
        return hashes.withUnsafeMutableBufferPointer { hashes in
            sizes.withUnsafeMutableBufferPointer { sizes in body(hashes, sizes, &count) }
        }
    }

    /// Calls `body` with the rows' hashes and sizes (``count`` of each).
    func withRows<Result>(_ body: (UnsafeBufferPointer<UInt64>, UnsafeBufferPointer<UInt32>) -> Result) -> Result {
        hashes.withUnsafeBufferPointer { hashes in
            sizes.withUnsafeBufferPointer { sizes in
                body(UnsafeBufferPointer(rebasing: hashes[..<count]), UnsafeBufferPointer(rebasing: sizes[..<count]))
            }
        }
    }

    /// Room for `more` rows after ``count``: the storage doubles when it must grow.
    private mutating func reserve(_ more: Int) {
        let needed = count + more
        guard needed > hashes.count else { return }
        let grown = max(needed, hashes.count * 2, 1 << 12)
        hashes.append(contentsOf: repeatElement(0, count: grown - hashes.count))
        sizes.append(contentsOf: repeatElement(0, count: grown - sizes.count))
    }
}

/// The census's rows, passed from the reader's thread to a lane on the other one, so the census
/// is counted beside the decoding rather than after it.
///
/// While the lanes run on batch k, the reader (decoding batch k + 1 ahead) gathers into
/// ``filling`` and the census's lane counts batch k's rows, handed over before the batch
/// started. The driver calls ``handOver()`` between batches, when neither thread runs, which
/// orders every access; hence `@unchecked Sendable`. The census sees the rows in trace order,
/// so its counts, its halvings and the estimates are the same as counting on the reader's thread.
final class _CensusFeed: @unchecked Sendable {
    /// The census counted.
    let census: _KeyCensus
    /// The rows the reader gathers during the current batch.
    var filling = _CensusRows()
    /// The rows the census's lane counts during the current batch.
    private var ready = _CensusRows()
    /// The census's threshold at the last hand-over, which the reader gathers under. The census's
    /// own threshold only falls, so a reader a batch behind gathers a few rows more, which the
    /// census skips (``_KeyCensus/add(_:)`` checks every row).
    private(set) var threshold: UInt64
    /// Whether a measured row was a set or a delete: the census's, written on the reader's thread.
    var sawOtherOperations: Bool {
        get { census.sawOtherOperations }
        set { census.sawOtherOperations = newValue }
    }

    init(_ census: _KeyCensus) {
        self.census = census
        threshold = census.maxHash
    }

    /// Between batches: the rows gathered become the ones to count, and the reader gathers anew
    /// under the census's current threshold. O(1).
    func handOver() {
        swap(&filling, &ready)
        filling.removeAll()
        threshold = census.maxHash
    }

    /// Counts the rows handed over (the census's lane, during a batch). Amortised O(1) per row.
    func countReady() {
        census.add(ready)
        ready.removeAll()
    }

    /// The lane that counts the rows handed over, for the driver to run beside the policies' lanes.
    func makeLane() -> _Lane {
        _Lane(handOver: { [self] in handOver() }, apply: { [self] _ in countReady() })
    }
}
