import APILayer
import Foundation
import NetOps
import TemplateInference
import Testing
import Validator

/// A scope's recorder: made from its configuration, with the API's redaction vocabulary.
@Suite struct ScopeTemplateRecordingTests {
    @Test func theRecorderFollowsTheConfigurationAndNeverKeepsTheAPIsSecrets() throws {
        let scope = APIScope(name: "recording")
        #expect(scope.templateRecorder == nil)
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("apilayer-scope-rec-\(UUID().uuidString)")
        scope.configure {
            $0.templateRecording = TemplateRecording(folder: folder, sampleRate: 1)
            $0.redaction = Redaction(parameters: ["pin"])
        }
        let recorder = try #require(scope.templateRecorder)
        #expect(scope.templateRecorder === recorder, "one recorder while the setting stays the same")
        recorder.record(.object(["pin": .string("4711"), "access_token": .string("abc"), "name": .string("Ann")]), for: "me")
        let template = try #require(recorder.template(for: "me")).json
        #expect(JSONPointer("/pin")!.resolve(in: template) == .string("xxxx"))
        #expect(JSONPointer("/access_token")!.resolve(in: template) == .string("xxx"))
        #expect(JSONPointer("/name")!.resolve(in: template) == .string("Ann"))
        // A changed setting starts a new recorder; none at all stops recording.
        scope.configure { $0.templateRecording?.sampleRate = 0.5 }
        #expect(scope.templateRecorder !== recorder)
        scope.configure { $0.templateRecording = nil }
        #expect(scope.templateRecorder == nil)
    }
}
