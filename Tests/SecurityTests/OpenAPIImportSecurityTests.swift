import Foundation
import NetOps
import OpenAPIImport
import TestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// `apilayer templates import` reads descriptions from strangers: an alias used as a mapping
/// key (which YAML's composer would hash, whole, before any budget applies) is refused at once,
/// and a file that is not a regular one (a FIFO, a device) is read through one descriptor no
/// further than `--max-bytes`.
@Suite("Security: OpenAPI import", .timeLimit(.minutes(2)))
struct OpenAPIImportSecurityTests {
    /// Nine levels of nine-fold aliases ("billion laughs", 9⁹ leaves) and the last one used as a
    /// mapping key: the import ends at once with a clear error instead of hashing the tree.
    @Test func anAliasUsedAsAMappingKeyIsRefusedAtOnce() async throws {
        var lines = [#"a: &a ["x","x","x","x","x","x","x","x","x"]"#]
        let names = ["a", "b", "c", "d", "e", "f", "g", "h", "i"]
        for (previous, name) in zip(names, names.dropFirst()) {
            lines.append("\(name): &\(name) [\(Array(repeating: "*\(previous)", count: 9).joined(separator: ","))]")
        }
        lines.append("openapi: 3.1.0")
        lines.append("paths: {}")
        for key in ["{*i: 1}", "{ *i : 1 }", "\n  *i : 1", "\n  ? *i\n  : 1"] {
            let yaml = (lines + ["bomb: \(key)"]).joined(separator: "\n") + "\n"
            let outcome = await Self.within(seconds: 10) {
                do {
                    _ = try OpenAPIDescription.parse(Data(yaml.utf8), path: "bomb.yaml")
                    return "parsed"
                } catch {
                    return String(describing: error)
                }
            }
            #expect(outcome?.contains("alias") == true, "\(key.debugDescription): \(outcome ?? "still running after 10 s")")
            // A run still hashing goes on in the background: do not start another beside it.
            if outcome == nil { break }
        }
        // An alias as a value, and a `*` inside scalars, quotes, comments and block scalars, are fine.
        let fine = """
            openapi: 3.1.0
            info: {title: "stars *a: b", version: '1 *b: c'}
            x-shared: &shared {type: string}
            x-use: *shared
            x-list: [*shared, *shared]
            x-text: |
              *c: not a key, a line of a block scalar
            # *d: a comment
            paths: {}
            """
        #expect(throws: Never.self) { _ = try OpenAPIDescription.parse(Data(fine.utf8), path: "fine.yaml") }
    }

    /// A FIFO whose writer sends 2 MiB, read with a 1 MiB limit: refused as too large once the
    /// limit is passed (a `stat` says nothing of a FIFO's size). A device (`/dev/zero`) likewise.
    @Test func aFIFOOrADeviceIsReadNoFurtherThanTheLimit() async throws {
        signal(SIGPIPE, SIG_IGN)
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("import-fifo-\(UUID())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let fifo = folder.appendingPathComponent("spec.yaml")
        #expect(mkfifo(fifo.path, 0o600) == 0)
        let writer = Process()
        writer.executableURL = URL(fileURLWithPath: "/bin/sh")
        writer.arguments = ["-c", "yes 'x-line: 1' | head -c 2097152 > '\(fifo.path)'"]
        try writer.run()
        defer { writer.terminate() }
        let outcome = await Self.within(seconds: 20) {
            do {
                _ = try OpenAPIDescription.load(contentsOf: fifo, maxBytes: 1 << 20)
                return "loaded"
            } catch {
                return String(describing: error)
            }
        }
        #expect(outcome?.contains("more than") == true, "\(outcome ?? "still reading after 20 s")")
        guard outcome?.contains("more than") == true else { return }
        let device = await Self.within(seconds: 20) {
            do {
                _ = try OpenAPIDescription.load(contentsOf: URL(fileURLWithPath: "/dev/zero"), maxBytes: 1 << 20)
                return "loaded"
            } catch {
                return String(describing: error)
            }
        }
        #expect(device?.contains("more than") == true, "\(device ?? "still reading after 20 s")")
    }

    /// `body`'s result, or nil when it has not returned within `seconds` (it goes on, detached).
    static func within(seconds: Double, _ body: @escaping @Sendable () -> String) async -> String? {
        let result = Locked<String?>(nil)
        let thread = Thread { result.withLock { $0 = body() } }
        thread.start()
        let deadline = ContinuousClock.now + .seconds(seconds)
        while ContinuousClock.now < deadline {
            if let done = result.withLock({ $0 }) { return done }
            try? await Task.sleep(for: .milliseconds(20))
        }
        // The polling task may wake late on a busy machine: what the thread finished counts.
        return result.withLock { $0 }
    }
}
