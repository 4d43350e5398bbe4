/// The folder part of `path`, as `NSString.deletingLastPathComponent` answers for every path
/// but one-character ones, on which swift-corelibs-foundation traps ("S", "."): "" for a name
/// without a slash, "/" for a name at the root; trailing and repeated slashes are ignored.
/// O(length of `path`).
///
/// Package-wide, not public: the command-line targets use it for the folders they make.
package func _parentPath(_ path: String) -> String {
    let slash = UInt8(ascii: "/")
    var bytes = Array(path.utf8)
    while bytes.count > 1 && bytes.last == slash { bytes.removeLast() }
    guard var end = bytes.lastIndex(of: slash) else { return "" }
    while end > 0 && bytes[end - 1] == slash { end -= 1 }
    return end == 0 ? "/" : String(decoding: bytes[..<end], as: UTF8.self)
}
