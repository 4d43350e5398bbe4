/// `ratio` of `capacity`, truncated toward zero as C's `(int64_t)(capacity * ratio)` does.
///
/// libCacheSim sizes its sub-queues this way (S3-FIFO's small FIFO, 2Q's A1in, LIRS's HIR part),
/// and queue sizes decide which object goes next, so the rounding must be the same to reproduce
/// its miss counts. Results beyond `Int.max` (a huge capacity times a ratio above 1) saturate.
@inlinable
internal func _proportion(of capacity: Int, _ ratio: Double) -> Int {
    let product = (Double(capacity) * ratio).rounded(.towardZero)
    guard product < 9.2e18 else { return .max }
    return product <= 0 ? 0 : Int(product)
}
