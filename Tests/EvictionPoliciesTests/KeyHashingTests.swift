@testable import EvictionPolicies
import TestSupport
import Testing

/// Pairs of different spellings that `String`'s `==` calls equal (canonical equivalence), some
/// of them ASCII on one side only, so the in-place and the normalizing path must agree.
private let equivalentSpellings: [(String, String)] = [
    ("K", "\u{212A}"),                          // Kelvin sign decomposes to an ASCII K
    ("temperature: 300K", "temperature: 300\u{212A}"),
    (";", "\u{037E}"),                          // Greek question mark is an ASCII semicolon
    ("caf\u{E9}", "cafe\u{301}"),               // precomposed é vs e + combining acute
    ("\u{212B}ngstr\u{F6}m", "A\u{30A}ngstro\u{308}m"),
    ("https://images.example.com/\u{E9}t\u{E9}/1.jpg", "https://images.example.com/e\u{301}te\u{301}/1.jpg"),
]

/// ``_hashBytes(_:seed:)`` over a copy of the string's UTF-8 bytes in an array: the definition
/// the in-place and in-register paths must agree with.
private func hashOfBytes(_ string: String, seed: UInt64) -> UInt64 {
    Array(string.utf8).withUnsafeBytes { _hashBytes($0, seed: seed).hash }
}

/// `length` printable ASCII characters drawn from `rng`.
private func randomASCII(_ length: Int, using rng: inout SeededRandom) -> String {
    String(decoding: (0..<length).map { _ in UInt8.random(in: 32...126, using: &rng) }, as: UTF8.self)
}

@Suite("String key hashing")
struct KeyHashingTests {
    /// ``_hashNonASCIIString(_:seed:)`` names the scalars whose NFC form is ASCII; the standard
    /// library's normalizer, asked about every scalar, must give exactly that list.
    @Test("exactly three non-ASCII scalars normalize to ASCII: U+037E, U+1FEF, U+212A")
    func scalarsThatNormalizeToASCII() {
        var found: [UInt32: [UInt8]] = [:]
        for value in UInt32(0x80)...0x10_FFFF {
            guard let scalar = Unicode.Scalar(value) else { continue }
            let nfc = String(Character(scalar))._nfcCodeUnits
            if nfc.allSatisfy({ $0 < 0x80 }) { found[value] = nfc }
        }
        #expect(found == [0x037E: [UInt8(ascii: ";")], 0x1FEF: [UInt8(ascii: "`")], 0x212A: [UInt8(ascii: "K")]])
    }

    @Test("a non-ASCII string hashes as its ASCII form when it has one, else by hashValue")
    func nonASCIIPath() {
        #expect(_hashNonASCIIString("300\u{212A}; \u{1FEF}x\u{037E}", seed: 4) == hashOfBytes("300K; `x;", seed: 4))
        let cafe = "caf\u{E9}"
        #expect(_hashNonASCIIString(cafe, seed: 4) == UInt64(bitPattern: Int64(cafe.hashValue)))
        #expect(_hashString("cafe\u{301}", seed: 4) == _hashString(cafe, seed: 4))
    }

    @Test("equal strings hash equal, whichever spelling and path")
    func canonicalEquivalence() {
        for (a, b) in equivalentSpellings {
            #expect(a == b, "the test's premise: \(a.debugDescription) == \(b.debugDescription)")
            for seed: UInt64 in [0, 1, 0xdead_beef] {
                #expect(_hashString(a, seed: seed) == _hashString(b, seed: seed), "\(a.debugDescription)")
            }
        }
    }

    @Test("an ASCII string's hash is the hash of its bytes, at every length")
    func asciiHashesItsBytes() {
        var rng = SeededRandom(seed: 11)
        for length in 0...100 {
            for _ in 0..<5 {
                let string = randomASCII(length, using: &rng)
                #expect(_hashString(string, seed: 42) == hashOfBytes(string, seed: 42), "length \(length)")
            }
        }
    }

    /// A short ASCII string is usually stored inside the `String` value (hashed from registers),
    /// but one built with spare capacity lives on the heap (hashed from memory): equal contents
    /// must hash the same either way.
    @Test("a short string hashes the same stored inline or on the heap, at every length to 16")
    func inlineMatchesHeap() {
        var rng = SeededRandom(seed: 3)
        for length in 0...16 {
            let inline = randomASCII(length, using: &rng)
            var heap = String()
            heap.reserveCapacity(64)
            heap.append(inline)
            #expect(heap == inline)
            let heapIsInline = withUnsafeBytes(of: heap) { $0.load(fromByteOffset: 8, as: UInt64.self) >> 61 & 1 == 1 }
            #expect(!heapIsInline, "length \(length): the heap string is stored inline; the test proves nothing")
            #expect(_hashString(inline, seed: 8) == _hashString(heap, seed: 8), "length \(length)")
            #expect(_hashString(inline, seed: 8) == hashOfBytes(inline, seed: 8), "length \(length)")
        }
    }

