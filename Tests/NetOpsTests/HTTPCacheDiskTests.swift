import Foundation
import TestSupport
import Testing

@testable import NetOps
@testable import NetOpsHTTP

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The HTTP cache's folder: entries survive a new cache on the same folder, files are private,
/// garbage is never served, the folder stays within its bound, and an unsafe folder is refused.
@Suite(.timeLimit(.minutes(2)))
struct HTTPCacheDiskTests {
    static func folder() -> URL {
        FileManager.default.temporaryDirectory.appendingPathComponent("apilayer-cache-\(UUID().uuidString)", isDirectory: true)
    }

    static func mode(_ url: URL) throws -> Int {
        try #require(FileManager.default.attributesOfItem(atPath: url.path)[.posixPermissions] as? Int) & 0o777
    }

    static func entries(in folder: URL) -> [URL] {
        ((try? FileManager.default.contentsOfDirectory(at: folder, includingPropertiesForKeys: nil)) ?? [])
            .filter { $0.lastPathComponent.hasSuffix(".entry") }
    }

    @Test func entriesSurviveANewCacheOnTheSameFolder() async throws {
        let folder = Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let (url, key) = try await HTTPCacheTests.resource("maxAge=600&items=2")
        let first = try HTTPCache(configuration: .init(directory: folder))
        let original = try await HTTPCacheTests.get(url, first, .nio, headers: ["Authorization": "Bearer secret-token"])
        first.flush()
        #expect(try Self.mode(folder) == 0o700)
        let files = Self.entries(in: folder)
        #expect(files.count == 1)
        for file in files {
            #expect(try Self.mode(file) == 0o600)
            let bytes = try Data(contentsOf: file)
            #expect(bytes.range(of: Data("secret-token".utf8)) == nil, "no token is written to disk")
        }
        let restarted = try HTTPCache(configuration: .init(directory: folder))
        #expect(restarted.diskUsage.entries == 1)
        // The same engine: an engine is part of the key (the URLSession engine's identity is not
        // the NIO engine's).
        let again = try await HTTPCacheTests.get(url, restarted, .nio, headers: ["Authorization": "Bearer secret-token"])
        #expect(HTTPCacheTests.cacheUse(again) == .hit)
        #expect(again.receivedData == original.receivedData)
        #expect(try await HTTPCacheTests.stats(key).served == 1)
        // Another token finds nothing on disk either.
        let other = try await HTTPCacheTests.get(url, restarted, .nio, headers: ["Authorization": "Bearer another"])
        #expect(HTTPCacheTests.cacheUse(other) == .miss)
    }

    @Test(arguments: ["garbage", "truncated", "anotherKey"])
    func aCorruptEntryIsDroppedNeverServed(_ damage: String) async throws {
        let folder = Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let (url, key) = try await HTTPCacheTests.resource("maxAge=600")
        let (otherURL, _) = try await HTTPCacheTests.resource("maxAge=600")
        let writer = try HTTPCache(configuration: .init(directory: folder))
        try await HTTPCacheTests.get(url, writer, .nio)
        try await HTTPCacheTests.get(otherURL, writer, .nio)
        writer.flush()
        let target = folder.appendingPathComponent(
            DiskCacheStore.fileName(
                url: HTTPCache.key(url),
                partition: writer.partition(
                    of: URLRequest(url: url), contextHeaders: [], followsRedirects: true,
                    transport: TestEngine.nio.session.engine.transportIdentity(for: .standard, url: url))))
        let original = try Data(contentsOf: target)
        switch damage {
        case "garbage": try Data("not an entry at all".utf8).write(to: target)
        case "truncated": try original.prefix(original.count - 5).write(to: target)
        default:
            // A whole, valid entry of another URL under this one's name.
            let otherFile = folder.appendingPathComponent(
                DiskCacheStore.fileName(
                    url: HTTPCache.key(otherURL),
                    partition: writer.partition(
                        of: URLRequest(url: otherURL), contextHeaders: [], followsRedirects: true,
                        transport: TestEngine.nio.session.engine.transportIdentity(for: .standard, url: otherURL))))
            try Data(contentsOf: otherFile).write(to: target)
        }
        let reader = try HTTPCache(configuration: .init(directory: folder))
        let again = try await HTTPCacheTests.get(url, reader, .nio)
        #expect(HTTPCacheTests.cacheUse(again) == .miss)
        #expect(try await HTTPCacheTests.stats(key).served == 2)
        reader.flush()
        // The answer stored again replaced the damaged file.
        #expect(try Data(contentsOf: target) != Data("not an entry at all".utf8))
    }

    @Test func theFolderStaysWithinItsBound() async throws {
        let folder = Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let cache = try HTTPCache(configuration: .init(directory: folder, maximumDiskBytes: 4_000))
        for _ in 0..<6 {
            let (url, _) = try await HTTPCacheTests.resource("maxAge=600&items=4")
            try await HTTPCacheTests.get(url, cache, .nio)
        }
        cache.flush()
        let bytes = Self.entries(in: folder).reduce(0) { $0 + ((try? Data(contentsOf: $1).count) ?? 0) }
        #expect(bytes <= 4_000)
        #expect(cache.diskUsage.bytes == bytes)
        #expect(Self.entries(in: folder).count < 6)
        #expect(cache.memoryUsage.entries == 6, "memory has its own bound")
    }

    @Test func aFolderThatCannotBeWrittenCostsOnlyTheDiskCopies() async throws {
        let folder = Self.folder()
        let cache = try HTTPCache(configuration: .init(directory: folder))
        try FileManager.default.removeItem(at: folder)
        let (url, key) = try await HTTPCacheTests.resource("maxAge=600")
        try await HTTPCacheTests.get(url, cache, .nio)
        cache.flush()
        #expect(cache.statistics.diskWriteFailures == 1)
        let again = try await HTTPCacheTests.get(url, cache, .nio)
        #expect(HTTPCacheTests.cacheUse(again) == .hit)
        #expect(try await HTTPCacheTests.stats(key).served == 1)
    }

    @Test func anUnsafeFolderIsRefusedWithAClearError() throws {
        let base = Self.folder()
        try FileManager.default.createDirectory(at: base, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: base) }
        let shared = base.appendingPathComponent("shared")
        try FileManager.default.createDirectory(at: shared, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o777])
        let link = base.appendingPathComponent("link")
        try FileManager.default.createSymbolicLink(at: link, withDestinationURL: shared)
        let file = base.appendingPathComponent("file")
        try Data().write(to: file)
        for (folder, reason) in [(shared, "others may write"), (link, "not a folder"), (file, "not a folder")] {
            #expect {
                _ = try HTTPCache(configuration: .init(directory: folder))
            } throws: { error in
                guard let error = error as? HTTPCacheError else { return false }
                return error.description.contains(folder.path) && error.description.contains(reason)
            }
        }
    }
}
