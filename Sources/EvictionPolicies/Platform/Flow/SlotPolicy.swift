/// A policy built on a ``SlotArena`` that supplies only its rule; the cache-aside flow around
/// the rule is written once, in ``ArenaPolicy``'s surface and this protocol's extension, as
/// libCacheSim's `cache_get_base`.
///
/// The flow (see <doc:WritingAPolicy>):
/// - **Hit** (the key is resident): ``ArenaPolicy/didHit(_:)``.
/// - **Miss**: ``insertNew(_:forKey:hash:cost:observer:)``: an object larger than the capacity
///   is never inserted; ``admits(_:cost:)`` may refuse it; ``makeRoom(forCost:count:observer:)``
///   evicts ``victim()`` until the object fits in cost and count, as one trim pass; then the
///   object takes a slot and ``didInsert(_:)`` places it.
/// - **Insert of a resident key** (``ArenaPolicy/replace(_:with:cost:observer:)``): the cost is replaced
///   and the update counts as a hit; a cost larger than the capacity drops the entry.
/// - **Remove**: ``ArenaPolicy/unlink(_:)``, then the slot is released.
///
/// Costs below 0 count as 0. Every request hashes its key once and probes the index once.
///
/// A policy implements the five rule requirements (``ArenaPolicy/didHit(_:)``, ``didInsert(_:)``,
/// ``victim()``, ``ArenaPolicy/unlink(_:)``, ``setCost(_:_:)``) plus ``EvictionPolicy/count`` and
/// ``EvictionPolicy/totalCost``. A model of a library that deviates overrides only the step
/// it changes: ``makeRoom(forCost:count:observer:)`` (a purge to a preferred size),
/// ``insertNew(_:forKey:hash:cost:observer:)`` (an insert before eviction, a sorted insert) or
/// ``ArenaPolicy/replace(_:with:cost:observer:)``. A rule that already holds its victims' hashes
/// (a random draw's table does) may give them in ``knownHash(ofVictim:)``, so that an eviction
/// loads no key.
///
/// ``EvictionPolicy/prefetch(_:_:)`` comes from ``ArenaPolicy``, which reads the arena in place;
/// a non-mutating one would read it through the protocol's getter, which copies the arena (four
/// reference counts) twice per replayed request and halved FIFO's speed when measured.
///
/// The flow's methods are `@inlinable` and generic over the observer, so a policy in another
/// package is specialized into the caller's loop like the ones in this module.
public protocol SlotPolicy: ArenaPolicy {
    /// The cost limit, ``CacheLimits/maximumCapacity`` (2^60) for none.
    var capacity: Int { get }
    /// The count limit, `Int.max` for none.
    var countLimit: Int { get }

    /// The insert rule: `slot` has just been allocated for a new entry; place it.
    mutating func didInsert(_ slot: Int32)
    /// The eviction rule: the slot to evict next, a resident one. Called only while the cache is
    /// not empty; it may reorder entries (a CLOCK hand) before it answers. A rule that has none to
    /// give returns -1, which ends the eviction pass with the cache over its limits (a replay
    /// reports such a policy); any other slot must be resident: the flow checks as it takes the
    /// victim out of the index (no extra work) and ends the pass the same way on one that is not.
    mutating func victim() -> Int32
    /// The hash of `slot`, the victim ``victim()`` has just given, where the rule holds it without
    /// reading the key (a random draw's table keeps each resident's hash), else `nil`: the flow
    /// then takes the victim out of the index without loading its key. Only the high 32 bits
    /// need be right. The default says `nil`.
    func knownHash(ofVictim slot: Int32) -> UInt64?
    /// Changes the cost of resident `slot` to `cost`, keeping the policy's totals right.
    mutating func setCost(_ slot: Int32, _ cost: Int)

    /// Whether a new object of `cost` (at most the capacity) may enter. The default admits everything.
    mutating func admits(_ key: Key, cost: Int) -> Bool
    /// Evicts victims, as one trim pass, until `cost` more and `count` more entries fit.
    mutating func makeRoom(forCost cost: Int, count extra: Int, observer: inout some EvictionObserver<Key, Value>)
    /// The miss step: inserts `key`, not resident, whose hash is `hash`, with `cost` (≥ 0).
    mutating func insertNew(_ value: Value, forKey key: Key, hash: UInt64, cost: Int,
                            observer: inout some EvictionObserver<Key, Value>)
}
