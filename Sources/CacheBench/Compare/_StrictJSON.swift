import Foundation

/// A check that bytes are one JSON document as RFC 8259 defines it, run before Foundation's parser
/// reads a file whose numbers decide something (a regression gate's baseline).
///
/// Foundation's parser is lenient where a gate must not be: it takes a trailing comma, lets the
/// last of two equal keys win (so a baseline edited by hand can hold two `hitRatio`s and be read
/// by the one the reader did not mean), and says where it stopped only for some errors. This
/// checker refuses those, and every problem it finds has a byte offset, so the message names a line.
/// It builds nothing: one pass over the bytes, O(n) time, memory for the keys of the open objects.
enum _StrictJSON {
    /// What is wrong and the byte offset where it was found.
    struct Problem: Error, Equatable {
        var offset: Int
        var reason: String
    }

    /// Containers nested deeper than this are refused rather than followed (no input can make the
    /// checker, or the parser after it, use unbounded stack).
    static let maximumDepth = 512

    /// The first problem of `data` as a JSON document, or `nil` when it is one.
    static func problem(in data: Data) -> Problem? {
        let bytes = [UInt8](data)
        if let offset = firstInvalidUTF8(bytes) { return Problem(offset: offset, reason: "bytes that are not UTF-8") }
        do { try check(bytes) } catch { return error }
        return nil
    }

    /// The offset of the first byte that does not belong to valid UTF-8, or `nil`.
    static func firstInvalidUTF8(_ bytes: [UInt8]) -> Int? {
        // Decoding replaces an invalid sequence with U+FFFD and leaves every byte before it as it
        // was: the first byte that differs is where the invalid sequence starts.
        let decoded = Array(String(decoding: bytes, as: UTF8.self).utf8)
        guard decoded != bytes else { return nil }
        return zip(decoded, bytes).enumerated().first { $0.element.0 != $0.element.1 }?.offset ?? min(decoded.count, bytes.count)
    }

    private enum Expect { case value, valueOrClose, keyOrClose, key, colon, commaOrClose, end }

    /// An open array or object; an object keeps the keys it has had, to refuse one given twice.
    private struct Frame {
        var isObject: Bool
        var keys: Set<String> = []
    }

    private static func check(_ bytes: [UInt8]) throws(Problem) {
        var stack: [Frame] = []
        var expect = Expect.value
        // A byte-order mark, as some editors write, is skipped as Foundation's parser skips it.
        var i = bytes.starts(with: [0xEF, 0xBB, 0xBF]) ? 3 : 0
        let count = bytes.count
        func finishValue() {
            expect = stack.isEmpty ? .end : .commaOrClose
        }
        while true {
            while i < count, bytes[i] == 0x20 || bytes[i] == 0x09 || bytes[i] == 0x0A || bytes[i] == 0x0D { i += 1 }
            guard i < count else {
                if expect == .end { return }
                throw Problem(offset: count, reason: "the document ends early")
            }
            let byte = bytes[i]
            switch expect {
            case .end:
                throw Problem(offset: i, reason: "text after the document's end")
            case .colon:
                guard byte == UInt8(ascii: ":") else { throw Problem(offset: i, reason: "expected ':' after an object's key") }
                i += 1
                expect = .value
            case .commaOrClose:
                let isObject = stack[stack.count - 1].isObject
                if byte == UInt8(ascii: ",") {
                    i += 1
                    expect = isObject ? .key : .value
                } else if byte == (isObject ? UInt8(ascii: "}") : UInt8(ascii: "]")) {
                    i += 1
                    stack.removeLast()
                    finishValue()
                } else {
                    throw Problem(offset: i, reason: isObject ? "expected ',' or '}'" : "expected ',' or ']'")
                }
            case .key, .keyOrClose:
                if byte == UInt8(ascii: "}") {
                    guard expect == .keyOrClose else { throw Problem(offset: i, reason: "a comma before '}' (JSON has no trailing commas)") }
                    i += 1
                    stack.removeLast()
                    finishValue()
                    continue
                }
                guard byte == UInt8(ascii: "\"") else { throw Problem(offset: i, reason: "expected an object's key (a string in double quotes)") }
                let start = i
                let key = try string(bytes, at: &i)
                guard stack[stack.count - 1].keys.insert(key).inserted else {
                    throw Problem(offset: start, reason: "key \"\(key)\" appears twice in one object")
                }
                expect = .colon
            case .value, .valueOrClose:
                if byte == UInt8(ascii: "]") {
                    guard expect == .valueOrClose else {
                        throw Problem(offset: i, reason: stack.last?.isObject == false ? "a comma before ']' (JSON has no trailing commas)" : "expected a value")
                    }
                    i += 1
                    stack.removeLast()
                    finishValue()
                    continue
                }
                switch byte {
                case UInt8(ascii: "{"), UInt8(ascii: "["):
                    guard stack.count < maximumDepth else { throw Problem(offset: i, reason: "nested more than \(maximumDepth) deep") }
                    let isObject = byte == UInt8(ascii: "{")
                    stack.append(Frame(isObject: isObject))
                    i += 1
                    expect = isObject ? .keyOrClose : .valueOrClose
                case UInt8(ascii: "\""):
                    _ = try string(bytes, at: &i)
                    finishValue()
                case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
                    try number(bytes, at: &i)
                    finishValue()
                case UInt8(ascii: "t"), UInt8(ascii: "f"), UInt8(ascii: "n"):
                    let word = byte == UInt8(ascii: "t") ? "true" : byte == UInt8(ascii: "f") ? "false" : "null"
                    guard bytes[i...].starts(with: word.utf8) else { throw Problem(offset: i, reason: "expected a value") }
                    i += word.utf8.count
                    finishValue()
                default:
                    throw Problem(offset: i, reason: "expected a value")
                }
            }
        }
    }

