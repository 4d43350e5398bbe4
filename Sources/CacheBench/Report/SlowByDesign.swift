/// Policies whose model repeats, on purpose, work the library itself does per operation that
/// grows with the number of residents: faithful, and slow with many residents. Named in
/// `cachebench policies` and in the progress line so that a long run is not mistaken for a hang.
public enum SlowByDesign {
    /// Why `policy` slows down as residents grow, or `nil` for policies with O(1) operations.
    public static func reason(_ policy: String) -> String? { reasons[policy] }

    static let reasons: [String: String] = [
        "pin-memory": "sorts every resident on each set over the cost limit, as PINCache does: O(n log n) per such set",
        "nscache": "inserts at its cost-ordered position with a linear scan, as swift-corelibs-foundation does: O(n) per set",
        "af-lru": "sorts every resident at each purge, as AFNetworking does: O(n log n) per purge",
        "afi-lru": "sorts every resident at each purge, as AlamofireImage does: O(n log n) per purge",
        "sd-disk": "sorts every file at each clean-up, as SDWebImage does: O(n log n) per clean-up",
    ]
}
