import Foundation
import TemplateInference
import Templater
import Testing
import Validator

@Suite struct TemplateRecorderTests {
    static func folder() -> URL {
        FileManager.default.temporaryDirectory.appendingPathComponent("apilayer-recorder-\(UUID().uuidString)", isDirectory: true)
    }

    static func user(_ id: Int) -> JSONValue {
        .object(["response": .array([.object(["id": .int(id), "first_name": .string("U\(id)"), "password": .string("pw\(id)")])])])
    }

    @Test func theSampleRatePicksEvenlySpreadResponsesAndTheCapSettlesAMethod() {
        let recorder = TemplateRecorder(
            recording: TemplateRecording(folder: Self.folder(), sampleRate: 0.25, maximumSamplesPerMethod: 2), isSecret: testSecrets)
        let outcomes = (1...12).map { recorder.record(Self.user($0), for: "users.get") }
        #expect(
            outcomes == [
                .notSampled, .notSampled, .notSampled, .merged, .notSampled, .notSampled, .notSampled, .merged,
                .notSampled, .notSampled, .notSampled, .capped,
            ])
        let statistics = recorder.statistics(for: "users.get")
        #expect(statistics?.responses == 12 && statistics?.merged == 2 && statistics?.busy == 0 && statistics?.places == 5)
        #expect(recorder.record(.array([]), for: "other") == .notSampled)
    }

    @Test func flushWritesEachChangedMethodAtomicallyAndNothingSecret() throws {
        let folder = Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let recorder = TemplateRecorder(recording: TemplateRecording(folder: folder, sampleRate: 1), isSecret: testSecrets)
        #expect(try recorder.flush() == [])
        for id in 1...3 { recorder.record(Self.user(id), for: "users.get") }
        recorder.record(.array([.object(["number": .int(7)])]), for: "issues/list-for-repo")
        #expect(recorder.record(.object([:]), for: "issues/list-for-repo") == .refused(.topLevelTypeMismatch(expected: .array, got: .object)))
        #expect(try recorder.flush() == ["issues/list-for-repo", "users.get"])
        let store = TemplateStore(directory: folder)
        #expect(try store.template(for: "users.get") == recorder.template(for: "users.get")?.json)
        #expect(try store.template(for: "issues/list-for-repo") != nil)
        let text = try String(contentsOf: folder.appendingPathComponent("users.get.json"), encoding: .utf8)
        #expect(!text.contains("pw1") && text.contains("\"password\": \"xxx\""))
        // Nothing new: nothing written; a new sample: only its method.
        #expect(try recorder.flush() == [])
        recorder.record(Self.user(4), for: "users.get")
        #expect(try recorder.flush() == ["users.get"])
        // No temporary file is left beside the templates.
        let names = try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted()
        #expect(names == ["issues", "users.get.json"])
    }

    @Test func aFolderThatCannotBeWrittenFailsTheFlushNamingTheFileAndKeepsTheSamples() throws {
        let root = Self.folder()
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: root) }
        // A regular file where the folder would be: no process can write below it, root included.
        let blocker = root.appendingPathComponent("blocker")
        try Data("x".utf8).write(to: blocker)
        let recorder = TemplateRecorder(
            recording: TemplateRecording(folder: blocker.appendingPathComponent("templates"), sampleRate: 1), isSecret: testSecrets)
        recorder.record(Self.user(1), for: "users.get")
        #expect {
            try recorder.flush()
        } throws: { error in
            let text = "\(error)"
            return text.contains(blocker.appendingPathComponent("templates/users.get.json").path) && text.contains("cannot be written")
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: root.path) == ["blocker"])
        #expect(recorder.template(for: "users.get") != nil)
    }

    /// Root writes through any mode: the test runs for other users only.
    @Test(.enabled(if: geteuid() != 0)) func aReadOnlyFolderFailsTheFlush() throws {
        let folder = Self.folder()
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer {
            try? FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: folder.path)
            try? FileManager.default.removeItem(at: folder)
        }
        try FileManager.default.setAttributes([.posixPermissions: 0o555], ofItemAtPath: folder.path)
        let recorder = TemplateRecorder(recording: TemplateRecording(folder: folder, sampleRate: 1), isSecret: testSecrets)
        recorder.record(Self.user(1), for: "users.get")
        #expect(throws: TemplateRecordingError.self) { try recorder.flush() }
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).isEmpty)
    }

    @Test func recordingFromManyTasksAtOnceNeverWaitsAndLosesNoCount() async {
        let recorder = TemplateRecorder(
            recording: TemplateRecording(folder: Self.folder(), sampleRate: 1, maximumSamplesPerMethod: .max), isSecret: testSecrets)
        await withTaskGroup(of: Void.self) { group in
            for task in 0..<8 {
                group.addTask {
                    for index in 0..<200 { recorder.record(Self.user(task * 1_000 + index), for: "users.get") }
                }
            }
        }
        let statistics = recorder.statistics(for: "users.get")
        #expect(statistics?.responses == 1_600)
        #expect((statistics?.merged ?? 0) + (statistics?.busy ?? 0) == 1_600)
        #expect((statistics?.merged ?? 0) > 0)
    }
}
