/// A policy that runs another policy, its ``base``, and changes only what it declares itself:
/// every member of the cache surface it does not implement is the base's.
///
/// A model of a library built on another (AlamofireImage's cache is AFNetworking's with other
/// defaults; libCacheSim's LeCaRv0 is LeCaR with stricter ghosts), or a wrapper that adds a step
/// in front of any policy (``AdmissionControlled``), conforms and writes its descriptor, its
/// initializer and the members it changes. A wrapper that changes how a hit is found must also
/// write ``EvictionPolicy/access(_:cost:orInsert:observer:)``, which here is the base's.
///
/// Mutating members reach the base in place (through its modify accessor), so forwarding copies
/// nothing and costs nothing once specialized.
///
/// - Complexity: each forwarded member is the base's.
public protocol ForwardingPolicy: EvictionPolicy where Key == Base.Key, Value == Base.Value {
    /// The type of the policy this one runs.
    associatedtype Base: EvictionPolicy
    /// The policy this one runs.
    var base: Base { get set }
}

extension ForwardingPolicy {
    @inlinable public var count: Int { base.count }
    @inlinable public var totalCost: Int { base.totalCost }
    @inlinable public func contains(_ key: Key) -> Bool { base.contains(key) }
    @inlinable public mutating func prefetch(_ key: Key, _ stage: PrefetchStage) { base.prefetch(key, stage) }
    public var extraMetrics: [PolicyMetric] { base.extraMetrics }

    @inlinable
    public mutating func lookup(_ key: Key, observer: inout some EvictionObserver<Key, Value>) -> Value? {
        base.lookup(key, observer: &observer)
    }

    @inlinable
    public mutating func access(_ key: Key, cost: Int, orInsert value: @autoclosure () -> Value,
                                observer: inout some EvictionObserver<Key, Value>) -> Bool {
        base.access(key, cost: cost, orInsert: value(), observer: &observer)
    }

    @inlinable
    public mutating func insert(_ value: Value, forKey key: Key, cost: Int,
                                observer: inout some EvictionObserver<Key, Value>) {
        base.insert(value, forKey: key, cost: cost, observer: &observer)
    }

    @inlinable @discardableResult
    public mutating func remove(_ key: Key, observer: inout some EvictionObserver<Key, Value>) -> Value? {
        base.remove(key, observer: &observer)
    }

    @inlinable
    public mutating func handle(_ event: CacheEvent, observer: inout some EvictionObserver<Key, Value>) {
        base.handle(event, observer: &observer)
    }

    @inlinable
    public mutating func advance(to time: Double, observer: inout some EvictionObserver<Key, Value>) {
        base.advance(to: time, observer: &observer)
    }

    @inlinable
    public mutating func continueClock(of previous: Self) { base.continueClock(of: previous.base) }
    @inlinable
    public func entryTime(forKey key: Key) -> Double? { base.entryTime(forKey: key) }
    @inlinable
    public mutating func restoreEntryTime(_ time: Double, forKey key: Key) { base.restoreEntryTime(time, forKey: key) }

    @inlinable
    public mutating func finishDeferredWork(observer: inout some EvictionObserver<Key, Value>) {
        base.finishDeferredWork(observer: &observer)
    }

    @inlinable
    public mutating func willRead(observer: inout some EvictionObserver<Key, Value>) {
        base.willRead(observer: &observer)
    }

    @inlinable public mutating func noteNextAccess(_ index: Int64) { base.noteNextAccess(index) }
}
