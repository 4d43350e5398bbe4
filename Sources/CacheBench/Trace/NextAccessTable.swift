/// Each row's next-request index, computed by a first pass over a trace that does not carry it,
/// for offline policies (descriptor `needsFuture`, e.g. `belady`).
///
/// ## Index semantics
/// A row's index is its 1-based position among the rows the trace reader decodes, counting every
/// row — `get`, `set`, `delete`, events and size-0 rows alike — just as libCacheSim's
/// `next_access_vtime` counts every record of an oracleGeneral file (traceConv numbers records
/// while reading backward, which does not skip size-0 records). For a `get`-only trace the table
/// therefore equals the oracleGeneral field that libCacheSim's `traceConv` would write. The next
/// request of a row is the next row with the same key that the replay hands to the policy:
///
/// - a `get` of size > 0 is a request, and the rows before it point at it;
/// - a `set` of size > 0 points at the following request of its key, but rows before the `set`
///   see no next request, because the `set` makes the object resident again without a miss,
///   so keeping it until then gains nothing; a `delete` likewise ends an object's future;
/// - rows the replay skips (size 0, as libCacheSim skips them) are never a row's next request.
///   (libCacheSim's field may point at a size-0 record that its reader then skips; only traces
///   with size-0 rows can tell the difference.)
///
/// Rows with no next request, and rows that are not requests, get `Int64.max`.
///
/// ## Cost
/// Memory is O(requests): one 8-byte key per row, overwritten in place by the backward pass with
/// the next index, plus one tag byte per row during the build and a dictionary of distinct keys.
/// This is acceptable for offline policies only; online policies stream in constant memory. The
/// first pass is not included in the replay's timing.
public struct NextAccessTable: Sendable {
    /// Per row (0-based), the 1-based index of the next request for the same key, or `Int64.max`.
    public private(set) var next: [Int64]

    /// The number of rows.
    public var count: Int { next.count }

    /// Reads `trace` once and computes the table.
    ///
    /// - Throws: ``TraceError`` from reading the trace.
    public static func build(_ trace: TraceSpec, maxRequests: Int? = nil) throws(TraceError) -> NextAccessTable {
        var reader = try trace.open()
        return try build(from: &reader, maxRequests: maxRequests)
    }

    /// Reads `reader` to its end, or up to its `maxRequests`-th request (counted as
    /// ``RequestWindow/maxRequests`` counts them: not size-0 rows or events, and no row after
    /// it), and computes the table. A capped table is the one of those rows alone: a request
    /// whose key comes again only after them has no next request, as in a trace cut there,
    /// and nothing after them is read (a bad row further on is not the run's).
    public static func build(from reader: inout some TraceReader, maxRequests: Int? = nil) throws(TraceError) -> NextAccessTable {
        // Keys are kept as bit patterns in the array that will hold the result, so the
        // backward pass overwrites them in place.
        var rows: [Int64] = []
        var tags: [Tag] = []
        var batch: [Request] = []
        var counted = 0
        reading: while maxRequests.map({ counted < $0 }) ?? true, try reader.nextBatch(&batch) {
            for request in batch {
                if let maxRequests, counted >= maxRequests { break reading }
                if request.isCountedRequest { counted += 1 }
                rows.append(Int64(bitPattern: request.key))
                tags.append(Tag(request))
            }
        }
        linkBackward(&rows, tags: tags)
        return NextAccessTable(next: rows)
    }

    /// Creates a table from computed indices.
    init(next: [Int64]) { self.next = next }

    /// What a row means for the next-request chain of its key.
    enum Tag: UInt8 {
        /// Not part of any chain: events, size-0 rows.
        case none
        /// A request the rows before it may point at.
        case request
        /// An insert: has a next request itself, ends the chain of the rows before it.
        case set
        /// Ends the chain of the rows before it.
        case delete

        init(_ request: Request) {
            switch request.operation {
            case .get: self = request.size > 0 ? .request : .none
            case .set: self = request.size > 0 ? .set : .none
            case .delete: self = .delete
            case .memoryWarning, .background, .terminate, .tick: self = .none
            }
        }
    }

    /// Replaces each row's key (as a bit pattern) with its next-request index, by one pass from
    /// the last row to the first that remembers each key's nearest following request.
    static func linkBackward(_ rows: inout [Int64], tags: [Tag]) {
        var following: [Int64: Int64] = [:]
        var i = rows.count - 1
        while i >= 0 {
            let key = rows[i]
            switch tags[i] {
            case .request:
                rows[i] = following[key] ?? .max
                following[key] = Int64(i + 1)
            case .set:
                rows[i] = following.removeValue(forKey: key) ?? .max
            case .delete:
                rows[i] = .max
                following.removeValue(forKey: key)
            case .none:
                rows[i] = .max
            }
            i -= 1
        }
    }
}

/// Passes another reader's rows on with their next-request indices filled in from a
/// ``NextAccessTable`` built on the same trace.
///
/// Rows beyond the table (the file grew between the passes) get `Int64.max`.
public struct NextAccessAnnotatingReader: TraceReader {
    private var base: any TraceReader
    private let table: NextAccessTable
    private var position = 0

    /// Wraps `base`, which must be positioned at the first row of the trace `table` was built on.
    public init(base: any TraceReader, table: NextAccessTable) {
        self.base = base
        self.table = table
    }

    public var name: String { base.name }
    public var providesNextAccess: Bool { true }

    public mutating func error(atRow row: Int, reason: String) -> TraceError { base.error(atRow: row, reason: reason) }

    public mutating func nextBatch(_ batch: inout [Request]) throws(TraceError) -> Bool {
        guard try base.nextBatch(&batch) else { return false }
        let next = table.next
        for i in batch.indices {
            batch[i].nextAccess = position < next.count ? next[position] : .max
            position += 1
        }
        return true
    }
}
