import Foundation

/// A ``Cache`` whose gets, sets, removals and events are written to a ``TraceRecorder``.
///
/// Use it in place of the cache; keys are written as their `description` (see ``TraceRecorder``
/// for how keys the replay would read as one are kept apart), so the replay tells keys apart as
/// Swift does only when equal keys have equal descriptions and unequal keys unequal ones: true of
/// `String`, `URL` and the integer types, not of a class with the default description (every
/// instance reads the same) nor of `Double` (`0.0 == -0.0`, written `0.0` and `-0.0`). Give
/// such a key type a `description` that names its identity. Replaying the trace with the same
/// policy and limits (`cachebench replay trace.csv --policy lru --capacity …`, the policy named
/// by ``CachePolicy``'s raw value) gives the hits the app had, as long as the app stores after
/// each miss (cache-aside), the cache expires nothing by time to live (the replay has no
/// per-entry time to live) and the limits do not change during the session (the trace has one
/// set of limits: its replay's).
///
/// - **Time.** Wrap the cache as you make it. A library model's timers (YYMemoryCache's trim,
///   PINCache's age limit, Kingfisher's sweep) start with the cache, and the trace starts them
///   when the wrapper is made (a `tick` row), so that the replay's timers fire on the same beat.
///
/// - **Costs.** A trace's rows have sizes of at least 1, so an entry stored with cost 0 (the
///   default, and the subscript's) is recorded with size 1. Against a cost limit such entries
///   counted nothing in the app; replay them with the count limit alone
///   (`--count-limit N --ignore-size`), or give the cache real costs.
/// - **Events.** Memory warnings are recorded as events, the system's too (the wrapper takes over
///   the cache's subscription to them; see ``init(_:recorder:)``). A research policy ignores them in a
///   replay, as libCacheSim does, so give the replay the cache's
///   ``Cache/memoryWarningResponse``: `--memory-warning remove-all` (the default response),
///   `trim:0.5` or `ignore`. ``removeAll()`` removes and records as removed every key stored
///   through this wrapper, one by one, as the replay will.
/// - **Threads.** Each call and its row are made under one lock, so the trace has the calls in
///   the order the cache saw them, from any number of threads (which then take turns). The lock
///   is held while the cache's eviction handler runs; the handler may call this wrapper again
///   from the same thread.
///
/// W-TinyLFU's replay is close but not exact: its frequency sketch hashes the keys, and the
/// replay sees each key as the trace's 64-bit id, so the sketch's collisions differ.
public final class RecordingCache<Key: Hashable, Value> {
    /// The cache every call is passed to. Calls made to it directly are not recorded.
    public let base: Cache<Key, Value>
    /// Where calls are recorded.
    public let recorder: TraceRecorder
    /// Orders each call with its row; recursive, for an eviction handler that calls back.
    private let lock = NSRecursiveLock()
    /// The keys stored through this wrapper and not removed: what ``removeAll()`` removes and
    /// records as removed.
    private var storedKeys = _RecordedKeys<Key>()

    /// The keys ``removeAll()`` would remove, for tests.
    var _storedKeyCount: Int { lock.lock(); defer { lock.unlock() }; return storedKeys.count }

    /// Records the calls made through this wrapper to `base`.
    ///
    /// Where `base` subscribed itself to the system's memory warnings and background transitions
    /// (``Cache/init(policy:costLimit:countLimit:timeToLive:clock:memoryWarningResponse:observesSystemEvents:)``'s
    /// `observesSystemEvents`, on Apple platforms), the wrapper takes the subscription over, so
    /// each event is recorded as it is handled; once the wrapper is gone, events go to `base` again.
    public init(_ base: Cache<Key, Value>, recorder: TraceRecorder) {
        self.base = base
        self.recorder = recorder
        // A library model's timers started with the cache; the replay's start at this row.
        recorder.recordTick()
        base._routeSystemEvents(to: self) { $0.handle($1) }
    }

    /// ``Cache/value(forKey:)``, recorded as a `get`.
    public func value(forKey key: Key) -> Value? {
        lock.lock()
        defer { lock.unlock() }
        let found = base._valueAndCost(forKey: key)
        recorder.recordGet(String(describing: key), hit: found != nil, size: found?.cost)
        return found?.value
    }

    /// ``Cache/setValue(_:forKey:cost:timeToLive:)``, recorded as a `set` (or as the `get` that
    /// missed before it).
    public func setValue(_ value: Value, forKey key: Key, cost: Int = 0, timeToLive: Double? = nil) {
        lock.lock()
        defer { lock.unlock() }
        let name = String(describing: key)
        base.setValue(value, forKey: key, cost: cost, timeToLive: timeToLive)
        recorder.recordSet(name, size: cost)
        storedKeys.stored(key, named: name, entries: base.count, contains: base.contains)
    }

    /// The value for `key` (recorded as a `get`); setting stores it with cost 0 (recorded as a
    /// `set`), and setting `nil` removes it (recorded as a `delete`).
    public subscript(key: Key) -> Value? {
        get { value(forKey: key) }
        set {
            if let newValue { setValue(newValue, forKey: key) } else { removeValue(forKey: key) }
        }
    }

