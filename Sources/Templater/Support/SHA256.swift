import Crypto
import Foundation

/// SHA-256 as lowercase hex, used to tell whether an archive or a template file changed.
/// The digest itself is swift-crypto's.
enum SHA256Digest {
    /// The digest of `data`, as 64 lowercase hex digits.
    static func hex(of data: Data) -> String {
        hex(SHA256.hash(data: data))
    }

    /// The digest of the file at `url`, read in 1 MiB chunks, as 64 lowercase hex digits.
    static func hex(ofFileAt url: URL) throws -> String {
        let handle = try FileHandle(forReadingFrom: url)
        defer { try? handle.close() }
        var hasher = SHA256()
        while let chunk = try handle.read(upToCount: 1 << 20), !chunk.isEmpty {
            hasher.update(data: chunk)
        }
        return hex(hasher.finalize())
    }

    private static func hex(_ digest: SHA256.Digest) -> String {
        digest.map { String(format: "%02x", $0) }.joined()
    }
}