    /// Reads the string that starts at `i` (its opening quote) and moves `i` past its closing
    /// quote; returns its text, escapes decoded (so `"a"` and `"\u0061"` are one key).
    private static func string(_ bytes: [UInt8], at i: inout Int) throws(Problem) -> String {
        let start = i
        i += 1
        var scalars = String.UnicodeScalarView()
        var runStart = i
        func flushRun(upTo end: Int) {
            scalars.append(contentsOf: String(decoding: bytes[runStart..<end], as: UTF8.self).unicodeScalars)
        }
        while true {
            guard i < bytes.count else { throw Problem(offset: start, reason: "a string that is never closed") }
            let byte = bytes[i]
            if byte == UInt8(ascii: "\"") {
                flushRun(upTo: i)
                i += 1
                return String(scalars)
            }
            if byte < 0x20 { throw Problem(offset: i, reason: "a control character inside a string (write it as an escape)") }
            guard byte == UInt8(ascii: "\\") else { i += 1; continue }
            flushRun(upTo: i)
            guard i + 1 < bytes.count else { throw Problem(offset: start, reason: "a string that is never closed") }
            let escape = bytes[i + 1]
            switch escape {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"):
                scalars.append(Unicode.Scalar(escape))
                i += 2
            case UInt8(ascii: "b"): scalars.append("\u{08}"); i += 2
            case UInt8(ascii: "f"): scalars.append("\u{0C}"); i += 2
            case UInt8(ascii: "n"): scalars.append("\n"); i += 2
            case UInt8(ascii: "r"): scalars.append("\r"); i += 2
            case UInt8(ascii: "t"): scalars.append("\t"); i += 2
            case UInt8(ascii: "u"):
                guard let unit = hex4(bytes, at: i + 2) else { throw Problem(offset: i, reason: "\\u must be followed by four hexadecimal digits") }
                i += 6
                if (0xD800..<0xDC00).contains(unit), i + 1 < bytes.count, bytes[i] == UInt8(ascii: "\\"), bytes[i + 1] == UInt8(ascii: "u"),
                   let low = hex4(bytes, at: i + 2), (0xDC00..<0xE000).contains(low) {
                    i += 6
                    scalars.append(Unicode.Scalar(0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00)) ?? "\u{FFFD}")
                } else {
                    scalars.append(Unicode.Scalar(unit) ?? "\u{FFFD}")
                }
            default:
                throw Problem(offset: i, reason: "an unknown escape in a string")
            }
            runStart = i
        }
    }

    /// The value of four hexadecimal digits at `at`, or `nil`.
    private static func hex4(_ bytes: [UInt8], at: Int) -> UInt32? {
        guard at + 4 <= bytes.count else { return nil }
        var value: UInt32 = 0
        for byte in bytes[at..<at + 4] {
            guard let digit = Character(Unicode.Scalar(byte)).hexDigitValue else { return nil }
            value = value << 4 | UInt32(digit)
        }
        return value
    }

    /// Reads the number at `i` and moves past it: JSON's grammar (no leading zeros, no '+', digits
    /// on both sides of a point), and a value a double can hold.
    private static func number(_ bytes: [UInt8], at i: inout Int) throws(Problem) {
        let start = i
        func digits() -> Int {
            let from = i
            while i < bytes.count, bytes[i] >= UInt8(ascii: "0"), bytes[i] <= UInt8(ascii: "9") { i += 1 }
            return i - from
        }
        let malformed = Problem(offset: start, reason: "a malformed number")
        if bytes[i] == UInt8(ascii: "-") { i += 1 }
        guard i < bytes.count else { throw malformed }
        if bytes[i] == UInt8(ascii: "0") {
            i += 1
        } else if digits() == 0 {
            throw malformed
        }
        if i < bytes.count, bytes[i] == UInt8(ascii: ".") {
            i += 1
            guard digits() > 0 else { throw malformed }
        }
        if i < bytes.count, bytes[i] == UInt8(ascii: "e") || bytes[i] == UInt8(ascii: "E") {
            i += 1
            if i < bytes.count, bytes[i] == UInt8(ascii: "+") || bytes[i] == UInt8(ascii: "-") { i += 1 }
            guard digits() > 0 else { throw malformed }
        }
        if i < bytes.count, bytes[i] >= UInt8(ascii: "0") && bytes[i] <= UInt8(ascii: "9") || bytes[i] == UInt8(ascii: ".") {
            throw malformed   // 01, 1.2.3
        }
        let text = String(decoding: bytes[start..<i], as: UTF8.self)
        guard let value = Double(text), value.isFinite else {
            throw Problem(offset: start, reason: "the number \(text) is out of a double's range")
        }
    }
}
