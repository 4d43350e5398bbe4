// CLOCK-2Q+: a small FIFO with a correlation window in front of a CLOCK, with a ghost FIFO, as
// libCacheSim 0.3.5's Clock2QPlus.c (PyPI `libcachesim` 0.3.5,
// src/libCacheSim/cache/eviction/Clock2QPlus.c), which cites 2Q (Johnson & Shasha, VLDB'94) and
// CLOCK-Pro's correlated-reference idea. Exact on every golden row.

/// CLOCK-2Q+: S3-FIFO's shape with a correlation window: a request in the small FIFO counts only
/// when it comes at least half the small FIFO's size of admissions after the object entered.
///
/// **Rule** (libCacheSim 0.3.5 `Clock2QPlus.c`, defaults: small 10 %, ghost 90 %, threshold 1,
/// correlation window 0.5 × the small FIFO's size, in admissions to it).
/// - **Hit** in small: its count +1 if at least the window's admissions came after its own.
///   Hit in main: its count +1.
/// - **Miss**: an object larger than small is refused; a key in the ghost leaves it and enters
///   main's head. Otherwise, after evicting until it fits, an object at least as large as small
///   is dropped; before the first eviction an object that finds small full enters main; any
///   other enters small's head.
/// - **Evict**: from main when main is over its share or small is empty, else from small.
///   Small's tail with a count ≥ threshold moves to main's head (count 0) and the scan goes on;
///   the first below leaves the cache and its key enters the ghost, ending the step. Main's
///   tail with a count ≥ 1 goes back to main's head with count 0; the first at 0 leaves.
///
/// - Complexity: lookups O(1) expected; an eviction step is amortised O(1).
public struct Clock2QPlusCache<Key: Hashable, Value>: _SmallMainGhostPolicy {
    public static var descriptor: PolicyDescriptor {
        PolicyDescriptor(
            name: "clock2qplus", reproduces: "CLOCK-2Q+ as libCacheSim 0.3.5 Clock2QPlus.c",
            rule: "new keys enter a small FIFO where only requests outside a correlation window count; counted ones move to a CLOCK main, the others leave and are remembered in a ghost FIFO that admits them straight to main",
            family: .research,
            parameters: _SmallMainGhostShares.parameters(threshold: 1, counting: "counted requests") + [
                PolicyParameter("correlation-window-ratio", default: "0.5",
                                "admissions to the small FIFO, as a share of its size, before a request there counts",
                                aliases: ["corr-window-ratio"]),
            ])
    }

    @usableFromInline typealias Lists = _SmallMainGhostLists
    /// Re-inserting a resident key replaces its value and cost in place and counts as a request
    /// (outside the window, as any other); then the cache evicts until it fits again.
    public static var updatesInPlace: Bool { true }

    // aux = queue tag in bits 0–1, then the object's count.
    public var store = SlotArena<Key, Value>()
    public var lists: _SmallMainGhostLists
    @usableFromInline let correlationWindow: Double
    /// Admissions to small so far; each small entry remembers its number in `admittedAt`.
    @usableFromInline var admissions: Int64 = 0
    @usableFromInline var admittedAt = SideTable<Int64>(filling: 0)
    /// Whether the cache has ever evicted (the warm-up rule's switch).
    @usableFromInline var hasEvicted = false

    public init(limits: CacheLimits, options: PolicyOptions) throws(PolicyConfigurationError) {
        lists = Lists(try _SmallMainGhostShares(limits, options, for: Self.descriptor, threshold: 1))
        let windowRatio = try options.double("correlation-window-ratio", default: 0.5, in: 0...1_000)
        correlationWindow = Double(lists.shares.small) * windowRatio
    }

    @inlinable @inline(__always)
    public func prefetch(_ key: Key, _ stage: PrefetchStage) { store.prefetch(key, stage) }

    // MARK: The rule

    /// A hit counts in main, and in small once the window's admissions came after the object's.
    @inlinable @inline(__always)
    public func counts(hit slot: Int32, aux: UInt32) -> Bool {
        !Lists.isSmall(aux) || Double(admissions - admittedAt[slot]) >= correlationWindow
    }

    /// `Clock2QPlus_can_insert` tests only the FIFO's size: libCacheSim never consults an
    /// admission algorithm here, so neither does this policy.
    @inlinable public static var takesAdmission: Bool { false }

    /// The miss: consume a ghost entry, refuse what `Clock2QPlus_can_insert` refuses, evict
    /// until the object fits, then insert into main (ghost hit, or small full before any
    /// eviction) or small.
    @inlinable
    public mutating func miss(_ key: Key, hash: UInt64, ghost slot: Int32, cost: Int, value: () -> Value,
                              observer: inout some EvictionObserver<Key, Value>) {
        var pass = TrimPass(.caller)
        guard _makeRoom(forMiss: slot, key: key, cost: cost, &pass, observer: &observer) else { return }
        pass.end(&observer)
        if slot >= 0 {
            lists.reviveInMain(slot, value: value(), cost: cost, in: &store)
            return
        }
        guard cost < lists.shares.small else { return }
        let new = store.allocate(key: key, hash: hash, value: value(), cost: cost)
        if !hasEvicted && lists.small.cost >= lists.shares.small {
            store.pushHead(new, &lists.main, tag: Lists.mainTag)
        } else {
            admissions += 1
            admittedAt[new] = admissions
            store.pushHead(new, &lists.small, tag: Lists.smallTag)
        }
    }

    /// One call of libCacheSim's `Clock2QPlus_evict`: main when it is over its share or small
    /// is empty, else small. Main's tail with a count ≥ 1 goes back to the head with count 0;
    /// the first at 0 leaves.
    @inlinable
    public mutating func evictionStep(_ pass: inout TrimPass, observer: inout some EvictionObserver<Key, Value>) {
        hasEvicted = true
        if lists.main.cost > lists.shares.main || lists.small.isEmpty {
            lists.evictFromMain(&store, &pass, observer: &observer) { count in count >= 1 ? 0 : nil }
        } else {
            lists.evictFromSmall(&store, whileCostRemains: false, &pass, observer: &observer)
        }
    }
}

extension Clock2QPlusCache: SlotRelocatingPolicy {
    /// Renumbers the queues' ends and the admission times after a compaction.
    @inlinable public mutating func relocateSlots(_ relocation: SlotRelocation) {
        lists.relocate(relocation)
        admittedAt.relocate(relocation)
    }
}
