/// The keys a recording wrapper stored and has not removed, by the name its trace writes them
/// under: what its `removeAll()` removes and records as removed, one `delete` row each, as the
/// replay will remove them.
///
/// Keys the cache has since evicted are forgotten once they outnumber the cache's entries, or the
/// table would grow with every key a long session stores: O(n) then, O(1) amortised per store.
struct _RecordedKeys<Key> {
    private var keys: [String: Key] = [:]

    /// How many keys are remembered (evicted ones not yet forgotten included).
    var count: Int { keys.count }

    /// Remembers `key`, stored under `name`; forgets the evicted ones when they outnumber the
    /// cache's `entries` (`contains` says which the cache still holds).
    mutating func stored(_ key: Key, named name: String, entries: Int, contains: (Key) -> Bool) {
        keys[name] = key
        if keys.count > 2 * entries + 1_024 { keys = keys.filter { contains($0.value) } }
    }

    /// Forgets the key stored under `name`.
    mutating func removed(named name: String) { keys[name] = nil }

    /// Every remembered key, in the order of their names (so a trace is the same from run to
    /// run), forgetting them all.
    mutating func takeAll() -> [(name: String, key: Key)] {
        defer { keys.removeAll() }
        return keys.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
    }
}
