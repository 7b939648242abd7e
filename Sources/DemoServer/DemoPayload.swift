import Crypto
import Foundation

/// The deterministic bytes DemoServer serves for its large-body routes.
///
/// Byte `i` of every payload is `DemoPayload.byte(at: i)`, whatever the payload's size, so a
/// client can check a download (or any resumed part of it) without a second copy from the
/// server. The pattern never lines up with power-of-two chunk sizes, so a part appended at the
/// wrong offset changes the digest.
public enum DemoPayload {
    /// The pattern's period in bytes: a prime, so it never aligns with transfer chunks.
    public static let period = 65_521

    /// One period of the pattern.
    public static let pattern: [UInt8] = (0..<period).map { index in
        var mixed = UInt32(truncatingIfNeeded: index) &* 2_654_435_761
        mixed ^= mixed >> 15
        return UInt8(truncatingIfNeeded: mixed)
    }

    /// The byte at `offset` of every payload.
    public static func byte(at offset: Int) -> UInt8 {
        pattern[offset % period]
    }

    /// `length` bytes of the payload starting at `offset`.
    public static func bytes(offset: Int, length: Int) -> [UInt8] {
        var result = [UInt8]()
        result.reserveCapacity(length)
        var position = offset % period
        var remaining = length
        while remaining > 0 {
            let run = min(remaining, period - position)
            result.append(contentsOf: pattern[position..<(position + run)])
            remaining -= run
            position = 0
        }
        return result
    }

    /// A whole payload of `size` bytes, in memory (meant for small and medium sizes).
    public static func data(size: Int) -> Data {
        Data(bytes(offset: 0, length: size))
    }
}

extension DemoPayload {
    /// The SHA-256 of `data` in lower-case hex, as `POST /upload` reports a body's.
    public static func sha256Hex(_ data: Data) -> String {
        DemoRoutes.hex(SHA256.hash(data: data))
    }
}
