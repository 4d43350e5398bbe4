import EvictionPolicies

/// One trim pass as a reference model states it: who waited for it and the keys it evicted, in order.
public struct Pass: Equatable, CustomStringConvertible {
    public var kind: TrimKind
    public var keys: [Int]

    public init(kind: TrimKind, keys: [Int]) {
        self.kind = kind
        self.keys = keys
    }

    public var description: String { "\(kind == .caller ? "caller" : "deferred")\(keys)" }
}

/// A plain, obviously-correct model of a policy written from its rule or its library's code:
/// arrays and dictionaries, O(n) per operation, `Int` keys. Every call returns the trim passes it
/// caused; ``expectSameDecisions(_:_:_:label:limits:nextAccesses:orderedEvictions:sourceLocation:)``
/// plays it against the real policy.
public protocol ReferenceModel {
    var count: Int { get }
    var totalCost: Int { get }
    /// Cache-aside get: a hit, or an insert of `cost`.
    mutating func get(_ key: Int, cost: Int) -> (hit: Bool, passes: [Pass])
    /// A read that inserts nothing on a miss.
    mutating func lookup(_ key: Int) -> (hit: Bool, passes: [Pass])
    mutating func set(_ key: Int, cost: Int) -> [Pass]
    mutating func delete(_ key: Int) -> (removed: Bool, passes: [Pass])
    mutating func event(_ event: CacheEvent) -> [Pass]
    mutating func advance(to time: Double) -> [Pass]
    /// What the policy's `contains` must answer before a lookup, when that differs from "the lookup
    /// would hit" (PINMemoryCache's `containsObjectForKey:` ignores its TTL); `nil` for the usual answer.
    func containsAnswer(_ key: Int) -> Bool?
    /// Whether `key` must be resident after any operation, for models whose residency never waits
    /// on deferred work; `nil` when the model does not say.
    func residency(of key: Int) -> Bool?
    /// The next-request time of the following operation (offline policies only).
    mutating func noteNextAccess(_ time: Int64)
    /// Whether every store replaces the value that a later lookup, remove or eviction of the key
    /// hands back, as the research conventions have it. Library models may keep the old value when
    /// they refuse a store, or evict a replaced value later; for them a value must only belong to its key.
    static var keepsLatestValue: Bool { get }
}

extension ReferenceModel {
    public mutating func event(_ event: CacheEvent) -> [Pass] { [] }
    public mutating func advance(to time: Double) -> [Pass] { [] }
    public func containsAnswer(_ key: Int) -> Bool? { nil }
    public func residency(of key: Int) -> Bool? { nil }
    public mutating func noteNextAccess(_ time: Int64) {}
    public static var keepsLatestValue: Bool { false }
}

extension EvictionRecorder where Key == Int {
    /// Returns and clears the passes closed since the last call, as a reference model states them.
    public mutating func takeModelPasses() -> [Pass] {
        takePasses().map { Pass(kind: $0.kind, keys: $0.keys) }
    }
}
