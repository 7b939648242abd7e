import APILayer
import Foundation
import TestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The file token store trusts nothing it finds on disk: no write or chmod through a symbolic
/// link, no load of a file another user owns or others may read, no unbounded read, no stale
/// temporary copy left behind.
@Suite("Security: file token store", .timeLimit(.minutes(1)))
struct TokenStoreSecurityTests {
    static let token = Token(accessToken: "tok-secret-access", refreshToken: "tok-secret-refresh")

    /// A fresh scratch folder (mode 0700), deleted by the caller.
    static func scratch() throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("apilayer-tokensec-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        return folder
    }

    static func mode(of path: String) throws -> Int {
        let attributes = try FileManager.default.attributesOfItem(atPath: path)
        return (attributes[.posixPermissions] as? NSNumber)?.intValue ?? -1
    }

    /// Whether `error` is a refusal of an unsafe store that does not show the token.
    static func isRefusal(_ error: any Error) -> Bool {
        guard case .insecure? = error as? TokenStoreError else { return false }
        return !String(describing: error).contains("tok-secret")
    }

    /// A save into a folder that is a symbolic link is refused, and the link's target keeps its
    /// mode (the old store chmod-ed it to 0700) and gets no file.
    @Test func aSymlinkedFolderIsRefusedAndItsTargetNotChanged() throws {
        let root = try Self.scratch()
        defer { try? FileManager.default.removeItem(at: root) }
        let target = root.appendingPathComponent("elsewhere")
        try FileManager.default.createDirectory(at: target, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o755])
        let link = root.appendingPathComponent("tokens")
        try FileManager.default.createSymbolicLink(at: link, withDestinationURL: target)
        let store = FileTokenStore(fileURL: link.appendingPathComponent("token.json"))
        #expect(throws: TokenStoreError.self) { try store.save(Self.token) }
        do { try store.save(Self.token) } catch { #expect(Self.isRefusal(error), "\(error)") }
        #expect(try Self.mode(of: target.path) == 0o755)
        #expect(try FileManager.default.contentsOfDirectory(atPath: target.path).isEmpty)
    }

    /// A token file that is a symbolic link is not loaded (it could point at any file).
    @Test func aSymlinkedFileIsRefused() throws {
        let root = try Self.scratch()
        defer { try? FileManager.default.removeItem(at: root) }
        let real = FileTokenStore(fileURL: root.appendingPathComponent("real.json"))
        try real.save(Self.token)
        let file = root.appendingPathComponent("token.json")
        try FileManager.default.createSymbolicLink(at: file, withDestinationURL: real.fileURL)
        let store = FileTokenStore(fileURL: file)
        do {
            _ = try store.load()
            Issue.record("a symbolic link was loaded")
        } catch {
            #expect(Self.isRefusal(error), "\(error)")
        }
    }

    /// A token file that group or others may read is refused with a clear error.
    @Test(arguments: [0o644, 0o640, 0o604, 0o660])
    func aFileOthersMayReadIsRefused(_ mode: Int) throws {
        let root = try Self.scratch()
        defer { try? FileManager.default.removeItem(at: root) }
        let store = FileTokenStore(fileURL: root.appendingPathComponent("token.json"))
        try store.save(Self.token)
        #expect(chmod(store.fileURL.path, mode_t(mode)) == 0)
        do {
            _ = try store.load()
            Issue.record("a file of mode \(String(mode, radix: 8)) was loaded")
        } catch {
            #expect(Self.isRefusal(error), "\(error)")
            #expect(String(describing: error).contains("600"))
        }
        // Made private again, it loads.
        #expect(chmod(store.fileURL.path, 0o600) == 0)
        #expect(try store.load() == Self.token)
    }

    /// A token file owned by another user is refused. Only root can make one; elsewhere the
    /// check is held by reading (`FileTokenStore.load` compares `st_uid` with `geteuid()`).
    @Test(.enabled(if: geteuid() == 0, "only root can give a file to another user"))
    func aFileOfAnotherUserIsRefused() throws {
        let root = try Self.scratch()
        defer { try? FileManager.default.removeItem(at: root) }
        let store = FileTokenStore(fileURL: root.appendingPathComponent("token.json"))
        try store.save(Self.token)
        #expect(chown(store.fileURL.path, 65_534, 65_534) == 0)
        do {
            _ = try store.load()
            Issue.record("another user's file was loaded")
        } catch {
            #expect(Self.isRefusal(error), "\(error)")
        }
    }

