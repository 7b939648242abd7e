/// Bytes (a digest, most often) as lower-case hex.
package enum HexDigest {
    /// `bytes` as lower-case hex, two characters a byte.
    package static func string<Bytes: Sequence<UInt8>>(_ bytes: Bytes) -> String {
        let bytes = Array(bytes)
        return String(unsafeUninitializedCapacity: bytes.count * 2) { text in
            var index = 0
            for byte in bytes {
                text[index] = digits[Int(byte >> 4)]
                text[index + 1] = digits[Int(byte & 0x0F)]
                index += 2
            }
            return index
        }
    }

    private static let digits: [UInt8] = Array("0123456789abcdef".utf8)
}
