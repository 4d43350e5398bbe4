import _CSupport

extension SlotArena {
    /// Starts loading `slot`'s key and its slot (cost, links and policy word), for a policy that
    /// knows a slot it will read soon: a sampled policy's drawn candidates, MQ's next tail. O(1).
    @inlinable @inline(__always)
    public func prefetchSlot(_ slot: Int32) {
        guard slot >= 0, Int(slot) < slots.count else { return }
        slots.withUnsafeBufferPointer { slots in
            if let base = slots.baseAddress { _cs_prefetch(base + Int(slot)) }
        }
        keys.withUnsafeBufferPointer { keys in
            if let base = keys.baseAddress { _cs_prefetch(base + Int(slot)) }
        }
    }
}
