import APILayer
import DemoServer
import Foundation
import NetOps
import SampleAPI
import SampleTemplates
import Templater
import TestSupport
import Testing

/// SampleAPI's flows: expired tokens, profile screens as groups, stubs.
@Suite("SampleAPI flows", .serialized, .processGate(.shared, minutes: 5))
struct SampleAPIFlowTests {
    @Test func anExpiredTokenCostsOneRefreshForEveryCallThatHitIt() async throws {
        try await withSampleService { fixture in
            _ = try await APIManager.users()
            let refreshesBefore = fixture.coordinator.refreshCount
            let grantsBefore = fixture.tokens.snapshot.tokenRequests
            fixture.tokens.configure(mode: nil, delay: 0.2, lifetime: nil, maxUses: nil, expireAll: true)
            let pages = try await withThrowingTaskGroup(of: Int.self) { group in
                for index in 0..<12 {
                    group.addTask { try await APIManager.wall(offset: index, count: 1).items.count }
                }
                var counts: [Int] = []
                for try await count in group { counts.append(count) }
                return counts
            }
            #expect(pages == Array(repeating: 1, count: 12))
            #expect(fixture.coordinator.refreshCount == refreshesBefore + 1)
            #expect(fixture.tokens.snapshot.tokenRequests == grantsBefore + 1)
            #expect(fixture.tokens.snapshot.rejected >= 1)
            // The coordinator's lot is this API's alone: nothing is left in it.
            #expect(fixture.coordinator.parkingLot.operations.isEmpty)
        }
    }

    @Test func aProfileScreenLoadsAsOneGroup() async throws {
        try await withSampleService { fixture in
            let profile = try await APIManager.profile(of: 2, photoCount: 4, postCount: 3).run()
            #expect(profile.user.id == 2)
            #expect(profile.photos.items.count == 4 && profile.photos.count == 12)
            #expect(profile.wall.items.count == 3 && profile.wall.count == 25)
            #expect(fixture.service.callCounts["users.get"] == 1)
        }
    }

    @Test func cancellingTheProfileGroupCancelsItsRequests() async throws {
        try await withSampleService { fixture in
            _ = try await APIManager.users()
            fixture.service.latency = 30
            let group = APIManager.profile(of: 3)
            let queue = OperationQueue()
            queue.addOperation(group)
            while (fixture.service.callCounts["wall.get"] ?? 0) < 1 || (fixture.service.callCounts["photos.getAll"] ?? 0) < 1 {
                try await Task.sleep(for: .milliseconds(10))
            }
            let started = Date()
            group.cancel()
            await group.finished()
            let elapsed = Date().timeIntervalSince(started)
            #expect(group.state == .cancelled)
            #expect(elapsed < 20, "cancelled in \(elapsed) s while the server waits 30 s")
            fixture.service.latency = 0
        }
    }

    @Test func stubsAnswerEveryMethodOfflineFromItsTemplate() async throws {
        try await withSampleService { _ in
            APIManager.baseURL = URL(string: "http://127.0.0.1:1/nowhere/")
            APIManager.stubMode = .immediate
            let users = try await APIManager.users([5])
            #expect(users.first?.fullName == "Pavel Durov")
            #expect(try await APIManager.friends().items.first?.firstName == "Anna")
            #expect(try await APIManager.wall().items.first?.text == "Hello, wall!")
            #expect(try await APIManager.photos().items.first?.sizes.first?.type == "m")
            #expect(try await APIManager.wallUploadServer().albumID == -14)
            #expect(try await APIManager.postOnWall("offline") == 11)
            APIManager.stubMode = .delayed(0.2)
            let started = Date()
            let profile = try await APIManager.profile().run()
            #expect(profile.user.id == 1 && Date().timeIntervalSince(started) >= 0.2)
        }
    }

    @Test func stubsFromTheUnpackedArchiveMatchTheShippedFolder() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("sampleapi-unpacked-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let store = TemplateStore(directory: folder)
        _ = try store.unarchiveDefaultTemplates(from: SampleTemplates.archiveURL)
        try await withSampleService(templates: store) { _ in
            APIManager.stubMode = .immediate
            let fromArchive = try await APIManager.photos()
            APIManager.templates = TemplateStore(directory: SampleTemplates.directory)
            let fromFolder = try await APIManager.photos()
            #expect(fromArchive == fromFolder)
        }
    }
}
