/// Which CSV column holds which field (0-based internally; 1-based on the command line).
public struct CSVColumns: Sendable, Equatable {
    /// The timestamp column, or `nil` to use the row index as time.
    public var time: Int?
    /// The key column.
    public var key: Int
    /// The size column, or `nil` for size 1.
    public var size: Int?
    /// The operation column, or `nil` when every row is a `get`.
    public var operation: Int?

    /// Creates a map from 0-based column indices.
    public init(time: Int?, key: Int, size: Int?, operation: Int?) {
        self.time = time
        self.key = key
        self.size = size
        self.operation = operation
    }

    /// The layout of a trace with no header: `timestamp,key,size[,op]`.
    public static let headerless = CSVColumns(time: 0, key: 1, size: 2, operation: 3)

    /// The highest column index used.
    public var lastColumn: Int { max(max(key, time ?? 0), max(size ?? 0, operation ?? 0)) }

    /// Field names accepted in a column map and in header rows, mapped to the field they name
    /// (`time`, `key`, `size` or `op`).
    public static let fieldNames: [String: String] = [
        "time": "time", "timestamp": "time", "ts": "time", "clock_time": "time",
        "key": "key", "id": "key", "obj_id": "key", "object_id": "key", "object": "key",
        "size": "size", "obj_size": "size", "object_size": "size", "cost": "size",
        "op": "op", "operation": "op",
    ]

    /// Builds a map from a header row's names, or `nil` if the row names no known field.
    static func fromHeader(_ names: [String], file: String) throws(TraceError) -> CSVColumns? {
        var map: [String: Int] = [:]
        for (column, raw) in names.enumerated() {
            guard let field = fieldNames[raw.trimmingSpaces.lowercased()] else { continue }
            if let first = map[field] {
                throw TraceError(.malformed, file: file, line: 1,
                                 reason: "the header names the \(field) column twice ('\(names[first])' in column \(first + 1), '\(raw)' in column \(column + 1)); \(TraceError.Hint.columnMap.phrase)",
                                 hint: .columnMap)
            }
            map[field] = column
        }
        guard !map.isEmpty else { return nil }
        guard let key = map["key"] else {
            throw TraceError(.malformed, file: file, line: 1,
                             reason: "the header names no key column (expected key, id or obj_id); \(TraceError.Hint.columnMap.phrase)",
                             hint: .columnMap)
        }
        return CSVColumns(time: map["time"], key: key, size: map["size"], operation: map["op"])
    }
}

extension StringProtocol {
    var trimmingSpaces: String {
        var scalars = Substring(self)
        while let first = scalars.first, first == " " || first == "\t" { scalars.removeFirst() }
        while let last = scalars.last, last == " " || last == "\t" { scalars.removeLast() }
        return String(scalars)
    }
}
