import APILayer
import DemoServer
import Foundation
import NetOps
import SampleAPI
import SampleTemplates
import Templater
import TestSupport
import Testing
import Validator

/// SampleAPI when things go wrong: each pipeline stage fails and names itself, bad answers get
/// typed errors, and the operation always ends.
@Suite("SampleAPI failures", .serialized, .processGate(.shared, minutes: 5))
struct SampleAPIFailureTests {
    @Test func aDeletedAccountBreaksTheTemplateAtItsPointerAndRule() async throws {
        try await withSampleService { _ in
            let error = try #require(await apiError { try await APIManager.users([12, 13]) })
            #expect(error.stageName == "validation")
            guard case let .validation(errors) = error.stage else {
                Issue.record("not a validation error")
                return
            }
            let names = errors.map(\.description)
            #expect(errors.contains { $0.path == "/response/1/first_name" }, "\(names)")
            #expect(error.description.contains("lengthMustBeEqualOrGreaterThan"), "\(error)")
            #expect(error.operation?.state == .failedFinished)
        }
    }

    @Test func aServiceErrorInTheBodyIsAServerFailure() async throws {
        try await withSampleService { _ in
            let error = try #require(await apiError { try await APIManager.users([999]) })
            #expect(error.stageName == "server")
            #expect(error.description.contains("error 113: Invalid user id"), "\(error)")
        }
    }

    @Test func transportFailureOnADeadServer() async throws {
        try await withSampleService { _ in
            APIManager.baseURL = URL(string: "http://127.0.0.1:1/api/x/method/")
            let error = try #require(await apiError { try await APIManager.wall() })
            #expect(error.stageName == "transport")
            #expect(error.operation?.isFinishedOrCancelled == true)
        }
    }

    @Test func constructionFailsWithoutABaseURL() async throws {
        try await withSampleService { _ in
            APIManager.baseURL = nil
            let error = try #require(await apiError { try await APIManager.users() })
            #expect(error.stageName == "construction" && error.operation == nil)
        }
    }

    @Test func missingAndInvalidTemplatesAreTyped() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("sampleapi-templates-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        try Data(#"{"response": [ {"id": 1, "id-Rules": {"minimum": "one"}} ]}"#.utf8)
            .write(to: folder.appendingPathComponent("users.get.json"))
        try await withSampleService(templates: TemplateStore(directory: folder)) { _ in
            let invalid = try #require(await apiError { try await APIManager.users() })
            #expect(invalid.stageName == "templateInvalid", "\(invalid)")
            #expect(invalid.operation != nil)
            let missing = try #require(await apiError { try await APIManager.wall() })
            #expect(missing.stageName == "templateMissing", "\(missing)")
            #expect(missing.description.contains("wall.get"))
        }
    }

    @Test func anHTMLPageIsAParsingFailure() async throws {
        try await withSampleService { fixture in
            fixture.service.fault = .htmlPage
            let error = try #require(await apiError { try await APIManager.users() })
            #expect(error.stageName == "parsing", "\(error)")
            #expect(error.operation?.state == .failedFinished)
        }
    }

    @Test func anEmptyBodyIsAParsingFailure() async throws {
        try await withSampleService { fixture in
            fixture.service.fault = .emptyBody
            let error = try #require(await apiError { try await APIManager.photos() })
            #expect(error.stageName == "parsing", "\(error)")
        }
    }

    @Test func jsonOfTheWrongShapeFailsValidation() async throws {
        try await withSampleService { fixture in
            fixture.service.fault = .wrongShape
            let error = try #require(await apiError { try await APIManager.wall() })
            #expect(error.stageName == "validation", "\(error)")
            #expect(error.description.contains("/response/count"), "\(error)")
        }
    }

    @Test func aModelThatDoesNotFitFailsMappingWithItsCodingPath() async throws {
        try await withSampleService { _ in
            // SampleAPI's models expect snake_case keys converted; without it `firstName` is missing.
            APIManager.mapperConfiguration.keyDecodingStrategy = .useDefaultKeys
            let error = try #require(await apiError { try await APIManager.users([2]) })
            #expect(error.stageName == "mapping", "\(error)")
            #expect(error.description.contains("firstName"), "\(error)")
        }
    }

    @Test func aFailingRefreshEndsEveryWaitingCall() async throws {
        try await withSampleService { fixture in
            // The refresh fails after a second, so all six calls meet it parked: a 401 that came
            // after a failed refresh would rightly start another (under ASan, one call's 401
            // once arrived after the first refresh had already failed).
            fixture.tokens.configure(mode: .fail, delay: 1.0, lifetime: nil, maxUses: nil, expireAll: false)
            let errors = await withTaskGroup(of: APIError?.self) { group in
                for _ in 0..<6 { group.addTask { await apiError { try await APIManager.users() } } }
                var all: [APIError?] = []
                for await error in group { all.append(error) }
                return all
            }
            #expect(errors.count == 6)
            #expect(errors.allSatisfy { $0?.stageName == "transport" })
            #expect(fixture.coordinator.refreshCount == 1)
            // The coordinator's lot is this API's alone: nothing is left in it.
            #expect(fixture.coordinator.parkingLot.operations.isEmpty)
        }
    }
}
