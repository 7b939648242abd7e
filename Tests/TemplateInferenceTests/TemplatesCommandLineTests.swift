import Foundation
import TestSupport
import Testing

/// `apilayer templates infer`, `diff` and their bad input, run as a child process.
@Suite(.timeLimit(.minutes(2)))
struct TemplatesCommandLineTests {
    static func folder() throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("apilayer-infer-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return folder
    }

    static func write(_ text: String, _ name: String, in folder: URL) throws -> String {
        let url = folder.appendingPathComponent(name)
        try Data(text.utf8).write(to: url)
        return url.path
    }

    /// Runs `apilayer` through `/bin/sh -c script` (standard input redirected, resource limits).
    static func shell(_ script: String, _ arguments: [String]) async throws -> (status: Int32, output: String, error: String) {
        let tool = try #require(APILayerExecutable.url)
        return try await runChildProcess(URL(fileURLWithPath: "/bin/sh"), ["-c", script, tool.path] + arguments)
    }

    @Test func inferWritesOneTemplateFromFilesAndStandardInput() async throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let a = try Self.write(#"{"id": 1, "name": "Ann", "token": "s3cr3t"}"#, "a.json", in: folder)
        let lines = try Self.write(
            #"{"id": 2, "name": "Bo", "token": "t0k3n"}"# + "\n\n" + #"{"id": 3, "token": "x"}"# + "\n", "lines.jsonl", in: folder)
        let out = folder.appendingPathComponent("users.get.json").path
        let run = try await Self.shell(#"exec "$0" templates infer "$1" - --out "$2" --json < "$3""#, [a, out, lines])
        #expect(run.status == 0, "\(run.error)")
        #expect(run.output.contains(#""samples":3"#))
        let template = try String(contentsOfFile: out, encoding: .utf8)
        #expect(template.contains(#""name-Rules": {"#) && template.contains(#""isOptional": true"#))
        #expect(!template.contains("s3cr3t") && !template.contains("t0k3n"))
        let check = try await APILayerExecutable.run(["templates", "check", folder.path])
        #expect(check.status == 0, "\(check.output)\(check.error)")
    }

    struct BadSample: Sendable, CustomTestStringConvertible {
        var name: String
        var files: [String]
        var message: String
        var testDescription: String { name }
    }

    @Test(arguments: [
        BadSample(name: "not JSON", files: [#"{"a": 1}"#, "<html>"], message: "b.json: not JSON"),
        BadSample(name: "another top-level type", files: [#"{"a": 1}"#, "[1]"], message: "b.json: its top-level value is an array"),
        BadSample(
            name: "ten thousand levels deep", files: [String(repeating: "[", count: 10_000) + String(repeating: "]", count: 10_000)],
            message: "a.json: not JSON"),
    ])
    func badSamplesAreNamedAndNothingIsWritten(_ test: BadSample) async throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let paths = try test.files.enumerated().map { try Self.write($1, ["a.json", "b.json"][$0], in: folder) }
        let out = folder.appendingPathComponent("out.json").path
        let run = try await APILayerExecutable.run(["templates", "infer"] + paths + ["--out", out])
        #expect(run.status == 2)
        #expect(run.error.contains(test.message), "\(run.error)")
        #expect(!FileManager.default.fileExists(atPath: out))
    }

    @Test func aSampleOf100MiBIsRefusedBeforeItIsRead() async throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        // A sparse file: 100 MiB long, no disk used.
        let big = folder.appendingPathComponent("big.json")
        #expect(FileManager.default.createFile(atPath: big.path, contents: nil))
        let handle = try FileHandle(forWritingTo: big)
        try handle.truncate(atOffset: 100 << 20)
        try handle.close()
        let out = folder.appendingPathComponent("out.json").path
        let run = try await APILayerExecutable.run(["templates", "infer", big.path, "--out", out])
        #expect(run.status == 2)
        #expect(run.error.contains("big.json has 104857600 bytes, more than the 67108864"), "\(run.error)")
        #expect(!FileManager.default.fileExists(atPath: out))
    }

    /// A sanitizer's runtime cannot start under a file-size limit (ThreadSanitizer dies of SIGBUS
    /// before `main`): the sanitizer runs leave this to the plain run.
    @Test(.disabled(if: SanitizerRuntime.isActive, "a sanitizer's runtime does not start under `ulimit -f`"))
    func aDiskThatFillsUpLeavesNoTemplateHalfWritten() async throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let members = (0..<400).map { #""key\#($0)": "value \#($0)""# }.joined(separator: ", ")
        let a = try Self.write("{\(members)}", "a.json", in: folder)
        let out = folder.appendingPathComponent("out").appendingPathComponent("big.json").path
        try FileManager.default.createDirectory(atPath: folder.appendingPathComponent("out").path, withIntermediateDirectories: true)
        // No file may grow past 1 KiB (dash counts 512-byte blocks; the template is tens of KiB):
        // the write fails part way,
        // as on a full disk.
        let run = try await Self.shell(#"ulimit -f 2; trap "" XFSZ; exec "$0" templates infer "$1" --out "$2""#, [a, out])
        #expect(run.status == 2)
        #expect(run.error.contains(out) && run.error.contains("cannot be written"), "\(run.error)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.appendingPathComponent("out").path).isEmpty)
    }

    @Test func diffExitsOneOnABreakingChangeAndTwoForAFolderAgainstAFile() async throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let old = try Self.write(#"{"response": [{"id": 1, "online": 1}]}"#, "old.json", in: folder)
        let new = try Self.write(#"{"response": [{"id": 1, "online": true}]}"#, "new.json", in: folder)
        let same = try Self.write(#"{"response": [{"id": 7, "online": 0}]}"#, "same.json", in: folder)
        let breaking = try await APILayerExecutable.run(["templates", "diff", old, new])
        #expect(breaking.status == 1)
        #expect(breaking.output.contains("breaking   old /response/*/online: type changed from number to boolean"), "\(breaking.output)")
        let json = try await APILayerExecutable.run(["templates", "diff", old, new, "--json"])
        #expect(json.status == 1)
        #expect(json.output.contains(#""breaking":1"#) && json.output.contains(#""pointer":"/response/*/online""#))
        let nothing = try await APILayerExecutable.run(["templates", "diff", old, same])
        #expect(nothing.status == 0)
        #expect(nothing.output == "0 breaking, 0 compatible\n")
        let mixed = try await APILayerExecutable.run(["templates", "diff", folder.path, new])
        #expect(mixed.status == 2)
        #expect(mixed.error.contains("cannot compare the folder \(folder.path) with the file \(new)"), "\(mixed.error)")
    }

    @Test(arguments: TestEngine.allCases)
    func recordGetsEachURLAndSkipsWhatIsNotA2xxJSONAnswer(_ engine: TestEngine) async throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let issue = try await TestServer.url("bench/issue?access_token=hunter2").absoluteString
        let page = try await TestServer.url("bench/issues").absoluteString
        let missing = try await TestServer.url("status/404?access_token=hunter2").absoluteString
        let engineName = engine == .nio ? "nio" : "urlsession"
        let run = try await APILayerExecutable.run([
            "templates", "record", issue, page, missing, "--name", "issues/get", "--out", folder.path, "--engine", engineName,
        ])
        // The page is an array, the issue an object: the page is refused, the 404 skipped.
        #expect(run.status == 1, "\(run.error)")
        #expect(run.error.contains("status/404?access_token=<redacted>: HTTP 404: not recorded"), "\(run.error)")
        #expect(run.error.contains("its top-level value is an array"), "\(run.error)")
        #expect(!run.error.contains("hunter2") && !run.output.contains("hunter2"))
        #expect(run.output.contains("inferred from 1 answers"), "\(run.output)")
        #expect(FileManager.default.fileExists(atPath: folder.appendingPathComponent("issues/get.json").path))

        let again = try await APILayerExecutable.run([
            "templates", "record", issue, "--repeat", "3", "--name", "issues/get", "--out", folder.path, "--engine", engineName, "--json",
        ])
        #expect(again.status == 0, "\(again.error)")
        #expect(again.output.contains(#""recorded":3"#))
        let nothing = try await APILayerExecutable.run(["templates", "record", missing, "--name", "x", "--out", folder.path])
        #expect(nothing.status == 2)
        #expect(nothing.error.contains("no answer was recorded"))
    }

    /// Not under a sanitizer: see `aDiskThatFillsUpLeavesNoTemplateHalfWritten`.
    @Test(.disabled(if: SanitizerRuntime.isActive, "a sanitizer's runtime does not start under `ulimit -f`"))
    func aRecordingWhoseDiskFillsUpNamesTheFileAndWritesNothing() async throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let page = try await TestServer.url("bench/issues").absoluteString
        let out = folder.appendingPathComponent("recorded")
        // The page's template is about 15 KiB; no file may grow past 2 KiB (dash counts 512-byte
        // blocks), as on a full disk.
        let run = try await Self.shell(
            #"ulimit -f 4; trap "" XFSZ; exec "$0" templates record "$1" --name issues/list --out "$2""#, [page, out.path])
        #expect(run.status == 2)
        #expect(run.error.contains(out.appendingPathComponent("issues/list.json").path) && run.error.contains("cannot be written"), "\(run.error)")
        let left = FileManager.default.enumerator(atPath: out.path)?.allObjects as? [String] ?? []
        #expect(left.allSatisfy { !$0.hasSuffix(".json") && !$0.contains(".write-") }, "\(left)")
    }
}
