import EvictionPolicies

/// A model of a research policy: it evicts only on behalf of the caller, in at most one pass per
/// call, and says which keys; the ``ReferenceModel`` answers follow from that.
public protocol ResearchModel: ReferenceModel {
    /// A cache-aside get: whether the key was resident, and the keys evicted, in order.
    mutating func access(_ key: Int, cost: Int) -> (hit: Bool, evicted: [Int])
    /// `insert`; by default a resident key with the same cost is a hit, with another cost it is
    /// removed and admitted again, and any other key is admitted.
    mutating func insert(_ key: Int, cost: Int) -> [Int]
    /// `lookup`; by default a hit if resident at its cost, otherwise nothing happens.
    mutating func read(_ key: Int) -> (hit: Bool, evicted: [Int])
    /// An explicit remove (not an eviction); returns what it evicted as a side effect, if anything.
    mutating func remove(_ key: Int) -> [Int]
    func contains(_ key: Int) -> Bool
    /// The remembered cost of a resident key.
    func cost(of key: Int) -> Int?
}

extension ResearchModel {
    public mutating func insert(_ key: Int, cost newCost: Int) -> [Int] {
        var evicted: [Int] = []
        if contains(key) {
            if cost(of: key) == newCost { return access(key, cost: newCost).evicted }
            evicted = remove(key)
        }
        return evicted + access(key, cost: newCost).evicted
    }

    public mutating func read(_ key: Int) -> (hit: Bool, evicted: [Int]) {
        guard contains(key), let cost = cost(of: key) else { return (false, []) }
        return access(key, cost: cost)
    }

    public mutating func get(_ key: Int, cost: Int) -> (hit: Bool, passes: [Pass]) {
        let answer = access(key, cost: cost)
        return (answer.hit, Self.pass(answer.evicted))
    }

    public mutating func lookup(_ key: Int) -> (hit: Bool, passes: [Pass]) {
        let answer = read(key)
        return (answer.hit, Self.pass(answer.evicted))
    }

    public mutating func set(_ key: Int, cost: Int) -> [Pass] { Self.pass(insert(key, cost: cost)) }

    public mutating func delete(_ key: Int) -> (removed: Bool, passes: [Pass]) {
        let resident = contains(key)
        return (resident, Self.pass(remove(key)))
    }

    public func residency(of key: Int) -> Bool? { contains(key) }

    public static var keepsLatestValue: Bool { true }

    /// One caller pass when anything was evicted, none otherwise.
    static func pass(_ evicted: [Int]) -> [Pass] { evicted.isEmpty ? [] : [Pass(kind: .caller, keys: evicted)] }
}

/// One resident entry of a model kept as a plain array.
public struct ModelEntry {
    public var key: Int
    public var cost: Int
    /// Policy state: a counter, a visited bit, a frequency, a next-request time.
    public var mark: Int64
    /// Arrival order, for tie-breaks.
    public var stamp: Int

    public init(key: Int, cost: Int, mark: Int64 = 0, stamp: Int = 0) {
        self.key = key
        self.cost = cost
        self.mark = mark
        self.stamp = stamp
    }
}

/// A research model whose residents are one array of ``ModelEntry``: count, cost and residency follow.
public protocol EntryListModel: ResearchModel {
    var entries: [ModelEntry] { get }
}

extension EntryListModel {
    public var count: Int { entries.count }
    public var totalCost: Int { entries.reduce(0) { $0 + $1.cost } }
    public func contains(_ key: Int) -> Bool { entries.contains { $0.key == key } }
    public func cost(of key: Int) -> Int? { entries.first { $0.key == key }?.cost }
}