    /// ``Cache/removeValue(forKey:)``, recorded as a `delete`.
    @discardableResult
    public func removeValue(forKey key: Key) -> Value? {
        lock.lock()
        defer { lock.unlock() }
        let name = String(describing: key)
        recorder.recordDelete(name)
        storedKeys.removed(named: name)
        return base.removeValue(forKey: key)
    }

    /// Removes every entry: each key stored through this wrapper is removed and recorded as a
    /// `delete` (a delete of a key the cache no longer holds changes nothing in a replay; such
    /// keys may have been forgotten already, and are then neither removed nor recorded).
    ///
    /// Unlike ``Cache/removeAll()``, which starts the policy afresh, the removals go through the
    /// policy one by one, as the replay's deletes do: what the policy remembers of evicted keys
    /// (ARC's and S3-FIFO's ghosts) stays, in the app and in the replay alike, so the replay
    /// keeps giving the app's hits. Entries stored on ``base`` directly are then removed too.
    public func removeAll() {
        lock.lock()
        defer { lock.unlock() }
        for (name, key) in storedKeys.takeAll() {
            recorder.recordDelete(name)
            base.removeValue(forKey: key)
        }
        if base.count > 0 { base.removeAll() }
    }

    /// ``Cache/contains(_:)``; not recorded (it is not an access).
    public func contains(_ key: Key) -> Bool { base.contains(key) }

    /// ``Cache/count``; not recorded.
    public var count: Int { base.count }

    /// ``Cache/totalCost``; not recorded.
    public var totalCost: Int { base.totalCost }

    /// ``Cache/costLimit``. A change is not recorded (a trace has one set of limits, its
    /// replay's), and what a lowered limit trims is not either: a session that changes a limit
    /// does not replay exactly.
    public var costLimit: Int? {
        get { base.costLimit }
        set {
            lock.lock()
            defer { lock.unlock() }
            base.costLimit = newValue
        }
    }

    /// ``Cache/countLimit``; not recorded, as ``costLimit``.
    public var countLimit: Int? {
        get { base.countLimit }
        set {
            lock.lock()
            defer { lock.unlock() }
            base.countLimit = newValue
        }
    }

    /// ``Cache/timeToLive``, not recorded (a replay has no time to live: see the type's notes).
    public var timeToLive: Double? {
        get { base.timeToLive }
        set { base.timeToLive = newValue }
    }

    /// ``Cache/memoryWarningResponse``, not recorded: give the replay the same response
    /// (`--memory-warning`).
    public var memoryWarningResponse: MemoryWarningResponse {
        get { base.memoryWarningResponse }
        set { base.memoryWarningResponse = newValue }
    }

    /// ``Cache/evictionHandler``: the evictions are the cache's own, which the replay makes again.
    public var evictionHandler: Cache<Key, Value>.EvictionHandler? {
        get { base.evictionHandler }
        set { base.evictionHandler = newValue }
    }

    /// ``Cache/removeExpired()``, not recorded (a replay has no time to live).
    public func removeExpired() {
        lock.lock()
        defer { lock.unlock() }
        base.removeExpired()
    }

    /// ``Cache/handle(_:)``, recorded as an event.
    public func handle(_ event: CacheEvent) {
        lock.lock()
        defer { lock.unlock() }
        recorder.recordEvent(event)
        base.handle(event)
    }
}

/// Where the system's events go for a cache wrapped by a recorder: to the recorder (recorded,
/// then handled) while it lives, else to the cache. Both held weakly, as the cache's own
/// subscription holds the cache; the closures only call locked methods.
private final class _RecordingEventTarget<Recording: AnyObject, Key: Hashable, Value>: _SystemEventTarget, @unchecked Sendable {
    weak var recording: Recording?
    weak var cache: Cache<Key, Value>?
    let record: (Recording, CacheEvent) -> Void

    init(recording: Recording, cache: Cache<Key, Value>, record: @escaping (Recording, CacheEvent) -> Void) {
        self.recording = recording
        self.cache = cache
        self.record = record
    }

    func deliver(_ event: CacheEvent) {
        if let recording { record(recording, event) } else { cache?.handle(event) }
    }
}

extension Cache {
    /// Where the cache subscribed itself to the system's events (on Apple platforms), hands the
    /// subscription to `recording`, whose `record` records each event and passes it on; once the
    /// recorder is gone, events go to the cache again.
    func _routeSystemEvents<Recording: AnyObject>(to recording: Recording, record: @escaping (Recording, CacheEvent) -> Void) {
        guard _systemEvents != nil else { return }
        let target: any _SystemEventTarget = _RecordingEventTarget(recording: recording, cache: self, record: record)
        _systemEvents = _SystemEventRelay { event in target.deliver(event) }
    }
}

/// Sendable when its keys and values are, as the ``Cache`` it wraps.
extension RecordingCache: @unchecked Sendable where Key: Sendable, Value: Sendable {}

/// In place of the cache: NSCache's spellings (`object(forKey:)`, `setObject(_:forKey:cost:)`, …)
/// and code written against ``KeyedCache`` take the recording wrapper as they take the cache.
extension RecordingCache: KeyedCache {}
