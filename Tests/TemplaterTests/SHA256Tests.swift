import Foundation
import Testing

@testable import Templater

struct SHA256Tests {
    struct Vector: Sendable, CustomTestStringConvertible {
        var input: String
        var digest: String
        var testDescription: String { "\(input.prefix(20))… (\(input.utf8.count) bytes)" }
    }

    static let vectors: [Vector] = [
        Vector(input: "", digest: "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
        Vector(input: "abc", digest: "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
        Vector(
            input: "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
            digest: "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"),
        Vector(
            input: String(repeating: "a", count: 1000),
            digest: "41edece42d63e8d9bf515a9ba6932e1c20cbc9f5a5d134645adb5db1b9737ea3"),
    ]

    @Test(arguments: vectors)
    func knownDigests(_ vector: Vector) {
        #expect(SHA256Digest.hex(of: Data(vector.input.utf8)) == vector.digest)
    }

    @Test func fileDigestMatchesSha256sum() async throws {
        try await withTemporaryFolderAsync { folder in
            let file = folder.appendingPathComponent("blob")
            try Data((0..<300_000).map { UInt8(truncatingIfNeeded: $0 &* 31) }).write(to: file)
            let expected = try await ArchiveTools.run("sha256sum", [file.path]).split(separator: " ").first.map(String.init)
            #expect(try SHA256Digest.hex(ofFileAt: file) == expected)
        }
    }
}
