extension ContiguousArray {
    /// Gives back the room beyond the elements when it is more than they take: after a purge an
    /// array keeps its peak capacity. The copy is made element by element, because initialising
    /// an array from another one shares its storage. O(n) when it copies, O(1) otherwise.
    @inlinable
    mutating func _giveBackSpareRoom() {
        guard capacity > 2 * count else { return }
        var fitted = ContiguousArray()
        fitted.reserveCapacity(count)
        fitted.append(contentsOf: self)
        self = fitted
    }
}
