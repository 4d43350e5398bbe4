import EvictionPolicies

/// One operation of a random sequence, as the differential harness plays it on a policy and a model.
public enum TestOp: Equatable, CustomStringConvertible {
    /// Cache-aside get: `access(_:cost:orInsert:)`.
    case get(Int, cost: Int)
    /// `lookup(_:)`: a read that inserts nothing on a miss.
    case lookup(Int)
    /// `insert(_:forKey:cost:)`: replaces a resident key.
    case set(Int, cost: Int)
    /// `remove(_:)`.
    case delete(Int)
    /// `handle(_:)`.
    case event(CacheEvent)
    /// `advance(to:)`.
    case advance(Double)

    /// The key the operation names, if any.
    public var key: Int? {
        switch self {
        case .get(let k, _), .lookup(let k), .set(let k, _), .delete(let k): k
        case .event, .advance: nil
        }
    }

    public var description: String {
        switch self {
        case .get(let k, let c): "get \(k) (\(c))"
        case .lookup(let k): "lookup \(k)"
        case .set(let k, let c): "set \(k) (\(c))"
        case .delete(let k): "delete \(k)"
        case .event(let e): e.rawValue
        case .advance(let t): "advance to \(t)"
        }
    }

    /// Next-request times for `operations` with no ties: the 1-based index of the next get, set or
    /// lookup of the same key, or for none a distinct time past the end.
    public static func distinctNextAccesses(_ operations: [TestOp]) -> [Int64] {
        var next = [Int64](repeating: 0, count: operations.count)
        var following: [Int: Int64] = [:]
        for i in operations.indices.reversed() {
            guard let key = operations[i].key else { next[i] = Int64(operations.count + 1 + i); continue }
            next[i] = following[key] ?? Int64(operations.count + 1 + i)
            if case .delete = operations[i] { continue }
            following[key] = Int64(i + 1)
        }
        return next
    }
}
