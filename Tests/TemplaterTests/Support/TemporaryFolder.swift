import Foundation
import Validator

@testable import Templater

/// A fresh folder under the system temporary folder, removed when the body returns.
func withTemporaryFolder<Result>(_ body: (URL) throws -> Result) throws -> Result {
    let folder = FileManager.default.temporaryDirectory
        .appendingPathComponent("templater-tests-\(UUID().uuidString)", isDirectory: true)
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    return try body(folder)
}

/// A fresh folder under the system temporary folder, removed when the body returns (for a body
/// that awaits, such as one running the archive tools).
func withTemporaryFolderAsync<Result>(_ body: (URL) async throws -> Result) async throws -> Result {
    let folder = FileManager.default.temporaryDirectory
        .appendingPathComponent("templater-tests-\(UUID().uuidString)", isDirectory: true)
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    return try await body(folder)
}

/// The names in `folder`, sorted (hidden ones included); empty when it does not exist.
func listing(_ folder: URL) -> [String] {
    ((try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []).sorted()
}

/// Every file under `folder` with its bytes, by relative path.
func snapshot(_ folder: URL) -> [String: Data] {
    var files: [String: Data] = [:]
    guard let walker = FileManager.default.enumerator(atPath: folder.path) else { return files }
    while let relative = walker.nextObject() as? String {
        let url = folder.appendingPathComponent(relative)
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory), !isDirectory.boolValue {
            files[relative] = try? Data(contentsOf: url)
        }
    }
    return files
}

/// Writes a template file by hand (not through a store).
func writeFile(_ text: String, to url: URL) throws {
    try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
    try Data(text.utf8).write(to: url)
}

/// A small valid template whose `response` is `value`.
func sampleTemplate(_ value: Int) -> JSONValue {
    .object(["response": .object(["version": .int(value), "version-Rules": .object(["minimum": .int(0)])])])
}

/// A value shared by test threads, behind a lock.
final class Shared<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value
    init(_ value: Value) { self.value = value }
    func withLock<R>(_ body: (inout Value) throws -> R) rethrows -> R {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}

/// Runs `bodies` on their own threads (real threads, so they run at once even on two cores) and waits.
func runOnThreads(_ bodies: [@Sendable () -> Void]) {
    let group = DispatchGroup()
    for body in bodies {
        group.enter()
        let thread = Thread {
            body()
            group.leave()
        }
        thread.start()
    }
    group.wait()
}

/// The repository's root folder (for the shipped `Templates/`).
let repositoryRoot = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent().deletingLastPathComponent()
