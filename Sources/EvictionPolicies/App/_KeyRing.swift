/// The keys a ``Cache`` holds, so that it can visit every entry: the protocol of a policy has no
/// enumeration, and a limit change, a partial trim or an expiry sweep needs one.
///
/// A set appends its key with the set's serial; an eviction or removal frees the slot its entry
/// names, if the serials still agree. A set that replaces a resident key leaves the old slot
/// behind (the policy does not return the replaced entry); ``compact(isResident:)`` drops such
/// stale slots when they outnumber the live ones.
///
/// - Complexity: ``add(_:serial:expires:)`` and ``release(_:serial:)`` are O(1) amortised; compaction
///   is O(n) and runs at most once per n replacements.
@usableFromInline
internal struct _KeyRing<Key: Hashable> {
    @usableFromInline var keys: ContiguousArray<Key?> = []
    @usableFromInline var serials: ContiguousArray<UInt64> = []
    /// When each slot's entry expires, for expiry sweeps that must not disturb the policy.
    @usableFromInline var expiries: ContiguousArray<Double> = []
    @usableFromInline var free: ContiguousArray<Int32> = []

    @inlinable init() {}

    /// Slots in use, stale ones included.
    @inlinable var liveCount: Int { keys.count - free.count }

    @inlinable
    mutating func add(_ key: Key, serial: UInt64, expires: Double) -> Int32 {
        if let slot = free.popLast() {
            keys[Int(slot)] = key
            serials[Int(slot)] = serial
            expiries[Int(slot)] = expires
            return slot
        }
        keys.append(key)
        serials.append(serial)
        expiries.append(expires)
        return Int32(truncatingIfNeeded: keys.count - 1)
    }

    /// Frees `slot` if it still belongs to the set numbered `serial`.
    @inlinable
    mutating func release(_ slot: Int32, serial: UInt64) {
        let index = Int(slot)
        guard index >= 0, index < keys.count, serials[index] == serial, keys[index] != nil else { return }
        keys[index] = nil
        free.append(slot)
    }

    mutating func removeAll() {
        keys.removeAll()
        serials.removeAll()
        expiries.removeAll()
        free.removeAll()
    }

    /// The keys of every slot in use (a key may appear more than once).
    func liveKeys() -> [Key] {
        var result: [Key] = []
        result.reserveCapacity(liveCount)
        for case let key? in keys { result.append(key) }
        return result
    }

    /// The keys of slots in use whose entries expire at or before `time`.
    func keys(expiringBy time: Double) -> [Key] {
        var result: [Key] = []
        for index in keys.indices where expiries[index] <= time {
            if let key = keys[index] { result.append(key) }
        }
        return result
    }

    /// Frees the slots of keys that are not resident and, for a key with several slots, every slot
    /// but the newest (the resident entry came from the newest set of its key).
    @usableFromInline
    mutating func compact(isResident: (Key) -> Bool) {
        var newest: [Key: Int] = [:]
        for index in keys.indices {
            guard let key = keys[index] else { continue }
            if !isResident(key) {
                keys[index] = nil
                free.append(Int32(truncatingIfNeeded: index))
            } else if let other = newest[key] {
                let stale = serials[other] < serials[index] ? other : index
                keys[stale] = nil
                free.append(Int32(truncatingIfNeeded: stale))
                newest[key] = stale == other ? index : other
            } else {
                newest[key] = index
            }
        }
    }
}