    /// A file larger than the cap is refused before it is read whole.
    @Test func anOversizedFileIsRefused() throws {
        let root = try Self.scratch()
        defer { try? FileManager.default.removeItem(at: root) }
        let store = FileTokenStore(fileURL: root.appendingPathComponent("token.json"))
        let huge = Data(#"{"accessToken":""#.utf8) + Data(repeating: UInt8(ascii: "a"), count: FileTokenStore.maximumFileSize) + Data(#""}"#.utf8)
        #expect(FileManager.default.createFile(atPath: store.fileURL.path, contents: huge, attributes: [.posixPermissions: 0o600]))
        do {
            _ = try store.load()
            Issue.record("a file of \(huge.count) bytes was loaded")
        } catch {
            #expect(Self.isRefusal(error), "\(error)")
        }
    }

    /// A FIFO in the file's place is refused at once (no read that blocks forever).
    @Test func aFIFOIsRefusedWithoutBlocking() throws {
        let root = try Self.scratch()
        defer { try? FileManager.default.removeItem(at: root) }
        let store = FileTokenStore(fileURL: root.appendingPathComponent("token.json"))
        #expect(mkfifo(store.fileURL.path, 0o600) == 0)
        do {
            _ = try store.load()
            Issue.record("a FIFO was loaded")
        } catch {
            #expect(Self.isRefusal(error), "\(error)")
        }
    }

    /// A temporary copy a crash left behind (recognisable by its name) is deleted by the next
    /// save once it is stale; a fresh one (a save in flight elsewhere) and other files stay.
    @Test func staleTemporaryCopiesAreCleanedUp() throws {
        let root = try Self.scratch()
        defer { try? FileManager.default.removeItem(at: root) }
        let store = FileTokenStore(fileURL: root.appendingPathComponent("token.json"))
        let stale = root.appendingPathComponent(".token.json.\(UUID().uuidString).tmp")
        let fresh = root.appendingPathComponent(".token.json.\(UUID().uuidString).tmp")
        let other = root.appendingPathComponent(".other.json.\(UUID().uuidString).tmp")
        for file in [stale, fresh, other] {
            #expect(FileManager.default.createFile(atPath: file.path, contents: Data("x".utf8), attributes: [.posixPermissions: 0o600]))
        }
        let old = Date(timeIntervalSinceNow: -(FileTokenStore.staleTemporaryAge + 60))
        try FileManager.default.setAttributes([.modificationDate: old], ofItemAtPath: stale.path)
        try FileManager.default.setAttributes([.modificationDate: old], ofItemAtPath: other.path)
        try store.save(Self.token)
        let names = Set(try FileManager.default.contentsOfDirectory(atPath: root.path))
        #expect(!names.contains(stale.lastPathComponent))
        #expect(names.contains(fresh.lastPathComponent))
        #expect(names.contains(other.lastPathComponent))
        #expect(names.contains("token.json"))
    }

    /// Checked and holding: a save writes a 0600 file in a 0700 folder, atomically (no
    /// temporary copy remains), and loads back.
    @Test func aSaveIsPrivateAndAtomic() throws {
        let root = try Self.scratch()
        defer { try? FileManager.default.removeItem(at: root) }
        let folder = root.appendingPathComponent("svc")
        let store = FileTokenStore(fileURL: folder.appendingPathComponent("token.json"))
        try store.save(Self.token)
        #expect(try Self.mode(of: store.fileURL.path) == 0o600)
        #expect(try Self.mode(of: folder.path) == 0o700)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path) == ["token.json"])
        #expect(try store.load() == Self.token)
    }

    /// A shared folder with the sticky bit (a token file straight in /tmp, say) keeps its mode:
    /// tightening it to 0700 would lock every other user out of it. The file is still 0600.
    @Test func aStickySharedFolderKeepsItsMode() throws {
        let root = try Self.scratch()
        defer { try? FileManager.default.removeItem(at: root) }
        let shared = root.appendingPathComponent("shared")
        try FileManager.default.createDirectory(at: shared, withIntermediateDirectories: false)
        #expect(chmod(shared.path, 0o1777) == 0)
        let store = FileTokenStore(fileURL: shared.appendingPathComponent("token.json"))
        try store.save(Self.token)
        #expect(try Self.mode(of: shared.path) & 0o7777 == 0o1777)
        #expect(try Self.mode(of: store.fileURL.path) == 0o600)
        #expect(try store.load() == Self.token)
    }
}