    @Test("every byte of the key changes the hash, at every length up to 80")
    func everyByteCounts() {
        var rng = SeededRandom(seed: 5)
        for length in 1...80 {
            let bytes = (0..<length).map { _ in UInt8.random(in: 97...122, using: &rng) }
            let base = _hashString(String(decoding: bytes, as: UTF8.self), seed: 9)
            for position in 0..<length {
                var changed = bytes
                changed[position] = 65  // an upper-case A, never among the lower-case letters drawn
                #expect(_hashString(String(decoding: changed, as: UTF8.self), seed: 9) != base,
                        "length \(length), byte \(position) did not change the hash")
            }
        }
    }

    @Test("the seed changes the hash; the empty string hashes too")
    func seeded() {
        #expect(_hashString("https://images.example.com/feed/1.jpg", seed: 1) != _hashString("https://images.example.com/feed/1.jpg", seed: 2))
        #expect(_hashString("", seed: 1) != _hashString("", seed: 2))
        #expect(_hashString("", seed: 1) != _hashString("a", seed: 1))
    }

    /// The index files an entry under the hash's low bits: URLs that differ in a few digits must
    /// still spread over the buckets as random numbers would.
    @Test("URL keys spread over the buckets like random numbers")
    func spread() {
        let keys = 200_000
        let buckets = 1 << 16
        var hits = [Int](repeating: 0, count: buckets)
        var full = Set<UInt64>()
        for i in 0..<keys {
            let hash = _hashString("https://images.example.com/feed/\(i).jpg", seed: 3)
            hits[Int(hash & UInt64(buckets - 1))] += 1
            full.insert(hash)
        }
        #expect(full.count == keys, "64-bit collisions among \(keys) keys")
        // Occupancy of 200,000 balls in 65,536 bins: the expected share of empty bins is
        // e^(-200000/65536) = 4.7 %, with a standard deviation of about 0.08 %.
        let empty = Double(hits.filter { $0 == 0 }.count) / Double(buckets)
        #expect(abs(empty - 0.0473) < 0.005, "empty bucket share \(empty)")
        let chiSquare = hits.reduce(0.0) { sum, observed in
            let expected = Double(keys) / Double(buckets)
            return sum + (Double(observed) - expected) * (Double(observed) - expected) / expected
        }
        // 65,535 degrees of freedom: mean 65,535, standard deviation 362.
        #expect(abs(chiSquare - 65_535) < 5 * 362, "chi-square \(chiSquare)")
    }

    @Test("a cache finds an entry under any equal spelling of its key")
    func cacheLooksUpEquivalentSpellings() throws {
        var cache = try LRUCache<String, Int>.make(countLimit: 100)
        for (i, (a, _)) in equivalentSpellings.enumerated() { cache.setValue(i, forKey: a) }
        for (i, (_, b)) in equivalentSpellings.enumerated() {
            #expect(cache.value(forKey: b) == i, "\(b.debugDescription)")
        }
        #expect(cache.count == equivalentSpellings.count)
        cache.setValue(99, forKey: "\u{212A}")
        #expect(cache.count == equivalentSpellings.count, "\"\\u{212A}\" replaced \"K\"")
        #expect(cache.value(forKey: "K") == 99)
    }

    /// LRU over `String` keys, each request spelled at random as one of its equal spellings,
    /// against the reference list model over integer keys.
    @Test("LRU with String keys in mixed spellings matches the reference model", arguments: [1, 7, 2024] as [UInt64])
    func differential(seed: UInt64) throws {
        var rng = SeededRandom(seed: seed)
        let keySpace = 60
        // Key k's spellings: for a third of the keys an ASCII one and its non-ASCII equal, for a
        // third a composed and a decomposed one; the rest have one spelling, inline or a URL.
        func spellings(_ k: Int) -> [String] {
            switch k % 3 {
            case 0: ["\(k)K", "\(k)\u{212A}"]
            case 1: ["caf\u{E9}/\(k)", "cafe\u{301}/\(k)"]
            default: [k % 2 == 0 ? "k\(k)" : "https://images.example.com/feed/\(k)/image.jpg"]
            }
        }
        var keyOf: [String: Int] = [:]
        for k in 0..<keySpace { for form in spellings(k) { keyOf[form] = k } }
        let countLimit = 25
        var cache = try LRUCache<String, Void>.make(countLimit: countLimit)
        var reference = ReferenceListCache(rule: .lru, capacity: .max, countLimit: countLimit)
        var observer = EvictionRecorder<String, Void>()
        for step in 0..<4_000 {
            let k = Int.random(in: 0..<keySpace, using: &rng)
            let key = spellings(k).randomElement(using: &rng) ?? ""
            switch Int.random(in: 0..<10, using: &rng) {
            case 0..<7:
                let hit = cache.access(key, cost: 1, orInsert: (), observer: &observer)
                let expected = reference.access(k, cost: 1)
                #expect(hit == expected.hit, "seed \(seed) step \(step): access \(key.debugDescription)")
                #expect(observer.take().map { keyOf[$0] ?? -1 } == expected.evicted, "seed \(seed) step \(step)")
            case 7..<9:
                cache.remove(key, observer: &observer)
                _ = reference.remove(k)
            default:
                #expect(cache.contains(key) == reference.entries.contains { $0.key == k }, "seed \(seed) step \(step)")
            }
            #expect(cache.count == reference.entries.count, "seed \(seed) step \(step)")
            if cache.count != reference.entries.count { return }
        }
    }
}
