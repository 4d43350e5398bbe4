/// CRC-32 (ISO-HDLC, reflected polynomial 0xEDB88320), the checksum in every gzip member's trailer.
///
/// Slicing by 8: eight bytes per step through eight 256-entry tables; O(n).
struct _CRC32 {
    private static let tables: [UInt32] = {
        var tables = [UInt32](repeating: 0, count: 8 * 256)
        for n in 0..<256 {
            var c = UInt32(n)
            for _ in 0..<8 { c = c & 1 == 1 ? 0xEDB8_8320 ^ (c >> 1) : c >> 1 }
            tables[n] = c
        }
        for n in 0..<256 {
            for k in 1..<8 {
                let previous = tables[(k - 1) * 256 + n]
                tables[k * 256 + n] = (previous >> 8) ^ tables[Int(previous & 0xFF)]
            }
        }
        return tables
    }()

    private(set) var value: UInt32 = 0

    mutating func update(_ bytes: UnsafePointer<UInt8>, count: Int) {
        var c = ~value
        Self.tables.withUnsafeBufferPointer { t in
            var at = 0
            while count - at >= 8 {
                let low = UInt32(littleEndian: UnsafeRawPointer(bytes + at).loadUnaligned(as: UInt32.self)) ^ c
                let high = UInt32(littleEndian: UnsafeRawPointer(bytes + at + 4).loadUnaligned(as: UInt32.self))
                c = t[7 * 256 + Int(low & 0xFF)] ^ t[6 * 256 + Int((low >> 8) & 0xFF)]
                    ^ t[5 * 256 + Int((low >> 16) & 0xFF)] ^ t[4 * 256 + Int(low >> 24)]
                    ^ t[3 * 256 + Int(high & 0xFF)] ^ t[2 * 256 + Int((high >> 8) & 0xFF)]
                    ^ t[1 * 256 + Int((high >> 16) & 0xFF)] ^ t[Int(high >> 24)]
                at += 8
            }
            while at < count {
                c = t[Int((c ^ UInt32(bytes[at])) & 0xFF)] ^ (c >> 8)
                at += 1
            }
        }
        value = ~c
    }
}
