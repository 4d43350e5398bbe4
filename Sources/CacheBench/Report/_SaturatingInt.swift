/// `value` as an `Int`, rounded toward zero, or the nearest `Int` when it is beyond them (0 for
/// NaN): a figure computed in floating point from a user's numbers (a capacity near 2^63 times a
/// ratio, a rate over a tiny time) must never trap on the way back to an integer.
@usableFromInline
func _saturatingInt(_ value: Double) -> Int {
    if value.isNaN { return 0 }
    if value >= 9_223_372_036_854_775_808.0 { return .max }
    if value <= -9_223_372_036_854_775_808.0 { return .min }
    return Int(value)
}
