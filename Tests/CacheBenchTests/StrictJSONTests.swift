@testable import CacheBench
import EvictionPolicies
import Foundation
import Testing
import TestSupport

@Suite("strict JSON check before a baseline is read")
struct StrictJSONTests {
    static func problem(_ text: String) -> _StrictJSON.Problem? { _StrictJSON.problem(in: Data(text.utf8)) }

    @Test("documents RFC 8259 allows pass")
    func valid() {
        for text in ["{}", "[]", " \n\t{\"a\": [1, -0, 0.5, 1e3, -2.5E-3, true, false, null, \"x\"]}\r\n", "\"s\"", "0",
                     "{\"a\": {\"a\": 1}, \"b\": [{\"a\": 2}, {\"a\": 3}]}", "[\"\\\" \\\\ \\/ \\b \\f \\n \\r \\t \\u00e9 \\ud83d\\ude00\"]",
                     "\u{FEFF}{\"a\": 1}", "[[[[[[[[[[]]]]]]]]]]", "1e-400"] {
            #expect(Self.problem(text) == nil, "\(text)")
        }
    }

    @Test("what Foundation's parser lets by, and what it reports without a place, is refused at its byte")
    func refused() {
        let cases: [(String, Int, String)] = [
            ("[1, 2,]", 6, "trailing commas"),
            ("{\"a\": 1,}", 8, "trailing commas"),
            ("{\"hitRatio\": 0.5, \"hitRatio\": 0.9}", 18, "appears twice"),
            ("{\"a\": 1, \"\\u0061\": 2}", 9, "appears twice"),
            ("{\"a\": {\"b\": 1}, \"c\": {\"b\": 2}, \"a\": 3}", 31, "appears twice"),
            // Swift compares keys by canonical equivalence, as the dictionary Foundation reads them into does.
            ("{\"é\": 1, \"e\\u0301\": 2}", 10, "appears twice"),
            ("[1e400]", 1, "out of a double's range"),
            ("[-1e400]", 1, "out of a double's range"),
            ("[01]", 1, "malformed number"),
            ("[1.]", 1, "malformed number"),
            ("[.5]", 1, "expected a value"),
            ("[+1]", 1, "expected a value"),
            ("[-]", 1, "malformed number"),
            ("[1.2.3]", 1, "malformed number"),
            ("[\"a\tb\"]", 3, "control character"),
            ("[\"a\\x\"]", 3, "unknown escape"),
            ("[\"\\u12\"]", 2, "four hexadecimal digits"),
            ("[\"abc", 1, "never closed"),
            ("{\"a\" 1}", 5, "expected ':'"),
            ("{1: 2}", 1, "object's key"),
            ("[1 2]", 3, "expected ',' or ']'"),
            ("{\"a\": 1 \"b\": 2}", 8, "expected ',' or '}'"),
            ("{} {}", 3, "after the document's end"),
            ("", 0, "ends early"),
            ("  ", 2, "ends early"),
            ("[tru]", 1, "expected a value"),
            ("[NaN]", 1, "expected a value"),
            ("{\"a\": }", 6, "expected a value"),
            ("[1,\n ]", 5, "trailing commas"),
        ]
        for (text, offset, reason) in cases {
            let problem = Self.problem(text)
            #expect(problem?.offset == offset && problem?.reason.contains(reason) == true, "\(text): \(String(describing: problem))")
        }
        // Bytes that are not UTF-8 are named at the first of them.
        var bytes = Array("{\"a\": \"ok\", \"b\": \"".utf8)
        let bad = bytes.count
        bytes += [0xC3, 0x28, UInt8(ascii: "\""), UInt8(ascii: "}")]
        #expect(_StrictJSON.problem(in: Data(bytes)) == _StrictJSON.Problem(offset: bad, reason: "bytes that are not UTF-8"))
        // Nesting stops at the bound instead of following the input down.
        let deep = String(repeating: "[", count: _StrictJSON.maximumDepth + 1) + String(repeating: "]", count: _StrictJSON.maximumDepth + 1)
        #expect(Self.problem(deep)?.offset == _StrictJSON.maximumDepth)
        let atBound = String(repeating: "[", count: _StrictJSON.maximumDepth) + String(repeating: "]", count: _StrictJSON.maximumDepth)
        #expect(Self.problem(atBound) == nil)
    }

    /// A random JSON value of bounded depth, built as Foundation objects.
    static func randomValue(_ random: inout some RandomNumberGenerator, depth: Int) -> Any {
        switch Int.random(in: 0..<(depth > 3 ? 4 : 6), using: &random) {
        case 0: return Int.random(in: -1_000_000...1_000_000, using: &random)
        case 1: return Double.random(in: -1e6...1e6, using: &random)
        case 2: return ["", "a", "é", "line\nbreak", "quote\"", "\u{1F600}", "tab\t"].randomElement(using: &random) ?? ""
        case 3: return [NSNull(), true, false].randomElement(using: &random) ?? NSNull()
        case 4: return (0..<Int.random(in: 0..<4, using: &random)).map { _ in randomValue(&random, depth: depth + 1) }
        default:
            var object: [String: Any] = [:]
            for key in 0..<Int.random(in: 0..<4, using: &random) { object["k\(key)"] = randomValue(&random, depth: depth + 1) }
            return object
        }
    }

    @Test("differential against Foundation: every document it writes passes; whatever passes after a random edit, it parses too")
    func againstFoundation() throws {
        var random = SeededRandom(seed: 44)
        var accepted = 0, refused = 0
        for _ in 0..<400 {
            let value = Self.randomValue(&random, depth: 0)
            let wrapped: Any = Bool.random(using: &random) ? ["results": value] : [value]
            let data = try JSONSerialization.data(withJSONObject: wrapped, options: Bool.random(using: &random) ? [.prettyPrinted] : [])
            #expect(_StrictJSON.problem(in: data) == nil, "\(String(decoding: data, as: UTF8.self))")
            // One byte deleted, replaced or inserted.
            var bytes = [UInt8](data)
            let at = Int.random(in: 0..<bytes.count, using: &random)
            let byte = Array(",:[]{}\"0-.e \\tnu".utf8).randomElement(using: &random) ?? 0x20
            switch Int.random(in: 0..<3, using: &random) {
            case 0: bytes.remove(at: at)
            case 1: bytes[at] = byte
            default: bytes.insert(byte, at: at)
            }
            let edited = Data(bytes)
            if _StrictJSON.problem(in: edited) == nil {
                accepted += 1
                #expect((try? JSONSerialization.jsonObject(with: edited, options: [.fragmentsAllowed])) != nil,
                        "\(String(decoding: edited, as: UTF8.self))")
            } else {
                refused += 1
            }
            if (try? JSONSerialization.jsonObject(with: edited, options: [.fragmentsAllowed])) == nil {
                #expect(_StrictJSON.problem(in: edited) != nil, "\(String(decoding: edited, as: UTF8.self))")
            }
        }
        // Both sides of the check ran.
        #expect(accepted > 20 && refused > 20, "\(accepted) accepted, \(refused) refused")
    }
}
